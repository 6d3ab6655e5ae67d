"""The parse-quality report: one test per flag, the admin's "needs attention" filter and actions,
the API, and poorly parsed sources kept out of ticket auto-replies until a person accepts them."""

from pathlib import Path

import pypdfium2 as pdfium
import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import TestCase, override_settings
from django.urls import reverse
from PIL import ImageFilter
from pypdf import PdfReader, PdfWriter

from knowledge import jobs, quality
from knowledge.documents import ParsedDocument
from knowledge.indexing import ingestion
from knowledge.indexing.parsing import quality as parse_quality
from knowledge.indexing.parsing.html import html_to_markdown
from knowledge.models import Document, Job
from tests.api.base import make_key
from tests.conftest import DATA
from tests.factories import make_kb
from tests.knowledge.test_ocr import needs_tesseract
from tests.tickets.helpers import make_help_centre
from tickets import triage
from tickets.models import Message, Ticket

RUSSIAN = ("Доставка по России занимает от трёх до пяти рабочих дней. Возврат товара возможен в течение "
           "четырнадцати дней с момента получения заказа, если товар не был в употреблении. ") * 6
ENGLISH = ("Standard delivery takes three to five working days. Returns are accepted within fourteen days "
           "of receipt when the item is unused and in its original packaging. ") * 6


def garbage_pdf(tmp_path: Path) -> Path:
    """A one-page PDF whose text layer is control codes: what a font without a Unicode map gives."""
    text = "".join(f"\\{code:03o}" for code in list(range(1, 9)) * 60)
    stream = f"BT /F1 10 Tf 20 700 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path = tmp_path / "garbage.pdf"
    path.write_bytes(bytes(out))
    return path


def flags_of(text: str, **metadata) -> list[str]:
    return parse_quality.assess(ParsedDocument(text=text, title="t", mime="", metadata=metadata))["flags"]


# --- the report, flag by flag --------------------------------------------------------------------


def test_clean_russian_and_english_text_raises_no_flag():
    assert flags_of(RUSSIAN) == []
    assert flags_of(ENGLISH) == []
    assert parse_quality.language(RUSSIAN) == "ru"
    assert parse_quality.language(ENGLISH) == "en"


def test_a_text_layer_that_lost_its_spaces_is_flagged():
    from knowledge.indexing.parsing import parse_file

    # pypdf's own reading of the guide's pages ("РуководствоначинающегоразработчикаDebian"); the parser reads
    # such pages again with pdfium (test_page_text), so the flag is for a layer no reader gets spaces from.
    reader = PdfReader(DATA / "documents/pdf/ru/debian-maint-guide.ru.pdf")
    glued = "\n\n".join(page.extract_text() for page in reader.pages[8:20])
    report = parse_quality.assess(ParsedDocument(text=glued, title="Guide", mime="application/pdf"))
    assert "run_together_words" in report["flags"]
    assert report["long_word_share"] > parse_quality.MAX_LONG_WORD_SHARE
    # The same guide as plain text, and long German compounds, code and addresses, are fine.
    assert parse_quality.assess(parse_file(DATA / "documents/txt/debian-maint-guide.ru.txt"))["flags"] == []
    compounds = "Die Donaudampfschifffahrtsgesellschaftskapitän fährt https://example.org/a/very/long/path. "
    assert flags_of(ENGLISH + compounds + "createConnectionWithTheServerUrl(options) ") == []


def test_a_pdf_with_a_garbage_text_layer_is_flagged(tmp_path):
    from knowledge.indexing.parsing import parse_file

    report = parse_quality.assess(parse_file(garbage_pdf(tmp_path)))
    assert "garbage_text" in report["flags"]
    assert report["garbage_share"] > 0.5


def test_replacement_characters_are_flagged():
    assert flags_of(ENGLISH.replace("e", "\ufffd", 40)) == ["replacement_characters"]
    assert flags_of(ENGLISH.replace("e", "\ufffd", 1)) == []


def test_utf8_read_as_cp1251_is_broken_cyrillic():
    broken = RUSSIAN.encode("utf-8").decode("cp1251", errors="replace")
    assert "broken_cyrillic" in flags_of(broken)


def test_koi8_read_as_cp1251_is_broken_cyrillic():
    assert "broken_cyrillic" in flags_of(RUSSIAN.encode("koi8_r").decode("cp1251"))


def test_utf8_read_as_latin1_is_broken_cyrillic():
    assert "broken_cyrillic" in flags_of(RUSSIAN.encode("utf-8").decode("latin-1"))


