"""A citation names the page of the text it quotes, not the page its chunk starts on."""

from django.test import TestCase

from knowledge.indexing import ingestion
from knowledge.search import answers
from knowledge.search.quoted_pages import with_quoted_pages
from tests.factories import make_kb
from tests.knowledge.test_composer import hit
from tests.knowledge.test_parsing import DOCS

GOST = DOCS / "pdf" / "ru" / "gost_2.105-95.pdf"
ON_PAGE_6 = "Разделы должны иметь порядковые номера в пределах всего документа"


class QuotedPageTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        cls.document = ingestion.ingest_file(cls.kb, GOST).document

    def test_a_chunk_over_a_page_break_keeps_the_first_words_of_the_next_page(self):
        chunk = self.document.chunks.get(content__contains=ON_PAGE_6, page=5)
        [(page, words)] = chunk.metadata["page_breaks"]
        self.assertEqual(page, 6)
        self.assertIn(words, " ".join(chunk.content.split()))

    def test_the_answer_cites_the_page_of_the_quoted_sentence(self):
        result = answers.answer("Какие порядковые номера должны иметь разделы документа?", [self.kb.pk],
                                threshold=0.0, mode="keyword")
        self.assertIn(ON_PAGE_6, " ".join(result.text.split()))
        [cited] = [c.hit for c in result.citations if ON_PAGE_6 in " ".join(c.hit.content.split())]
        self.assertEqual(cited.page, 6)
        chunk = self.document.chunks.get(pk=cited.chunk_id)
        self.assertEqual(chunk.page, 5)  # where the chunk starts

    def test_text_before_the_break_or_not_found_keeps_the_chunks_page(self):
        source = hit(1, "First page text here.\nSecond page begins with these words and goes on.", page_breaks=[
            [8, "Second page begins with these words"]])
        source.page = 7
        def page(text: str) -> int:
            return with_quoted_pages(text, [source])[0].page

        self.assertEqual(page("Second page begins with these words and goes on. [1]"), 8)
        self.assertEqual(page("First page text here. [1]"), 7)
        self.assertEqual(page("A model's own words. [1]"), 7)
        self.assertEqual(page("Not cited at all."), 7)
