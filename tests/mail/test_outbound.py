"""Replies to e-mailed tickets sent by SMTP to a real aiosmtpd server on 127.0.0.1, threaded and loop-safe."""

import smtplib
from datetime import timedelta
from html import unescape

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import DEFAULT_DB_ALIAS, connections
from django.test import TestCase, override_settings
from django.urls import reverse
from django.utils import timezone

from mail import inbound, outbound
from mail.models import MailMessage
from mail.quoted import is_attribution
from tests.api.base import make_key, make_user
from tests.mail import messages
from tests.stubs.smtp_server import SmtpServer
from tests.tickets.helpers import make_help_centre
from tickets import inbox, triage
from tickets.groups import SUPPORT_STAFF
from tickets.models import Message, Ticket
from webhooks.delivery import create_endpoint
from webhooks.models import Delivery

MAIL = {**inbound.settings.MAIL, "FROM": "Help desk <help@portal.example>", "DOMAIN": "portal.example"}


@override_settings(MAIL=MAIL)
class SmtpTestCase(TestCase):
    """A real SMTP server on 127.0.0.1, mail received with `receive` and staff replies sent with `send`."""

    def setUp(self):
        self.smtp = SmtpServer().start()
        self.addCleanup(self.smtp.stop)
        override = override_settings(**self.smtp.settings())
        override.enable()
        self.addCleanup(override.disable)
        self.staff = make_user("staff")

    def receive(self, raw: bytes, *, run_triage: bool = False) -> inbound.Received:
        with self.captureOnCommitCallbacks(execute=run_triage):
            return inbound.receive_message(raw)

    def send(self, ticket: Ticket, text: str) -> Message:
        with self.captureOnCommitCallbacks(execute=True):
            return inbox.send_reply(ticket, user=self.staff, text=text)


