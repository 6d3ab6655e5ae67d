"""A ticket whose reply's e-mail failed for good waits for staff again, and closes once it goes out."""

import smtplib

from django.conf import settings
from django.test import override_settings
from django.utils import timezone

from mail import outbound
from tests.api.base import make_key
from tests.mail import messages
from tests.mail.test_outbound import MAIL, SmtpTestCase
from tickets import inbox
from tickets.models import Message, Ticket
from webhooks.delivery import create_endpoint
from webhooks.models import Delivery


class UndeliveredTests(SmtpTestCase):
    @override_settings(MAIL={**MAIL, "RETRIES": 0}, WEBHOOKS={**settings.WEBHOOKS, "ALLOWED_HOSTS": ["127.0.0.1"]})
    def test_a_reply_that_failed_for_good_brings_the_ticket_back_to_staff(self):
        create_endpoint(name="CRM", url="http://127.0.0.1:9/hooks", events=["ticket.reply_undelivered"])
        ticket = self.receive(messages.plain("Where is my parcel?")).ticket
        self.smtp.stop()
        with self.assertRaises(OSError):
            self.send(ticket, "On its way.")
        ticket.refresh_from_db()
        self.assertEqual((ticket.status, ticket.closed_at), (Ticket.Status.UNDELIVERED, None))
        self.assertTrue(ticket.is_open)
        self.assertEqual(inbox.next_ticket(), ticket)  # back in the queue staff work through
        self.assertEqual(Delivery.objects.get().payload["data"]["ticket"]["status"], "undelivered")
        _, token = make_key()
        listed = self.client.get("/api/v1/tickets?status=undelivered", headers={"Authorization": f"Bearer {token}"})
        self.assertEqual([item["id"] for item in listed.json()["items"]], [ticket.pk])

        self.smtp.start()
        reply = Message.objects.get(kind="reply")
        with self.captureOnCommitCallbacks(execute=True):
            inbox.resend_email(ticket, reply_id=reply.pk)
        ticket.refresh_from_db()
        self.assertEqual(ticket.status, Ticket.Status.ANSWERED)  # delivered after all: answered again
        self.assertIsNotNone(ticket.closed_at)
        self.assertIsNone(inbox.next_ticket())

    @override_settings(MAIL={**MAIL, "RETRIES": 0})
    def test_an_auto_reply_that_failed_is_auto_replied_again_once_sent(self):
        ticket = self.receive(messages.plain("Where is my parcel?")).ticket
        self.smtp.handler.answers = ["550 5.1.1 No such mailbox"]
        reply = Message.objects.create(ticket=ticket, kind=Message.Kind.REPLY, body="On its way.", auto_sent=True,
                                       sent_at=timezone.now())
        ticket.close(Ticket.Status.AUTO_REPLIED)
        with self.assertRaises(smtplib.SMTPDataError):
            outbound.send_reply(reply.pk)
        ticket.refresh_from_db()
        self.assertEqual(ticket.status, Ticket.Status.UNDELIVERED)
        self.smtp.handler.answers = []
        with self.captureOnCommitCallbacks(execute=True):
            inbox.resend_email(ticket, reply_id=reply.pk)
        ticket.refresh_from_db()
        self.assertEqual(ticket.status, Ticket.Status.AUTO_REPLIED)

    @override_settings(MAIL={**MAIL, "RETRIES": 0})
    def test_a_follow_up_to_an_undelivered_ticket_waits_for_review(self):
        first = self.receive(messages.plain("Where is my parcel?"))
        ticket = first.ticket
        self.smtp.stop()
        with self.assertRaises(OSError):
            self.send(ticket, "On its way.")
        ticket.refresh_from_db()
        self.assertEqual(ticket.status, Ticket.Status.UNDELIVERED)
        # The customer writes again meanwhile: staff must read it, whatever becomes of the old e-mail.
        self.receive(messages.plain("Any news?", In_Reply_To=first.mail.message_id))
        ticket.refresh_from_db()
        self.assertEqual(ticket.status, Ticket.Status.REVIEW)
        self.smtp.start()
        with self.captureOnCommitCallbacks(execute=True):
            inbox.resend_email(ticket, reply_id=Message.objects.get(kind="reply").pk)
        ticket.refresh_from_db()
        self.assertEqual(ticket.status, Ticket.Status.REVIEW)  # the follow-up still waits for an answer
        self.send(ticket, "It arrives tomorrow.")
        ticket.refresh_from_db()
        self.assertEqual(ticket.status, Ticket.Status.ANSWERED)
        self.assertEqual(len(self.smtp.messages), 2)
