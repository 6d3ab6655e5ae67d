"""Jobs: background work (ingestion, re-index, crawl, evaluation…) with its state, progress and failures on the row."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

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
    # Each document's own state while the job runs, in the job's order (see `track_items`).
    items = models.JSONField(_("items"), default=list, blank=True)
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
        done = self.progress_done + (0 if self.is_finished else self.chunk_fraction)
        return min(100, int(100 * done / self.progress_total))

    @property
    def chunk_fraction(self) -> float:
        return sum(item["chunks_done"] / item["chunks_total"] for item in self.items
                   if item.get("state") == self.ItemState.EMBEDDING and item.get("chunks_total"))

    @property
    def chunks_progress(self) -> tuple[int, int]:
        """Chunks embedded and chunks known so far, over the job's items."""
        return (sum(item.get("chunks_done", 0) for item in self.items),
                sum(item.get("chunks_total", 0) for item in self.items))

    def start(self, total: int | None = None) -> None:
        self.status, self.started_at, self.finished_at = self.Status.RUNNING, timezone.now(), None
        self.heartbeat_at, self.error_message = self.started_at, ""
        fields = ["status", "started_at", "heartbeat_at", "finished_at", "error_message", "updated_at"]
        if total is not None:
            self.progress_total = total
            fields.append("progress_total")
        self.save(update_fields=fields)

    def record(self, *, done: int | None = None, total: int | None = None, **counts: int) -> None:
        """Write progress and bump counters; called between batches so watchers see it live."""
        if done is not None:
            self.progress_done = done
        if total is not None:
            self.progress_total = total
        for name, delta in counts.items():
            self.counters[name] = self.counters.get(name, 0) + delta
        self.save(update_fields=["progress_done", "progress_total", "counters", "items", "updated_at"])

    def add_failure(self, item: str, reason: str) -> None:
        self.failures.append({"item": item, "reason": reason})
        self.counters["failed"] = self.counters.get("failed", 0) + 1
        self.save(update_fields=["failures", "counters", "items", "updated_at"])

    def track_items(self, items: list[tuple[int, str]]) -> None:
        """Start tracking (id, name) items, all queued; `set_item` moves each along."""
        self.items = [{"id": pk, "name": name, "state": self.ItemState.QUEUED.value} for pk, name in items]
        self.save(update_fields=["items", "updated_at"])

    def set_current(self, item: str) -> None:
        self.current_item = item[:2000]
        Job.objects.filter(pk=self.pk).update(current_item=self.current_item, updated_at=timezone.now())

    def set_item(self, pk: int, *, save: bool = True, **fields) -> None:
        """Update one tracked item (state, chunks_done, chunks_total, reason); saved unless `save=False`
        (the next `record` then writes it with the counters, one UPDATE per batch)."""
        for item in self.items:
            if item["id"] == pk:
                item.update(fields)
        if save:
            self.save(update_fields=["items", "updated_at"])

    def finish(self) -> None:
        """End the run: cancelled if asked, failed if the work set `error_message`, completed with
        failures if items failed, else succeeded."""
        if self.cancel_requested:
            status = self.Status.CANCELLED
        elif self.error_message:
            status = self.Status.FAILED
        else:
            status = self.Status.PARTIAL if self.failures else self.Status.SUCCEEDED
        self.status, self.finished_at, self.current_item = status, timezone.now(), ""
        self.save(update_fields=["status", "finished_at", "error_message", "current_item", "updated_at"])

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
            raise JobFinishedError(f"{self} has already {self.get_status_display().lower()}")
        Job.objects.filter(pk=self.pk).update(cancel_requested=True, updated_at=timezone.now())
        self.cancel_requested = True
