"""The content manager's admin: every page and action with the right and the wrong permissions."""

from pathlib import Path

from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from knowledge.indexing import vector_index
from knowledge.models import Chunk, Document, Job, KnowledgeBase
from tests.factories import make_document, make_kb
from tests.knowledge.admin_base import AdminTestCase

DOCUMENTS = Path(__file__).resolve().parents[3] / "shared" / "data" / "documents"


class KnowledgeBasePageTests(AdminTestCase):
    def test_changelist_shows_counts_by_status(self):
        self.login(self.manager)
        response = self.client.get(reverse("admin:knowledge_knowledgebase_changelist"))
        self.assertContains(response, "Handbook")
        self.assertContains(response, "1 Ready")

    def test_changelist_query_count_does_not_grow_with_bases(self):
        self.login(self.manager)
        url = reverse("admin:knowledge_knowledgebase_changelist")
        self.client.get(url)
        with self.assertNumQueries(7):
            self.client.get(url)
        for _ in range(3):
            make_document(make_kb())
        with self.assertNumQueries(7):
            self.client.get(url)

    def test_staff_without_knowledge_permissions_gets_403(self):
        self.login(self.outsider)
        for url in (reverse("admin:knowledge_knowledgebase_changelist"),
                    reverse("admin:knowledge_knowledgebase_change", args=[self.kb.pk]),
                    reverse("admin:knowledge_knowledgebase_upload", args=[self.kb.pk]),
                    reverse("admin:crawler_crawledpage_add_url", args=[self.kb.pk]),
                    reverse("admin:crawler_crawledpage_crawl", args=[self.kb.pk]),
                    reverse("admin:knowledge_knowledgebase_reindex", args=[self.kb.pk]),
                    reverse("admin:knowledge_knowledgebase_playground"),
                    reverse("admin:knowledge_document_changelist"),
                    reverse("admin:knowledge_chunk_changelist"),
                    reverse("admin:knowledge_job_changelist")):
            with self.subTest(url=url):
                self.assertEqual(self.client.get(url).status_code, 403)

    def test_the_staff_groups_get_what_they_need(self):
        from django.contrib.auth.models import Group

        content_manager = User.objects.create_user("cm", password="pw", is_staff=True)
        content_manager.groups.add(Group.objects.get(name="Content managers"))
        support = User.objects.create_user("support", password="pw", is_staff=True)
        support.groups.add(Group.objects.get(name="Support staff"))
        upload = reverse("admin:knowledge_knowledgebase_upload", args=[self.kb.pk])
        self.login(content_manager)
        self.assertEqual(self.client.get(upload).status_code, 200)
        self.assertEqual(self.client.get(reverse("admin:knowledge_knowledgebase_playground")).status_code, 200)
        self.login(support)
        self.assertEqual(self.client.get(upload).status_code, 403)
        self.assertEqual(self.client.get(reverse("admin:knowledge_knowledgebase_playground")).status_code, 403)

    def test_anonymous_users_are_sent_to_the_login_page(self):
        response = self.client.get(reverse("admin:knowledge_knowledgebase_upload", args=[self.kb.pk]))
        self.assertEqual(response.status_code, 302)
        self.assertIn("/admin/login/", response["Location"])

    def test_adding_a_base_creates_its_vector_index(self):
        self.login(self.manager)
        response = self.client.post(reverse("admin:knowledge_knowledgebase_add"), {
            "name": "Support FAQ", "slug": "support-faq", "description": "", "embedder": "hash",
            "text_search_config": "english", "chunk_size": 1000, "chunk_overlap": 100, "chunk_min_size": 100,
        })
        self.assertEqual(response.status_code, 302, response.content[:3000])
        kb = KnowledgeBase.objects.get(slug="support-faq")
        self.assertEqual((kb.embedder, kb.embedding_dim), ("hash", 256))
        self.assertTrue(vector_index.kb_index_exists(kb.pk))

    def test_overlap_of_half_the_chunk_size_is_refused(self):
        self.login(self.manager)
        response = self.client.post(reverse("admin:knowledge_knowledgebase_add"), {
            "name": "Bad", "slug": "bad", "embedder": "hash", "text_search_config": "english",
            "chunk_size": 400, "chunk_overlap": 200, "chunk_min_size": 100,
        })
        self.assertContains(response, "less than half the chunk size")
        self.assertFalse(KnowledgeBase.objects.filter(slug="bad").exists())

    def test_change_page_shows_the_summary_and_keeps_the_embedder_read_only(self):
        self.login(self.manager)
        response = self.client.get(reverse("admin:knowledge_knowledgebase_change", args=[self.kb.pk]))
        self.assertContains(response, "last ingestion")
        self.assertContains(response, reverse("admin:knowledge_knowledgebase_upload", args=[self.kb.pk]))
        self.assertContains(response, reverse("admin:knowledge_knowledgebase_playground") + f"?kb={self.kb.pk}")
        self.assertNotContains(response, 'name="embedder"')
        self.assertContains(response, "hash")

    def test_viewer_sees_no_upload_or_reindex_buttons(self):
        self.login(self.viewer)
        response = self.client.get(reverse("admin:knowledge_knowledgebase_change", args=[self.kb.pk]))
        self.assertEqual(response.status_code, 200)
        self.assertNotContains(response, reverse("admin:knowledge_knowledgebase_upload", args=[self.kb.pk]))
        self.assertNotContains(response, reverse("admin:knowledge_knowledgebase_reindex", args=[self.kb.pk]))

    def test_changing_chunking_suggests_a_reindex(self):
        self.login(self.manager)
        response = self.client.post(reverse("admin:knowledge_knowledgebase_change", args=[self.kb.pk]), {
            "name": "Handbook", "slug": self.kb.slug, "description": "", "text_search_config": "russian",
            "chunk_size": 1500, "chunk_overlap": 200, "chunk_min_size": 200,
        }, follow=True)
        self.assertContains(response, "re-index</a> to apply them")

    def test_deleting_a_base_drops_its_index(self):
        kb = make_kb()
        make_document(kb)
        self.login(self.manager)
        url = reverse("admin:knowledge_knowledgebase_delete", args=[kb.pk])
        self.assertContains(self.client.get(url), "Chunks: 1")
        response = self.client.post(url, {"post": "yes"})
        self.assertEqual(response.status_code, 302)
        self.assertFalse(KnowledgeBase.objects.filter(pk=kb.pk).exists())
        self.assertFalse(vector_index.kb_index_exists(kb.pk))