class OutboundTests(SmtpTestCase):

    def test_staff_send_is_mailed_under_the_customers_thread(self):
        first = self.receive(messages.plain("Where is my parcel?", subject="Parcel",
                                            References="<older@example.com>"))
        self.send(first.ticket, "It left the warehouse today.")
        [(recipients, sent)] = self.smtp.messages
        self.assertEqual(recipients, ["ann@example.com"])
        self.assertEqual((sent["To"], sent["From"], sent["Subject"]),
                         ("ann@example.com", "Help desk <help@portal.example>", "Re: Parcel"))
        self.assertEqual(sent["In-Reply-To"], first.mail.message_id)
        self.assertEqual(sent["References"].split(), ["<older@example.com>", first.mail.message_id])
        self.assertTrue(sent["Message-ID"].endswith("@portal.example>"))
        self.assertIsNone(sent["Auto-Submitted"])
        # The reply inside the default e-mail template of the customer's language (tickets.replies),
        # and the customer's message quoted under it as mail clients quote.
        asked = timezone.localtime(first.mail.created_at).strftime("%Y-%m-%d %H:%M %Z")
        sent_text = sent.get_content().replace("\r\n", "\n").strip()
        self.assertEqual(sent_text, "Hello,\n\nIt left the warehouse today.\n\nBest regards,\nThe support team\n\n"
                                    f"On {asked}, Ann <ann@example.com> wrote:\n> Where is my parcel?")
        row = MailMessage.objects.get(direction="out")
        self.assertEqual((row.status, row.message_id, row.ticket), ("sent", sent["Message-ID"], first.ticket))

        # The customer answers our reply, their client quoting it: the same ticket, reopened for
        # staff, with what they wrote this time (our reply and their first message are on it already).
        quoted = "\n".join(f"> {line}" for line in sent_text.split("\n"))
        answer = self.receive(messages.plain(
            f"Thanks, but it is not here.\n\nOn Thu, 3 Dec 2026 at 10:00, Help desk <help@portal.example> wrote:\n"
            f"{quoted}\n", subject="Re: Re: Parcel", In_Reply_To=sent["Message-ID"]))
        self.assertEqual((answer.outcome, answer.ticket), ("follow_up", first.ticket))
        self.assertEqual(Ticket.objects.get().status, "review")
        self.assertEqual(answer.mail.ticket_message.body, "Thanks, but it is not here.")

    def test_the_quoted_message_is_introduced_in_the_customers_language(self):
        ticket = self.receive(messages.plain("Здравствуйте! Где моя посылка? Заказ оформлен неделю назад.",
                                             subject="Посылка", sender="Иван <ivan@example.ru>")).ticket
        self.send(ticket, "Посылка передана в доставку сегодня.")
        [(_, sent)] = self.smtp.messages
        text = sent.get_content().replace("\r\n", "\n")
        attribution = next(line for line in text.split("\n") if line.endswith("написал(а):"))
        self.assertIn("Иван <ivan@example.ru>", attribution)
        self.assertTrue(is_attribution(attribution))  # the customer's answer to it is read back without it
        self.assertTrue(text.rstrip().endswith(f"{attribution}\n> Здравствуйте! Где моя посылка? Заказ оформлен "
                                               "неделю назад."))

    def test_an_auto_reply_is_marked_and_an_out_of_office_answer_does_not_loop(self):
        make_help_centre()
        ticket = self.receive(messages.plain("How long does standard delivery take?", subject="Delivery"),
                              run_triage=True).ticket
        ticket.refresh_from_db()
        self.assertEqual(ticket.status, Ticket.Status.AUTO_REPLIED)
        [(_, sent)] = self.smtp.messages
        self.assertEqual(sent["Auto-Submitted"], "auto-replied")
        self.assertIn("three to five working days", sent.get_content())
        out_of_office = messages.plain("I am away until Monday.", subject="Auto: Re: Delivery",
                                       Auto_Submitted="auto-replied", In_Reply_To=sent["Message-ID"])
        self.assertEqual(self.receive(out_of_office, run_triage=True).outcome, "ignored")
        self.assertEqual((Ticket.objects.count(), len(self.smtp.messages)), (1, 1))
        self.assertEqual(ticket.messages.filter(kind="customer").count(), 1)

    def test_an_e_mailed_reply_carries_no_marker_the_customer_cannot_follow(self):
        make_help_centre()
        ticket = self.receive(messages.plain("How long does standard delivery take?", subject="Delivery"),
                              run_triage=True).ticket
        reply = ticket.messages.get(kind=Message.Kind.REPLY)
        self.assertTrue(reply.body.endswith("before noon. [1]"))  # staff and the API keep the draft's markers
        [(_, sent)] = self.smtp.messages
        text = sent.get_content()
        self.assertIn("Standard delivery takes three to five working days.", text)
        self.assertIn("when the order is placed before noon.\n", text.replace("\r\n", "\n"))
        self.assertNotIn("[1]", text)
        self.assertNotIn("https://help.example", text)  # this agent does not link its sources

    def test_an_agent_that_links_its_sources_lists_the_web_pages_cited(self):
        make_help_centre(reply_links=True)
        ticket = self.receive(messages.plain("How long does standard delivery take?", subject="Delivery"),
                              run_triage=True).ticket
        [(_, sent)] = self.smtp.messages
        cited = ticket.sources.get(cited=True)
        text = sent.get_content().replace("\r\n", "\n")
        self.assertIn("before noon. [1]\n\n", text)
        self.assertIn(f"Sources:\n[1] {cited.document_title}: https://help.example/delivery\n", text)

    def test_a_subject_with_injected_headers_cannot_add_recipients(self):
        raw = (b"From: eve@example.com\r\nMessage-ID: <inj@example.com>\r\n"
               b"Subject: =?utf-8?q?Hi=0D=0ABcc:_victim@example.net?=\r\nContent-Type: text/plain\r\n\r\nhi\r\n")
        ticket = self.receive(raw).ticket
        self.send(ticket, "Hello.")
        [(recipients, sent)] = self.smtp.messages
        self.assertEqual(recipients, ["eve@example.com"])
        self.assertIsNone(sent["Bcc"])
        self.assertEqual(sent["Subject"], "Re: Hi Bcc: victim@example.net")

    def test_a_reply_to_a_ticket_that_did_not_come_by_mail_sends_nothing(self):
        with self.captureOnCommitCallbacks(execute=False):
            ticket = triage.submit_ticket(body="From the web form", channel=Ticket.Channel.EMAIL)
        self.send(ticket, "Answered.")
        self.assertEqual(self.smtp.messages, [])

    @override_settings(MAIL={**MAIL, "RETRIES": 0})
    def test_an_smtp_failure_is_recorded_and_the_retry_sends_once(self):
        ticket = self.receive(messages.plain("Where is my parcel?")).ticket
        self.smtp.stop()
        with self.assertRaises(OSError):
            self.send(ticket, "On its way.")
        reply = Message.objects.get(kind="reply")
        row = MailMessage.objects.get(direction="out")
        self.assertEqual(row.status, "failed")
        self.assertTrue(row.reason)
        self.smtp.start()
        outbound.send_reply(reply.pk)  # what the worker's retry runs
        outbound.send_reply(reply.pk)  # a redelivered task: already sent
        self.assertEqual(len(self.smtp.messages), 1)
        row.refresh_from_db()
        self.assertEqual((row.status, MailMessage.objects.filter(direction="out").count()), ("sent", 1))

    @override_settings(MAIL={**MAIL, "RETRIES": 0})
    def test_a_failed_e_mail_shows_on_the_ticket_and_in_the_api_and_staff_send_it_again(self):
        ticket = self.receive(messages.plain("Where is my parcel?")).ticket
        self.smtp.stop()
        with self.assertRaises(OSError):
            self.send(ticket, "On its way.")
        reply = Message.objects.get(kind="reply")
        reason = MailMessage.objects.get(direction="out").reason
        self.assertEqual((reply.delivery, reply.delivery_error), (Message.Delivery.FAILED, reason))
        self.assertTrue(reason)
        self.staff.is_staff = True
        self.staff.save()
        self.staff.groups.add(Group.objects.get(name=SUPPORT_STAFF))
        self.client.force_login(self.staff)
        page = unescape(self.client.get(reverse("admin:tickets_ticket_change", args=[ticket.pk])).content.decode())
        self.assertIn(f"The customer did not get this reply: the e-mail failed ({reason}).", page)
        self.assertIn("E-mail failed", page)
        resend = reverse("admin:tickets_ticket_resend", args=[ticket.pk, reply.pk])
        self.assertIn(f'action="{resend}"', page)
        inbox_page = self.client.get(reverse("admin:tickets_ticket_changelist") + "?email=failed")
        self.assertEqual(list(inbox_page.context["cl"].result_list), [ticket])
        self.assertIn('<span class="tk-badge tk-error">Reply not delivered</span>', inbox_page.content.decode())
        _, token = make_key()
        body = self.client.get(f"/api/v1/tickets/{ticket.pk}", headers={"Authorization": f"Bearer {token}"}).json()
        [api_reply] = [message for message in body["messages"] if message["kind"] == "reply"]
        self.assertEqual((api_reply["delivery"], api_reply["delivery_error"]), ("failed", reason))

        self.smtp.start()
        with self.captureOnCommitCallbacks(execute=True):
            self.client.post(resend)
        self.client.post(resend)  # pressed twice: it did not fail, nothing to send again
        self.assertEqual(len(self.smtp.messages), 1)
        reply.refresh_from_db()
        self.assertEqual((reply.delivery, reply.delivery_error), (Message.Delivery.SENT, ""))
        page = self.client.get(reverse("admin:tickets_ticket_change", args=[ticket.pk])).content.decode()
        self.assertNotIn("The customer did not get this reply", page)
        self.assertIn('<span class="tk-badge tk-ok">E-mailed</span>', page)

    def test_a_server_that_cannot_take_it_for_now_gets_it_again_later(self):
        ticket = self.receive(messages.plain("Where is my parcel?")).ticket
        self.smtp.stop()
        before = timezone.now()
        reply = self.send(ticket, "On its way.")  # no error: the reply waits for its next attempt
        row = MailMessage.objects.get(direction="out")
        self.assertEqual((row.status, row.attempts), ("retrying", 1))
        self.assertAlmostEqual((row.next_attempt_at - before).total_seconds(), 60, delta=5)
        reply.refresh_from_db()
        self.assertEqual((reply.delivery, reply.delivery_error), (Message.Delivery.PENDING, row.reason))
        self.assertIn("ConnectionRefusedError", row.reason)
        self.staff.is_staff = True
        self.staff.save()
        self.staff.groups.add(Group.objects.get(name=SUPPORT_STAFF))
        self.client.force_login(self.staff)
        page = unescape(self.client.get(reverse("admin:tickets_ticket_change", args=[ticket.pk])).content.decode())
        self.assertIn(f"The e-mail could not be sent yet ({row.reason}); it is sent again automatically.", page)
        self.assertNotIn("Send the e-mail again", page)

        self.assertEqual(outbound.send_due(), 0)  # not due yet
        self.smtp.start()
        MailMessage.objects.filter(pk=row.pk).update(next_attempt_at=timezone.now() - timedelta(seconds=1))
        with self.captureOnCommitCallbacks(execute=True):
            self.assertEqual(outbound.send_due(), 1)
        self.assertEqual(outbound.send_due(), 0)  # queued once
        self.assertEqual(len(self.smtp.messages), 1)
        row.refresh_from_db()
        reply.refresh_from_db()
        self.assertEqual((row.status, row.next_attempt_at, reply.delivery, reply.delivery_error),
                         ("sent", None, Message.Delivery.SENT, ""))

    def test_a_reply_whose_task_was_lost_is_queued_again_once_and_sent_once(self):
        ticket = self.receive(messages.plain("Where is my parcel?")).ticket
        # The commit happened, queueing the task did not (the broker was down, the worker died).
        with self.captureOnCommitCallbacks(execute=False):
            reply = inbox.send_reply(ticket, user=self.staff, text="On its way.")
        reply.refresh_from_db()
        self.assertEqual(reply.delivery, Message.Delivery.PENDING)
        self.assertFalse(MailMessage.objects.filter(direction="out").exists())
        self.assertEqual(outbound.send_due(), 0)  # within its grace period the task may still come
        Message.objects.filter(pk=reply.pk).update(delivery_queued_at=timezone.now() - timedelta(seconds=301))
        with self.captureOnCommitCallbacks(execute=False) as queued:
            self.assertEqual(outbound.send_due(), 1)
            self.assertEqual(outbound.send_due(), 0)  # another sweep at once: queued by one of them
        self.assertEqual(len(queued), 1)
        queued[0]()  # the worker runs the task
        outbound.send_reply(reply.pk)  # the first task, come late after all
        self.assertEqual(len(self.smtp.messages), 1)
        reply.refresh_from_db()
        self.assertEqual((reply.delivery, MailMessage.objects.get(direction="out").status),
                         (Message.Delivery.SENT, "sent"))
        Message.objects.filter(pk=reply.pk).update(delivery_queued_at=timezone.now() - timedelta(seconds=301))
        self.assertEqual(outbound.send_due(), 0)  # sent: nothing left to queue

    def test_a_retry_whose_task_was_lost_is_queued_again(self):
        ticket = self.receive(messages.plain("Where is my parcel?")).ticket
        self.smtp.handler.answers = ["451 4.3.0 Try again later"]
        reply = self.send(ticket, "On its way.")
        row = MailMessage.objects.get(direction="out")
        self.assertEqual(row.status, "retrying")
        # Long waited (the back-off outlasts the grace period): a retry is queued when due, not as lost.
        Message.objects.filter(pk=reply.pk).update(delivery_queued_at=timezone.now() - timedelta(seconds=301))
        self.assertEqual(outbound.send_due(), 0)
        MailMessage.objects.filter(pk=row.pk).update(next_attempt_at=timezone.now() - timedelta(seconds=1))
        with self.captureOnCommitCallbacks(execute=False):  # the retry's task is lost
            self.assertEqual(outbound.send_due(), 1)
        self.assertEqual(outbound.send_due(), 0)  # just queued: it may still come
        row.refresh_from_db()
        self.assertEqual(row.status, "pending")
        Message.objects.filter(pk=reply.pk).update(delivery_queued_at=timezone.now() - timedelta(seconds=301))
        with self.captureOnCommitCallbacks(execute=True):
            self.assertEqual(outbound.send_due(), 1)
        row.refresh_from_db()
        reply.refresh_from_db()
        self.assertEqual((row.status, reply.delivery, len(self.smtp.messages)), ("sent", Message.Delivery.SENT, 1))

    @override_settings(MAIL={**MAIL, "RETRIES": 2, "RETRY_SECONDS": 30})
    def test_a_4xx_answer_is_tried_again_twice_as_late_until_the_last_retry_fails_it(self):
        ticket = self.receive(messages.plain("Where is my parcel?")).ticket
        self.smtp.handler.answers = ["451 4.3.0 Try again later"] * 3
        reply = self.send(ticket, "On its way.")
        row = MailMessage.objects.get(direction="out")
        waits = []
        for attempt in (2, 3):
            row.refresh_from_db()
            self.assertEqual(row.status, "retrying")
            waits.append(round((row.next_attempt_at - timezone.now()).total_seconds() / 30))
            MailMessage.objects.filter(pk=row.pk).update(next_attempt_at=timezone.now())
            try:
                with self.captureOnCommitCallbacks(execute=True):
                    outbound.send_due()
            except smtplib.SMTPDataError:
                self.assertEqual(attempt, 3)  # the last retry fails it, as a failed task
        self.assertEqual(waits, [1, 2])
        row.refresh_from_db()
        reply.refresh_from_db()
        self.assertEqual((row.status, row.attempts, reply.delivery), ("failed", 3, Message.Delivery.FAILED))
        self.assertIn("451", reply.delivery_error)
        self.assertEqual(self.smtp.messages, [])

    @override_settings(WEBHOOKS={**settings.WEBHOOKS, "ALLOWED_HOSTS": ["127.0.0.1"]})
    def test_a_5xx_answer_fails_at_once_and_integrators_hear_of_it(self):
        create_endpoint(name="CRM", url="http://127.0.0.1:9/hooks", events=["ticket.reply_undelivered"])
        ticket = self.receive(messages.plain("Where is my parcel?")).ticket
        self.smtp.handler.answers = ["550 5.1.1 No such mailbox"]
        with self.assertRaises(smtplib.SMTPDataError):
            self.send(ticket, "On its way.")
        row = MailMessage.objects.get(direction="out")
        self.assertEqual((row.status, row.attempts, row.next_attempt_at), ("failed", 1, None))
        self.assertEqual(outbound.send_due(), 0)
        # The event, queued for the endpoint (its sending is the webhooks tests').
        event = Delivery.objects.get().payload
        reply = Message.objects.get(kind="reply")
        self.assertEqual((event["type"], event["data"]["ticket"]["id"], event["data"]["reply"]["id"]),
                         ("ticket.reply_undelivered", ticket.pk, reply.pk))
        self.assertIn("550", event["data"]["reply"]["delivery_error"])

    def test_a_reply_another_worker_is_sending_is_not_sent_twice(self):
        ticket = self.receive(messages.plain("Where is my parcel?")).ticket
        with self.captureOnCommitCallbacks(execute=False):
            reply = inbox.send_reply(ticket, user=self.staff, text="On its way.")
        other = connections.create_connection(DEFAULT_DB_ALIAS)  # another worker's session
        self.addCleanup(other.close)
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s, %s)", [outbound.SENDING_LOCK, reply.pk])
        self.assertIsNone(outbound.send_reply(reply.pk))  # that worker sends it, and says what became of it
        self.assertEqual(self.smtp.messages, [])
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [outbound.SENDING_LOCK, reply.pk])
        self.assertEqual(outbound.send_reply(reply.pk).status, "sent")
        self.assertEqual(len(self.smtp.messages), 1)

    def test_a_reply_with_no_e_mail_to_answer_says_it_was_not_delivered(self):
        with self.captureOnCommitCallbacks(execute=False):
            ticket = triage.submit_ticket(body="From the web form", channel=Ticket.Channel.EMAIL)
        reply = self.send(ticket, "Answered.")
        reply.refresh_from_db()
        self.assertEqual((reply.delivery, reply.delivery_error),
                         (Message.Delivery.FAILED, "The ticket holds no e-mail from the customer to answer."))
