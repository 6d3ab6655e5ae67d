"""Knowledge bases, their documents, the chunks those become, and the background jobs."""

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.core.validators import MinValueValidator, RegexValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from pgvector.django import VectorField

from knowledge.exceptions import JobFinishedError


class TextSearchConfig(models.TextChoices):
    # PostgreSQL's `russian` configuration stems Cyrillic words with the Russian Snowball stemmer
    # and ASCII words with the English one, so it suits mixed Russian/English bases.
    RUSSIAN = "russian", _("Russian (and English)")
    ENGLISH = "english", _("English")
    GERMAN = "german", _("German")
    FRENCH = "french", _("French")
    SPANISH = "spanish", _("Spanish")
    SIMPLE = "simple", _("No stemming")


class KnowledgeBase(models.Model):
    name = models.CharField(_("name"), max_length=200)
    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    description = models.TextField(_("description"), blank=True)
    embedder = models.CharField(_("embedder"), max_length=100, help_text=_("Embedder name from the registry."))
    embedding_dim = models.PositiveIntegerField(_("embedding dim"), validators=[MinValueValidator(1)])
    text_search_config = models.CharField(
        _("text search config"),
        max_length=20, choices=TextSearchConfig.choices, default=TextSearchConfig.RUSSIAN
    )
    chunk_size = models.PositiveIntegerField(_("chunk size"), default=2000, validators=[MinValueValidator(200)])
    chunk_overlap = models.PositiveIntegerField(_("chunk overlap"), default=200)
    chunk_min_size = models.PositiveIntegerField(_("chunk min size"), default=200)
    # Measured when the base is created with an embedder that states no floor (knowledge.indexing.calibration):
    # the similarity of unrelated texts, below which nothing counts as relevant.
    similarity_floor = models.FloatField(
        _("similarity floor"), null=True, blank=True,
        help_text=_("Similarity of unrelated texts under this base's embedder, as measured."),
    )
    # A shadow is a hidden copy built with another embedder or chunking beside the base it belongs to
    # (which keeps serving); listings leave shadows out. See evaluation/shadow.py.
    shadow_of = models.ForeignKey("self", verbose_name=_("shadow of"), on_delete=models.CASCADE, null=True,
                                  blank=True, related_name="shadows",
                                  editable=False)
    ocr_languages = models.CharField(
        _("OCR languages"),
        max_length=100, default="rus+eng",
        validators=[RegexValidator(r"^[a-z_]{3,20}(\+[a-z_]{3,20}){0,5}$", _("Tesseract language codes joined by +, "
                                                                             "e.g. rus+eng"))],
        help_text=_("Languages Tesseract reads scanned pages and images in (Tesseract codes joined by +)."),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("knowledge base")
        verbose_name_plural = _("knowledge bases")
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(chunk_overlap__lt=models.F("chunk_size") / 2),
                name="knowledge_kb_overlap_below_half_chunk",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def chunking(self) -> dict:
        return {"chunk_size": self.chunk_size, "overlap": self.chunk_overlap, "min_size": self.chunk_min_size}


class DocumentQuerySet(models.QuerySet):
    def needing_attention(self):
        """Documents whose parse-quality report raised a flag no person has accepted yet."""
        return self.filter(needs_attention=True, quality_accepted_at__isnull=True)


class Document(models.Model):
    class SourceKind(models.TextChoices):
        UPLOAD = "upload", _("Upload")
        URL = "url", _("URL")
        CRAWL = "crawl", _("Crawl")
        INLINE = "inline", _("Inline text")
        REPOSITORY = "repository", _("Repository")

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        INDEXING = "indexing", _("Indexing")
        READY = "ready", _("Ready")
        ERROR = "error", _("Error")

    knowledge_base = models.ForeignKey(KnowledgeBase, verbose_name=_("knowledge base"), on_delete=models.CASCADE,
                                       related_name="documents")
    source_kind = models.CharField(_("source kind"), max_length=20, choices=SourceKind.choices)
    # The document's identity inside its knowledge base: ingesting the same URI again replaces it.
    source_uri = models.CharField(_("source URI"), max_length=2000, blank=True)
    path = models.CharField(_("path"), max_length=1000, blank=True)
    title = models.CharField(_("title"), max_length=500, blank=True)
    mime = models.CharField(_("MIME type"), max_length=200, blank=True)
    sha256 = models.CharField(_("SHA-256"), max_length=64, blank=True, help_text=_("SHA-256 of the extracted text."))
    config_signature = models.CharField(
        _("config signature"),
        max_length=64, blank=True, help_text=_("Parser, chunker and embedder configuration it was built with.")
    )
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.PENDING)
    text = models.TextField(_("text"), blank=True,
                            help_text=_("The extracted text, kept so re-indexing needs no re-parse."))
    char_count = models.PositiveIntegerField(_("char count"), default=0)
    chunk_count = models.PositiveIntegerField(_("chunk count"), default=0)
    file_size = models.PositiveBigIntegerField(_("file size"), null=True, blank=True)
    error_message = models.TextField(_("error message"), blank=True)
    metadata = models.JSONField(_("metadata"), default=dict, blank=True)
    # Column name → role (knowledge.indexing.tables.ROLES) for the tables in the document; columns not named
    # keep the guessed role. Changing it re-chunks this document only (`tables.set_column_mapping`).
    column_mapping = models.JSONField(_("column mapping"), default=dict, blank=True)
    commit_sha = models.CharField(_("commit"), max_length=64, blank=True)
    original_file = models.FileField(_("original file"), upload_to="uploads/%Y/%m/%d/", max_length=500, blank=True)
    enabled = models.BooleanField(_("enabled"), default=True,
                                  help_text=_("A disabled document is kept, chunks and all, but "
                                              "left out of search until it is enabled again."))
    # The parse-quality report (knowledge/indexing/parsing/quality.py) and whether it raised a flag.
    quality = models.JSONField(_("quality"), default=dict, blank=True)
    needs_attention = models.BooleanField(_("needs attention"), default=False)
    quality_accepted_at = models.DateTimeField(
        _("quality accepted at"),
        null=True, blank=True,
        help_text=_("When a person accepted the document as parsed despite its quality flags."),
    )
    ingested_at = models.DateTimeField(_("ingested at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    objects = DocumentQuerySet.as_manager()

    class Meta:
        verbose_name = _("document")
        verbose_name_plural = _("documents")
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["knowledge_base", "source_uri"],
                condition=~Q(source_uri=""),
                name="knowledge_document_kb_uri_uniq",
            ),
        ]
        indexes = [
            models.Index(fields=["knowledge_base", "status"], name="knowledge_doc_kb_status_idx"),
            models.Index(fields=["knowledge_base", "sha256"], name="knowledge_doc_kb_sha_idx"),
            models.Index(fields=["knowledge_base"], condition=Q(needs_attention=True),
                         name="knowledge_doc_attention_idx"),
        ]

    def __str__(self) -> str:
        return self.title or self.source_uri or gettext("Document %(id)s") % {"id": self.pk}

    @property
    def display_name(self) -> str:
        """The name a person knows the document by: the uploaded file's own name, else its title or source."""
        if self.source_kind == self.SourceKind.UPLOAD and self.path:
            return self.path
        return str(self)

    @property
    def usable_for_auto_reply(self) -> bool:
        """Whether ticket auto-replies may quote it: parsed without flags, or accepted by a person."""
        return not self.needs_attention or self.quality_accepted_at is not None

    def set_quality(self, report: dict) -> None:
        """A new report (not saved); an earlier acceptance no longer holds when the text changed."""
        self.quality, self.needs_attention = report, bool(report.get("flags"))

    def accept_quality(self) -> None:
        self.quality_accepted_at = timezone.now()
        self.save(update_fields=["quality_accepted_at", "updated_at"])

    # Chunks of these documents are served: one being re-indexed keeps its previous chunks until the
    # new ones replace them in one transaction (knowledge/indexing/ingestion.py).
    SEARCHABLE = (Status.READY, Status.INDEXING)

    def start_indexing(self, *, title: str, mime: str, text: str, metadata: dict) -> None:
        """New text in, status `indexing`: its previous chunks (if any) stay searchable meanwhile."""
        self.title, self.mime, self.text, self.char_count = title[:500], mime[:200], text, len(text)
        self.metadata = metadata
        self.status, self.error_message = self.Status.INDEXING, ""
        # The parse-quality report (`set_quality`) is saved with the text it describes.
        self.save(update_fields=["title", "mime", "text", "char_count", "metadata", "status", "error_message",
                                 "quality", "needs_attention", "quality_accepted_at", "updated_at"])

    def mark_ready(self, *, sha256: str, config_signature: str, chunk_count: int) -> None:
        """Its new chunks are in: record what they were built from."""
        self.sha256, self.config_signature, self.chunk_count = sha256, config_signature, chunk_count
        self.status, self.error_message, self.ingested_at = self.Status.READY, "", timezone.now()
        # `metadata` too: cutting the text describes the tables it found (knowledge.indexing.entries).
        self.save(update_fields=["sha256", "config_signature", "chunk_count", "status", "error_message",
                                 "ingested_at", "metadata", "updated_at"])

    def set_enabled(self, enabled: bool) -> None:
        """Take the document out of search (its chunks stay) or put it back; search sees it at once."""
        self.enabled = enabled
        self.save(update_fields=["enabled", "updated_at"])

    def mark_failed(self, message: str) -> None:
        """The document failed; one that was served keeps serving its previous chunks."""
        if self.sha256 and self.chunk_count:
            self.status = self.Status.READY
            self.error_message = f"The last update failed and the previous version is still served: {message}"
        else:
            self.status, self.error_message = self.Status.ERROR, message
        self.save(update_fields=["status", "error_message", "updated_at"])


