"""One ingestion (or re-index) job shared by every free worker, document by document (and a long
document's embedding batch by batch, `knowledge/share_batches.py`, a long scan's OCR page by page,
`knowledge/share_pages.py`).

The job's own task plans the work once — one `JobItem` row per document — then queues share tasks
for up to `PORTAL_INGEST_SHARES - 1` other workers and takes part itself. Every participant loops: claim the
next queued document (`SELECT … FOR UPDATE SKIP LOCKED`, so two never take the same row), ingest
it, mark it done, until none is left. A claim carries a lease that the participant's heartbeat
renews; a participant that dies (killed, out of memory) stops renewing, and when its lease runs
out a live participant takes the document over — once: a document whose worker died twice is
failed, not tried forever. Ingesting a document is an idempotent, atomic swap, so a document
redone after a death never leaves duplicate chunks.

Progress is written per item and per job in single statements (`Job.advance`, `Job.add_failure`),
never read-modified-written, so concurrent participants never lose each other's counts. The job
ends exactly once: each participant, when nothing is left to claim and nobody else holds a live
claim, tries `Job.finish_once`; the one that wins settles the documents and publishes
`job.finished`. The job's task claims the job first (`portal.jobs.claim`: an attempt, the
worker's lease on the job); a duplicate of it while the job runs alive does nothing, and a task
queued again by the reaper after every participant died finds the rows already planned and
resumes the rest.
"""

import logging
import os
import socket
import time
import uuid
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext

from knowledge import leases, share_batches, share_pages
from knowledge.exceptions import KnowledgeError
from knowledge.indexing.chunks import settle_documents
from knowledge.models import Document, EmbeddingBatch, Job, JobItem, ScanPage
from portal.jobs import Heartbeat, claim, enqueue_task, job_documents, publish_finished

logger = logging.getLogger(__name__)

# The registered task a participant runs (knowledge/tasks.py).
SHARE_TASK = "ingest-share"
# How often a participant with nothing to claim looks again while others still hold documents.
POLL_SECONDS = 0.5


class Claim:
    """One participant's hold on one document: every write is conditional on still holding it."""

    def __init__(self, job: Job, item: JobItem, token: str):
        self.job, self.item, self.token = job, item, token

    def _mine(self):
        return JobItem.objects.filter(pk=self.item.pk, claimed_by=self.token)

    def embedding_progress(self) -> Callable[[int, int], None]:
        """A progress callback: the document's own n/m chunks, and each embedded batch added to the
        job's `chunks_embedded` counter. A document taken over from a dead participant starts from
        what that one reported, so the counter counts each document's chunks once; both are written
        in one transaction, so a death between them cannot lose any."""
        reported = self.item.chunks_done

        def report(done: int, total: int) -> None:
            nonlocal reported
            with transaction.atomic():
                self._mine().update(state=Job.ItemState.EMBEDDING, chunks_done=done, chunks_total=total)
                self.job.record(chunks_embedded=done - reported)
            reported = done

        return report

    def reading_progress(self) -> Callable[[int, int], bool]:
        """An OCR progress callback: the document's own n/m pages, each page read added to the job's
        `ocr_pages` counter (a document taken over counts from what the dead participant reported, so
        a page is counted once, both written in one transaction); False once the job is cancelled."""
        reported = self.item.pages_done

        def report(done: int, total: int) -> bool:
            nonlocal reported
            with transaction.atomic():
                self._mine().update(pages_done=done, pages_total=total)
                if done > reported:
                    self.job.record(ocr_pages=done - reported)
            reported = max(reported, done)
            return not self.job.should_stop()

        return report

    def batch_embedding(self) -> share_batches.SharedEmbedding:
        """Who embeds the document's chunks: this participant, or, for a large document, every free
        participant of the job batch by batch (`knowledge/share_batches.py`)."""
        return share_batches.SharedEmbedding(self.item, self.token, lease=_lease(), invite=self._invite_for_parts)

    def page_reading(self) -> share_pages.SharedReading:
        """Who reads the document's pages without text: this participant, or, for a long scan, every
        free participant of the job page by page (`knowledge/share_pages.py`)."""
        return share_pages.SharedReading(self.item, self.token, lease=_lease(), invite=self._invite_for_parts)

    def _invite_for_parts(self, parts: int) -> None:
        # The plan queued shares for as many participants as documents; a long document can keep more busy.
        _invite(self.job, units=parts, invited=min(settings.PORTAL["INGEST_SHARES"], self.job.work_items.count()) - 1)

    def complete(self, state: str, *, chunk_count: int = 0, reason: str = "", **counts: int) -> bool:
        """Put the document in its final state and count it on the job, once; False when the claim was
        lost (its lease ran out and another participant took the document over)."""
        with transaction.atomic():
            if not self._mine().update(state=state, chunks_done=chunk_count, chunks_total=chunk_count, reason=reason,
                                       lease_until=None):
                return False
            if state == Job.ItemState.FAILED:
                self.job.add_failure(self.item.name, reason)
            self.job.advance(**counts)
        return True


