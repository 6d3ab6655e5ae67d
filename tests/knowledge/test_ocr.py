"""OCR of scanned PDFs and images with Debian's Tesseract (rus+eng), page by page, in bounded memory."""

import collections
import re
import shutil
import subprocess
from pathlib import Path
from unittest import mock

import pypdfium2 as pdfium
import pytest
from django.conf import settings
from django.core.checks import run_checks
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import TestCase, override_settings
from PIL import Image
from pypdf import PdfReader, PdfWriter

from knowledge import bases, jobs
from knowledge.exceptions import FileTooLargeError, ParseError
from knowledge.indexing import ingestion, parsing
from knowledge.indexing.chunking import split_text
from knowledge.indexing.parsing import images, ocr
from knowledge.indexing.parsing import quality as parse_quality
from knowledge.indexing.parsing.isolation import parse_file_isolated
from knowledge.models import Chunk, Document
from tests.conftest import DATA
from tests.factories import make_kb

SCANNED = DATA / "documents/pdf/scanned"
RUSSIAN_PDF = DATA / "documents/pdf/ru/def_positions.pdf"


def _tesseract_missing() -> str:
    if not shutil.which("tesseract"):
        return "Tesseract is not installed"
    listed = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True).stdout.split()
    missing = [lang for lang in ("rus", "eng") if lang not in listed]
    return f"Tesseract has no {'+'.join(missing)} data" if missing else ""


needs_tesseract = pytest.mark.skipif(
    bool(_tesseract_missing()),
    reason=f"{_tesseract_missing()}: OCR tests need apt-get install tesseract-ocr tesseract-ocr-rus "
           "tesseract-ocr-eng (bin/test installs them when run as root)",
)


def words(text: str) -> collections.Counter:
    return collections.Counter(re.findall(r"\w+", text.lower()))


def image_pdf(tmp_path: Path, source: Path, page_index: int, name: str = "scan.pdf") -> Path:
    """A PDF holding only a picture of `source`'s page: what a scanner makes."""
    document = pdfium.PdfDocument(str(source))
    picture = document[page_index].render(scale=300 / 72, grayscale=True).to_pil()
    document.close()
    path = tmp_path / name
    picture.save(path, "PDF", resolution=300)
    return path


def read_with_ocr(path: Path, **kwargs):
    return ocr.recognise_pages(parse_file_isolated(path), path, languages="rus+eng", **kwargs)


# --- scans, as a person reads them -------------------------------------------------------------

SCANNED_PHRASES = {
    "epson-printout-scan.pdf": ["Optical character recognition", "From Wikipedia, the free encyclopedia",
                                "pattern recognition, artificial intelligence and computer vision"],
    "gutenberg-huckfinn-p22-scan.pdf": ["tip-toeing along a path", "Miss Watson", "stooping down"],
    "typewriter-2400dpi.pdf": ["Linzensoep", "laurier, kruidnagel, kerrie, zout", "3 liter water"],
}


@needs_tesseract
@pytest.mark.parametrize("name", sorted(SCANNED_PHRASES))
def test_a_scanned_pdf_is_read_with_ocr(name):
    parsed = read_with_ocr(SCANNED / name)
    text = " ".join(parsed.text.split())
    for phrase in SCANNED_PHRASES[name]:
        assert phrase in text
    assert parsed.metadata["ocr"]["pages"] == [1]
    assert parsed.pages == [(0, 1)]
    assert parsed.metadata["ocr"]["mean_confidence"] > 60


@needs_tesseract
def test_ocr_text_is_not_read_as_markdown_headings():
    parsed = read_with_ocr(SCANNED / "epson-printout-scan.pdf")
    marked = [line for line in parsed.text.split("\n") if line.lstrip("\\| ").startswith("#")]
    assert marked, "the scan's section numbers are read with their # signs"
    assert [chunk.heading_path for chunk in split_text(parsed.text) if chunk.heading_path] == []


@needs_tesseract
@pytest.mark.parametrize("turned", [90, 180])
def test_a_page_scanned_sideways_or_upside_down_is_turned_upright_and_read(tmp_path, turned):
    document = pdfium.PdfDocument(str(SCANNED / "gutenberg-huckfinn-p22-scan.pdf"))
    picture = document[0].render(scale=300 / 72, grayscale=True).to_pil().rotate(turned, expand=True)
    document.close()
    path = tmp_path / "turned.pdf"
    picture.save(path, "PDF", resolution=300)  # turned counter-clockwise, as a sheet fed in the wrong way
    parsed = read_with_ocr(path)
    text = " ".join(parsed.text.split())
    for phrase in SCANNED_PHRASES["gutenberg-huckfinn-p22-scan.pdf"]:
        assert phrase in text
    assert parsed.metadata["ocr"]["rotated"] == {"1": turned}, "turned back clockwise by as much"
    assert parsed.metadata["ocr"]["mean_confidence"] > 80
    report = parse_quality.assess(parsed)
    assert (report["ocr_turned_pages"], report["flags"]) == ([1], []), "said on the document's report, not flagged"


