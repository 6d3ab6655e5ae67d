from django.db import connection
from django.test import TestCase

from knowledge.indexing import ingestion
from knowledge.models import Chunk, Document
from tests.conftest import DATA
from tests.factories import make_kb

GUIDE = """# Installation

Install the portal with two commands. The embedded database starts by itself.

## Linux

On Linux the portal needs Python 3.11 or newer and nothing else.

# Usage

Upload files in the admin and watch the progress bar.
"""


class IngestTextTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb(chunk_size=200, chunk_overlap=20, chunk_min_size=20)

    def ingest(self, text=GUIDE, **kwargs):
        kwargs.setdefault("source_uri", "inline:guide")
        return ingestion.ingest_text(self.kb, title="Guide", text=text, **kwargs)

    def test_text_becomes_ready_chunks_with_vectors_headings_and_full_text(self):
        result = self.ingest()
        document = result.document
        self.assertEqual(result.outcome, "created")
        self.assertEqual(document.status, Document.Status.READY)
        chunks = list(document.chunks.order_by("position"))
        self.assertEqual(document.chunk_count, len(chunks))
        self.assertGreaterEqual(len(chunks), 3)
        self.assertTrue(all(chunk.embedding is not None and len(chunk.embedding) == 256 for chunk in chunks))
        self.assertIn("Installation > Linux", [chunk.section_path for chunk in chunks])
        self.assertEqual(document.sha256, ingestion.text_sha256(GUIDE))
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM knowledge_chunk WHERE document_id = %s AND "
                           "search_vector @@ plainto_tsquery('russian', 'installing')", [document.pk])
            self.assertGreaterEqual(cursor.fetchone()[0], 1)

    def test_the_same_text_twice_gives_one_document_and_no_duplicate_chunks(self):
        first = self.ingest()
        chunk_ids = set(first.document.chunks.values_list("pk", flat=True))
        second = self.ingest()
        self.assertEqual(second.outcome, "unchanged")
        self.assertEqual(second.document.pk, first.document.pk)
        self.assertEqual(set(second.document.chunks.values_list("pk", flat=True)), chunk_ids)
        self.assertEqual(Document.objects.filter(knowledge_base=self.kb).count(), 1)

    def test_inline_text_without_uri_is_identified_by_its_content(self):
        first = self.ingest(source_uri="")
        second = self.ingest(source_uri="")
        self.assertEqual((second.outcome, second.document.pk), ("unchanged", first.document.pk))

    def test_changed_text_replaces_the_old_chunks(self):
        first = self.ingest()
        old_ids = set(first.document.chunks.values_list("pk", flat=True))
        second = self.ingest(text=GUIDE + "\n# Troubleshooting\n\nRestart the worker when it hangs.\n")
        self.assertEqual((second.outcome, second.document.pk), ("updated", first.document.pk))
        new_ids = set(second.document.chunks.values_list("pk", flat=True))
        self.assertFalse(old_ids & new_ids)
        self.assertTrue(second.document.chunks.filter(content__contains="Restart the worker").exists())

    def test_a_configuration_change_rebuilds_an_unchanged_text(self):
        first = self.ingest()
        self.kb.chunk_size = 400
        self.kb.save()
        second = self.ingest()
        self.assertEqual(second.outcome, "updated")
        self.assertNotEqual(second.document.config_signature, first.document.config_signature)

    def test_a_failed_update_keeps_serving_the_previous_version(self):
        first = self.ingest()
        chunk_count = first.document.chunk_count
        result = self.ingest(text="   ")
        self.assertEqual(result.outcome, "failed")
        document = Document.objects.get(pk=first.document.pk)
        self.assertEqual(document.status, Document.Status.READY)
        self.assertIn("previous version is still served", document.error_message)
        self.assertEqual(document.chunks.count(), chunk_count)

    def test_an_embedder_failure_leaves_no_visible_chunks(self):
        kb = make_kb(embedder="openai")  # no OPENAI_BASE_URL configured: embedding fails
        result = ingestion.ingest_text(kb, title="T", text=GUIDE, source_uri="inline:x")
        self.assertEqual(result.outcome, "failed")
        self.assertEqual(result.document.status, Document.Status.ERROR)
        self.assertIn("OPENAI_BASE_URL", result.document.error_message)
        self.assertFalse(Chunk.objects.filter(document=result.document).exists())

    def test_progress_is_reported_between_batches(self):
        calls = []
        ingestion.ingest_text(self.kb, title="Guide", text=GUIDE * 3, source_uri="inline:long", batch_size=2,
                              progress=lambda done, total: calls.append((done, total)))
        total = calls[-1][1]
        self.assertGreater(len(calls), 1)
        self.assertEqual(calls[-1], (total, total))
        self.assertEqual([done for done, _ in calls], sorted(done for done, _ in calls))


class IngestFileTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()

    def test_a_real_pdf_keeps_page_numbers_per_chunk(self):
        result = ingestion.ingest_file(self.kb, DATA / "documents/pdf/text/pdflatex-4-pages.pdf")
        self.assertEqual(result.outcome, "created", result.error)
        pages = set(result.document.chunks.values_list("page", flat=True))
        self.assertTrue({1, 2} <= pages, pages)

    def test_a_bad_file_fails_alone_with_a_readable_message(self):
        good = ingestion.ingest_file(self.kb, DATA / "documents/md/en/react-learn-thinking-in-react.md")
        bad = ingestion.ingest_file(self.kb, DATA / "documents/pdf/encrypted/libreoffice-writer-password.pdf")
        self.assertEqual(good.outcome, "created", good.error)
        self.assertEqual(bad.outcome, "failed")
        self.assertEqual(bad.document.status, Document.Status.ERROR)
        self.assertIn("encrypted", bad.document.error_message.lower())
        good.document.refresh_from_db()
        self.assertEqual(good.document.status, Document.Status.READY)

    def test_markdown_frontmatter_lands_in_the_document_metadata(self):
        result = ingestion.ingest_file(self.kb, DATA / "documents/md/ru/react-learn-thinking-in-react.md")
        self.assertEqual(result.outcome, "created", result.error)
        self.assertIn("title", result.document.metadata.get("frontmatter", {}))


class RepositoryDocumentTests(TestCase):
    def test_processing_a_repository_file_again_keeps_its_layers(self):
        import tempfile
        from pathlib import Path

        from knowledge.indexing.layers.store import index_repository

        kb = make_kb()
        with tempfile.TemporaryDirectory() as folder:
            source = 'class Cart:\n    """A cart."""\n\n    def total(self):\n        return 0\n'
            (Path(folder) / "cart.py").write_text(source)
            index_repository(kb, folder, name="shop")
        document = Document.objects.get(knowledge_base=kb)
        layers = set(Chunk.objects.filter(document=document).values_list("layer", flat=True))
        self.assertTrue({"C0", "C1"} <= layers, layers)
        result = ingestion.process_document(document)
        self.assertNotEqual(result.outcome, "failed", result.error)
        self.assertEqual(set(Chunk.objects.filter(document=document).values_list("layer", flat=True)), layers)
