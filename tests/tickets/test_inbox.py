from django.contrib.auth import get_user_model
from django.test import TestCase

from tests.tickets.helpers import make_help_centre
from tickets import inbox, reports, triage
from tickets.exceptions import NoDraftError, TicketClosedError, TicketError, UnknownSourceError
from tickets.models import Agent, Message, Ticket


class EditDistanceTests(TestCase):
    def test_levenshtein(self):
        cases = [("", "", 0), ("abc", "abc", 0), ("kitten", "sitting", 3), ("", "abc", 3), ("flaw", "lawn", 2),
                 ("Здравствуйте!", "Здравствуйте.", 1), ("a" * 500 + "b", "a" * 500 + "c", 1)]
        for a, b, expected in cases:
            with self.subTest(a=a[:10], b=b[:10]):
                self.assertEqual(reports.edit_distance(a, b), expected)
                self.assertEqual(reports.edit_distance(b, a), expected)


class InboxTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.documents, cls.agent = make_help_centre(auto_reply=False)
        cls.user = get_user_model().objects.create_user("sam", password="pw", is_staff=True)

    def setUp(self):
        with self.captureOnCommitCallbacks(execute=True):
            self.ticket = triage.submit_ticket(body="How long does standard delivery take?")
        self.ticket.refresh_from_db()
        self.draft = inbox.current_draft(self.ticket)

    def test_approving_sends_the_draft_unchanged(self):
        reply = inbox.send_reply(self.ticket, user=self.user)
        self.assertEqual((reply.body, reply.edit_distance, reply.draft, reply.author),
                         (self.draft.body, 0, self.draft, self.user))
        self.ticket.refresh_from_db()
        self.assertEqual(self.ticket.status, Ticket.Status.ANSWERED)
        self.assertIsNotNone(self.ticket.closed_at)
        self.assertIsNone(inbox.current_draft(self.ticket))

    def test_an_edited_reply_records_the_edit_distance(self):
        reply = inbox.send_reply(self.ticket, user=self.user, text=self.draft.body + " Kind regards, Sam")
        self.assertEqual(reply.edit_distance, len(" Kind regards, Sam"))
        stats = reports.edit_stats()
        self.assertEqual((stats.replies_from_drafts, stats.sent_unchanged, stats.mean_distance), (1, 0, 18))

    def test_a_ticket_is_sent_only_once(self):
        inbox.send_reply(self.ticket, user=self.user)
        with self.assertRaises(TicketClosedError):
            inbox.send_reply(self.ticket, user=self.user)
        self.assertEqual(self.ticket.messages.filter(kind=Message.Kind.REPLY).count(), 1)

    def test_an_empty_reply_is_refused(self):
        with self.assertRaises(TicketError):
            inbox.send_reply(self.ticket, user=self.user, text="   ")

    def test_a_reply_citing_a_source_the_draft_does_not_have_is_refused_naming_the_marker(self):
        known = ", ".join(f"[{n}]" for n in self.draft.sources.values_list("position", flat=True))
        self.assertLess(self.draft.sources.count(), 9)
        with self.assertRaisesMessage(UnknownSourceError, f"The reply cites [9], but the draft has no such source "
                                                          f"(its sources are {known}): correct or remove the marker."):
            inbox.send_reply(self.ticket, user=self.user, text="Three to five working days [1]. Tracking [9].")
        with self.assertRaisesMessage(UnknownSourceError, "The reply cites [7], [8], but the draft has no such"):
            inbox.send_reply(self.ticket, user=self.user, text="See [Source 7-8].")
        self.ticket.refresh_from_db()
        self.assertEqual((self.ticket.status, self.ticket.messages.filter(kind=Message.Kind.REPLY).count()),
                         (Ticket.Status.REVIEW, 0))
        reply = inbox.send_reply(self.ticket, user=self.user, text="Three to five working days [1].")
        self.assertEqual(reply.body, "Three to five working days [1].")

    def test_rejecting_closes_without_a_reply_and_keeps_the_reason(self):
        inbox.reject(self.ticket, user=self.user, reason="spam")
        self.ticket.refresh_from_db()
        self.assertEqual(self.ticket.status, Ticket.Status.REJECTED)
        self.assertFalse(self.ticket.messages.filter(kind=Message.Kind.REPLY).exists())
        self.assertEqual(self.ticket.messages.get(kind=Message.Kind.NOTE).body, "Rejected: spam")

    def test_without_a_draft_staff_must_write_the_reply(self):
        agent = Agent.objects.create(name="No bases", routing_hints="invoice")
        with self.captureOnCommitCallbacks(execute=True):
            ticket = triage.submit_ticket(body="invoice please")
        ticket.refresh_from_db()
        self.assertEqual(ticket.agent, agent)
        with self.assertRaises(NoDraftError):
            inbox.send_reply(ticket, user=self.user)
        with self.assertRaisesMessage(UnknownSourceError, "The reply cites [1], but there are no sources to cite: "
                                                          "remove the marker."):
            inbox.send_reply(ticket, user=self.user, text="Attached [1].")
        reply = inbox.send_reply(ticket, user=self.user, text="Attached.")
        self.assertIsNone(reply.edit_distance)
