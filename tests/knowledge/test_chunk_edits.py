"""Hand edits to chunks: search reflects each one at once, only the touched chunk is re-embedded,
hand-written chunks survive a rebuild, and tickets keep the text they cited."""

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import TestCase
from django.urls import reverse

from knowledge import preview
from knowledge.exceptions import KnowledgeError
from knowledge.indexing import edits, ingestion
from knowledge.models import Chunk
from knowledge.search import retrieval
from tests.conftest import DATA
from tests.factories import make_document, make_kb
from tests.knowledge.admin_base import AdminTestCase
from tests.tickets.helpers import DELIVERY, make_help_centre
from tests.tickets.test_triage import submit
from tickets import citations

LONG = "# Refunds\n\n" + "Refunds are paid within 14 days of the request. " * 60 + \
       "\n\n# Shipping\n\n" + "Parcels travel by sea freight to every port. " * 60


def found(kb, query: str, mode: str = "hybrid") -> list[str]:
    return [hit.content for hit in retrieval.search(query, [kb.pk], mode=mode, top_k=10)]


class ChunkEditTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb(chunk_size=300, chunk_overlap=30, chunk_min_size=50)
        cls.document = make_document(cls.kb, LONG, title="Policies")

    def test_an_edited_chunk_is_found_by_its_new_text_at_once_and_only_it_is_re_embedded(self):
        chunks = list(self.document.chunks.order_by("position"))
        self.assertGreater(len(chunks), 3)
        vectors = {chunk.pk: list(chunk.embedding) for chunk in chunks}
        target = chunks[1]
        edits.edit_chunk(target, "Gift vouchers can be swapped for store credit at any branch.")
        for mode in ("keyword", "vector", "hybrid"):
            self.assertIn("Gift vouchers can be swapped", found(self.kb, "swap gift vouchers store credit", mode)[0])
        after = {chunk.pk: list(chunk.embedding) for chunk in self.document.chunks.all()}
        changed = [pk for pk in vectors if vectors[pk] != after[pk]]
        self.assertEqual(changed, [target.pk])
        target.refresh_from_db()
        self.assertEqual((target.metadata["edited"], target.position), (True, 1))

    def test_a_disabled_chunk_is_not_found_until_enabled(self):
        target = edits.edit_chunk(self.document.chunks.get(position=0), "Loyalty points expire after two years.")
        target.set_enabled(False)
        for mode in ("keyword", "vector", "hybrid"):
            self.assertNotIn(target.content, found(self.kb, "loyalty points expire", mode), mode)
        target.set_enabled(True)
        self.assertEqual(found(self.kb, "loyalty points expire")[0], target.content)

    def test_a_manual_chunk_is_found_at_once_and_survives_a_rebuild_of_its_document(self):
        count = self.document.chunk_count
        chunk = edits.add_chunk(self.document, section_path="FAQ > Pets",
                                content="Q: Can I bring my dog? A: Yes, dogs on a lead are welcome.")
        self.assertEqual((chunk.position, chunk.layer), (count, "D0"))
        self.assertEqual(found(self.kb, "can I bring my dog")[0], chunk.content)
        self.document.refresh_from_db()
        self.assertEqual(self.document.chunk_count, count + 1)
        # The source changes and is rebuilt: the hand-written chunk stays, after the new chunks.
        ingestion.ingest_text(self.kb, title="Policies", text=LONG + "\n\n# Returns\n\nReturns are free.",
                              document=self.document)
        self.document.refresh_from_db()
        manual = Chunk.objects.get(document=self.document, metadata__contains={"manual": True})
        self.assertEqual(manual.position, self.document.chunk_count - 1)
        self.assertEqual(found(self.kb, "can I bring my dog")[0], chunk.content)

    def test_empty_or_huge_text_is_refused(self):
        with self.assertRaises(KnowledgeError):
            edits.add_chunk(self.document, content="   ")
        with self.assertRaises(KnowledgeError):
            edits.edit_chunk(self.document.chunks.first(), "x" * (edits.MAX_CHUNK_CHARS + 1))