Work = Callable[[Job, Document, Claim], None]


def run(job: Job, *, plan: Callable[[Job], list[Document]], work: Work, after: Callable[[Job], None]) -> Job:
    """The job's own task: plan its documents (once), invite other workers, and work with them.

    `plan` lists the documents (only on the first run; a redelivered task resumes the planned rows),
    `work` ingests one and completes its claim, `after` runs once, by the participant that ends the job.
    """
    if claim(job) is None:
        return job  # finished, or running alive (its participants finish it): a duplicate task
    try:
        if not job.work_items.exists():
            _plan(job, plan(job))
        _invite(job, units=job.work_items.filter(state=Job.ItemState.QUEUED).count())
    except Exception as exc:
        _fail(job, exc)
        raise
    return take_part(job, work=work, after=after)


def take_part(job: Job, *, work: Work, after: Callable[[Job], None]) -> Job:
    """Claim and work through the job's documents until none is left; end the job if last."""
    if job.status != Job.Status.RUNNING:
        return job  # a share arriving after the end (or after a failure) has nothing to do
    token = f"{socket.gethostname()[:32]}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
    heartbeat = Heartbeat(job.pk, job.attempts, on_beat=lambda: _renew(job, token))
    try:
        _work_through(job, token, work)
    except Exception as exc:
        _fail(job, exc)
        raise
    finally:
        heartbeat.stop()
    if job.finish_once():
        _end(job, after)
    return job


def _plan(job: Job, documents: list[Document]) -> None:
    JobItem.objects.bulk_create([JobItem(job=job, document=document, position=position, name=document.display_name)
                                 for position, document in enumerate(documents)])
    job.record(done=0, total=len(documents))


def _invite(job: Job, *, units: int, invited: int = 0) -> None:
    """Queue a share task for each other worker `units` (documents, or one document's batches) can
    keep busy, beyond the `invited` ones queued before."""
    from django_q.conf import Conf

    if Conf.SYNC:
        return  # one process runs every task in turn (tests): nobody to share with
    wanted = min(settings.PORTAL["INGEST_SHARES"], units) - 1 - invited
    # Twice as many, and one more: a busy django-q2 cluster's pusher takes a task or two into its
    # own queue while its workers are busy (this one's, running this task, first of all); the
    # tasks it holds run after the job, find it ended and return at once. The spares reach free workers.
    for _ in range(2 * wanted + 1 if wanted > 0 else 0):
        enqueue_task(SHARE_TASK, job.pk)


def _work_through(job: Job, token: str, work: Work) -> None:
    while True:
        stopping = _stopping(job)
        claimed = None if stopping else _claim(job, token)
        if claimed is not None:
            _work_on(job, claimed, token, work)
            continue
        if not stopping and (share_pages.help_with_page(job, token, lease=_lease())
                             or share_batches.help_with_batch(job, token, lease=_lease())):
            continue  # nothing to claim, but a long scan or document another participant holds had a part
        # Nothing to claim: wait while another participant holds a document, to take it over if
        # that participant dies, and so that the last one out ends the job.
        if not _held_by_others(job, token, alive_only=stopping):
            return
        time.sleep(POLL_SECONDS)


