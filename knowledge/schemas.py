"""Request and response shapes of the knowledge API. Vectors never appear here."""

from datetime import datetime
from enum import Enum
from typing import Literal

from django.conf import settings
from ninja import Field, ModelSchema, Schema
from pydantic import field_validator

from knowledge.embedding import REGISTRY
from knowledge.models import Chunk, Document, Job, KnowledgeBase, TextSearchConfig

EmbedderName = Enum("EmbedderName", {name: name for name in REGISTRY}, type=str)
TextSearchName = Enum("TextSearchName", {value: value for value in TextSearchConfig.values}, type=str)
SLUG = r"^[-a-zA-Z0-9_]+$"


class KnowledgeBaseCounts(Schema):
    documents: int
    ready: int
    pending: int
    indexing: int
    error: int
    chunks: int


class KnowledgeBaseOut(ModelSchema):
    counts: KnowledgeBaseCounts

    class Meta:
        model = KnowledgeBase
        fields = ["id", "name", "slug", "description", "embedder", "embedding_dim", "text_search_config",
                  "chunk_size", "chunk_overlap", "chunk_min_size", "created_at", "updated_at"]

    @staticmethod
    def resolve_counts(kb: KnowledgeBase) -> dict:
        return {name: getattr(kb, f"n_{name}", 0) or 0 for name in KnowledgeBaseCounts.model_fields}


class KnowledgeBaseIn(Schema):
    name: str = Field(min_length=1, max_length=200)
    slug: str = Field("", max_length=100, pattern=r"^([-a-zA-Z0-9_]+)?$",
                      description="Derived from the name when empty.")
    description: str = ""
    embedder: EmbedderName | None = Field(None, description="Default: the portal's default embedder.")
    text_search_config: TextSearchName | None = None
    chunk_size: int | None = Field(None, ge=200, le=100_000)
    chunk_overlap: int | None = Field(None, ge=0, le=50_000)
    chunk_min_size: int | None = Field(None, ge=0, le=100_000)

    @field_validator("name")
    @classmethod
    def name_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value.strip()


class KnowledgeBasePatch(Schema):
    name: str | None = Field(None, min_length=1, max_length=200)
    description: str | None = None
    text_search_config: TextSearchName | None = None
    chunk_size: int | None = Field(None, ge=200, le=100_000)
    chunk_overlap: int | None = Field(None, ge=0, le=50_000)
    chunk_min_size: int | None = Field(None, ge=0, le=100_000)


class ReindexRequest(Schema):
    embedder: EmbedderName | None = Field(None, description="Switch the base to this embedder and rebuild all vectors.")
    force: bool = Field(False, description="Rebuild every document, not only out-of-date ones.")


class JobOut(ModelSchema):
    knowledge_base_id: int | None
    percent: int

    class Meta:
        model = Job
        fields = ["id", "kind", "status", "options", "progress_done", "progress_total", "counters", "failures",
                  "error_message", "cancel_requested", "created_at", "started_at", "finished_at", "updated_at"]


class DocumentOut(ModelSchema):
    knowledge_base_id: int

    class Meta:
        model = Document
        fields = ["id", "source_kind", "source_uri", "path", "title", "mime", "status", "char_count",
                  "chunk_count", "file_size", "error_message", "metadata", "commit_sha", "ingested_at",
                  "created_at", "updated_at"]


class DocumentDetailOut(DocumentOut):
    latest_job: JobOut | None = Field(None, description="The most recent job that processed this document.")


class DocumentStatusFilter(Schema):
    status: Literal["pending", "indexing", "ready", "error"] | None = None
    source_kind: Literal["upload", "url", "crawl", "inline", "repository"] | None = None


class RefusedFile(Schema):
    item: str
    reason: str


class UploadResponse(Schema):
    job: JobOut | None
    documents: list[DocumentOut]
    refused: list[RefusedFile]


class TextIn(Schema):
    title: str = Field(min_length=1, max_length=500)
    text: str = Field(min_length=1, max_length=settings.PORTAL["MAX_TEXT_CHARS"])
    source_uri: str = Field("", max_length=2000,
                            description="Optional identity: posting the same URI again replaces that document.")
    metadata: dict = Field(default_factory=dict)


class DocumentJobResponse(Schema):
    job: JobOut
    document: DocumentOut


class UrlIn(Schema):
    url: str = Field(min_length=1, max_length=2000, pattern=r"^https?://\S+$")


class ChunkOut(ModelSchema):
    class Meta:
        model = Chunk
        fields = ["id", "position", "layer", "title", "section_path", "parent_heading", "content", "token_count",
                  "span_start", "span_end", "page", "language", "metadata"]


class ChunkFilter(Schema):
    layer: str | None = Field(None, max_length=8)
