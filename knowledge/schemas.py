"""Request and response shapes of the knowledge API. Vectors never appear here."""

from enum import Enum
from typing import Literal

from django.conf import settings
from ninja import Field, ModelSchema, Schema
from pydantic import AliasChoices, field_validator, model_validator

from knowledge import progress
from knowledge.indexing.embedding import REGISTRY
from knowledge.indexing.parsing.ocr import LANGUAGES_PATTERN as OCR_LANGUAGES
from knowledge.models import Chunk, Document, Job, KnowledgeBase, TextSearchConfig
from knowledge.search.retrieval import MODES
from portal.schemas import BodyIn, PlainBodyIn, PlainSchema
from portal.stored_text import translated


def usable_embedders() -> list[str]:
    """Embedders a base may be built with: `openai` only when an endpoint or key is configured."""
    configured = bool(settings.OPENAI["BASE_URL"] or settings.OPENAI["API_KEY"])
    return [name for name in REGISTRY if name != "openai" or configured]


EmbedderName = Enum("EmbedderName", {name: name for name in usable_embedders()}, type=str)
TextSearchName = Enum("TextSearchName", {value: value for value in TextSearchConfig.values}, type=str)
# The vocabularies come from their one source (the models, retrieval.MODES); Literal[tuple] is
# Literal[*tuple], so the OpenAPI schema lists the same values.
SearchMode = Literal[tuple(MODES)]
DocumentStatus = Literal[tuple(Document.Status.values)]
SourceKind = Literal[tuple(Document.SourceKind.values)]
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
        fields = ("id", "name", "slug", "description", "embedder", "embedding_dim", "text_search_config",
                  "chunk_size", "chunk_overlap", "chunk_min_size", "ocr_languages", "created_at", "updated_at")

    @staticmethod
    def resolve_counts(kb: KnowledgeBase) -> dict:
        return {name: getattr(kb, f"n_{name}", 0) or 0 for name in KnowledgeBaseCounts.model_fields}


class KnowledgeBaseIn(BodyIn):
    name: str = Field(min_length=1, max_length=200)
    slug: str = Field("", max_length=100, pattern=r"^([-a-zA-Z0-9_]+)?$",
                      description="Derived from the name when empty.")
    description: str = ""
    embedder: EmbedderName | None = Field(None, description="Default: the portal's default embedder.")
    text_search_config: TextSearchName | None = None
    chunk_size: int | None = Field(None, ge=200, le=100_000)
    chunk_overlap: int | None = Field(None, ge=0, le=50_000)
    chunk_min_size: int | None = Field(None, ge=0, le=100_000)
    ocr_languages: str | None = Field(None, pattern=OCR_LANGUAGES, description="Tesseract languages, e.g. rus+eng.")

    @field_validator("name")
    @classmethod
    def name_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value.strip()


class KnowledgeBasePatch(BodyIn):
    # A field this cannot change (the slug, a typo) is an error (BodyIn), not a 200 that changed nothing.

    name: str | None = Field(None, min_length=1, max_length=200)
    description: str | None = None
    text_search_config: TextSearchName | None = None
    chunk_size: int | None = Field(None, ge=200, le=100_000)
    chunk_overlap: int | None = Field(None, ge=0, le=50_000)
    chunk_min_size: int | None = Field(None, ge=0, le=100_000)
    ocr_languages: str | None = Field(None, pattern=OCR_LANGUAGES, description="Tesseract languages, e.g. rus+eng.")

    embedder: None = Field(None, description="Not changed here: POST /knowledge-bases/{id}/reindex with "
                                             '{"embedder": …} switches it and embeds every document again.')

    @field_validator("embedder", mode="before")
    @classmethod
    def embedder_is_switched_by_a_reindex(cls, value):
        raise ValueError('the embedder is switched with POST /knowledge-bases/{id}/reindex {"embedder": …}, '
                         "which embeds every document again")


class ReindexRequest(BodyIn):
    embedder: EmbedderName | None = Field(None,
                                          description="Switch the base to this embedder and rebuild all vectors.")
    force: bool = Field(False, description="Rebuild every document, not only out-of-date ones.")