def test_unreadable_pages_make_a_document_incomplete():
    assert flags_of(ENGLISH, page_count=3, unreadable_pages=[2]) == ["incomplete"]


def test_low_ocr_confidence_is_flagged():
    assert flags_of(ENGLISH, ocr={"pages": [1], "mean_confidence": 41.0}) == ["low_ocr_confidence"]
    assert flags_of(ENGLISH, ocr={"pages": [1], "mean_confidence": 91.0}) == []


def test_markdown_tables_are_counted():
    table = "| Город | Индекс |\n|---|---|\n| Москва | 101000 |\n\n| a | b |\n| :--- | ---: |\n| 1 | 2 |\n"
    assert parse_quality.tables(table) == 2


def test_a_csv_in_koi8_r_is_read_in_koi8_r(tmp_path):
    from knowledge.indexing.parsing import parse_file

    path = tmp_path / "cities.csv"
    path.write_bytes("Город;Регион;Население\nМосква;Москва;13000000\nКазань;Татарстан;1300000\n".encode("koi8_r"))
    parsed = parse_file(path)
    assert "Казань" in parsed.text and "Татарстан" in parsed.text
    report = parse_quality.assess(parsed, encoding=parse_quality.file_encoding(path))
    assert report["encoding"] == "koi8-r"
    assert report["flags"] == []


@needs_tesseract
@pytest.mark.django_db
def test_a_blurred_scan_is_flagged_for_low_ocr_confidence(tmp_path):
    document = pdfium.PdfDocument(str(DATA / "documents/pdf/ru/def_positions.pdf"))
    picture = document[1].render(scale=0.5, grayscale=True).to_pil()
    document.close()
    picture = picture.resize((picture.width * 3, picture.height * 3)).filter(ImageFilter.GaussianBlur(2))
    path = tmp_path / "blurred.png"
    picture.save(path)
    kb = make_kb()
    result = ingestion.ingest_file(kb, path)
    assert "low_ocr_confidence" in result.document.quality["flags"], result.document.quality
    assert result.document.quality["ocr_pages"] == 1


@pytest.mark.django_db
def test_scanned_pages_left_unread_are_flagged(tmp_path):
    writer = PdfWriter()
    writer.add_page(PdfReader(DATA / "documents/pdf/text/pdflatex-4-pages.pdf").pages[0])
    writer.add_page(PdfReader(DATA / "documents/pdf/scanned/typewriter-2400dpi.pdf").pages[0])
    path = tmp_path / "half-scanned.pdf"
    with path.open("wb") as f:
        writer.write(f)
    with override_settings(PORTAL={**settings.PORTAL, "OCR_ENABLED": False}):
        result = ingestion.ingest_file(make_kb(), path)
    report = result.document.quality
    assert result.outcome == "created"
    assert report["flags"] == ["ocr_not_run"]
    assert (report["pages"], report["pages_without_text"]) == (2, [2])
    assert report["chars_per_page"][0] > 500


# --- stored, filtered, accepted, re-parsed -------------------------------------------------------


class QualityAdminTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        cls.user = User.objects.create_superuser("root", "root@example.com", "pw")
        cls.good = ingestion.ingest_text(cls.kb, title="Good", text=ENGLISH, source_uri="inline:good").document
        broken = RUSSIAN.encode("utf-8").decode("cp1251", errors="replace")
        cls.poor = ingestion.ingest_text(cls.kb, title="Poor", text=broken, source_uri="inline:poor").document

    def setUp(self):
        self.client.force_login(self.user)

    def test_a_poor_document_is_stored_as_needing_attention(self):
        self.assertEqual((self.poor.needs_attention, self.poor.usable_for_auto_reply), (True, False))
        self.assertEqual((self.good.needs_attention, self.good.usable_for_auto_reply), (False, True))
        self.assertEqual(list(Document.objects.needing_attention()), [self.poor])

    def test_the_needs_attention_filter_lists_only_poor_documents(self):
        page = self.client.get(reverse("admin:knowledge_document_changelist") + "?attention=yes")
        self.assertContains(page, "Poor")
        self.assertNotContains(page, ">Good<")
        self.assertIn("needs attention: much of the text is not letters or digits (a broken text layer?); broken "
                      "Cyrillic: text decoded in the wrong encoding", page.content.decode())
        self.client.cookies["django_language"] = "ru"  # said in the reader's language, not as the flags' codes
        page = self.client.get(reverse("admin:knowledge_document_changelist") + "?attention=yes").content.decode()
        self.assertNotIn("garbage text", page)
        self.assertNotIn("broken text layer", page)

    def test_the_report_is_shown_on_the_document(self):
        page = self.client.get(reverse("admin:knowledge_document_change", args=[self.poor.pk]))
        self.assertContains(page, "Parse quality")
        self.assertContains(page, "mojibake")

    def test_accepting_clears_the_document_for_auto_replies(self):
        self.client.post(reverse("admin:knowledge_document_changelist"),
                         {"action": "accept_quality", "_selected_action": [self.poor.pk]})
        self.poor.refresh_from_db()
        self.assertTrue(self.poor.usable_for_auto_reply)
        self.assertFalse(Document.objects.needing_attention().exists())

    def test_changed_text_needs_accepting_again(self):
        self.poor.accept_quality()
        broken = (RUSSIAN + " Ещё.").encode("utf-8").decode("cp1251", errors="replace")
        document = ingestion.ingest_text(self.kb, title="Poor", text=broken, source_uri="inline:poor").document
        self.assertFalse(document.usable_for_auto_reply)

    def test_reparse_with_ocr_queues_a_forced_ocr_job(self):
        with self.captureOnCommitCallbacks(execute=False):
            _, _ = jobs.add_uploads(self.kb, [SimpleUploadedFile("scan.pdf", garbage_pdf_bytes())])
        document = Document.objects.get(source_uri="upload:scan.pdf")
        with self.captureOnCommitCallbacks(execute=False):
            self.client.post(reverse("admin:knowledge_document_changelist"),
                             {"action": "reparse_with_ocr", "_selected_action": [document.pk]})
        job = Job.objects.latest("pk")
        self.assertEqual(job.options, {"document_ids": [document.pk], "force_ocr": True})

    def test_the_api_reports_quality_and_filters_on_it(self):
        _, token = make_key(scopes=["read"])
        listing = self.client.get(f"/api/v1/knowledge-bases/{self.kb.pk}/documents?needs_attention=true",
                                  headers={"Authorization": f"Bearer {token}"}).json()
        self.assertEqual([item["title"] for item in listing["items"]], ["Poor"])
        self.assertIn("broken_cyrillic", listing["items"][0]["quality"]["flags"])
        self.assertFalse(listing["items"][0]["usable_for_auto_reply"])


def garbage_pdf_bytes() -> bytes:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        return garbage_pdf(Path(tmp)).read_bytes()


# --- ticket auto-replies -------------------------------------------------------------------------


class AutoReplyTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.documents, cls.agent = make_help_centre()

    def submit(self, body):
        with self.captureOnCommitCallbacks(execute=True):
            ticket = triage.submit_ticket(body=body, customer="ann@example.com")
        ticket.refresh_from_db()
        return ticket

    def test_a_poorly_parsed_source_sends_the_ticket_to_review_with_the_flag_shown(self):
        Document.objects.filter(knowledge_base=self.kb).update(
            needs_attention=True, quality={"flags": ["broken_cyrillic"]})
        ticket = self.submit("How long does standard delivery take?")
        self.assertEqual(ticket.status, Ticket.Status.REVIEW)
        self.assertTrue(ticket.messages.filter(kind=Message.Kind.DRAFT, is_current=True).exists())
        decision = ticket.trace[-1]
        self.assertIn("broken Cyrillic", decision["detail"])
        self.assertIn("Delivery", decision["detail"])

    def test_an_accepted_source_may_be_quoted_again(self):
        Document.objects.filter(knowledge_base=self.kb).update(
            needs_attention=True, quality={"flags": ["broken_cyrillic"]})
        quality.accept(Document.objects.filter(knowledge_base=self.kb))
        self.assertEqual(self.submit("How long does standard delivery take?").status, Ticket.Status.AUTO_REPLIED)


def test_markdown_tables_of_numbers_are_not_garbage():
    table = "| 1 | 2 | 3 |\n| --- | --- | --- |\n" + "| 4 | 5 | 6 |\n| 7 | 8 | 9 |\n" * 20
    assert flags_of(table) == []


def test_a_file_tree_drawn_in_a_code_block_is_not_garbage():
    # Flask's "Project Layout": the tree of the project drawn with box-drawing characters.
    page = (DATA / "site" / "flask-docs" / "tutorial" / "layout.html").read_bytes()
    title, text = html_to_markdown(page)
    assert "├──" in text and "garbage_text" not in flags_of(text)
