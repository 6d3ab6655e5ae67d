"""One long scan's OCR shared by every free participant of its job, page by page.

OCR is the slowest step of ingestion (seconds a page on a CPU): a 300-page scan read by the worker
holding it alone would take as long as every other document of the job together while the other
workers wait. So the participant holding a file with at least `PORTAL_OCR_SPLIT_PAGES` pages to read
stages them as `ScanPage` rows and works through them as the others do (`knowledge/leases.py`):
claim the next page without text with a lease its heartbeat renews, read it (`ocr.read_page`: in a
forked child under the parse limits), store its text. A participant with no document left to
claim reads pages of the scans others hold (`help_with_page`), from the same stored original (the
media folder every machine reads). When every page has its text, the holder reads them back,
deletes the rows and goes on with the document as if it had read every page itself. A dead
helper's page is read again when its lease runs out (once: a page whose worker died twice fails its
document), and a dead holder's scan is taken over with the pages already read kept.
"""

import logging
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db.models import Count, F, Max, Q, QuerySet

from knowledge import leases
from knowledge.exceptions import ParseError
from knowledge.indexing.chunks import failure_message
from knowledge.indexing.parsing import ocr
from knowledge.models import Document, Job, JobItem, ScanPage

logger = logging.getLogger(__name__)

# How often the holder looks again while helpers read its last pages.
POLL_SECONDS = 0.25
# The job items whose file this process found missing (a media folder not shared with it): not helped with.
_not_here: set[int] = set()


class SharedReading:
    """`ocr.PageReader` for a document a participant holds: a short scan is read here; a long one by
    every free participant of the job."""

    def __init__(self, item: JobItem, token: str, *, lease: timedelta, invite: Callable[[int], None]):
        self.item, self.token, self.lease, self.invite = item, token, lease, invite

    def __call__(self, path: Path, wanted: list[int], languages: str,
                 on_page: ocr.PageProgress | None) -> dict[int, ocr.OcrPage]:
        split = settings.PORTAL["OCR_SPLIT_PAGES"]
        if (not split or len(wanted) < split or settings.PORTAL["INGEST_SHARES"] < 2
                or original_file(self.item) != path):
            return ocr.read_pages_locally(path, wanted, languages, on_page)
        staged = ScanPage.objects.filter(item=self.item)
        try:
            kept = _stage(self.item, wanted, languages)
            if kept < len(wanted):
                self.invite(len(wanted) - kept)
            self._work_through(staged, path, total=len(wanted), on_page=on_page)
            return _pages(staged)
        finally:
            staged.delete()

    def _work_through(self, staged: QuerySet, path: Path, *, total: int, on_page: ocr.PageProgress | None) -> None:
        reported = None
        while True:
            done, left, error = _state(staged)
            if error:
                raise ParseError(error)
            if on_page and done != reported:
                if not on_page(done, total):
                    raise ocr.cancelled(path, done, total)
                reported = done
            if not left:
                return
            page = leases.claim_next(staged, self.token, lease=self.lease)
            if page is not None:
                _read(page, path, self.token, raise_errors=True)
            else:  # the rest are with helpers: wait for them (or for their leases to run out)
                time.sleep(POLL_SECONDS)


def help_with_page(job: Job, token: str, *, lease: timedelta) -> bool:
    """Read one page of a scan another live participant of `job` holds; False when none waits."""
    waiting = leases.others_waiting(ScanPage, job, token).exclude(item_id__in=list(_not_here))
    page = leases.claim_next(waiting, token, lease=lease)
    if page is None:
        return False
    path = original_file(page.item)
    if path is None or not path.is_file():
        # Not in this machine's media folder (not a shared volume?), or deleted: the page goes back
        # untouched, and this process leaves the scan to its holder, who reads the file it parsed.
        logger.warning("%s: %s cannot be read here; leaving its pages to the worker holding it", page, path)
        _not_here.add(page.item_id)
        ScanPage.objects.filter(pk=page.pk, claimed_by=token).update(claimed_by="", lease_until=None,
                                                                   attempts=F("attempts") - 1)
        return True
    _read(page, path, token, raise_errors=False)
    return True


def original_file(item: JobItem) -> Path | None:
    """Where the stored original of the item's document is (every participant reads the same media folder)."""
    document = Document.objects.filter(pk=item.document_id).only("original_file").first()
    return Path(document.original_file.path) if document and document.original_file else None


def forget(job: Job) -> None:
    """Pages a job left behind (its holder failed or died and nobody took the document over)."""
    ScanPage.objects.filter(item__job=job).delete()


def _stage(item: JobItem, wanted: list[int], languages: str) -> int:
    """The pages as rows; the pages an earlier holder read in the same languages keep their text.
    Returns how many were kept."""
    rows = ScanPage.objects.filter(item=item)
    kept = set(rows.filter(text__isnull=False, error="", languages=languages, number__in=wanted)
               .values_list("number", flat=True))
    rows.exclude(number__in=kept).delete()
    ScanPage.objects.bulk_create([ScanPage(item=item, number=number, languages=languages)
                                  for number in wanted if number not in kept])
    return len(kept)


def _read(page: ScanPage, path: Path, token: str, *, raise_errors: bool) -> None:
    """Read the page and store its text while still holding it; a helper records a failure on the
    page (its holder fails the document with it), the holder raises it."""
    mine = ScanPage.objects.filter(pk=page.pk, claimed_by=token)
    try:
        read = ocr.read_page(path, page.number, page.languages)
    except Exception as exc:
        if raise_errors:
            raise
        logger.exception("%s: OCR failed", page)
        mine.update(error=failure_message(exc), lease_until=None)
        return
    mine.update(text=read.text, confidence=read.confidence, rotated=read.rotated, lease_until=None)


def _state(staged: QuerySet) -> tuple[int, int, str]:
    """(pages read, pages left, an error or "") of a scan's pages, in one statement."""
    state = staged.aggregate(done=Count("pk", filter=Q(text__isnull=False)),
                             left=Count("pk", filter=Q(text__isnull=True)), error=Max("error", default=""))
    return state["done"], state["left"], state["error"]


def _pages(staged: QuerySet) -> dict[int, ocr.OcrPage]:
    return {number: ocr.OcrPage(text=text, confidence=confidence, rotated=rotated)
            for number, text, confidence, rotated in staged.values_list("number", "text", "confidence", "rotated")}