class JobDocumentOut(Schema):
    id: int
    name: str = Field(description="The uploaded file's name, or the document's title or source.")
    state: Literal["queued", "parsing", "embedding", "ready", "unchanged", "failed"]
    label: str = Field(description='The state in words, e.g. "Embedding 12 / 50 chunks".')
    chunks_done: int
    chunks_total: int
    pages_done: int = Field(description="Pages of a scan read with OCR so far (0 when it needs none).")
    pages_total: int = Field(description="Pages of the file without a text layer, read with OCR.")
    reason: str = Field(description="Why it failed; empty otherwise.")


class JobFailure(Schema):
    item: str
    reason: str


class JobOut(ModelSchema):
    knowledge_base_id: int | None
    percent: int = Field(description="Documents done plus the embedded share of the one in progress.")
    status_label: str = Field(description='The status in words, e.g. "Completed with 2 failures".')
    chunks_done: int = Field(description="Chunks embedded so far over the job's documents.")
    chunks_total: int = Field(description="Chunks known so far (a document's count is known once it is cut).")
    documents: list[JobDocumentOut] = Field(description="Each document of the job with its own state, in order.")
    # JSON columns are typed by what the job writes, not as "an object or null".
    options: dict
    counters: dict[str, int]
    failures: list[JobFailure] = Field(description="One entry per item that failed, with the reason.")

    @staticmethod
    def resolve_chunks_done(job: Job) -> int:
        return job.chunks_progress[0]

    @staticmethod
    def resolve_chunks_total(job: Job) -> int:
        return job.chunks_progress[1]

    @staticmethod
    def resolve_documents(job: Job) -> list[dict]:
        return progress.items(job)

    # What a worker wrote, in the request's language (portal/stored_text.py), as the documents' reasons.
    @staticmethod
    def resolve_error_message(job: Job) -> str:
        return translated(job.error_message)

    @staticmethod
    def resolve_failures(job: Job) -> list[dict]:
        return [{**failure, "reason": translated(failure.get("reason", ""))} for failure in job.failures]

    class Meta:
        model = Job
        fields = ("id", "kind", "status", "progress_done", "progress_total", "error_message", "cancel_requested",
                  "attempts", "worker", "created_at", "started_at", "heartbeat_at", "finished_at", "updated_at")


class DocumentOut(ModelSchema):
    knowledge_base_id: int
    usable_for_auto_reply: bool = Field(description="False while the parse-quality report has flags no person "
                                                    "has accepted: ticket auto-replies do not quote it.")

    class Meta:
        model = Document
        fields = ("id", "source_kind", "source_uri", "path", "title", "mime", "status", "enabled", "char_count",
                  "chunk_count", "file_size", "error_message", "metadata", "column_mapping", "commit_sha",
                  "ingested_at", "quality", "needs_attention", "quality_accepted_at", "created_at", "updated_at")

    @staticmethod
    def resolve_error_message(document: Document) -> str:
        return translated(document.error_message)  # in the request's language


class DocumentDetailOut(DocumentOut):
    latest_job: JobOut | None = Field(None, description="The most recent job that processed this document.")


class DocumentStatusFilter(Schema):
    status: DocumentStatus | None = None
    source_kind: SourceKind | None = None
    needs_attention: bool | None = Field(None, description="true: only documents whose parse-quality flags "
                                                           "no person has accepted yet")


class ColumnMappingIn(BodyIn):
    mapping: dict[str, Literal["question", "answer", "title", "text", "metadata", "ignored"]] = Field(
        ..., description="Column name → role; columns left out keep their guessed role.")


class RefusedFile(Schema):
    item: str
    reason: str


class UploadResponse(Schema):
    job: JobOut | None
    documents: list[DocumentOut]
    refused: list[RefusedFile]


class TextIn(BodyIn):
    title: str = Field(min_length=1, max_length=500)
    text: str = Field(min_length=1, max_length=settings.PORTAL["MAX_TEXT_CHARS"])
    source_uri: str = Field("", max_length=2000,
                            description="Optional identity: posting the same URI again replaces that document.")
    metadata: dict = Field(default_factory=dict)


class DocumentJobResponse(Schema):
    job: JobOut
    document: DocumentOut


class ChunkOut(ModelSchema):
    class Meta:
        model = Chunk
        fields = ("id", "position", "layer", "title", "section_path", "parent_heading", "content", "token_count",
                  "span_start", "span_end", "page", "language", "metadata")


