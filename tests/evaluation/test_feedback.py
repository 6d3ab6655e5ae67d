from django.contrib.auth.models import User
from django.test import TestCase
from django.urls import reverse

from evaluation import feedback
from evaluation.exceptions import EvaluationError
from knowledge.models import Chunk
from tests.factories import make_document, make_kb
from tests.tickets.helpers import DELIVERY, PASSWORDS
from tickets import reports, triage
from tickets.models import Agent


class FeedbackTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb(name="Shop help")
        cls.delivery = make_document(cls.kb, DELIVERY, title="Delivery")
        cls.account = make_document(cls.kb, PASSWORDS, title="Account")
        cls.agent = Agent.objects.create(name="Shop", confidence_threshold=0.99, is_default=True)
        cls.agent.knowledge_bases.add(cls.kb)

    def test_counts_per_chunk(self):
        first, second = Chunk.objects.filter(knowledge_base=self.kb).order_by("pk")[:2]
        feedback.record_feedback(self.kb, question="q1", rating="up", chunk_ids=[first.pk, second.pk])
        feedback.record_feedback(self.kb, question="q2", rating="down", chunk_ids=[first.pk])
        self.assertEqual(feedback.chunk_counts([first.pk, second.pk]), {first.pk: (1, 1), second.pk: (1, 0)})

    def test_an_empty_question_is_refused(self):
        with self.assertRaisesMessage(EvaluationError, "The question is empty"):
            feedback.record_feedback(self.kb, question="  ", rating="down")

    def test_the_gap_report_groups_thumbs_down_with_refused_tickets(self):
        with self.captureOnCommitCallbacks(execute=True):
            triage.submit_ticket(body="Can express delivery come on Sunday?")
        delivery_chunk = Chunk.objects.filter(document=self.delivery).first()
        feedback.record_feedback(self.kb, question="Доставка в воскресенье возможна?", rating="down",
                                 chunk_ids=[delivery_chunk.pk])
        feedback.record_feedback(self.kb, question="Do you sell gift cards?", rating="down", refused=True)
        feedback.record_feedback(self.kb, question="Thanks, clear", rating="up", chunk_ids=[delivery_chunk.pk])
        groups = {g.topic: g for g in reports.gap_report()}
        # The help centre's documents are FAQ pages: the topic is the document and the matching entry.
        delivery = next(group for topic, group in groups.items() if topic.startswith("Delivery"))
        self.assertEqual((delivery.tickets, delivery.thumbs_down), (1, 1))
        self.assertIn((None, "Доставка в воскресенье возможна?"), delivery.examples)
        self.assertEqual(groups[reports.NOTHING_FOUND].examples, [(None, "Do you sell gift cards?")])

        User.objects.create_superuser("boss", password="pw")
        self.client.login(username="boss", password="pw")
        page = self.client.get(reverse("admin:tickets_ticket_report"))
        self.assertContains(page, "Доставка в воскресенье возможна?")
        self.assertContains(page, "<th>Thumbs down</th>", html=True)
