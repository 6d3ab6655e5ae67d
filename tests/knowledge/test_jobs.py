from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import TestCase
from django.utils import translation

from knowledge import jobs
from knowledge.exceptions import JobFinishedError, JobStateError
from knowledge.indexing import vector_index
from knowledge.models import Chunk, Document, Job
from tests.conftest import DATA
from tests.factories import make_document, make_kb


def upload_of(path, name=None):
    return SimpleUploadedFile(name or path.name, path.read_bytes())


class UploadJobTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()

    def test_a_batch_ingests_good_files_and_reports_each_bad_one(self):
        files = [
            upload_of(DATA / "documents/docx/en/pandoc-headers.docx"),
            upload_of(DATA / "documents/xlsx/en/roo-numbers1.xlsx"),
            upload_of(DATA / "documents/pdf/malformed/header-only-invalid.pdf"),
            SimpleUploadedFile("notes.exe", b"MZ..."),
            SimpleUploadedFile("empty.txt", b""),
        ]
        with self.captureOnCommitCallbacks(execute=True):
            job, refused = jobs.add_uploads(self.kb, files)
        self.assertEqual([item["item"] for item in refused], ["notes.exe", "empty.txt"])
        self.assertIn("Supported: .md", refused[0]["reason"])
        job.refresh_from_db()
        # Ran to the end with one bad file: completed with failures, never a plain success.
        self.assertEqual((job.status, job.status_label), (Job.Status.PARTIAL, "Completed with 1 failure"))
        with translation.override("ru"):
            self.assertEqual(job.status_label, "Завершено, 1 ошибка")
        self.assertEqual((job.progress_done, job.progress_total, job.percent), (3, 3, 100))
        self.assertEqual(job.counters.get("created"), 2)
        self.assertEqual(len(job.failures), 1)
        self.assertIn("damaged", job.failures[0]["reason"])
        self.assertEqual(job.failures[0]["item"], "header-only-invalid.pdf")
        # Each document with its own outcome, in the job's order.
        states = {item["name"]: item for item in job.items}
        self.assertEqual({name: item["state"] for name, item in states.items()},
                         {"pandoc-headers.docx": "ready", "roo-numbers1.xlsx": "ready",
                          "header-only-invalid.pdf": "failed"})
        docx = Document.objects.get(knowledge_base=self.kb, path="pandoc-headers.docx")
        self.assertEqual(states["pandoc-headers.docx"]["chunks_done"], docx.chunk_count)
        self.assertIn("damaged", states["header-only-invalid.pdf"]["reason"])
        self.assertEqual(job.chunks_progress, (Chunk.objects.filter(knowledge_base=self.kb).count(),) * 2)
        statuses = dict(Document.objects.filter(knowledge_base=self.kb).values_list("path", "status"))
        self.assertEqual(statuses, {"pandoc-headers.docx": "ready", "roo-numbers1.xlsx": "ready",
                                    "header-only-invalid.pdf": "error"})

    def test_an_uploaded_document_takes_the_title_its_file_gives(self):
        with self.captureOnCommitCallbacks(execute=True):
            jobs.add_uploads(self.kb, [SimpleUploadedFile("notes-v1.md", b"# Refund policy\n\nFive days.")])
        self.assertEqual(Document.objects.get(knowledge_base=self.kb).title, "Refund policy")
        with self.captureOnCommitCallbacks(execute=True):
            jobs.add_uploads(self.kb, [SimpleUploadedFile("notes-v1.md", b"# Returns policy\n\nTen days.")])
        self.assertEqual(Document.objects.get(knowledge_base=self.kb).title, "Returns policy")

    def test_uploading_the_same_file_again_is_unchanged(self):
        path = DATA / "documents/md/en/react-learn-installation.md"
        with self.captureOnCommitCallbacks(execute=True):
            jobs.add_uploads(self.kb, [upload_of(path)])
        with self.captureOnCommitCallbacks(execute=True):
            job, _ = jobs.add_uploads(self.kb, [upload_of(path)])
        job.refresh_from_db()
        self.assertEqual(job.counters.get("unchanged"), 1)
        self.assertEqual([item["state"] for item in job.items], ["unchanged"])
        self.assertEqual(job.status, Job.Status.SUCCEEDED)
        self.assertEqual(Document.objects.filter(knowledge_base=self.kb).count(), 1)

    def test_a_failure_names_the_uploaded_file_not_the_stored_one(self):
        encrypted = DATA / "documents/pdf/encrypted/libreoffice-writer-password.pdf"
        for kb in (make_kb(), self.kb):  # the second copy is stored under a name with a random suffix
            with self.captureOnCommitCallbacks(execute=True):
                job, _ = jobs.add_uploads(kb, [upload_of(encrypted)])
        document = Document.objects.get(knowledge_base=self.kb)
        self.assertNotEqual(document.original_file.name.rsplit("/", 1)[-1], encrypted.name)
        job.refresh_from_db()
        for message in (document.error_message, job.failures[0]["reason"], job.items[0]["reason"]):
            self.assertTrue(message.startswith("libreoffice-writer-password.pdf: PDF is encrypted"), message)

    def test_an_oversized_upload_is_refused_before_ingestion(self):
        with self.settings(PORTAL={**self.settings_portal(), "MAX_UPLOAD_BYTES": 10}):
            job, refused = jobs.add_uploads(self.kb, [SimpleUploadedFile("big.txt", b"x" * 11)])
        self.assertIsNone(job)
        self.assertIn("over the 10-byte limit", refused[0]["reason"])
        self.assertFalse(Document.objects.filter(knowledge_base=self.kb).exists())

    def settings_portal(self):
        from django.conf import settings

        return settings.PORTAL


