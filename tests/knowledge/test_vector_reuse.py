"""Edits cost what changed: re-ingesting an edited document re-embeds only the chunks whose
embedding input changed (counted at the embedder, by the counting test embedder)."""

import importlib
from unittest import mock

import numpy as np
from django.apps import apps
from django.test import TestCase

from knowledge import bases
from knowledge.indexing import chunking, chunks, ingestion, parsing
from knowledge.models import Chunk, Document, KnowledgeBase
from tests.conftest import DATA
from tests.factories import make_document, make_kb
from tests.stubs import counting_embedder

SOURCE = DATA / "documents/md/en/react-reference-react-useEffect.md"


class VectorReuseTests(TestCase):
    def setUp(self):
        self.embedder = self.enterContext(counting_embedder.registered())
        self.kb = make_kb(embedder="counting", chunk_size=600, chunk_overlap=60, chunk_min_size=100)
        self.embedder.reset()  # creating the base measured the embedder's similarity floor
        self.text = SOURCE.read_text()
        self.first = self.ingest(self.text)
        self.assertEqual(self.first.outcome, "created")
        self.chunks = self.first.document.chunk_count
        self.assertGreater(self.chunks, 80)
        self.assertEqual(len(self.embedder.passages), self.chunks)
        self.embedder.reset()

    def ingest(self, text: str, title: str = "useEffect"):
        return ingestion.ingest_text(self.kb, title=title, text=text, source_uri="https://react.dev/useEffect")

    def edit_one_paragraph(self) -> str:
        paragraphs = self.text.split("\n\n")
        middle = next(i for i in range(len(paragraphs) // 2, len(paragraphs)) if len(paragraphs[i]) > 200
                      and not paragraphs[i].startswith(("#", "```", "<")))
        paragraphs[middle] = paragraphs[middle].replace(" ", " really ", 1)
        return "\n\n".join(paragraphs)

    def assert_vectors_are_the_embedders(self):
        rows = list(Chunk.objects.filter(document=self.first.document).order_by("position"))
        expected = self.embedder.embed_passages([chunks.embedding_input(row) for row in rows])
        np.testing.assert_allclose(np.array([row.embedding for row in rows]), expected, atol=1e-6)

    def test_editing_one_paragraph_re_embeds_only_the_chunks_it_touches(self):
        result = self.ingest(self.edit_one_paragraph())
        self.assertEqual(result.outcome, "updated")
        self.assertGreaterEqual(len(self.embedder.passages), 1)
        self.assertLessEqual(len(self.embedder.passages), 3)
        self.assertTrue(any("really" in text for text in self.embedder.passages))
        self.embedder.reset()
        self.assert_vectors_are_the_embedders()

    def test_a_new_title_changes_every_embedding_input_and_re_embeds_everything(self):
        self.ingest(self.edit_one_paragraph(), title="useEffect hook")
        self.assertEqual(len(self.embedder.passages), Chunk.objects.filter(document=self.first.document).count())

    def test_other_chunk_settings_re_embed_only_the_chunks_they_change(self):
        bases.update_knowledge_base(self.kb, chunk_overlap=61)
        self.assertEqual(self.ingest(self.text).outcome, "updated")
        self.assertGreater(len(self.embedder.passages), 0)
        self.assertLess(len(self.embedder.passages), Chunk.objects.filter(document=self.first.document).count())
        self.embedder.reset()
        self.assert_vectors_are_the_embedders()

    def test_a_new_parser_version_rebuilds_the_document_without_re_embedding_what_it_left_as_it_was(self):
        # Every parser improvement marks every document for a rebuild; at ≈ 4.5 passages/s for the default
        # embedder, re-embedding them all would take hours on a large base.
        with mock.patch.object(parsing, "PARSER_VERSION", "next"):
            self.assertEqual(self.ingest(self.text).outcome, "updated")
        self.assertEqual(self.embedder.passages, [])
        self.assert_vectors_are_the_embedders()

    def test_another_embedder_version_re_embeds_everything(self):
        with mock.patch.object(counting_embedder.CountingEmbedder, "version", "counting-2"):
            self.assertEqual(self.ingest(self.text).outcome, "updated")
        self.assertEqual(len(self.embedder.passages), Chunk.objects.filter(document=self.first.document).count())


class QuestionEntryReuseTests(TestCase):
    """Sections under a question heading are entries, read by the embedder with their question: their
    old vectors are matched with that reading too."""

    def test_an_edit_beside_question_sections_re_embeds_only_the_edited_one(self):
        embedder = self.enterContext(counting_embedder.registered())
        kb = make_kb(embedder="counting")
        questions = "".join(f"## Is topic {n} covered by the warranty?\n\nYes: topic {n} is covered for two years "
                            f"from the date of purchase, with the receipt.\n\n" for n in range(6))
        text = f"# Warranty\n\n{questions}## Notes\n\nThe warranty covers defects in materials and workmanship."
        first = ingestion.ingest_text(kb, title="Warranty", text=text, source_uri="faq:warranty")
        self.assertTrue(Chunk.objects.filter(document=first.document, metadata__has_key="entry").exists())
        embedder.reset()
        ingestion.ingest_text(kb, title="Warranty", text=text.replace("workmanship", "workmanship only"),
                              source_uri="faq:warranty")
        self.assertEqual(len(embedder.passages), 1)


class UpgradeTests(TestCase):
    def test_documents_built_before_the_signature_was_recorded_reuse_their_vectors_after_the_upgrade(self):
        # Migration 0021 came with a new parser and chunker version: without it, the rebuild they ask for
        # would re-embed every document of every base once.
        migration = importlib.import_module("knowledge.migrations.0021_document_embedder_signature")
        kb = make_kb()
        with (mock.patch.object(parsing, "PARSER_VERSION", migration.PREVIOUS_VERSIONS["parser"]),
              mock.patch.object(chunking, "CHUNKER_VERSION", migration.PREVIOUS_VERSIONS["chunker"])):
            previous = chunks.config_signature(kb)
        built, other = make_document(kb, "# A\n\nText."), make_document(kb, "# B\n\nText.")
        Document.objects.filter(pk=built.pk).update(config_signature=previous, embedder_signature="")
        Document.objects.filter(pk=other.pk).update(config_signature="older", embedder_signature="")
        KnowledgeBase.objects.filter(pk=make_kb().pk).update(embedder="removed")  # skipped, no failed upgrade
        migration.record_embedder_signatures(apps, None)
        self.assertEqual(Document.objects.get(pk=built.pk).embedder_signature, chunks.embedder_signature(kb))
        self.assertEqual(Document.objects.get(pk=other.pk).embedder_signature, "")