def _stopping(job: Job) -> bool:
    """Cancelled, or ended by another participant's failure."""
    cancel, status = Job.objects.filter(pk=job.pk).values_list("cancel_requested", "status").get()
    job.cancel_requested = cancel
    return cancel or status != Job.Status.RUNNING


def _claim(job: Job, token: str) -> JobItem | None:
    """Take the next queued document, or one whose participant's lease ran out; None when none is left."""
    now = timezone.now()
    with transaction.atomic():
        item = (JobItem.objects.select_for_update(skip_locked=True).filter(job=job)
                .filter(Q(state=Job.ItemState.QUEUED) | Q(state__in=JobItem.IN_PROGRESS, lease_until__lt=now))
                .order_by("position").first())
        if item is None:
            return None
        if item.attempts:
            logger.warning("%s: taking over %s from %s, whose lease ran out", job, item.name, item.claimed_by)
        item.state, item.claimed_by, item.lease_until = Job.ItemState.PARSING, token, now + _lease()
        item.attempts += 1
        item.save(update_fields=["state", "claimed_by", "lease_until", "attempts"])
    return item


def _work_on(job: Job, item: JobItem, token: str, work: Work) -> None:
    claim = Claim(job, item, token)
    if item.attempts > JobItem.MAX_ATTEMPTS:
        reason = gettext("The worker ingesting %(name)s stopped %(attempts)d times (killed or out of memory); "
                         "not tried again.") % {"name": item.name, "attempts": JobItem.MAX_ATTEMPTS}
        claim.complete(Job.ItemState.FAILED, reason=reason)
        return
    document = Document.objects.select_related("knowledge_base").filter(pk=item.document_id).first()
    if document is None:
        claim.complete(Job.ItemState.FAILED, reason=gettext("The document was deleted before it was indexed."))
        return
    work(job, document, claim)


def _held_by_others(job: Job, token: str, *, alive_only: bool) -> bool:
    """Another participant holds a document: one alive (wait for it), or one whose lease ran out
    after this participant's last claim looked (take it over on the next round; a stopping job
    leaves it to be settled)."""
    held = JobItem.objects.filter(job=job, state__in=JobItem.IN_PROGRESS).exclude(claimed_by=token)
    return (held.filter(lease_until__gte=timezone.now()) if alive_only else held).exists()


def _renew(job: Job, token: str) -> None:
    until = timezone.now() + _lease()
    JobItem.objects.filter(job=job, claimed_by=token, state__in=JobItem.IN_PROGRESS).update(lease_until=until)
    leases.renew(EmbeddingBatch, token, until=until)
    leases.renew(ScanPage, token, until=until)


def _lease() -> timedelta:
    # As long as the reaper waits for a silent job: a claim runs out when its worker is dead.
    return timedelta(seconds=settings.PORTAL["JOB_STALE_SECONDS"])


def _end(job: Job, after: Callable[[Job], None]) -> None:
    """The winner of `finish_once`: the closing step, the documents left behind, the event."""
    try:
        after(job)
    except Exception as exc:  # noqa: BLE001 - the job ends either way, and says why
        logger.exception("%s: closing step failed", job)
        job.fail(_message(exc))
    share_batches.forget(job)
    share_pages.forget(job)
    settle_documents(job_documents(job), _ended_early(job))
    publish_finished(job)


def _fail(job: Job, exc: Exception) -> None:
    logger.exception("%s failed", job)
    job.fail(_message(exc))
    share_batches.forget(job)
    share_pages.forget(job)
    settle_documents(job_documents(job), _ended_early(job))
    publish_finished(job)


def _ended_early(job: Job) -> str:
    """The error of a document the job left pending or half-indexed."""
    return gettext("%(job)s ended before this document was indexed") % {"job": job}


def _message(exc: Exception) -> str:
    # A domain error's message is written for people; anything else keeps its type.
    return str(exc) if isinstance(exc, KnowledgeError) else f"{type(exc).__name__}: {exc}"
