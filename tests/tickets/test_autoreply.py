"""The auto-reply rule: one clearly matching FAQ entry (or a fully cited model draft), explained in sentences."""

from django.test import TestCase

from knowledge.indexing import ingestion
from tests.factories import make_kb
from tests.tickets.test_triage import submit
from tickets import autoreply
from tickets.models import Agent, Message, Ticket

FAQ = """# Карты

## Как заблокировать карту?

Заблокировать карту можно в приложении или по телефону 250.

## Сколько стоит выпуск карты?

Выпуск карты бесплатный.

# Переводы

Переводы на карты других банков идут до трёх дней. Комиссия за перевод по номеру телефона не взимается.
Лимит переводов в приложении — 5000 рублей в сутки.
"""


class AutoReplyTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        kb = make_kb()
        ingestion.ingest_text(kb, title="FAQ", text=FAQ, source_uri="faq")
        cls.agent = Agent.objects.create(name="Банк", auto_reply=True, confidence_threshold=0.3,
                                         auto_reply_confidence=0.5, is_default=True)
        cls.agent.knowledge_bases.add(kb)

    def test_a_question_matching_one_faq_entry_is_answered_with_it(self):
        ticket = submit(self, "Как заблокировать карту?")
        self.assertEqual(ticket.status, Ticket.Status.AUTO_REPLIED)
        reply = ticket.messages.get(kind=Message.Kind.REPLY)
        self.assertEqual(reply.body, "Заблокировать карту можно в приложении или по телефону 250. [1]")
        self.assertIn("ответ взят из точно подходящей записи FAQ", ticket.trace[-1]["detail"])

    def test_an_extract_of_prose_waits_for_review_with_a_russian_sentence(self):
        ticket = submit(self, "Какая комиссия за перевод по номеру телефона и какой лимит?")
        self.assertEqual(ticket.status, Ticket.Status.REVIEW)
        self.assertIn("Черновик составлен из фрагментов источников, а не взят из одной подходящей записи FAQ.",
                      ticket.trace[-1]["detail"])
        self.assertNotIn("_", ticket.trace[-1]["detail"])  # no reason codes

    def test_reasons_are_english_for_an_english_ticket(self):
        self.assertEqual(autoreply.explain(["single_source", "below_threshold"], "Where is my card?"),
                         ["Only one source supports the answer.",
                          "The sources do not support an answer well enough, so none was written."])

    def test_a_model_draft_needs_every_sentence_cited(self):
        self.assertTrue(autoreply.every_sentence_cited("Cards are free [1]. Blocking is in the app [2]."))
        self.assertFalse(autoreply.every_sentence_cited("Cards are free [1]. Blocking is in the app."))