class UploadTests(AdminTestCase):
    def url(self):
        return reverse("admin:knowledge_knowledgebase_upload", args=[self.kb.pk])

    def test_form_lists_the_supported_types(self):
        self.login(self.manager)
        response = self.client.get(self.url())
        self.assertContains(response, ".docx")
        self.assertContains(response, 'enctype="multipart/form-data"')
        self.assertContains(response, "csrfmiddlewaretoken")

    def test_accepted_files_are_ingested_and_unsupported_ones_refused(self):
        self.login(self.manager)
        files = [
            SimpleUploadedFile("guide.md", b"# Guide\n\nInstall the agent, then restart it."),
            SimpleUploadedFile("notes.txt", b"Plain notes about the agent."),
            SimpleUploadedFile("photo.gif", b"GIF89a not really"),
            SimpleUploadedFile("empty.txt", b""),  # refused by name, the others still accepted
        ]
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client.post(self.url(), {"files": files})
        job = Job.objects.get(kind=Job.Kind.INGEST)
        self.assertRedirects(response, reverse("admin:knowledge_job_change", args=[job.pk]),
                             fetch_redirect_response=False)
        titles = set(self.kb.documents.filter(source_kind="upload", status=Document.Status.READY)
                     .values_list("path", flat=True))
        self.assertEqual(titles, {"guide.md", "notes.txt"})
        page = self.client.get(response["Location"])
        self.assertContains(page, "Refused photo.gif: Unsupported file type. Supported: .md")
        self.assertContains(page, "Refused empty.txt: ")
        self.assertContains(page, "Succeeded")

    def test_a_bad_file_fails_alone_with_its_reason_on_the_job(self):
        self.login(self.manager)
        encrypted = DOCUMENTS / "pdf" / "encrypted" / "libreoffice-writer-password.pdf"
        files = [SimpleUploadedFile(encrypted.name, encrypted.read_bytes()),
                 SimpleUploadedFile("ok.md", b"# Fine\n\nThis one is fine.")]
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client.post(self.url(), {"files": files})
        failed = self.kb.documents.get(path=encrypted.name)
        self.assertEqual(failed.status, Document.Status.ERROR)
        page = self.client.get(response["Location"])
        self.assertContains(page, "Completed with 1 failure")
        self.assertContains(page, '<span class="kp-badge kp-item-failed">Failed</span>', html=True)
        self.assertContains(page, failed.error_message[:30])

    def test_only_unsupported_files_show_the_form_again(self):
        self.login(self.manager)
        response = self.client.post(self.url(), {"files": [SimpleUploadedFile("a.exe", b"MZ")]})
        self.assertEqual(response.status_code, 200)
        self.assertContains(response, "No file was accepted")
        self.assertContains(response, "Supported: .md")
        self.assertFalse(Job.objects.exists())

    def test_viewer_cannot_upload(self):
        self.login(self.viewer)
        self.assertEqual(self.client.get(self.url()).status_code, 403)
        response = self.client.post(self.url(), {"files": [SimpleUploadedFile("a.md", b"# A\n\ntext")]})
        self.assertEqual(response.status_code, 403)
        self.assertFalse(Job.objects.exists())

    def test_csrf_is_enforced(self):
        from django.test import Client

        client = Client(enforce_csrf_checks=True)
        client.force_login(self.manager)
        response = client.post(self.url(), {"files": [SimpleUploadedFile("a.md", b"# A\n\ntext")]})
        self.assertEqual(response.status_code, 403)