class ReindexJobTests(TestCase):
    def test_switching_embedder_re_embeds_every_document_and_rebuilds_the_index(self):
        kb = make_kb(chunk_size=300, chunk_overlap=30, chunk_min_size=50)
        make_document(kb, text="# Refunds\n\nRefunds take five days.")
        make_document(kb, text="# Shipping\n\nWe ship worldwide.")
        with self.captureOnCommitCallbacks(execute=True):
            job = jobs.start_reindex(kb, embedder="use-multilingual")
        job.refresh_from_db()
        kb.refresh_from_db()
        self.assertEqual(job.status, Job.Status.SUCCEEDED)
        self.assertEqual(job.counters.get("updated"), 2)
        self.assertEqual((kb.embedder, kb.embedding_dim), ("use-multilingual", 512))
        self.assertEqual({len(c.embedding) for c in Chunk.objects.filter(knowledge_base=kb)}, {512})
        self.assertTrue(vector_index.kb_index_exists(kb.pk))
        self.assertTrue(vector_index.shared_index_exists(512))  # many-base searches of the new dimension

    def test_a_plain_reindex_touches_only_out_of_date_documents(self):
        kb = make_kb()
        make_document(kb)
        make_document(kb)
        with self.captureOnCommitCallbacks(execute=True):
            job = jobs.start_reindex(kb)
        job.refresh_from_db()
        self.assertEqual((job.progress_total, job.counters.get("updated", 0)), (0, 0))
        Document.objects.filter(pk=kb.documents.first().pk).update(config_signature="old")
        with self.captureOnCommitCallbacks(execute=True):
            job = jobs.start_reindex(kb)
        job.refresh_from_db()
        self.assertEqual((job.progress_total, job.counters.get("updated", 0)), (1, 1))


class DeleteJobTests(TestCase):
    def test_deleting_documents_removes_their_chunks(self):
        kb = make_kb()
        keep, drop = make_document(kb), make_document(kb)
        with self.captureOnCommitCallbacks(execute=True):
            job = jobs.start_delete([drop.pk])
        job.refresh_from_db()
        self.assertEqual(job.status, Job.Status.SUCCEEDED)
        self.assertFalse(Chunk.objects.filter(document_id=drop.pk).exists())
        self.assertTrue(Chunk.objects.filter(document_id=keep.pk).exists())