@needs_tesseract
def test_a_phone_photo_stored_sideways_is_turned_by_its_exif_orientation(tmp_path):
    document = pdfium.PdfDocument(str(SCANNED / "gutenberg-huckfinn-p22-scan.pdf"))
    picture = document[0].render(scale=300 / 72, grayscale=True).to_pil().rotate(90, expand=True)
    document.close()
    exif = Image.Exif()
    exif[0x0112] = 6  # "turn 90° clockwise to show": what a phone writes for a photo taken in portrait
    path = tmp_path / "photo.jpg"
    picture.save(path, "JPEG", quality=90, exif=exif)
    parsed = read_with_ocr(path)
    text = " ".join(parsed.text.split())
    for phrase in SCANNED_PHRASES["gutenberg-huckfinn-p22-scan.pdf"]:
        assert phrase in text
    assert "rotated" not in parsed.metadata["ocr"], "upright from its EXIF, not found sideways by OCR"


@needs_tesseract
def test_an_upright_page_read_well_costs_no_orientation_check():
    # In this process (no child per page), where the check's calls can be counted.
    with override_settings(PORTAL={**settings.PORTAL, "PARSE_MEMORY_MB": 0}), \
            mock.patch.object(ocr, "orientation", wraps=ocr.orientation) as asked:
        parsed = read_with_ocr(SCANNED / "epson-printout-scan.pdf")
    assert parsed.metadata["ocr"]["mean_confidence"] >= ocr.CHECK_ORIENTATION_BELOW
    assert (asked.call_count, "rotated" in parsed.metadata["ocr"]) == (0, False)


@needs_tesseract
def test_a_russian_page_scanned_comes_back_with_nine_words_in_ten(tmp_path):
    original = PdfReader(RUSSIAN_PDF).pages[1].extract_text()
    parsed = read_with_ocr(image_pdf(tmp_path, RUSSIAN_PDF, 1))
    expected, found = words(original), words(parsed.text)
    assert sum(expected.values()) > 300
    recall = sum((expected & found).values()) / sum(expected.values())
    assert recall >= 0.9, f"only {recall:.1%} of the page's words came back"


def test_a_scanned_pdf_without_tesseract_says_why_it_was_not_read():
    path = SCANNED / "gutenberg-huckfinn-p22-scan.pdf"
    with override_settings(PORTAL={**settings.PORTAL, "TESSERACT": "/nonexistent/tesseract"}):
        with pytest.raises(ParseError, match=r"no text layer .* Tesseract OCR is not installed .*apt-get install"):
            read_with_ocr(path)
        assert "portal.W002" in [message.id for message in run_checks()]


def test_ocr_switched_off_leaves_scans_unread_with_the_reason():
    with override_settings(PORTAL={**settings.PORTAL, "OCR_ENABLED": False}):
        with pytest.raises(ParseError, match=r"OCR is switched off \(PORTAL_OCR=false\)"):
            read_with_ocr(SCANNED / "typewriter-2400dpi.pdf")
        assert "portal.W002" not in [message.id for message in run_checks()]


def test_a_text_pdf_needs_no_ocr():
    parsed = parsing.parse_file(DATA / "documents/pdf/text/pdflatex-4-pages.pdf")
    assert parsed.metadata["ocr_wanted"] == []


# --- pages, progress, cancelling ---------------------------------------------------------------


def mixed_pdf(tmp_path: Path) -> Path:
    """Page 1 with a text layer, pages 2 and 3 scans."""
    writer = PdfWriter()
    writer.add_page(PdfReader(DATA / "documents/pdf/text/pdflatex-4-pages.pdf").pages[0])
    for name in ("typewriter-2400dpi.pdf", "gutenberg-huckfinn-p22-scan.pdf"):
        writer.add_page(PdfReader(SCANNED / name).pages[0])
    path = tmp_path / "mixed.pdf"
    with path.open("wb") as f:
        writer.write(f)
    return path


@needs_tesseract
def test_only_the_pages_without_text_are_read_and_keep_their_numbers(tmp_path):
    seen = []
    parsed = read_with_ocr(mixed_pdf(tmp_path), on_page=lambda done, total: seen.append((done, total)) or True)
    assert seen == [(0, 2), (1, 2), (2, 2)], "reported before the first page and after each"
    assert [number for _, number in parsed.pages] == [1, 2, 3]
    assert parsing.page_at(parsed.pages, parsed.text.index("Linzensoep")) == 2
    assert parsing.page_at(parsed.pages, parsed.text.index("Miss Watson")) == 3


