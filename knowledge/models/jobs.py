"""Jobs: background work (ingestion, re-index, crawl, evaluation…) with its state, progress and failures on the row."""

import json

from django.conf import settings
from django.db import models
from django.db.models import F
from django.db.models.expressions import RawSQL
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from knowledge.exceptions import JobFinishedError
from knowledge.models.bases import KnowledgeBase


class Job(models.Model):
    """A unit of background work with live progress (ingestion, re-index, deletion, crawl)."""

    class Kind(models.TextChoices):
        INGEST = "ingest", _("Ingest documents")
        REINDEX = "reindex", _("Re-index knowledge base")
        DELETE = "delete", _("Delete documents")
        CRAWL = "crawl", _("Crawl site")
        INDEX_REPO = "index_repo", _("Index repository")
        EVALUATE = "evaluate", _("Evaluate golden set")
        SHADOW = "shadow", _("Build a shadow version")

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        SUCCEEDED = "succeeded", _("Succeeded")
        # Ran to the end, but some items failed: never shown as a success.
        PARTIAL = "partial", _("Completed with failures")
        FAILED = "failed", _("Failed")
        CANCELLED = "cancelled", _("Cancelled")

    FINISHED = (Status.SUCCEEDED, Status.PARTIAL, Status.FAILED, Status.CANCELLED)

    class ItemState(models.TextChoices):
        QUEUED = "queued", _("Queued")
        PARSING = "parsing", _("Parsing")
        EMBEDDING = "embedding", _("Embedding")
        READY = "ready", _("Ready")
        UNCHANGED = "unchanged", _("Unchanged")
        FAILED = "failed", _("Failed")

    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    knowledge_base = models.ForeignKey(
        KnowledgeBase, verbose_name=_("knowledge base"), on_delete=models.SET_NULL, null=True, blank=True,
        related_name="jobs",
    )
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.QUEUED)
    options = models.JSONField(_("options"), default=dict, blank=True)
    progress_done = models.PositiveIntegerField(_("progress done"), default=0)
    progress_total = models.PositiveIntegerField(_("progress total"), default=0)
    counters = models.JSONField(_("counters"), default=dict, blank=True)
    # Per-item failures: [{"item": "...", "reason": "..."}], so one bad file never hides in a total.
    failures = models.JSONField(_("failures"), default=list, blank=True)
    error_message = models.TextField(_("error message"), blank=True)
    # What the job is working on right now (a document's name, a crawl's URL), for its page.
    current_item = models.CharField(_("current item"), max_length=2000, blank=True)
    cancel_requested = models.BooleanField(_("cancel requested"), default=False)
    task_id = models.CharField(_("task id"), max_length=64, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("created by"), on_delete=models.SET_NULL,
                                   null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    # Written every few seconds while a worker runs the job; a running job whose heartbeat stops
    # belongs to a dead worker and is queued again (or, after its last attempt, failed) by the
    # reaper (portal/jobs.py).
    heartbeat_at = models.DateTimeField(_("heartbeat at"), null=True, blank=True)
    # Times a worker has taken the job: its lease. Only the run holding the current attempt may
    # write the heartbeat and the outcome, so a redelivered or duplicate task cannot run it twice.
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    # The worker ("host:pid") holding the current attempt.
    worker = models.CharField(_("worker"), max_length=200, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("job")
        verbose_name_plural = _("jobs")
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "kind"], name="knowledge_job_status_kind_idx")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk}"

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED

    @property
    def status_label(self) -> str:
        if self.status == self.Status.PARTIAL:
            failed = len(self.failures)
            return ngettext("Completed with %(count)d failure", "Completed with %(count)d failures",
                            failed) % {"count": failed}
        return self.get_status_display()

    @property
    def percent(self) -> int:
        """Items done, plus the embedded share of the item in progress, so a long file moves the bar too."""
        if not self.progress_total:
            return 100 if self.is_finished else 0
        done = self.progress_done + (0 if self.is_finished else self.in_progress_fraction)
        return min(100, int(100 * done / self.progress_total))

    @property
    def items(self) -> list[dict]:
        """Each document's own state, in the job's order (its `JobItem` rows, which the workers write)."""
        return [item.as_dict() for item in self.work_items.all()]

    @property
    def in_progress_fraction(self) -> float:
        """The done share of the documents in progress now (read from their rows: few, and only while the
        job runs): the embedded share of their chunks, and for a scan its pages read with OCR first."""
        held = self.work_items.filter(models.Q(state=self.ItemState.EMBEDDING, chunks_total__gt=0)
                                      | models.Q(state=self.ItemState.PARSING, pages_total__gt=0))
        return sum(_document_fraction(*row) for row in
                   held.values_list("state", "chunks_done", "chunks_total", "pages_done", "pages_total"))

    @property
    def chunks_progress(self) -> tuple[int, int]:
        """Chunks embedded and chunks known so far, over the job's items."""
        sums = self.work_items.aggregate(done=models.Sum("chunks_done"), total=models.Sum("chunks_total"))
        return sums["done"] or 0, sums["total"] or 0

    def start(self, total: int | None = None) -> None:
        self.status, self.started_at, self.finished_at = self.Status.RUNNING, timezone.now(), None
        self.heartbeat_at, self.error_message = self.started_at, ""
        fields = ["status", "started_at", "heartbeat_at", "finished_at", "error_message", "updated_at"]
        if total is not None:
            self.progress_total = total
            fields.append("progress_total")
        self.save(update_fields=fields)

    def record(self, *, done: int | None = None, total: int | None = None, **counts: int) -> None:
        """Write progress and bump counters; called between batches so watchers see it live. Only what
        is given is written, and counters are added to in the statement itself, so a call from one of
        the workers sharing a job never undoes another's."""
        fields = {"counters": _bumped(counts), "updated_at": timezone.now()}
        if done is not None:
            self.progress_done = fields["progress_done"] = done
        if total is not None:
            self.progress_total = fields["progress_total"] = total
        Job.objects.filter(pk=self.pk).update(**fields)
        self._reload_counts()

    def advance(self, **counts: int) -> None:
        """One more item done, and counters bumped, in one statement: workers sharing the job never
        overwrite each other's progress."""
        Job.objects.filter(pk=self.pk).update(progress_done=F("progress_done") + 1, counters=_bumped(counts),
                                              updated_at=timezone.now())
        self._reload_counts()

    def add_failure(self, item: str, reason: str) -> None:
        """Append a failure and count it, in the statement itself (no lost update between workers)."""
        failure = json.dumps([{"item": item, "reason": reason}])
        Job.objects.filter(pk=self.pk).update(failures=RawSQL("failures || %s::jsonb", [failure]),
                                              counters=_bumped({"failed": 1}), updated_at=timezone.now())
        self._reload_counts()

    def _reload_counts(self) -> None:
        self.progress_done, self.counters, self.failures = (
            Job.objects.filter(pk=self.pk).values_list("progress_done", "counters", "failures").get())

    def set_current(self, item: str) -> None:
        self.current_item = item[:2000]
        Job.objects.filter(pk=self.pk).update(current_item=self.current_item, updated_at=timezone.now())

    def finish(self) -> None:
        """End the run: cancelled if asked, failed if the work set `error_message`, completed with
        failures if items failed, else succeeded."""
        self.status, self.finished_at, self.current_item = self._final_status(), timezone.now(), ""
        self.save(update_fields=["status", "finished_at", "error_message", "current_item", "updated_at"])

    def finish_once(self) -> bool:
        """`finish` a running job, by whichever of the workers sharing it gets here first: True for
        that one, False for the others (the job ends, and says so, exactly once)."""
        self.refresh_from_db(fields=["cancel_requested", "error_message", "failures", "counters", "progress_done"])
        status, now = self._final_status(), timezone.now()
        won = Job.objects.filter(pk=self.pk, status=self.Status.RUNNING).update(
            status=status, finished_at=now, current_item="", updated_at=now)
        if won:
            self.status, self.finished_at, self.current_item = status, now, ""
        return bool(won)

    def _final_status(self) -> str:
        if self.cancel_requested:
            return self.Status.CANCELLED
        if self.error_message:
            return self.Status.FAILED
        return self.Status.PARTIAL if self.failures else self.Status.SUCCEEDED

    def fail(self, message: str) -> None:
        self.status, self.finished_at, self.error_message = self.Status.FAILED, timezone.now(), message
        self.current_item = ""
        self.save(update_fields=["status", "finished_at", "error_message", "current_item", "updated_at"])

    def should_stop(self) -> bool:
        """Re-read the cancel flag another process (admin, API) may have set."""
        self.cancel_requested = Job.objects.filter(pk=self.pk).values_list("cancel_requested", flat=True).first()
        return bool(self.cancel_requested)

    @property
    def is_retryable(self) -> bool:
        """Finished, and failed, was cancelled or left failed items: worth starting again."""
        if not self.is_finished or (self.status == self.Status.SUCCEEDED and not self.failures):
            return False
        if self.kind == self.Kind.CRAWL:
            return self.knowledge_base_id is not None and bool(self.options.get("seed_url"))
        return self.kind == self.Kind.DELETE or self.knowledge_base_id is not None

    def cancel(self) -> None:
        """Ask a queued or running job to stop after its current item (the flag the worker reads)."""
        if self.is_finished:
            raise JobFinishedError(gettext("%(job)s has already %(status)s")
                                   % {"job": self, "status": self.get_status_display().lower()})
        Job.objects.filter(pk=self.pk).update(cancel_requested=True, updated_at=timezone.now())
        self.cancel_requested = True


def _bumped(counts: dict[str, int]):
    """`counters` with each of `counts` added to its value, computed by the UPDATE itself."""
    expression, params = "COALESCE(counters, '{}'::jsonb)", []
    for name, delta in counts.items():
        expression = (f"jsonb_set({expression}, ARRAY[%s]::text[], "
                      f"to_jsonb(COALESCE((counters ->> %s)::bigint, 0) + %s))")
        params += [name, name, int(delta)]
    return RawSQL(expression, params) if counts else F("counters")


# The share of a scan's time its OCR takes, against embedding its text: a page read in ≈ 2 s, its
# one or two chunks embedded in ≈ 0.5 s by the default embedder on a CPU.
OCR_SHARE = 0.8


def _document_fraction(state: str, chunks_done: int, chunks_total: int, pages_done: int, pages_total: int) -> float:
    """How far one document in progress is, 0–1: a scan's pages first, then its chunks."""
    embedded = chunks_done / chunks_total if state == Job.ItemState.EMBEDDING and chunks_total else 0.0
    if not pages_total:
        return embedded
    if state == Job.ItemState.PARSING:
        return OCR_SHARE * min(pages_done, pages_total) / pages_total
    return OCR_SHARE + (1 - OCR_SHARE) * embedded
