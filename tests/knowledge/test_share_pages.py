"""A long scan's OCR shared page by page (knowledge/share_pages.py), in one process: the holder's side
with helpers that read pages, die or fail between its staging and its work, with Debian's Tesseract
(real workers sharing one scan: tests/e2e/test_shares.py)."""

import tempfile
from datetime import timedelta
from pathlib import Path
from unittest import mock

import pypdfium2 as pdfium
from django.conf import settings
from django.core.files import File
from django.db import connection
from django.test import TestCase
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from knowledge import share_pages, shares
from knowledge.exceptions import ParseError
from knowledge.indexing import ingestion
from knowledge.indexing.parsing import ocr
from knowledge.models import Chunk, Document, Job, JobItem, ScanPage
from tests.conftest import DATA
from tests.factories import make_kb
from tests.knowledge.test_ocr import needs_tesseract

SOURCE = DATA / "documents/pdf/text/pdflatex-4-pages.pdf"
ONE_PAGE_SCAN = DATA / "documents/pdf/scanned/gutenberg-huckfinn-p22-scan.pdf"
LEASE = timedelta(seconds=60)
# Small enough that the four-page scan is shared; pages rendered at a low resolution to keep OCR quick.
PORTAL = {"OCR_SPLIT_PAGES": 3, "OCR_DPI": 100, "INGEST_SHARES": 2}


def picture_pdf(source: Path, target: Path, *, copies: int = 1) -> Path:
    """A PDF holding only pictures of `source`'s pages (`copies` times over): what a scanner makes."""
    document = pdfium.PdfDocument(str(source))
    pictures = [page.render(scale=100 / 72, grayscale=True).to_pil() for page in document] * copies
    document.close()
    pictures[0].save(target, "PDF", resolution=100, save_all=True, append_images=pictures[1:])
    return target


def words_of_page(number: int) -> set[str]:
    """Long words of `SOURCE`'s text layer on that page: what OCR of its picture must find."""
    document = pdfium.PdfDocument(str(SOURCE))
    text = document[number - 1].get_textpage().get_text_range()
    document.close()
    return {word.strip(".,?!:;()“”\"'").lower() for word in text.split() if len(word) > 8 and word.isalpha()}