class TicketSnapshotTests(TestCase):
    def test_editing_a_cited_chunk_keeps_the_tickets_snapshot(self):
        kb, documents, _ = make_help_centre()
        ticket = submit(self, "How long does standard delivery take?")
        source = ticket.sources.get(position=1)
        before = source.content_full
        edits.edit_chunk(source.chunk, "Standard delivery takes two working days.")
        source.refresh_from_db()
        self.assertEqual(source.content_full, before)
        self.assertIn("three to five", DELIVERY)
        self.assertEqual(citations.compare_with_live(source).status, "changed")


class PreviewTests(TestCase):
    def test_a_file_is_parsed_and_chunked_by_the_bases_settings_and_nothing_is_stored(self):
        kb = make_kb(chunk_size=300, chunk_overlap=30, chunk_min_size=50)
        path = DATA / "documents/md/en/react-learn-installation.md"
        result = preview.preview_upload(kb, SimpleUploadedFile(path.name, path.read_bytes()))
        self.assertEqual((result.name, result.title), (path.name, "Installation"))
        self.assertGreater(len(result.chunks), 3)
        self.assertTrue(all(len(chunk.content) <= 300 * 1.5 for chunk in result.chunks))
        self.assertFalse(kb.documents.exists())

    def test_a_refused_or_broken_file_is_named(self):
        kb = make_kb()
        with self.assertRaisesMessage(KnowledgeError, "setup.exe: Unsupported file type"):
            preview.preview_upload(kb, SimpleUploadedFile("setup.exe", b"MZ"))
        bad = DATA / "documents/pdf/malformed/header-only-invalid.pdf"
        with self.assertRaisesMessage(KnowledgeError, "header-only-invalid.pdf"):
            preview.preview_upload(kb, SimpleUploadedFile(bad.name, bad.read_bytes()))


class ChunkAdminEditTests(AdminTestCase):
    def test_editing_in_the_admin_re_embeds_and_search_finds_the_new_text(self):
        chunk = self.doc.chunks.first()
        url = reverse("admin:knowledge_chunk_change", args=[chunk.pk])
        self.login(self.viewer)
        self.assertNotContains(self.client.get(url), 'name="content"')
        self.login(self.manager)
        response = self.client.post(url, {"content": "Store credit never expires.", "enabled": "on"}, follow=True)
        self.assertContains(response, "search finds its new text now")
        self.assertEqual(found(self.kb, "does store credit expire")[0], "Store credit never expires.")
        self.client.post(url, {"content": "Store credit never expires."})  # unticked: disabled
        self.assertNotIn("Store credit never expires.", found(self.kb, "does store credit expire"))

    def test_adding_a_chunk_from_the_document_page(self):
        url = reverse("admin:knowledge_document_add_chunk", args=[self.doc.pk])
        self.login(self.viewer)
        self.assertEqual(self.client.get(url).status_code, 403)
        self.login(self.manager)
        response = self.client.post(url, {"section_path": "FAQ", "content": "Q: Do you ship to Mars? A: Not yet."})
        self.assertRedirects(response, reverse("admin:knowledge_document_change", args=[self.doc.pk]) + "#chunks",
                             fetch_redirect_response=False)
        self.assertEqual(found(self.kb, "ship to Mars")[0], "Q: Do you ship to Mars? A: Not yet.")

    def test_the_preview_page_shows_chunks_and_errors(self):
        url = reverse("admin:knowledge_knowledgebase_preview", args=[self.kb.pk])
        self.login(self.viewer)
        notes = SimpleUploadedFile("notes.md", b"# A <b>\n\nFirst.\n\n# B\n\nSecond.")
        response = self.client.post(url, {"file": notes})
        self.assertContains(response, "notes.md: 1 chunk")
        self.assertContains(response, "A &lt;b&gt;")
        response = self.client.post(url, {"file": SimpleUploadedFile("x.exe", b"MZ")})
        self.assertContains(response, "x.exe: Unsupported file type")
        self.login(self.outsider)
        self.assertEqual(self.client.get(url).status_code, 403)
