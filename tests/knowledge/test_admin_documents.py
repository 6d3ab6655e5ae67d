"""Documents a person can recognise and fix: file names, problems, the original file, re-run, disable."""

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from knowledge import jobs
from knowledge.models import Document, Job
from knowledge.search import retrieval
from tests.conftest import DATA
from tests.factories import make_document
from tests.knowledge.admin_base import AdminTestCase

ENCRYPTED = DATA / "documents/pdf/encrypted/libreoffice-writer-password.pdf"


class DocumentFixTests(AdminTestCase):
    def upload(self, name: str, content: bytes) -> Document:
        with self.captureOnCommitCallbacks(execute=True):
            job, _ = jobs.add_uploads(self.kb, [SimpleUploadedFile(name, content)])
        return Document.objects.get(pk=job.options["document_ids"][0])

    def test_the_list_names_the_file_and_shows_the_problem_next_to_the_status(self):
        failed = self.upload(ENCRYPTED.name, ENCRYPTED.read_bytes())
        self.login(self.viewer)
        response = self.client.get(reverse("admin:knowledge_document_changelist"))
        columns = [f"column-{name}" for name in ("title_or_uri", "file_name", "status_badge", "problem")]
        head = response.content.decode().split("<thead>")[1].split("</thead>")[0]
        self.assertEqual(sorted(columns, key=head.index), columns)
        download = reverse("admin:knowledge_document_download", args=[failed.pk])
        self.assertContains(response, f'<a href="{download}" title="Download the original">{ENCRYPTED.name}</a>',
                            html=True)
        self.assertNotContains(response, f"upload:{ENCRYPTED.name}")  # the title column names the file too
        self.assertContains(response, "PDF is encrypted; remove the password")

    def test_the_original_downloads_under_its_own_name_for_those_who_may_view_it(self):
        document = self.upload("Refund policy.md", b"# Refunds\n\nFourteen days.")
        url = reverse("admin:knowledge_document_download", args=[document.pk])
        self.login(self.viewer)
        response = self.client.get(url)
        self.assertEqual(b"".join(response.streaming_content), b"# Refunds\n\nFourteen days.")
        self.assertIn('filename="Refund policy.md"', response["Content-Disposition"])
        self.assertEqual(self.client.get(reverse("admin:knowledge_document_download", args=[self.doc.pk]))
                         .status_code, 404)  # inline text has no original file
        self.login(self.outsider)
        self.assertEqual(self.client.get(url).status_code, 403)

    def test_one_document_runs_again_as_its_own_job(self):
        url = reverse("admin:knowledge_document_rerun", args=[self.doc.pk])
        self.login(self.viewer)
        self.assertEqual(self.client.post(url).status_code, 403)
        self.login(self.manager)
        self.assertEqual(self.client.get(url).status_code, 405)
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client.post(url)
        job = Job.objects.get(kind=Job.Kind.INGEST)
        self.assertRedirects(response, reverse("admin:knowledge_job_change", args=[job.pk]))
        job.refresh_from_db()
        self.assertEqual((job.options["document_ids"], job.status, job.items[0]["state"]),
                         ([self.doc.pk], Job.Status.SUCCEEDED, "unchanged"))

    def test_a_disabled_document_leaves_search_at_once_and_comes_back_when_enabled(self):
        other = make_document(self.kb, title="Shipping", text="# Shipping\n\nParcels travel by sea freight.")

        def found(mode: str) -> set[int]:
            return {hit.document_id for hit in retrieval.search("refunds paid days", [self.kb.pk], mode=mode)}

        self.assertIn(self.doc.pk, found("vector"))
        self.login(self.manager)
        page = reverse("admin:knowledge_document_change", args=[self.doc.pk])
        response = self.client.post(reverse("admin:knowledge_document_disable", args=[self.doc.pk]), follow=True)
        self.assertRedirects(response, page)
        self.assertContains(response, "is out of search")
        self.assertContains(response, "This document is <strong>disabled</strong>")
        for mode in ("vector", "keyword", "hybrid"):
            self.assertNotIn(self.doc.pk, found(mode), mode)
        self.assertIn(other.pk, found("vector"))
        self.assertEqual(self.doc.chunks.count(), Document.objects.get(pk=self.doc.pk).chunk_count)  # kept
        self.client.post(reverse("admin:knowledge_document_enable", args=[self.doc.pk]))
        self.assertIn(self.doc.pk, found("hybrid"))

    def test_disable_and_enable_actions_and_the_filter(self):
        self.login(self.manager)
        url = reverse("admin:knowledge_document_changelist")
        self.client.post(url, {"action": "disable_documents", "_selected_action": [self.doc.pk]})
        response = self.client.get(url, {"enabled__exact": "0"})
        self.assertEqual(list(response.context["cl"].result_list), [self.doc])
        self.assertContains(response, "Disabled</span>")
        self.client.post(url, {"action": "enable_documents", "_selected_action": [self.doc.pk]})
        self.assertTrue(Document.objects.get(pk=self.doc.pk).enabled)

    def test_viewers_cannot_disable(self):
        self.login(self.viewer)
        self.assertEqual(self.client.post(reverse("admin:knowledge_document_disable", args=[self.doc.pk]))
                         .status_code, 403)
        self.assertTrue(Document.objects.get(pk=self.doc.pk).enabled)
        self.assertNotContains(self.client.get(reverse("admin:knowledge_document_change", args=[self.doc.pk])),
                               "kp-disable-form")
