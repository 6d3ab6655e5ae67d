"""A ticket whose reply's e-mail failed for good waits for staff again, and closes once it goes out."""

import smtplib

from auditlog.models import LogEntry
from django.conf import settings
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from mail import outbound
from tests.api.base import make_key
from tests.mail import messages
from tests.mail.test_outbound import MAIL, SmtpTestCase
from tests.tickets.test_admin import staff_user
from tickets import inbox
from tickets.groups import SUPPORT_STAFF
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

    @override_settings(MAIL={**MAIL, "RETRIES": 0}, WEBHOOKS={**settings.WEBHOOKS, "ALLOWED_HOSTS": ["127.0.0.1"]})
    def test_staff_who_answered_another_way_close_it_as_answered_from_its_page(self):
        create_endpoint(name="CRM", url="http://127.0.0.1:9/hooks",
                        events=["ticket.reply_undelivered", "ticket.answered_elsewhere"])
        ticket = self.receive(messages.plain("Where is my parcel?")).ticket
        self.smtp.stop()
        with self.assertRaises(OSError):
            self.send(ticket, "On its way.")
        self.smtp.start()
        support = staff_user("sam", SUPPORT_STAFF)
        self.client.force_login(support)
        page_url = reverse("admin:tickets_ticket_change", args=[ticket.pk])
        self.assertIn("Close as answered", self.client.get(page_url).content.decode())
        close_url = reverse("admin:tickets_ticket_answered_elsewhere", args=[ticket.pk])
        response = self.client.post(close_url, {"how": " by phone <b>on Monday</b> "}, follow=True)
        [done] = response.context["messages"]
        self.assertEqual(done.message, f"Ticket #{ticket.pk} closed as answered outside e-mail. "
                                       "No more tickets wait for review.")
        ticket.refresh_from_db()
        self.assertEqual(ticket.status, Ticket.Status.ANSWERED)
        self.assertIsNotNone(ticket.closed_at)
        self.assertIsNone(inbox.next_ticket())
        # Who answered, and how, stays on the ticket; the change of status is in the audit log with its actor.
        note = ticket.messages.get(kind=Message.Kind.NOTE)
        self.assertEqual((note.author, note.body), (support, "Answered outside e-mail: by phone <b>on Monday</b>"))
        entry = LogEntry.objects.get_for_object(ticket).filter(actor=support).latest("timestamp")
        self.assertEqual(entry.changes_dict["status"], ["undelivered", "answered"])
        # An integrator told the reply was not delivered hears that the ticket is dealt with.
        closed = Delivery.objects.get(event="ticket.answered_elsewhere").payload["data"]
        self.assertEqual((closed["ticket"]["id"], closed["ticket"]["status"], closed["how"]),
                         (ticket.pk, "answered", "by phone <b>on Monday</b>"))
        page = self.client.get(page_url).content.decode()
        self.assertIn("by phone &lt;b&gt;on Monday&lt;/b&gt;", page)
        self.assertNotIn("Close as answered", page)
        # Dealt with: the inbox does not flag its failed e-mail as if it still waited for staff.
        listed = self.client.get(reverse("admin:tickets_ticket_changelist")).content.decode()
        self.assertIn('<span class="tk-badge tk-ok">Answered by staff</span>', listed)
        self.assertNotIn("E-mail failed", listed)
        # Only a ticket whose reply was not delivered closes this way.
        response = self.client.post(close_url, follow=True)
        [refused] = response.context["messages"]
        self.assertEqual((refused.level_tag, refused.message),
                         ("error", f"Ticket #{ticket.pk} is already answered by staff."))
        self.assertEqual(ticket.messages.filter(kind=Message.Kind.NOTE).count(), 1)

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
