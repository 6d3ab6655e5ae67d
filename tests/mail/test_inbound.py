"""Real RFC 822 messages filed as tickets: charsets, HTML, attachments, forwards, loops, broken input."""

import subprocess
import sys
from email.utils import make_msgid

from django.contrib.auth import get_user_model
from django.test import TestCase, TransactionTestCase, override_settings
from django.urls import reverse

from mail import inbound
from mail.exceptions import MailError
from mail.models import MailMessage
from tests.e2e.worker import ROOT, _environment
from tests.mail import messages
from tickets.models import Message, Ticket


def receive(raw: bytes) -> inbound.Received:
    return inbound.receive_message(raw)


class InboundTests(TestCase):
    def test_a_message_becomes_a_ticket_with_its_customer_and_raw_copy(self):
        raw = messages.plain("Здравствуйте! Где моя посылка?", subject="Посылка")
        result = receive(raw)
        self.assertEqual(result.outcome, "ticket")
        ticket = result.ticket
        self.assertEqual((ticket.channel, ticket.customer, ticket.subject), ("email", "ann@example.com", "Посылка"))
        self.assertEqual(ticket.messages.get().body, "Здравствуйте! Где моя посылка?")
        with result.mail.raw.open("rb") as handle:
            self.assertEqual(handle.read(), raw)

    def test_koi8_r_and_windows_1251_are_decoded(self):
        for charset, encoding in [("koi8-r", "8bit"), ("windows-1251", "quoted-printable"), ("koi8-r", "base64")]:
            with self.subTest(charset=charset, encoding=encoding):
                body = "Не работает оплата картой, ошибка 502. Помогите, пожалуйста."
                raw = messages.legacy_charset(body, "Ошибка оплаты", charset, encoding) if encoding != "base64" \
                    else self._base64(body, charset)
                ticket = receive(raw).ticket
                self.assertEqual(ticket.subject, "Ошибка оплаты")
                self.assertEqual(ticket.messages.get().body, body)

    def _base64(self, body: str, charset: str) -> bytes:
        import base64

        return (f"From: ivan@example.ru\r\nSubject: =?{charset}?B?"
                f"{base64.b64encode('Ошибка оплаты'.encode(charset)).decode()}?=\r\n"
                f"Message-ID: {make_msgid()}\r\nContent-Type: text/plain; charset=\"{charset}\"\r\n"
                f"Content-Transfer-Encoding: base64\r\n\r\n").encode() + base64.encodebytes(body.encode(charset))

    def test_an_html_only_message_is_read_as_text(self):
        html = ("<html><body><p>Hello,</p><p>the <b>export</b> button does nothing.</p><script>x()</script>"
                "</body></html>")
        body = receive(messages.html_only(html)).ticket.messages.get().body
        self.assertEqual(body, "Hello,\nthe export button does nothing.")

    def test_attachments_are_kept_and_the_html_alternative_is_not_one(self):
        pdf = b"%PDF-1.4\n" + bytes(range(256)) * 40
        result = receive(messages.with_attachments("See the invoice.", [
            ("invoice.pdf", "application/pdf", pdf), ("../../etc/passwd", "text/plain", b"root:x"),
            ("photo.png", "image/png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 500)]))
        self.assertEqual(result.ticket.messages.get().body, "See the invoice.")
        kept = {a.filename: a for a in result.mail.attachments.all()}
        self.assertEqual(set(kept), {"invoice.pdf", "passwd", "photo.png"})
        self.assertEqual(kept["invoice.pdf"].size, len(pdf))
        with kept["invoice.pdf"].file.open("rb") as handle:
            self.assertEqual(handle.read(), pdf)
        self.assertNotIn("..", kept["passwd"].file.name)

    def test_a_forwarded_chain_keeps_the_note_and_the_forwarded_message(self):
        inner = messages.plain("The original complaint: the parcel arrived broken.", subject="Broken")
        result = receive(messages.forwarded("Forwarding a customer's complaint, please help.", inner))
        self.assertEqual(result.ticket.messages.get().body, "Forwarding a customer's complaint, please help.")
        [attachment] = result.mail.attachments.all()
        self.assertEqual(attachment.content_type, "message/rfc822")
        with attachment.file.open("rb") as handle:
            self.assertIn(b"the parcel arrived broken", handle.read())

    def test_a_follow_up_lands_in_the_same_ticket_by_in_reply_to_or_references(self):
        first = receive(messages.plain("Where is my parcel?"))
        second = receive(messages.plain("Any news?", subject="Re: Parcel", In_Reply_To=first.mail.message_id))
        third = receive(messages.plain("Hello?", subject="Re: Parcel",
                                       References=f"<x@elsewhere> {first.mail.message_id}"))
        self.assertEqual((second.outcome, third.outcome), ("follow_up", "follow_up"))
        self.assertEqual({second.ticket.pk, third.ticket.pk}, {first.ticket.pk})
        self.assertEqual(Ticket.objects.count(), 1)
        self.assertEqual(list(first.ticket.messages.order_by("pk").values_list("body", flat=True)),
                         ["Where is my parcel?", "Any news?", "Hello?"])

    def test_a_follow_up_to_a_closed_ticket_reopens_it_for_review(self):
        first = receive(messages.plain("Where is my parcel?"))
        first.ticket.close(Ticket.Status.ANSWERED)
        receive(messages.plain("It still has not come.", In_Reply_To=first.mail.message_id))
        first.ticket.refresh_from_db()
        self.assertEqual((first.ticket.status, first.ticket.closed_at), ("review", None))

    def test_the_same_message_twice_is_one_ticket(self):
        raw = messages.plain("Where is my parcel?")
        self.assertEqual(receive(raw).outcome, "ticket")
        again = receive(raw)
        self.assertEqual(again.outcome, "duplicate")
        self.assertEqual((Ticket.objects.count(), MailMessage.objects.count()), (1, 1))
        no_id = messages.plain("no id").replace(b"Message-ID:", b"X-Old-Id:")
        self.assertEqual([receive(no_id).outcome, receive(no_id).outcome], ["ticket", "duplicate"])

    def test_auto_replies_and_bounces_never_become_tickets(self):
        cases = [
            messages.plain("I am out of office until Monday.", Auto_Submitted="auto-replied"),
            messages.plain("Autoreply", X_Autoreply="yes"),
            messages.plain("Newsletter", Precedence="bulk"),
            messages.plain("Returned", Return_Path="<>"),
            messages.plain("Undeliverable", sender="MAILER-DAEMON@mx.example.com"),
            messages.plain("Echo", sender="Support <support@localhost>"),
            messages.bounce(make_msgid()),
        ]
        for raw in cases:
            with self.subTest(raw[:80]):
                result = receive(raw)
                self.assertEqual(result.outcome, "ignored")
                self.assertTrue(result.reason)
        self.assertFalse(Ticket.objects.exists())
        self.assertEqual(MailMessage.objects.filter(status="ignored").count(), len(cases))

    def test_why_a_message_was_ignored_reads_in_the_admins_language(self):
        receive(messages.plain("Returned", Return_Path="<>"))
        receive(messages.plain("Undeliverable", sender="MAILER-DAEMON@mx.example.com"))
        self.assertEqual(set(MailMessage.objects.values_list("reason", flat=True)),
                         {"sent from the null sender (a bounce)", "sent by MAILER-DAEMON@mx.example.com"})
        self.client.force_login(get_user_model().objects.create_superuser("root", password="pw"))
        self.client.cookies["django_language"] = "ru"
        page = self.client.get(reverse("admin:mail_mailmessage_changelist")).content.decode()
        self.assertIn("отправлено с пустого адреса отправителя", page)
        self.assertIn("отправлено с адреса MAILER-DAEMON@mx.example.com", page)
        self.assertNotIn("null sender", page)

    def test_an_auto_reply_to_a_ticket_thread_is_not_a_follow_up(self):
        first = receive(messages.plain("Where is my parcel?"))
        out_of_office = messages.plain("Out of office", Auto_Submitted="auto-replied",
                                       In_Reply_To=first.mail.message_id)
        self.assertEqual(receive(out_of_office).outcome, "ignored")
        self.assertEqual(first.ticket.messages.count(), 1)

    def test_a_message_without_from_is_refused_and_nothing_is_stored(self):
        raw = messages.plain("anonymous").replace(b"From: Ann <ann@example.com>\n", b"")
        self.assertNotIn(b"From:", raw)
        with self.assertRaisesRegex(MailError, "no usable From"):
            receive(raw)
        with self.assertRaisesRegex(MailError, "no usable From"):
            receive(messages.plain("x", sender="not an address"))
        self.assertFalse(MailMessage.objects.exists())

    def test_header_injection_in_the_subject_stays_one_line(self):
        raw = (b"From: eve@example.com\r\nMessage-ID: <inj@example.com>\r\n"
               b"Subject: =?utf-8?q?Hello=0D=0ABcc:_victim@example.net=0D=0A=0D=0Abody?=\r\n"
               b"Content-Type: text/plain\r\n\r\nhi\r\n")
        ticket = receive(raw).ticket
        self.assertEqual(ticket.subject, "Hello Bcc: victim@example.net body")
        self.assertNotIn("\n", ticket.subject)

    def test_broken_mime_still_makes_a_ticket(self):
        raws = [
            # A multipart without its closing boundary and with undecodable base64.
            (b"From: x@example.com\r\nMessage-ID: <b1@example.com>\r\nSubject: broken\r\n"
             b"Content-Type: multipart/mixed; boundary=\"XYZ\"\r\n\r\n--XYZ\r\nContent-Type: text/plain\r\n\r\n"
             b"The first part survives.\r\n--XYZ\r\nContent-Type: application/pdf; name=a.pdf\r\n"
             b"Content-Transfer-Encoding: base64\r\n\r\n!!!not base64!!!\r\n"),
            # An unknown charset and a NUL byte.
            (b"From: y@example.com\r\nMessage-ID: <b2@example.com>\r\nSubject: charset\r\n"
             b"Content-Type: text/plain; charset=x-unknown-42\r\n\r\nplain words\x00 and \xff bytes\r\n"),
            # A multipart with no boundary parameter at all.
            (b"From: z@example.com\r\nMessage-ID: <b3@example.com>\r\nSubject: no boundary\r\n"
             b"Content-Type: multipart/mixed\r\n\r\nsome text\r\n"),
        ]
        for raw in raws:
            with self.subTest(raw[:60]):
                result = receive(raw)
                self.assertEqual(result.outcome, "ticket")
                self.assertTrue(result.ticket.messages.get().body)
        self.assertIn("The first part survives.", Message.objects.get(ticket__subject="broken").body)
        self.assertIn("plain words and", Message.objects.get(ticket__subject="charset").body)

    def test_a_20_mb_attachment_is_kept(self):
        data = bytes(range(256)) * (20 * 1024 * 1024 // 256)
        result = receive(messages.with_attachments("Logs attached.", [("logs.bin", "application/octet-stream", data)]))
        [attachment] = result.mail.attachments.all()
        self.assertEqual(attachment.size, 20 * 1024 * 1024)

    @override_settings(MAIL={**inbound.settings.MAIL, "MAX_ATTACHMENT_BYTES": 1024 * 1024,
                             "MAX_MESSAGE_BYTES": 3 * 1024 * 1024})
    def test_attachments_and_messages_over_the_limits_are_refused_clearly(self):
        big = b"x" * (2 * 1024 * 1024)
        result = receive(messages.with_attachments("Big file.", [("big.bin", "application/octet-stream", big),
                                                                  ("small.txt", "text/plain", b"ok")]))
        self.assertEqual([a.filename for a in result.mail.attachments.all()], ["small.txt"])
        self.assertIn("big.bin (2,097,152 bytes) was not kept", result.ticket.messages.get().body)
        with self.assertRaisesRegex(MailError, "the limit is 3,145,728"):
            receive(messages.with_attachments("Huge.", [("huge.bin", "application/octet-stream", big * 2)]))
        self.assertEqual(Ticket.objects.count(), 1)


class ReceiveEmailCommandTests(TransactionTestCase):
    def run_command(self, raw: bytes) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "manage.py", "receive_email"], cwd=ROOT, input=raw,
                              env=_environment({}), capture_output=True, timeout=120)

    def test_it_files_a_message_piped_on_stdin(self):
        done = self.run_command(messages.plain("Привет, не приходит письмо для сброса пароля.", subject="Пароль"))
        self.assertEqual(done.returncode, 0, done.stderr)
        ticket = Ticket.objects.get()
        self.assertEqual(done.stdout.decode().strip(), f"filed as ticket #{ticket.pk}")
        self.assertEqual(ticket.subject, "Пароль")

    def test_it_exits_65_for_a_message_it_refuses(self):
        done = self.run_command(b"Subject: no sender\r\n\r\nhello\r\n")
        self.assertEqual(done.returncode, 65)
        self.assertIn(b"no usable From", done.stderr)
        self.assertFalse(Ticket.objects.exists())