class ReindexTests(AdminTestCase):
    def test_confirmation_page_then_job(self):
        self.login(self.manager)
        url = reverse("admin:knowledge_knowledgebase_reindex", args=[self.kb.pk])
        page = self.client.get(url)
        self.assertContains(page, "drops the existing vectors")
        self.assertFalse(Job.objects.exists())
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client.post(url, {"confirm": "yes", "embedder": "hash", "force": "on"})
        job = Job.objects.get(kind=Job.Kind.REINDEX)
        self.assertRedirects(response, reverse("admin:knowledge_job_change", args=[job.pk]),
                             fetch_redirect_response=False)
        job.refresh_from_db()
        self.assertEqual(job.status, Job.Status.SUCCEEDED)
        self.assertEqual(job.options["force"], True)

    def test_changelist_action_asks_before_reindexing(self):
        self.login(self.manager)
        url = reverse("admin:knowledge_knowledgebase_changelist")
        data = {"action": "reindex_with_embedder", "_selected_action": [self.kb.pk]}
        page = self.client.post(url, data)
        self.assertContains(page, "Yes, re-index")
        self.assertFalse(Job.objects.exists())
        response = self.client.post(url, {**data, "confirm": "yes", "embedder": "hash"})
        self.assertEqual(response.status_code, 302)
        self.assertEqual(Job.objects.filter(kind=Job.Kind.REINDEX, knowledge_base=self.kb).count(), 1)

    def test_viewer_cannot_reindex(self):
        self.login(self.viewer)
        url = reverse("admin:knowledge_knowledgebase_reindex", args=[self.kb.pk])
        self.assertEqual(self.client.post(url, {"confirm": "yes", "embedder": "hash"}).status_code, 403)
        response = self.client.post(reverse("admin:knowledge_knowledgebase_changelist"), {
            "action": "reindex_with_embedder", "_selected_action": [self.kb.pk], "confirm": "yes", "embedder": "hash"})
        self.assertNotEqual(response.status_code, 500)
        self.assertFalse(Job.objects.exists())


