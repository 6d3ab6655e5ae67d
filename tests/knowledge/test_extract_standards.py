"""Extracts from a standard's PDF (GOST R 7.0.11-2011, as published): sentences wrapped over lines of a page
whose text runs some lines together, numbered headings and the table of contents are never quoted."""

from django.test import TestCase

from knowledge.indexing import ingestion
from knowledge.models import Chunk
from knowledge.search import composer
from knowledge.search.source_text import quotable_text, sentences
from tests.factories import make_kb
from tests.knowledge.test_extract_lists import compose
from tests.knowledge.test_parsing import DOCS


class StandardTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        cls.document = ingestion.ingest_file(cls.kb, DOCS / "pdf" / "ru" / "gost_r_7.0.11-2011.pdf").document

    def chunk(self, words: str) -> Chunk:
        return Chunk.objects.filter(document=self.document, content__contains=words).order_by("position").first()

    def test_a_sentence_wrapped_onto_a_short_line_is_one_sentence(self):
        # Its page's text holds lines of 175 and 267 characters among lines of 85-98: against the longest,
        # every wrapped line had looked like a paragraph's last, and the sentence ended "…с требованиями".
        chunk = self.chunk("Библиографические ссылки в тексте диссертации оформляют")
        self.assertTrue(any(len(line) > 150 for line in chunk.content.split("\n")))
        self.assertIn("Библиографические ссылки в тексте диссертации оформляют в соответствии с требованиями "
                      "ГОСТ Р 7.0.5.", sentences(quotable_text(chunk.content)))

    def test_the_table_of_contents_and_numbered_headings_are_not_quoted(self):
        contents = self.chunk("Содержание").content
        self.assertIn("5 Оформление структурных элементов диссертации в виде рукописи....", contents)
        text = compose("Как оформляются структурные элементы диссертации в виде рукописи?", contents)
        self.assertNotIn("....", text)
        self.assertNotIn("5 Оформление структурных элементов диссертации в виде рукописи", text)

    def test_a_numbered_heading_is_not_an_answer_but_a_numbered_clause_is(self):
        heading = "5 Оформление структурных элементов диссертации в виде рукописи"
        clause = "5.3.8 Все страницы диссертации, включая иллюстрации и приложения, нумеруются по порядку."
        stems = composer.word_stems
        self.assertFalse(composer._answers(stems(heading), stems("Как оформить диссертацию?"), heading, alone=False))
        self.assertTrue(composer._answers(stems(clause), stems("Как нумеровать страницы?"), clause, alone=False))
