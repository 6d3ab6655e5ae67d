"""A job's work items: one row per document of an ingestion or re-index job.

Several workers share a large job (`knowledge/shares.py`): each claims the next queued row with a
lease and moves it along, so the rows are the one place every participant writes, one short
UPDATE at a time, instead of a JSON list on the job rewritten whole on each progress report.
"""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from knowledge.models.documents import Document
from knowledge.models.jobs import Job


class Leased(models.Model):
    """Work a participant of a shared job claims: the participant working on it and until when its
    claim holds (a live participant renews the lease with its heartbeat, so a lease runs out only
    when its worker died), and how many times it was taken."""

    claimed_by = models.CharField(_("claimed by"), max_length=64, blank=True)
    lease_until = models.DateTimeField(_("lease until"), null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)

    # Work is taken again once after its worker died; a second death fails it.
    MAX_ATTEMPTS = 2

    class Meta:
        abstract = True


class SharedPart(Leased):
    """A part of one document that its holder stages for every free participant of the job to take
    (`knowledge/leases.py`): done when its result is stored, failed when its `error` is set."""

    error = models.TextField(_("error"), blank=True)

    # The parts still waiting for a result (a subclass names its result column).
    PENDING = Q()

    class Meta:
        abstract = True

    def given_up(self) -> str:
        """The error a part whose workers died `MAX_ATTEMPTS` times is failed with."""
        raise NotImplementedError


class JobItem(Leased):
    """One document of a job, with its own state, chunk progress and the worker holding it."""

    job = models.ForeignKey(Job, verbose_name=_("job"), on_delete=models.CASCADE, related_name="work_items")
    # No constraint: a document deleted meanwhile leaves its id and name on the job's page.
    document = models.ForeignKey(Document, verbose_name=_("document"), on_delete=models.DO_NOTHING,
                                 db_constraint=False, related_name="+")
    position = models.PositiveIntegerField(_("position"))
    name = models.CharField(_("name"), max_length=2000, blank=True)
    state = models.CharField(_("state"), max_length=20, choices=Job.ItemState.choices,
                             default=Job.ItemState.QUEUED)
    chunks_done = models.PositiveIntegerField(_("chunks done"), default=0)
    chunks_total = models.PositiveIntegerField(_("chunks total"), default=0)
    # Pages read with OCR so far, of those the file has without text (0 / 0: no OCR).
    pages_done = models.PositiveIntegerField(_("pages read"), default=0)
    pages_total = models.PositiveIntegerField(_("pages to read"), default=0)
    reason = models.TextField(_("reason"), blank=True)

    # The states of a document a participant holds.
    IN_PROGRESS = (Job.ItemState.PARSING, Job.ItemState.EMBEDDING)

    class Meta:
        verbose_name = _("job item")
        verbose_name_plural = _("job items")
        ordering = ["job", "position"]
        constraints = [models.UniqueConstraint(fields=["job", "position"], name="knowledge_jobitem_position_uniq")]
        indexes = [models.Index(fields=["job", "state"], name="knowledge_jobitem_state_idx")]

    def __str__(self) -> str:
        return f"{self.job} · {self.name}"

    def as_dict(self) -> dict:
        """The shape the job's pages and API read (`Job.items`)."""
        return {"id": self.document_id, "name": self.name, "state": self.state, "chunks_done": self.chunks_done,
                "chunks_total": self.chunks_total, "pages_done": self.pages_done, "pages_total": self.pages_total,
                "reason": self.reason}


class EmbeddingBatch(SharedPart):
    """A slice of one large document's chunks waiting for vectors, which any participant of its job
    may take (`knowledge/share_batches.py`): the document's holder stages them, embeds some itself,
    and reads every batch's vectors back before it swaps the chunks in."""

    item = models.ForeignKey(JobItem, verbose_name=_("job item"), on_delete=models.CASCADE, related_name="batches")
    # The index of its first chunk among the document's chunks to embed.
    position = models.PositiveIntegerField(_("position"))
    embedder = models.CharField(_("embedder"), max_length=100)
    inputs = models.JSONField(_("embedding inputs"))
    size = models.PositiveIntegerField(_("size"))
    # float32, one row per input; empty until embedded.
    vectors = models.BinaryField(_("vectors"), null=True, blank=True)
    dim = models.PositiveIntegerField(_("dimension"), default=0)

    PENDING = Q(vectors__isnull=True, error="")

    class Meta:
        verbose_name = _("embedding batch")
        verbose_name_plural = _("embedding batches")
        ordering = ["item", "position"]
        constraints = [models.UniqueConstraint(fields=["item", "position"], name="knowledge_embedbatch_position_uniq")]

    def __str__(self) -> str:
        return f"{self.item} · {self.position + 1}–{self.position + self.size}"

    def given_up(self) -> str:
        return gettext("The worker embedding chunks %(first)d–%(last)d of %(name)s stopped %(attempts)d times "
                       "(killed or out of memory); not tried again.") % {
            "first": self.position + 1, "last": self.position + self.size, "name": self.item.name,
            "attempts": self.MAX_ATTEMPTS}


class ScanPage(SharedPart):
    """A page of one long scan waiting for OCR, which any participant of its job may take
    (`knowledge/share_pages.py`): the document's holder stages its pages without a text layer,
    reads some itself, and puts every page's text in place before it chunks the document."""

    item = models.ForeignKey(JobItem, verbose_name=_("job item"), on_delete=models.CASCADE,
                             related_name="scan_pages")
    number = models.PositiveIntegerField(_("page"))
    languages = models.CharField(_("OCR languages"), max_length=120)
    # None until read; a blank page reads as "".
    text = models.TextField(_("text"), null=True, blank=True)  # noqa: DJ001
    confidence = models.FloatField(_("confidence"), null=True, blank=True)
    rotated = models.PositiveSmallIntegerField(_("turned by (degrees)"), default=0)

    PENDING = Q(text__isnull=True, error="")

    class Meta:
        verbose_name = _("scan page")
        verbose_name_plural = _("scan pages")
        ordering = ["item", "number"]
        constraints = [models.UniqueConstraint(fields=["item", "number"], name="knowledge_scanpage_number_uniq")]

    def __str__(self) -> str:
        return f"{self.item} · page {self.number}"

    def given_up(self) -> str:
        return gettext("The worker reading page %(number)d of %(name)s with OCR stopped %(attempts)d times "
                       "(killed or out of memory); not tried again.") % {
            "number": self.number, "name": self.item.name, "attempts": self.MAX_ATTEMPTS}
