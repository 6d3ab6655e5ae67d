from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from knowledge.models import Chunk, Document, Job
from tests.api.base import ApiTestCase, make_key
from tests.conftest import DATA
from tests.factories import make_document, make_kb

DOCS = DATA / "documents"


def upload(path):
    return SimpleUploadedFile(path.name, path.read_bytes())


class DocumentApiTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        cls.other = make_kb()
        cls.document = make_document(cls.kb, text="# Setup\n\nInstall the package.\n\n## Usage\n\nRun it daily.")
        cls.key, cls.token = make_key()
        _, cls.reader = make_key(scopes=["read"])
        _, cls.limited = make_key(knowledge_bases=[cls.other])

    def poll(self, job_id: int) -> dict:
        for _ in range(50):
            job = self.api("get", f"/jobs/{job_id}", token=self.token).json()
            if job["status"] in ("succeeded", "partial", "failed", "cancelled"):
                return job
        self.fail(f"job {job_id} did not finish: {job}")

    def test_uploading_real_files_and_polling_until_ready(self):
        files = [upload(DOCS / "md/en/react-learn-installation.md"),
                 upload(DOCS / "docx/ru/bank-faq-ru-generated.docx"),
                 upload(DOCS / "pdf/text/pdflatex-4-pages.pdf"),
                 upload(DOCS / "xlsx/ru/smart_support_vtb_belarus_faq_final.xlsx"),
                 upload(DOCS / "pdf/encrypted/libreoffice-writer-password.pdf"),
                 SimpleUploadedFile("tool.exe", b"MZ\x90\x00")]
        with self.captureOnCommitCallbacks(execute=True):
            response = self.api("post", f"/knowledge-bases/{self.kb.pk}/documents", token=self.token, files=files)
        self.assertEqual(response.status_code, 202, response.content)
        body = response.json()
        self.assertEqual([item["item"] for item in body["refused"]], ["tool.exe"])
        self.assertEqual(len(body["documents"]), 5)
        job = self.poll(body["job"]["id"])
        self.assertEqual((job["status"], job["status_label"], job["progress_done"], job["progress_total"],
                          job["percent"]), ("partial", "Completed with 1 failure", 5, 5, 100))
        self.assertEqual(len(job["failures"]), 1, job["failures"])
        # The same per-document detail as the admin's job page.
        states = {item["name"]: (item["state"], item["chunks_done"] == item["chunks_total"] > 0)
                  for item in job["documents"]}
        self.assertEqual(states, {"react-learn-installation.md": ("ready", True),
                                  "bank-faq-ru-generated.docx": ("ready", True),
                                  "pdflatex-4-pages.pdf": ("ready", True),
                                  "smart_support_vtb_belarus_faq_final.xlsx": ("ready", True),
                                  "libreoffice-writer-password.pdf": ("failed", False)})
        failed = next(item for item in job["documents"] if item["state"] == "failed")
        self.assertIn("PDF is encrypted", failed["reason"])
        self.assertEqual(job["chunks_done"], sum(item["chunks_done"] for item in job["documents"]))
        listed = self.api("get", f"/knowledge-bases/{self.kb.pk}/documents?status=ready&page_size=50",
                          token=self.token).json()
        self.assertEqual({item["path"] for item in listed["items"] if item["source_kind"] == "upload"},
                         {"react-learn-installation.md", "bank-faq-ru-generated.docx", "pdflatex-4-pages.pdf",
                          "smart_support_vtb_belarus_faq_final.xlsx"})
        failed = self.api("get", f"/knowledge-bases/{self.kb.pk}/documents?status=error", token=self.token).json()
        self.assertEqual([item["path"] for item in failed["items"]], ["libreoffice-writer-password.pdf"])
        self.assertTrue(failed["items"][0]["error_message"])
        detail = self.api("get", f"/documents/{failed['items'][0]['id']}", token=self.token).json()
        self.assertEqual(detail["latest_job"]["id"], job["id"])

    def test_a_file_over_the_size_limit_is_413_and_nothing_is_stored(self):
        from django.conf import settings

        with override_settings(PORTAL={**settings.PORTAL, "MAX_UPLOAD_BYTES": 100}):
            response = self.api("post", f"/knowledge-bases/{self.kb.pk}/documents", token=self.token,
                                files=[SimpleUploadedFile("small.txt", b"fine"),
                                       SimpleUploadedFile("big.txt", b"x" * 101)])
        error = self.assertError(response, 413, "file_too_large")
        self.assertIn("big.txt", error["message"])
        self.assertFalse(Document.objects.filter(path__in=["small.txt", "big.txt"]).exists())

    def test_an_upload_with_no_usable_file_is_422_with_reasons(self):
        response = self.api("post", f"/knowledge-bases/{self.kb.pk}/documents", token=self.token,
                            files=[SimpleUploadedFile("a.exe", b"MZ"), SimpleUploadedFile("b.txt", b"")])
        error = self.assertError(response, 422, "no_acceptable_files")
        self.assertEqual(len(error["fields"]), 2)

    def test_an_upload_without_files_says_which_field(self):
        response = self.api("post", f"/knowledge-bases/{self.kb.pk}/documents", token=self.token, data={})
        error = self.assertError(response, 422, "invalid")
        self.assertEqual(error["fields"][0]["field"], "files")

    def test_inline_text_becomes_a_ready_document(self):
        with self.captureOnCommitCallbacks(execute=True):
            response = self.api("post", f"/knowledge-bases/{self.kb.pk}/documents/text", token=self.token,
                                data={"title": "Refunds", "text": "# Refunds\n\nRefunds take five days.",
                                      "source_uri": "faq:refunds", "metadata": {"team": "billing"}})
        self.assertEqual(response.status_code, 202, response.content)
        self.assertEqual(self.poll(response.json()["job"]["id"])["status"], "succeeded")
        document = Document.objects.get(pk=response.json()["document"]["id"])
        self.assertEqual((document.status, document.title, document.metadata["team"]), ("ready", "Refunds", "billing"))
        # The same source URI again replaces that document instead of adding one.
        with self.captureOnCommitCallbacks(execute=True):
            again = self.api("post", f"/knowledge-bases/{self.kb.pk}/documents/text", token=self.token,
                             data={"title": "Refunds", "text": "Refunds take ten days.", "source_uri": "faq:refunds"})
        self.assertEqual(again.json()["document"]["id"], document.pk)
        self.assertIn("ten days", Chunk.objects.filter(document=document).get().content)

    def test_document_detail_chunks_reindex_and_delete(self):
        document = make_document(self.kb, text="# One\n\nFirst part.\n\n# Two\n\nSecond part.")
        body = self.api("get", f"/documents/{document.pk}", token=self.token).json()
        self.assertEqual((body["status"], body["knowledge_base_id"]), ("ready", self.kb.pk))
        self.assertNotIn("text", body)
        chunks = self.api("get", f"/documents/{document.pk}/chunks", token=self.token).json()
        self.assertEqual(chunks["count"], document.chunk_count)
        self.assertEqual(set(chunks["items"][0]), {"id", "position", "layer", "title", "section_path",
                                                  "parent_heading", "content", "token_count", "span_start",
                                                  "span_end", "page", "language", "metadata"})
        self.assertEqual(self.api("get", f"/documents/{document.pk}/chunks?layer=C0",
                                  token=self.token).json()["count"], 0)
        with self.captureOnCommitCallbacks(execute=True):
            response = self.api("post", f"/documents/{document.pk}/reindex", token=self.token)
        self.assertEqual(response.status_code, 202)
        self.assertEqual(self.poll(response.json()["id"])["counters"].get("unchanged"), 1)
        with self.captureOnCommitCallbacks(execute=True):
            response = self.api("delete", f"/documents/{document.pk}", token=self.token)
        self.assertEqual(response.status_code, 202)
        self.assertEqual(self.poll(response.json()["id"])["kind"], "delete")
        self.assertFalse(Document.objects.filter(pk=document.pk).exists())
        self.assertError(self.api("get", f"/documents/{document.pk}", token=self.token), 404)

    def test_documents_of_another_base_are_404_for_a_limited_key(self):
        for method, path in [("get", ""), ("get", "/chunks"), ("post", "/reindex"), ("delete", "")]:
            with self.subTest(f"{method} {path}"):
                self.assertError(self.api(method, f"/documents/{self.document.pk}{path}", token=self.limited), 404)
        self.assertError(self.api("post", f"/knowledge-bases/{self.kb.pk}/documents", token=self.limited,
                                  files=[SimpleUploadedFile("a.txt", b"hello")]), 404)

    def test_scopes_and_missing_keys(self):
        for method, path in [("post", f"/documents/{self.document.pk}/reindex"),
                             ("delete", f"/documents/{self.document.pk}")]:
            with self.subTest(f"{method} {path}"):
                self.assertError(self.api(method, path, token=self.reader), 403, "missing_scope")
        self.assertError(self.api("post", f"/knowledge-bases/{self.kb.pk}/documents", token=self.reader,
                                  files=[SimpleUploadedFile("a.txt", b"hello")]), 403, "missing_scope")
        for method, path in [("get", f"/documents/{self.document.pk}"),
                             ("get", f"/documents/{self.document.pk}/chunks"),
                             ("post", f"/documents/{self.document.pk}/reindex"),
                             ("delete", f"/documents/{self.document.pk}"),
                             ("get", f"/knowledge-bases/{self.kb.pk}/documents"),
                             ("post", f"/knowledge-bases/{self.kb.pk}/documents"),
                             ("post", f"/knowledge-bases/{self.kb.pk}/documents/text")]:
            with self.subTest(f"{method} {path}"):
                self.assertError(self.api(method, path), 401)