class DocumentAdminTests(AdminTestCase):
    def test_changelist_query_count_does_not_grow_with_rows(self):
        self.login(self.manager)
        url = reverse("admin:knowledge_document_changelist")
        self.client.get(url)  # warm the session and content-type caches
        with self.assertNumQueries(8):
            self.client.get(url)
        for _ in range(5):
            make_document(make_kb())
        with self.assertNumQueries(8):
            response = self.client.get(url)
        self.assertContains(response, "Refunds &lt;script&gt;")
        self.assertNotContains(response, "<script>alert(1)")

    def test_filters_and_search(self):
        failed = Document.objects.create(knowledge_base=self.kb, source_kind="upload", source_uri="upload:x.pdf",
                                         title="Broken", status=Document.Status.ERROR,
                                         error_message="The PDF is encrypted " + "and more detail " * 20)
        self.login(self.manager)
        url = reverse("admin:knowledge_document_changelist")
        response = self.client.get(url, {"status__exact": "error"})
        self.assertContains(response, "Broken")
        self.assertNotContains(response, "Refunds &lt;")
        self.assertContains(self.client.get(url, {"q": "encrypted"}), "Broken")
        detail = self.client.get(reverse("admin:knowledge_document_change", args=[failed.pk]))
        self.assertContains(detail, failed.error_message)

    def test_detail_shows_text_metadata_and_chunks_in_order_without_vectors(self):
        self.login(self.manager)
        response = self.client.get(reverse("admin:knowledge_document_change", args=[self.doc.pk]))
        self.assertContains(response, "Refunds are paid within 14 days.")
        self.assertContains(response, "Refunds &gt; Exceptions")
        self.assertContains(response, "Chunks (")
        self.assertNotContains(response, "embedding")
        self.assertNotContains(response, "<script>alert(1)")
        self.assertNotContains(response, 'name="_save"')

    def test_reindex_action_starts_a_job(self):
        self.login(self.manager)
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client.post(reverse("admin:knowledge_document_changelist"),
                                        {"action": "reindex_documents", "_selected_action": [self.doc.pk]},
                                        follow=True)
        job = Job.objects.get(kind=Job.Kind.INGEST)
        self.assertEqual(job.options["document_ids"], [self.doc.pk])
        self.assertContains(response, f"Re-index: 1 job started: <a href=\"/admin/knowledge/job/{job.pk}/change/\">")

    def test_delete_action_asks_first_then_removes_documents_in_a_job(self):
        self.login(self.manager)
        url = reverse("admin:knowledge_document_changelist")
        chosen = {"action": "delete_selected", "_selected_action": [self.doc.pk]}
        confirm = self.client.post(url, chosen)
        # Django's confirmation page: what goes, and a button that posts the same choice back with "post".
        self.assertTemplateUsed(confirm, "admin/delete_selected_confirmation.html")
        self.assertContains(confirm, "Are you sure you want to delete the selected document?")
        self.assertContains(confirm, f'<input type="hidden" name="_selected_action" value="{self.doc.pk}">', html=True)
        self.assertTrue(Document.objects.filter(pk=self.doc.pk).exists())
        self.assertFalse(Job.objects.exists())
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client.post(url, {**chosen, "post": "yes"}, follow=True)
        self.assertFalse(Document.objects.filter(pk=self.doc.pk).exists())
        job = Job.objects.get(kind=Job.Kind.DELETE)
        self.assertEqual(job.status, Job.Status.SUCCEEDED)
        self.assertContains(response, f"Deletion: 1 job started: <a href=\"/admin/knowledge/job/{job.pk}/change/\">")

    def test_viewer_has_no_actions(self):
        self.login(self.viewer)
        url = reverse("admin:knowledge_document_changelist")
        response = self.client.get(url)
        self.assertNotContains(response, "reindex_documents")
        self.client.post(url, {"action": "delete_selected", "_selected_action": [self.doc.pk], "post": "yes"})
        self.assertTrue(Document.objects.filter(pk=self.doc.pk).exists())
        self.assertFalse(Job.objects.exists())

    def test_documents_cannot_be_added_by_hand(self):
        self.login(self.manager)
        self.assertEqual(self.client.get(reverse("admin:knowledge_document_add")).status_code, 403)


class ChunkAdminTests(AdminTestCase):
    def test_changelist_is_read_only_and_never_counts_everything(self):
        self.login(self.viewer)
        url = reverse("admin:knowledge_chunk_changelist")
        response = self.client.get(url, {"document__id__exact": self.doc.pk, "layer": "D0"})
        self.assertEqual(response.status_code, 200)
        self.assertEqual(response.context["cl"].result_count, self.doc.chunk_count)
        self.assertContains(response, "Exceptions")
        self.assertNotContains(response, "Add chunk")
        chunk = Chunk.objects.filter(document=self.doc).first()
        detail = self.client.get(reverse("admin:knowledge_chunk_change", args=[chunk.pk]))
        self.assertContains(detail, chunk.content[:20])
        self.assertNotContains(detail, "embedding")
        self.assertNotContains(detail, 'name="_save"')


    def test_the_paginator_counts_at_most_its_limit(self):
        from knowledge.admin import CappedCountPaginator

        class Small(CappedCountPaginator):
            LIMIT = 1

        chunks = Chunk.objects.filter(document=self.doc)
        self.assertGreater(chunks.count(), 1)
        self.assertEqual(Small(chunks, 10).count, 1)
        self.assertEqual(CappedCountPaginator(chunks, 10).count, chunks.count())


