"""A follow-up keeps what the customer wrote, not the thread their mail client quoted under it."""

from django.test import SimpleTestCase, TestCase

from mail import inbound
from mail.quoted import QUOTE_MAX_CHARS, is_attribution, new_text, quote
from tests.mail import messages
from tickets.models import Message

OUR_REPLY = "Hello,\n\nIt left the warehouse today.\n\nBest regards,\nThe support team"
QUOTED = "\n".join(f"> {line}" if line else ">" for line in OUR_REPLY.split("\n"))
NEW_EN = "Thanks, but it is not here yet.\nCan you check the tracking number?"
NEW_RU = "Спасибо, но посылки до сих пор нет.\nПроверьте, пожалуйста, номер отслеживания."

# (client, the follow-up as that client writes it, what the customer wrote)
CLIENTS = [
    ("Gmail, English",
     f"{NEW_EN}\n\nOn Thu, 3 Dec 2026 at 10:00, Help desk <help@portal.example> wrote:\n\n{QUOTED}\n", NEW_EN),
    ("Gmail, the attribution wrapped", f"{NEW_EN}\n\nOn Thu, 3 Dec 2026 at 10:00, Help desk <\nhelp@portal.example> "
     f"wrote:\n\n{QUOTED}", NEW_EN),
    ("Gmail, Russian",
     f"{NEW_RU}\n\nчт, 3 дек. 2026 г. в 10:00, Help desk <help@portal.example>:\n\n{QUOTED}", NEW_RU),
    ("Thunderbird, Russian", f"{NEW_RU}\n\n03.12.2026 10:00, Help desk пишет:\n{QUOTED}", NEW_RU),
    ("Thunderbird, English", f"{NEW_EN}\n\nOn 03.12.2026 10:00, Help desk wrote:\n{QUOTED}", NEW_EN),
    ("Apple Mail, Russian", f"{NEW_RU}\n\n3 дек. 2026 г., в 10:00, Help desk <help@portal.example> написал(а):\n\n"
     f"{QUOTED}", NEW_RU),
    ("Yandex", f"{NEW_RU}\n\n03.12.2026, 10:00, \"Help desk\" <help@portal.example>:\n{QUOTED}", NEW_RU),
    ("Mail.ru", f"{NEW_RU}\n\n\nЧетверг, 3 декабря 2026, 10:00 +03:00 от Help desk <help@portal.example>:\n{QUOTED}",
     NEW_RU),
    ("Outlook, English", f"{NEW_EN}\n\n________________________________\nFrom: Help desk <help@portal.example>\n"
     f"Sent: Thursday, December 3, 2026 10:00 AM\nTo: Ann <ann@example.com>\nSubject: Re: Parcel\n\n{OUR_REPLY}",
     NEW_EN),
    ("Outlook, Russian", f"{NEW_RU}\n\nОт: Help desk <help@portal.example>\nОтправлено: 3 декабря 2026 г. 10:00\n"
     f"Кому: Анна <anna@example.ru>\nТема: Re: Посылка\n\n{OUR_REPLY}", NEW_RU),
    ("Original Message separator", f"{NEW_EN}\n\n-----Original Message-----\nFrom: help@portal.example\n{OUR_REPLY}",
     NEW_EN),
    ("Исходное сообщение", f"{NEW_RU}\n\n-------- Исходное сообщение --------\n{OUR_REPLY}", NEW_RU),
    ("quotes without an attribution", f"{NEW_EN}\n\n{QUOTED}\n\n", NEW_EN),
]


class NewTextTests(SimpleTestCase):
    def test_each_clients_quoted_thread_is_left_out(self):
        for client, body, expected in CLIENTS:
            with self.subTest(client):
                self.assertEqual(new_text(body), expected)

    def test_answers_written_between_the_quotes_stay(self):
        body = f"> Which size do you need?\nM, please.\n> And the colour?\nBlue.\n\n{QUOTED}"
        self.assertEqual(new_text(body), "> Which size do you need?\nM, please.\n> And the colour?\nBlue.")

    def test_a_message_that_is_all_quote_is_kept_whole(self):
        body = f"On Thu, 3 Dec 2026 at 10:00, Help desk <help@portal.example> wrote:\n{QUOTED}"
        self.assertEqual(new_text(body), body)

    def test_a_customers_own_words_are_never_taken_for_an_attribution(self):
        for text in ("In 2024 your colleague wrote:", "On Monday John wrote:", "My order 12345 from 03.12:",
                     "Details below:", "Call me at 10:30 on 2026-12-04"):
            with self.subTest(text):
                self.assertFalse(is_attribution(text))
                body = f"{text}\nthe refund never came.\n\nRegards, Ann"
                self.assertEqual(new_text(body), body)

    def test_a_forwarded_message_is_content(self):
        body = f"{NEW_EN}\n\n---------- Forwarded message ---------\nFrom: Shop <shop@example.com>\nDate: Thu, 3 Dec" \
               " 2026\n\nYour order has shipped."
        self.assertEqual(new_text(body), body)


class QuoteTests(SimpleTestCase):
    def test_a_quoted_message_is_read_back_as_history(self):
        attribution = "On 2026-12-03 10:00 UTC, Ann <ann@example.com> wrote:"
        quoted = quote("Where is my parcel?\n\nAnn", attribution)
        self.assertEqual(quoted, f"{attribution}\n> Where is my parcel?\n>\n> Ann")
        self.assertEqual(new_text(f"It is here, thanks.\n\n{quoted}"), "It is here, thanks.")

    def test_a_long_message_is_quoted_up_to_a_line_and_marked_cut(self):
        line = "A line of a long message about the order. " * 2
        quoted = quote("\n".join([line] * 1000), "On 2026-12-03 10:00 UTC, ann@example.com wrote:")
        self.assertLessEqual(len(quoted), QUOTE_MAX_CHARS + 2 * 250 + 100)
        self.assertTrue(quoted.endswith(f"> {line.rstrip()}\n> […]"))


class FollowUpTests(TestCase):
    def test_a_follow_up_keeps_the_new_text_and_the_raw_mail_keeps_everything(self):
        first = inbound.receive_message(messages.plain("Where is my parcel?", subject="Parcel"))
        body = f"{NEW_EN}\n\nOn Thu, 3 Dec 2026 at 10:00, Help desk <help@portal.example> wrote:\n\n{QUOTED}\n"
        follow_up = inbound.receive_message(messages.plain(body, subject="Re: Parcel",
                                                           In_Reply_To=first.mail.message_id))
        self.assertEqual((follow_up.outcome, follow_up.ticket), ("follow_up", first.ticket))
        self.assertEqual(follow_up.mail.ticket_message.body, NEW_EN)
        self.assertEqual(first.ticket.customer_text(), f"Where is my parcel?\n\n{NEW_EN}")
        self.assertIn(b"It left the warehouse today.", follow_up.mail.raw.read())

    def test_a_new_ticket_keeps_what_it_quotes(self):
        # Quoting a thread the portal never saw: the quote is the customer's context, not our history.
        body = f"{NEW_EN}\n\nOn Thu, 3 Dec 2026 at 10:00, Shop <shop@example.com> wrote:\n> Your order has shipped."
        received = inbound.receive_message(messages.plain(body, subject="Fwd"))
        self.assertEqual(received.ticket.messages.get(kind=Message.Kind.CUSTOMER).body, body)