class DocumentEnableApiTests(ApiTestCase):
    def test_a_disabled_document_is_left_out_of_search_until_enabled(self):
        kb = make_kb()
        document = make_document(kb, title="Refunds", text="# Refunds\n\nRefunds are paid within 14 days.")
        _, token = make_key()
        _, reader = make_key(scopes=["read", "search"])

        def hits() -> list[int]:
            body = self.api("post", "/search", token=token, data={"query": "refunds paid", "knowledge_bases": [kb.pk]})
            return [hit["document_id"] for hit in body.json()["hits"]]

        self.assertIn(document.pk, hits())
        self.assertEqual(self.api("post", f"/documents/{document.pk}/disable", token=reader).status_code, 403)
        response = self.api("post", f"/documents/{document.pk}/disable", token=token)
        self.assertEqual((response.status_code, response.json()["enabled"]), (200, False))
        self.assertEqual(hits(), [])
        self.assertTrue(self.api("post", f"/documents/{document.pk}/enable", token=token).json()["enabled"])
        self.assertIn(document.pk, hits())


class JobApiTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        cls.other = make_kb()
        cls.job = Job.objects.create(kind=Job.Kind.INGEST, knowledge_base=cls.kb, progress_total=4, progress_done=1)
        _, cls.token = make_key()
        _, cls.reader = make_key(scopes=["read"])
        _, cls.limited = make_key(knowledge_bases=[cls.other])

    def test_get_shows_progress(self):
        body = self.api("get", f"/jobs/{self.job.pk}", token=self.reader).json()
        self.assertEqual((body["status"], body["percent"], body["knowledge_base_id"]), ("queued", 25, self.kb.pk))

    def test_cancel_sets_the_flag_once(self):
        self.assertError(self.api("post", f"/jobs/{self.job.pk}/cancel", token=self.reader), 403, "missing_scope")
        response = self.api("post", f"/jobs/{self.job.pk}/cancel", token=self.token)
        self.assertEqual(response.status_code, 202)
        self.assertTrue(response.json()["cancel_requested"])
        self.job.refresh_from_db()
        self.assertTrue(self.job.cancel_requested)
        finished = Job.objects.create(kind=Job.Kind.INGEST, knowledge_base=self.kb, status=Job.Status.SUCCEEDED)
        self.assertError(self.api("post", f"/jobs/{finished.pk}/cancel", token=self.token), 409, "job_finished")

    def test_another_bases_job_is_404_for_a_limited_key_and_401_without_a_key(self):
        self.assertError(self.api("get", f"/jobs/{self.job.pk}", token=self.limited), 404)
        self.assertError(self.api("post", f"/jobs/{self.job.pk}/cancel", token=self.limited), 404)
        self.assertError(self.api("get", f"/jobs/{self.job.pk}"), 401)
        self.assertError(self.api("get", "/jobs/999999", token=self.token), 404)


class UploadNameTests(ApiTestCase):
    def test_two_files_of_one_name_are_refused(self):
        kb = make_kb()
        _, token = make_key()
        response = self.api("post", f"/knowledge-bases/{kb.pk}/documents", token=token,
                            files=[upload(DOCS / "md/en/react-learn-installation.md"),
                                   upload(DOCS / "md/ru/react-learn-installation.md")])
        error = self.assertError(response, 422, "duplicate_file_names")
        self.assertIn("react-learn-installation.md", error["message"])
        self.assertFalse(Document.objects.filter(knowledge_base=kb).exists())