class ChunkFilter(Schema):
    layer: str | None = Field(None, max_length=8)


FilterValue = str | int | float | bool | list[str | int | float | bool]


# Both search endpoints take `query`; `question` (the planned search's old name) is accepted too.
QUERY = Field(min_length=1, max_length=2000, validation_alias=AliasChoices("query", "question"))


class QueryBodyIn(PlainBodyIn):
    """A search body: `query`, or `question` by its old name; sent both, `query` wins (`question` is not
    refused as a field the body does not take)."""

    query: str = QUERY

    @model_validator(mode="before")
    @classmethod
    def query_wins(cls, data):
        if isinstance(data, dict) and "query" in data and "question" in data:
            return {name: value for name, value in data.items() if name != "question"}
        return data


class SearchRequest(QueryBodyIn):
    knowledge_bases: list[int] | None = Field(None, min_length=1, max_length=100,
                                              description="Ids; default: every base the key may use.")
    top_k: int = Field(6, ge=1, le=50)
    mode: SearchMode = "hybrid"
    layers: list[str] | None = Field(None, max_length=20, description="Chunk layers, e.g. D0, D6, C1.")
    filters: dict[str, FilterValue] | None = Field(
        None, description="Metadata filters: a chunk or its document must have each key with that value "
                          "(or one of the listed values).")
    max_distance: float | None = Field(None, ge=0, le=2, description="Cosine distance cut-off for vector hits.")
    document_ids: list[int] | None = Field(None, max_length=1000)


class HitOut(PlainSchema):
    rank: int
    score: float
    distance: float | None
    similarity: float | None
    chunk_id: int
    document_id: int
    knowledge_base_id: int
    document_title: str
    source_uri: str
    section_path: str
    page: int | None
    layer: str
    content: str
    snippet: str = Field(description="A short excerpt; keyword matches are wrapped in <mark>.")
    retrievers: list[str]
    metadata: dict


class SearchResponse(PlainSchema):
    query: str
    mode: str
    keyword_fallback_used: bool
    best_similarity: float | None
    hits: list[HitOut]


class PlanRequest(QueryBodyIn):
    knowledge_bases: list[int] | None = Field(None, min_length=1, max_length=100,
                                              description="Ids; default: every base the key may use.")


class PlanStepOut(PlainSchema):
    layers: list[str]
    query: str
    filters: dict
    top_k: int
    mode: str
    why: str


class PlanOut(PlainSchema):
    intent: str = Field(description="What the router understood: route_lookup, integrations, workflow, …")
    language: str
    subject: str
    planner: str
    steps: list[PlanStepOut]
    trace: list[dict] = Field(description="Per step: the layers, the filters finally used, the hits found.")


class PlanResponse(PlainSchema):
    query: str
    question: str = Field(description="The same as `query` (the old name).")
    plan: PlanOut
    hits: list[HitOut]


class AnswerRequest(PlainBodyIn):
    question: str = Field(min_length=1, max_length=4000)
    knowledge_bases: list[int] | None = Field(None, min_length=1, max_length=100,
                                              description="Ids; default: every base the key may use.")
    top_k: int = Field(6, ge=1, le=20)
    mode: SearchMode = "hybrid"
    layers: list[str] | None = Field(None, max_length=20)
    filters: dict[str, FilterValue] | None = None
    stream: bool = Field(False, description="Answer as Server-Sent Events: `token` events, then one `answer` event.")


class NumberedSource(HitOut):
    number: int = Field(description="The n of the [n] markers in the answer text.")


class CitationOut(PlainSchema):
    number: int
    source: HitOut


class AnswerResponse(PlainSchema):
    answer: str
    refused: bool
    confidence: float
    reasons: list[str] = Field(description="Codes that lowered the confidence or explain a refusal.")
    unmentioned: list[str] = Field(default_factory=list, description=(
        "The names in the question that no source of the knowledge bases mentions (reason unmentioned_name)."))
    flags: list[str] = Field(description="Why the answer was withheld by the outgoing-text check "
                                         "(injected instructions, foreign contacts, credential requests).")
    citations: list[CitationOut]
    sources: list[NumberedSource]
    dropped_markers: list[int]
    generator: str