@needs_tesseract
class SharedReadingTests(TestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        folder = Path(cls.enterClassContext(tempfile.TemporaryDirectory(prefix="portal-scan-")))
        cls.scan = picture_pdf(SOURCE, folder / "manual-scan.pdf")

    def setUp(self):
        self.enterContext(self.settings(PORTAL={**settings.PORTAL, **PORTAL}))
        self.kb = make_kb(ocr_languages="eng")
        self.document = self.stored(self.scan)
        job = Job.objects.create(kind=Job.Kind.INGEST, knowledge_base=self.kb, status=Job.Status.RUNNING)
        # The document as its holder sees it: claimed, lease alive.
        self.item = JobItem.objects.create(job=job, document=self.document, position=0, name="manual-scan.pdf",
                                           state=Job.ItemState.PARSING, claimed_by="holder:1:a",
                                           lease_until=timezone.now() + LEASE, attempts=1)
        self.invited: list[int] = []
        self.read = mock.patch.object(ocr, "read_page", wraps=ocr.read_page)
        self.reads = self.enterContext(self.read)

    def claim(self) -> shares.Claim:
        return shares.Claim(self.item.job, self.item, "holder:1:a")

    def stored(self, path: Path) -> Document:
        document = Document.objects.create(knowledge_base=self.kb, source_kind=Document.SourceKind.UPLOAD,
                                           source_uri=f"upload:{path.name}")
        with path.open("rb") as handle:
            document.original_file.save(path.name, File(handle))
        return document

    def shared(self, between=None) -> share_pages.SharedReading:
        """The holder's page reading; `between(pages)` runs after staging, where helpers come in."""
        def invite(pages: int) -> None:
            self.invited.append(pages)
            if between:
                between(pages)

        return share_pages.SharedReading(self.item, "holder:1:a", lease=LEASE, invite=invite)

    def ingest(self, read_pages, on_page=None) -> Document:
        ingestion.process_document(self.document, read_pages=read_pages, ocr_progress=on_page)
        self.document.refresh_from_db()
        return self.document

    def pages_read(self) -> list[int]:
        return sorted(call.args[1] for call in self.reads.call_args_list)

    def assert_read_whole(self, document: Document) -> None:
        self.assertEqual(document.status, Document.Status.READY, document.error_message)
        self.assertEqual(document.metadata["ocr"]["pages"], [1, 2, 3, 4])
        for number in range(1, 5):
            found = {text.lower() for text in
                     Chunk.objects.filter(document=document, page=number).values_list("content", flat=True)}
            self.assertTrue(found, f"page {number} has chunks")
            missing = [word for word in words_of_page(number) if not any(word in text for text in found)]
            self.assertLessEqual(len(missing), len(words_of_page(number)) // 5, f"page {number}: {missing}")
        self.assertFalse(ScanPage.objects.exists(), "the staged pages are deleted")

    def test_a_long_scan_is_read_page_by_page_each_page_once_by_whoever_takes_it(self):
        helped = []

        def helper(pages: int) -> None:
            helped.append(share_pages.help_with_page(self.item.job, "helper:2:b", lease=LEASE))
            other_job = Job.objects.create(kind=Job.Kind.INGEST)
            self.assertFalse(share_pages.help_with_page(other_job, "helper:2:b", lease=LEASE),
                             "another job's pages are not its")

        document = self.ingest(self.shared(between=helper), on_page=self.claim().reading_progress())
        self.assertEqual((self.invited, helped), ([4], [True]), "helpers invited for its four pages; one read one")
        self.assertEqual(self.pages_read(), [1, 2, 3, 4], "every page read once in all")
        self.assert_read_whole(document)
        self.item.refresh_from_db()
        self.item.job.refresh_from_db()
        self.assertEqual((self.item.pages_done, self.item.pages_total), (4, 4), "the document's own page count")
        self.assertEqual(self.item.job.counters["ocr_pages"], 4, "the helper's page counted on the job too")

    def test_a_helper_that_cannot_see_the_file_leaves_the_scan_to_its_holder(self):
        helped = []

        def helper_elsewhere(pages: int) -> None:
            """A worker whose media folder is not the holder's (not a shared volume)."""
            with mock.patch.object(share_pages, "original_file", return_value=Path("/nowhere/manual-scan.pdf")):
                helped.append(share_pages.help_with_page(self.item.job, "helper:2:b", lease=LEASE))
                helped.append(share_pages.help_with_page(self.item.job, "helper:2:b", lease=LEASE))
            page = ScanPage.objects.get(item=self.item, number=1)
            helped.append((page.claimed_by, page.attempts, page.error))

        document = self.ingest(self.shared(between=helper_elsewhere))
        self.assertEqual(helped, [True, False, ("", 0, "")], "the page put back untouched, the scan not tried again")
        self.assertEqual(self.pages_read(), [1, 2, 3, 4], "the holder read every page")
        self.assert_read_whole(document)

    def test_a_short_scan_is_read_by_its_holder_alone(self):
        self.document = self.stored(ONE_PAGE_SCAN)
        with CaptureQueriesContext(connection) as queries:
            document = self.ingest(self.shared())
        self.assertEqual(document.status, Document.Status.READY, document.error_message)
        self.assertEqual((self.invited, self.pages_read()), ([], [1]))
        self.assertFalse([query for query in queries if ScanPage._meta.db_table in query["sql"]])

    def test_a_job_kept_on_one_worker_stages_nothing(self):
        with self.settings(PORTAL={**settings.PORTAL, "INGEST_SHARES": 1}), \
                mock.patch.object(ocr, "read_pages_locally", side_effect=ParseError("read here")) as local:
            document = self.ingest(self.shared())
        self.assertEqual((document.error_message, self.invited), ("read here", []))
        self.assertEqual(local.call_args.args[1], [1, 2, 3, 4])

    def test_a_dead_holders_pages_are_kept_when_its_scan_is_taken_over(self):
        self.left_by_a_dead_holder(read=[1, 2, 3])
        JobItem.objects.filter(pk=self.item.pk).update(pages_done=3, pages_total=4)  # what it reported
        self.item.job.record(ocr_pages=3)
        self.item.refresh_from_db()
        document = self.ingest(self.shared(), on_page=self.claim().reading_progress())
        self.assertEqual((self.invited, self.pages_read()), ([1], [4]), "only the page it had not read")
        self.assert_read_whole(document)
        self.item.job.refresh_from_db()
        self.assertEqual(self.item.job.counters["ocr_pages"], 4, "each page counted once")

    def test_a_dead_helpers_page_is_read_again_once(self):
        def helpers_read_all_but_one_and_died(pages: int) -> None:
            self.as_read(ScanPage.objects.filter(item=self.item, number__in=[2, 3, 4]))
            ScanPage.objects.filter(item=self.item, number=1).update(
                claimed_by="gone:3:c", lease_until=timezone.now() - timedelta(seconds=1), attempts=1)

        document = self.ingest(self.shared(between=helpers_read_all_but_one_and_died))
        self.assertEqual(self.pages_read(), [1])
        self.assert_read_whole(document)

    def test_a_page_whose_helper_died_twice_fails_the_scan_which_keeps_its_previous_state(self):
        def helper_died_twice(pages: int) -> None:
            self.as_read(ScanPage.objects.filter(item=self.item, number__in=[3, 4]))
            ScanPage.objects.filter(item=self.item, number=1).update(
                claimed_by="gone:3:c", lease_until=timezone.now() - timedelta(seconds=1), attempts=2)

        document = self.ingest(self.shared(between=helper_died_twice))
        self.assertEqual(document.status, Document.Status.ERROR)
        self.assertEqual(document.error_message, "The worker reading page 1 of manual-scan.pdf with OCR stopped 2 "
                                                 "times (killed or out of memory); not tried again.")
        self.assertFalse(Chunk.objects.filter(document=document).exists())
        self.assertFalse(ScanPage.objects.exists())

    def test_a_helpers_ocr_error_fails_the_scan_with_its_reason(self):
        def helper_failed(pages: int) -> None:
            self.as_read(ScanPage.objects.filter(item=self.item, number__in=[3, 4]))
            with mock.patch.object(ocr, "read_page", side_effect=ParseError("OCR of a page took longer than 180 "
                                                                            "seconds")):
                share_pages.help_with_page(self.item.job, "helper:2:b", lease=LEASE)

        document = self.ingest(self.shared(between=helper_failed))
        self.assertEqual((document.status, document.error_message),
                         (Document.Status.ERROR, "OCR of a page took longer than 180 seconds"))
        self.assertFalse(ScanPage.objects.exists())

    def test_a_cancelled_job_stops_between_pages_and_leaves_no_pages_behind(self):
        reading = self.claim().reading_progress()

        def cancel_after_the_first_page(done: int, total: int) -> bool:
            if done == 1:
                self.item.job.cancel()
            return reading(done, total)

        document = self.ingest(self.shared(), on_page=cancel_after_the_first_page)
        self.assertEqual(document.status, Document.Status.ERROR)
        self.assertEqual(document.error_message, "manual-scan.pdf: OCR cancelled after 1 of 4 pages")
        self.assertEqual(self.pages_read(), [1])
        self.assertFalse(ScanPage.objects.exists())

    def as_read(self, pages) -> None:
        """Pages read by another participant: their text from the source's own text layer."""
        for page in pages:
            page.text, page.confidence, page.claimed_by, page.attempts = self.source_text(page.number), 90.0, \
                "helper:2:b", 1
            page.save()

    def left_by_a_dead_holder(self, *, read: list[int]) -> None:
        """The scan's pages as a killed holder leaves them: staged, those in `read` read."""
        ScanPage.objects.bulk_create([ScanPage(item=self.item, number=number, languages="eng")
                                      for number in range(1, 5)])
        self.as_read(ScanPage.objects.filter(item=self.item, number__in=read))

    @staticmethod
    def source_text(number: int) -> str:
        document = pdfium.PdfDocument(str(SOURCE))
        text = document[number - 1].get_textpage().get_text_range()
        document.close()
        return text
