"""Chunks: the searchable pieces of a document, with their layer, vector and full-text vector."""

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.utils.translation import gettext_lazy as _
from pgvector.django import VectorField

from knowledge.models.bases import KnowledgeBase
from knowledge.models.documents import Document


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