@needs_tesseract
def test_ocr_stops_between_pages_when_cancelled(tmp_path):
    seen = []
    with pytest.raises(ocr.OcrCancelled, match="after 1 of 2 pages"):
        read_with_ocr(mixed_pdf(tmp_path), on_page=lambda done, total: seen.append(done) or done < 1)
    assert seen == [0, 1], "the second page is not read"


@needs_tesseract
def test_forced_ocr_reads_every_page_of_a_pdf(tmp_path):
    parsed = read_with_ocr(mixed_pdf(tmp_path), force=True)
    assert parsed.metadata["ocr"]["pages"] == [1, 2, 3]


# --- images ------------------------------------------------------------------------------------


@needs_tesseract
def test_an_image_file_is_a_document(tmp_path):
    document = pdfium.PdfDocument(str(RUSSIAN_PDF))
    picture = document[1].render(scale=300 / 72, grayscale=True).to_pil()
    document.close()
    for ext, kind in ((".png", "PNG"), (".jpg", "JPEG"), (".tiff", "TIFF")):
        path = tmp_path / f"page{ext}"
        picture.save(path, kind)
        parsed = read_with_ocr(path)
        assert parsed.mime.startswith("image/")
        assert "производительности" in parsed.text.lower()


def test_an_image_of_twenty_thousand_pixels_square_is_refused_before_decoding(tmp_path):
    path = tmp_path / "poster.png"
    Image.new("1", (20_000, 20_000), 1).save(path)
    with pytest.raises(FileTooLargeError, match=r"20,000 × 20,000 pixels \(400 megapixels\).*scale it down"):
        parse_file_isolated(path)


def test_a_huge_jpeg_is_decoded_at_a_fraction_of_its_size(tmp_path):
    path = tmp_path / "photo.jpg"
    Image.new("L", (9_000, 9_000), 255).save(path, quality=50)
    page = images.image_page(path, 1)
    assert page.width * page.height <= images.MAX_OCR_PIXELS
    assert page.width >= 1000


def test_a_huge_pdf_page_is_rendered_within_the_pixel_cap(tmp_path):
    writer = PdfWriter()
    writer.add_blank_page(width=14_400, height=14_400)  # 200 × 200 inches, the PDF maximum
    path = tmp_path / "huge.pdf"
    with path.open("wb") as f:
        writer.write(f)
    page = images.pdf_page(path, 1, dpi=300)
    assert page.width * page.height <= images.MAX_OCR_PIXELS


def test_an_image_named_for_another_format_is_refused(tmp_path):
    path = tmp_path / "scan.png"
    Image.new("L", (100, 100), 255).save(path, "JPEG")
    with pytest.raises(Exception, match="scan.png is named .png but its content is a JPEG image"):
        parsing.parse_file(path)


# --- in the worker -----------------------------------------------------------------------------


@needs_tesseract
class OcrJobTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()

    def test_an_uploaded_scan_becomes_searchable_text_with_pages_counted_on_the_job(self):
        upload = SimpleUploadedFile("recipe.pdf", (SCANNED / "typewriter-2400dpi.pdf").read_bytes())
        with self.captureOnCommitCallbacks(execute=True):
            job, _ = jobs.add_uploads(self.kb, [upload])
        job.refresh_from_db()
        document = Document.objects.get(knowledge_base=self.kb)
        self.assertEqual(document.status, Document.Status.READY, document.error_message)
        self.assertEqual(job.counters.get("ocr_pages"), 1)
        self.assertIn("Linzensoep", document.text)
        self.assertEqual(Chunk.objects.filter(document=document).first().page, 1)

    def test_a_base_refuses_languages_that_are_not_tesseract_codes(self):
        with self.assertRaises(ValidationError):
            bases.update_knowledge_base(self.kb, ocr_languages="rus; rm -rf /")

    def test_the_base_chooses_the_ocr_languages(self):
        self.kb.ocr_languages = "eng"
        self.kb.save(update_fields=["ocr_languages"])
        path = DATA / "documents/pdf/scanned/gutenberg-huckfinn-p22-scan.pdf"
        result = ingestion.ingest_file(self.kb, path)
        self.assertEqual(result.document.metadata["ocr"]["languages"], "eng")

    def test_a_base_with_a_language_tesseract_lacks_says_which_package_to_install(self):
        self.kb.ocr_languages = "deu+eng"
        self.kb.save(update_fields=["ocr_languages"])
        if "deu" in ocr.installed_languages("tesseract"):
            pytest.skip("German data is installed here")
        result = ingestion.ingest_file(self.kb, SCANNED / "typewriter-2400dpi.pdf")
        self.assertEqual(result.outcome, "failed")
        self.assertIn("apt-get install tesseract-ocr-deu", result.error)
