from django.test import TestCase

from tests.factories import make_document, make_kb
from tests.tickets.helpers import DELIVERY, PASSWORDS
from tickets import reports, triage
from tickets.models import Agent, Ticket


class GapReportTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        kb = make_kb(name="Shop help")
        make_document(kb, DELIVERY, title="Delivery")
        make_document(kb, PASSWORDS, title="Account")
        # A threshold nothing reaches: every ticket is low-confidence and refused.
        cls.agent = Agent.objects.create(name="Shop", confidence_threshold=0.99, is_default=True)
        cls.agent.knowledge_bases.add(kb)

    def submit(self, body):
        with self.captureOnCommitCallbacks(execute=True):
            return triage.submit_ticket(body=body)

    def test_refused_tickets_are_grouped_by_their_closest_topic(self):
        self.submit("Can express delivery come on Sunday?")
        self.submit("Does express delivery work for heavy parcels?")
        self.submit("My password reset link expired")
        groups = reports.gap_report()
        self.assertEqual([(g.tickets, g.refused) for g in groups], [(2, 2), (1, 1)])
        self.assertEqual(groups[0].topic, "Delivery › How long does delivery take?")  # an FAQ entry
        self.assertEqual(groups[0].knowledge_base, "Shop help")
        self.assertEqual(len(groups[0].examples), 2)
        self.assertTrue(groups[1].topic.startswith("Account"))

    def test_tickets_that_found_nothing_form_their_own_group(self):
        self.agent.knowledge_bases.set([make_kb(name="Empty")])
        self.submit("Can express delivery come on Sunday?")
        self.assertEqual([g.topic for g in reports.gap_report()], [reports.NOTHING_FOUND])

    def test_confident_tickets_are_not_gaps(self):
        Agent.objects.filter(pk=self.agent.pk).update(confidence_threshold=0.1)
        self.submit("How long does standard delivery take?")
        self.assertEqual(reports.gap_report(), [])

    def test_summary_counts_outcomes_and_risk(self):
        self.submit("How long does standard delivery take?")
        self.submit("I will sue you")
        counts = reports.summary_counts(Ticket.objects.all())
        self.assertEqual(counts["outcome"], {"sent to review": 2, "refused": 2})
        self.assertEqual(counts["risk"], {"low": 1, "high": 1})
