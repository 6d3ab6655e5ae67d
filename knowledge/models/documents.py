"""Documents: one source each (upload, URL, crawl, inline text, repository file), its status and parse quality."""

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from knowledge.models.bases import KnowledgeBase


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
    embedder_signature = models.CharField(
        _("embedder signature"), max_length=64, blank=True,
        help_text=_("Embedder (name, version, dimension) its chunks' vectors were made with."),
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
        # An upload not yet (or never) parsed has no title: its file's name, never "upload:<name>".
        return self.title or self._uploaded_name() or self.source_uri or gettext("Document %(id)s") % {"id": self.pk}

    @property
    def display_name(self) -> str:
        """The name a person knows the document by: the uploaded file's own name, else its title or source."""
        return self._uploaded_name() or str(self)

    def _uploaded_name(self) -> str:
        return self.path if self.source_kind == self.SourceKind.UPLOAD else ""

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

    def mark_ready(self, *, sha256: str, config_signature: str, embedder_signature: str, chunk_count: int) -> None:
        """Its new chunks are in: record what they were built from."""
        self.sha256, self.config_signature, self.chunk_count = sha256, config_signature, chunk_count
        self.embedder_signature = embedder_signature
        self.status, self.error_message, self.ingested_at = self.Status.READY, "", timezone.now()
        # `metadata` too: cutting the text describes the tables it found (knowledge.indexing.entries).
        self.save(update_fields=["sha256", "config_signature", "embedder_signature", "chunk_count", "status",
                                 "error_message", "ingested_at", "metadata", "updated_at"])

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