class Chunk(models.Model):
    document = models.ForeignKey(Document, verbose_name=_("document"), on_delete=models.CASCADE, related_name="chunks")
    # Denormalised from the document so the per-base vector index can filter on it.
    knowledge_base = models.ForeignKey(KnowledgeBase, verbose_name=_("knowledge base"), on_delete=models.CASCADE,
                                       related_name="+")
    position = models.PositiveIntegerField(_("position"))
    layer = models.CharField(_("layer"), max_length=8, default="D0")
    title = models.CharField(_("title"), max_length=500, blank=True)
    section_path = models.CharField(_("section path"), max_length=1000, blank=True)
    parent_heading = models.CharField(_("parent heading"), max_length=500, blank=True)
    content = models.TextField(_("content"))
    token_count = models.PositiveIntegerField(_("token count"), default=0)
    span_start = models.PositiveIntegerField(_("span start"), null=True, blank=True)
    span_end = models.PositiveIntegerField(_("span end"), null=True, blank=True)
    page = models.PositiveIntegerField(_("page"), null=True, blank=True)
    language = models.CharField(_("language"), max_length=20, blank=True)
    metadata = models.JSONField(_("metadata"), default=dict, blank=True)
    # Untyped `vector`: knowledge bases may use embedders of different dimensions. Each base has a
    # partial expression HNSW index on `embedding::vector(dim)` (see vector_index.py).
    embedding = VectorField(null=True, blank=True)
    search_vector = SearchVectorField(null=True, blank=True)
    enabled = models.BooleanField(_("enabled"), default=True,
                                  help_text=_("A disabled chunk is kept but left out of search."))

    class Meta:
        verbose_name = _("chunk")
        verbose_name_plural = _("chunks")
        ordering = ["document_id", "layer", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "layer", "position"], name="knowledge_chunk_document_layer_position_uniq"
            ),
        ]
        indexes = [
            GinIndex(fields=["search_vector"], name="knowledge_chunk_fts_idx"),
            models.Index(fields=["knowledge_base", "layer"], name="knowledge_chunk_kb_layer_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.document_id}:{self.layer}:{self.position}"

    def set_enabled(self, enabled: bool) -> None:
        """Take the chunk out of search (it is kept) or put it back; search sees it at once."""
        self.enabled = enabled
        self.save(update_fields=["enabled"])


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
    # belongs to a dead worker and is failed by the reaper (portal/jobs.py).
    heartbeat_at = models.DateTimeField(_("heartbeat at"), null=True, blank=True)
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
            return f"Completed with {failed} failure{'s' if failed != 1 else ''}"
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