class RepositoryReindexTests(TestCase):
    def test_a_forced_reindex_keeps_a_repository_files_layers(self):
        import tempfile
        from pathlib import Path

        from knowledge.indexing.layers.store import index_repository

        kb = make_kb()
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / "shop.py").write_text(
                'class Cart:\n    """A cart."""\n\n    def total(self):\n        return 0\n')
            index_repository(kb, folder, name="shop")
        layers_before = set(Chunk.objects.filter(knowledge_base=kb).values_list("layer", flat=True))
        self.assertTrue({"C0", "C1"} <= layers_before, layers_before)
        with self.captureOnCommitCallbacks(execute=True):
            job = jobs.start_reindex(kb, force=True)
        job.refresh_from_db()
        self.assertEqual(job.status, Job.Status.SUCCEEDED)
        self.assertEqual(set(Chunk.objects.filter(knowledge_base=kb).values_list("layer", flat=True)), layers_before)


class AddTextTests(TestCase):
    def test_inline_text_with_a_uri_replaces_its_document(self):
        kb = make_kb()
        with self.captureOnCommitCallbacks(execute=True):
            first, _ = jobs.add_text(kb, title="Policy", text="# Refunds\n\nFive days.", source_uri="policy")
        with self.captureOnCommitCallbacks(execute=True):
            second, job = jobs.add_text(kb, title="Policy", text="# Refunds\n\nTen days.", source_uri="policy")
        job.refresh_from_db()
        self.assertEqual(first.pk, second.pk)
        self.assertEqual(job.counters.get("updated"), 1)
        self.assertTrue(Chunk.objects.filter(document=second, content__contains="Ten days").exists())


class DuplicateNameUploadTests(TestCase):
    def test_two_files_of_one_name_in_one_upload_keep_the_first(self):
        kb = make_kb()
        files = [SimpleUploadedFile("notes.md", b"# A\n\nfirst text"),
                 SimpleUploadedFile("notes.md", b"# B\n\nsecond text")]
        with self.captureOnCommitCallbacks(execute=True):
            job, refused = jobs.add_uploads(kb, files)
        job.refresh_from_db()
        self.assertEqual(refused, [{"item": "notes.md", "reason": "Another file of this name is in the same upload"}])
        self.assertEqual((job.progress_done, job.progress_total, job.status), (1, 1, Job.Status.SUCCEEDED))
        self.assertTrue(Chunk.objects.filter(knowledge_base=kb, content__contains="first text").exists())


class CancelAndRetryTests(TestCase):
    """`Job.cancel()` and `jobs.retry()`: the one implementation the admin and the API call."""

    def test_a_finished_job_cannot_be_cancelled(self):
        job = Job.objects.create(kind=Job.Kind.INGEST, knowledge_base=make_kb(), status=Job.Status.SUCCEEDED)
        with self.assertRaises(JobFinishedError):
            job.cancel()
        self.assertFalse(Job.objects.get(pk=job.pk).cancel_requested)

    def test_retry_runs_the_same_work_again_without_the_documents_deleted_since(self):
        kb = make_kb()
        kept, gone = make_document(kb, text="# Kept\n\nstill here"), make_document(kb, text="# Gone\n\ndeleted")
        failed = Job.objects.create(kind=Job.Kind.INGEST, knowledge_base=kb, status=Job.Status.FAILED,
                                    options={"document_ids": [kept.pk, gone.pk]}, progress_total=2)
        gone.delete()
        with self.captureOnCommitCallbacks(execute=True):
            job = jobs.retry(failed)
        job.refresh_from_db()
        self.assertNotEqual(job.pk, failed.pk)
        self.assertEqual((job.kind, job.options["document_ids"], job.status), ("ingest", [kept.pk], "succeeded"))
        self.assertEqual(job.counters, {"unchanged": 1, "chunks": 0})

    def test_a_job_that_succeeded_without_failures_is_not_retried(self):
        job = Job.objects.create(kind=Job.Kind.REINDEX, knowledge_base=make_kb(), status=Job.Status.SUCCEEDED)
        with self.assertRaises(JobStateError):
            jobs.retry(job)
        self.assertEqual(Job.objects.count(), 1)
