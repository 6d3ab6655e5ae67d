"""REST operations on knowledge bases, documents, chunks and jobs.

Each operation checks its scope through `auth=`, narrows to the knowledge bases the key may use
(others answer 404, so a key cannot learn what exists), calls one domain function and shapes
the result.
"""

import json
import logging
from pathlib import Path

from django.conf import settings
from django.db.models import Count, Q, QuerySet, Sum
from django.http import Http404, HttpRequest, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from ninja import File, Form, Query, Router, Status
from ninja.files import UploadedFile
from ninja.pagination import paginate

from knowledge import bases, jobs, uploads
from knowledge.models import SERVED, Chunk, Document, Job, KnowledgeBase
from knowledge.schemas import (
    AnswerRequest,
    AnswerResponse,
    ChunkFilter,
    ChunkOut,
    ColumnMappingIn,
    DocumentDetailOut,
    DocumentJobResponse,
    DocumentOut,
    DocumentStatusFilter,
    JobOut,
    KnowledgeBaseIn,
    KnowledgeBaseOut,
    KnowledgeBasePatch,
    PlanRequest,
    PlanResponse,
    ReindexRequest,
    SearchRequest,
    SearchResponse,
    TextIn,
    UploadResponse,
)
from knowledge.search import answers, retrieval, sql, streaming
from knowledge.search.planned import plan_and_search as router_plan_and_search
from portal import access, audit
from portal.auth import READ, SEARCH, WRITE, ApiError
from portal.models import ApiKey
from portal.schemas import errors

logger = logging.getLogger(__name__)

COLUMN_MAPPING_HELP = ('JSON object, column name → role ("question", "answer", "title", "text", "metadata", '
                       '"ignored") for the tables in the files; columns left out keep their guessed role')

router = Router(tags=["knowledge"])


# --- Access -------------------------------------------------------------------------------------

def visible_bases(key: ApiKey) -> QuerySet[KnowledgeBase]:
    """The knowledge bases a key may use."""
    allowed = key.knowledge_base_ids
    served = KnowledgeBase.objects.filter(**SERVED)
    return served if allowed is None else served.filter(pk__in=allowed)


def get_kb(request: HttpRequest, kb_id: int) -> KnowledgeBase:
    return get_object_or_404(visible_bases(request.auth), pk=kb_id)


def get_document(request: HttpRequest, document_id: int) -> Document:
    document = get_object_or_404(Document.objects.defer("text").select_related("knowledge_base"), pk=document_id)
    if not request.auth.may_use(document.knowledge_base_id):
        raise Http404
    return document


def get_job(request: HttpRequest, job_id: int, **filters) -> Job:
    job = get_object_or_404(Job, pk=job_id, **filters)
    if not request.auth.may_use(job.knowledge_base_id):
        raise Http404
    return job


def with_counts(queryset: QuerySet[KnowledgeBase]) -> QuerySet[KnowledgeBase]:
    statuses = {f"n_{status}": Count("documents", filter=Q(documents__status=status))
                for status in Document.Status.values}
    return queryset.annotate(n_documents=Count("documents"), n_chunks=Sum("documents__chunk_count", default=0),
                             **statuses)


# --- Knowledge bases ----------------------------------------------------------------------------

@router.get("/knowledge-bases", response={200: list[KnowledgeBaseOut], **errors()}, auth=READ)
@paginate
def list_knowledge_bases(request):
    return with_counts(visible_bases(request.auth)).order_by("name", "pk")


@router.post("/knowledge-bases", response={201: KnowledgeBaseOut, **errors()}, auth=WRITE)
def create_knowledge_base(request, payload: KnowledgeBaseIn):
    if request.auth.knowledge_base_ids is not None:
        raise ApiError(403, "key_limited", _("This API key is limited to given knowledge bases and cannot create one"))
    overrides = payload.model_dump(exclude_none=True, mode="json")
    kb = bases.create_knowledge_base(**overrides)
    return Status(201, with_counts(KnowledgeBase.objects.filter(pk=kb.pk)).get())


@router.get("/knowledge-bases/{kb_id}", response={200: KnowledgeBaseOut, **errors(404)}, auth=READ)
def get_knowledge_base(request, kb_id: int):
    return get_object_or_404(with_counts(visible_bases(request.auth)), pk=kb_id)


@router.patch("/knowledge-bases/{kb_id}", response={200: KnowledgeBaseOut, **errors(404)}, auth=WRITE)
def update_knowledge_base(request, kb_id: int, payload: KnowledgeBasePatch):
    """Change names and chunking settings; new chunking applies after a re-index."""
    kb = bases.update_knowledge_base(
        get_kb(request, kb_id), **payload.model_dump(exclude_unset=True, exclude_none=True, mode="json"))
    return with_counts(KnowledgeBase.objects.filter(pk=kb.pk)).get()


@router.delete("/knowledge-bases/{kb_id}", response={204: None, **errors(404)}, auth=WRITE)
def delete_knowledge_base(request, kb_id: int):
    bases.delete_knowledge_base(get_kb(request, kb_id))
    return Status(204, None)


@router.post("/knowledge-bases/{kb_id}/reindex", response={202: JobOut, **errors(404, 409)}, auth=WRITE)
def reindex_knowledge_base(request, kb_id: int, payload: ReindexRequest):
    """Rebuild out-of-date documents (all with `force`), optionally switching the embedder."""
    kb = get_kb(request, kb_id)
    embedder = payload.embedder.value if payload.embedder else ""
    return Status(202, jobs.start_reindex(kb, embedder=embedder, force=payload.force, user=request.auth.owner))


# --- Documents ----------------------------------------------------------------------------------

@router.get("/knowledge-bases/{kb_id}/documents", response={200: list[DocumentOut], **errors(404)}, auth=READ)
@paginate
def list_documents(request, kb_id: int, filters: Query[DocumentStatusFilter]):
    documents = get_kb(request, kb_id).documents.defer("text").order_by("-created_at", "-pk")
    if filters.status:
        documents = documents.filter(status=filters.status)
    if filters.source_kind:
        documents = documents.filter(source_kind=filters.source_kind)
    if filters.needs_attention is not None:
        attention = documents.needing_attention()
        documents = attention if filters.needs_attention else documents.exclude(pk__in=attention.values("pk"))
    return documents


@router.post("/knowledge-bases/{kb_id}/documents", response={202: UploadResponse, **errors(404, 413)},
             auth=WRITE)
def upload_documents(request, kb_id: int, files: list[UploadedFile] = File(..., min_length=1),  # noqa: B008
                     column_mapping: str = Form("", description=COLUMN_MAPPING_HELP)):  # noqa: B008
    """Upload one or many files (multipart, field `files`); one ingestion job processes them."""
    kb = get_kb(request, kb_id)
    mapping = parse_mapping(column_mapping)
    _accepted, refusals = uploads.check_uploads(files)
    # The API refuses the whole request for a file over the limit or a name sent twice (uploads.py).
    too_large = [refusal for refusal in refusals if refusal.kind == uploads.TOO_LARGE]
    if too_large:
        limit = settings.PORTAL["MAX_UPLOAD_BYTES"]
        raise ApiError(413, "file_too_large", _("Files over the %(limit)s-byte limit: %(files)s") % {
                           "limit": number_format(limit, force_grouping=True),
                           "files": ", ".join(refusal.item for refusal in too_large)},
                       [{"field": "files", "location": "file", "type": "too_large",
                         "message": f"{refusal.item}: {refusal.reason}"} for refusal in too_large])
    duplicates = sorted({Path(refusal.item).name for refusal in refusals if refusal.kind == uploads.DUPLICATE})
    if duplicates:
        raise ApiError(422, "duplicate_file_names",
                       _("Several files are named %(names)s") % {"names": ", ".join(duplicates)},
                       [{"field": "files", "location": "file", "type": "duplicate",
                         "message": _("%(name)s: sent more than once") % {"name": name}} for name in duplicates])
    job, refused = jobs.add_uploads(kb, files, user=request.auth.owner, column_mapping=mapping)
    if job is None:
        raise ApiError(422, "no_acceptable_files", _("None of the files can be ingested"),
                       [{"field": "files", "location": "file", "message": f"{item['item']}: {item['reason']}",
                         "type": "refused"} for item in refused])
    documents = Document.objects.filter(pk__in=job.options["document_ids"]).defer("text").order_by("pk")
    return Status(202, {"job": job, "documents": documents, "refused": refused})


def parse_mapping(value: str) -> dict[str, str] | None:
    if not value.strip():
        return None
    try:
        mapping = json.loads(value)
    except json.JSONDecodeError as exc:
        raise ApiError(422, "invalid", f"column_mapping is not JSON: {exc}",
                       [{"field": "column_mapping", "location": "form", "type": "json", "message": str(exc)}]) from exc
    if not isinstance(mapping, dict) or not all(isinstance(v, str) for v in mapping.values()):
        raise ApiError(422, "invalid", "column_mapping must be a JSON object of column name → role",
                       [{"field": "column_mapping", "location": "form", "type": "object",
                         "message": "expected {\"column\": \"role\"}"}])
    return mapping


@router.put("/documents/{document_id}/column-mapping", response={202: JobOut, **errors(404)}, auth=WRITE)
def change_column_mapping(request, document_id: int, payload: ColumnMappingIn):
    """Set the roles of the document's table columns; the document alone is re-chunked."""
    document = get_document(request, document_id)
    return Status(202, jobs.change_column_mapping(document, payload.mapping, user=request.auth.owner))


@router.post("/knowledge-bases/{kb_id}/documents/text", response={202: DocumentJobResponse, **errors(404)},
             auth=WRITE)
def add_text(request, kb_id: int, payload: TextIn):
    """Add a document from inline text; it is chunked and embedded by the worker."""
    document, job = jobs.add_text(get_kb(request, kb_id), title=payload.title, text=payload.text,
                                  source_uri=payload.source_uri, metadata=payload.metadata, user=request.auth.owner)
    return Status(202, {"job": job, "document": document})


@router.get("/documents/{document_id}", response={200: DocumentDetailOut, **errors(404)}, auth=READ)
def get_document_detail(request, document_id: int):
    document = get_document(request, document_id)
    document.latest_job = (Job.objects.filter(options__document_ids__contains=[document.pk])
                           .order_by("-created_at", "-pk").first())
    return document


@router.post("/documents/{document_id}/reindex", response={202: JobOut, **errors(404)}, auth=WRITE)
def reindex_document(request, document_id: int):
    """Parse and index the document again; unchanged text with unchanged settings stays as it is."""
    document = get_document(request, document_id)
    return Status(202, jobs.start_ingestion(document.knowledge_base, [document.pk], user=request.auth.owner))


@router.post("/documents/{document_id}/disable", response={200: DocumentOut, **errors(404)}, auth=WRITE)
def disable_document(request, document_id: int):
    """Take the document out of search; it is kept, chunks and all, until it is enabled again."""
    document = get_document(request, document_id)
    document.set_enabled(False)
    return document


@router.post("/documents/{document_id}/enable", response={200: DocumentOut, **errors(404)}, auth=WRITE)
def enable_document(request, document_id: int):
    """Put a disabled document back in search."""
    document = get_document(request, document_id)
    document.set_enabled(True)
    return document


@router.delete("/documents/{document_id}", response={202: JobOut, **errors(404)}, auth=WRITE)
def delete_document(request, document_id: int):
    """Delete the document, its chunks and its stored file, in the worker."""
    document = get_document(request, document_id)
    return Status(202, jobs.start_delete([document.pk], user=request.auth.owner))


@router.get("/documents/{document_id}/chunks", response={200: list[ChunkOut], **errors(404)}, auth=READ)
@paginate
def list_chunks(request, document_id: int, filters: Query[ChunkFilter]):
    chunks = Chunk.objects.filter(document=get_document(request, document_id)).defer("embedding", "search_vector")
    if filters.layer:
        chunks = chunks.filter(layer=filters.layer)
    return chunks.order_by("layer", "position")


# --- Jobs ---------------------------------------------------------------------------------------

@router.get("/jobs/{job_id}", response={200: JobOut, **errors(404)}, auth=READ)
def get_job_status(request, job_id: int):
    return get_job(request, job_id)


@router.post("/jobs/{job_id}/cancel", response={202: JobOut, **errors(404, 409)}, auth=WRITE)
def cancel_job(request, job_id: int):
    """Ask a queued or running job to stop after its current item."""
    job = get_job(request, job_id)
    job.cancel()
    return Status(202, job)


# --- Search and answers -------------------------------------------------------------------------

BIGINT = (-(2**63), 2**63 - 1)  # an id outside it cannot exist, and PostgreSQL would refuse to compare it


def searchable_bases(request: HttpRequest, requested: list[int] | None) -> list[KnowledgeBase]:
    """The bases a search covers: the requested ones (all must be visible) or every visible one.

    One query (none when this process remembers the answer, `portal.access.bases`), the key's limits
    included, whichever bases exist or are forbidden: a base the key may not use (or an evaluation's
    hidden shadow) is "not found" exactly as a missing one is, by the same path, in the same time."""
    ids = None if requested is None else [pk for pk in set(requested) if BIGINT[0] <= pk <= BIGINT[1]]
    found = access.bases(request.auth, KnowledgeBase, ids, sql.visible_bases(
        limits_table=ApiKey.knowledge_bases.through._meta.db_table, key_id=request.auth.pk, ids=ids))
    if requested is None:
        return found
    missing = sorted(set(requested) - {kb.pk for kb in found})
    if missing:
        raise ApiError(404, "not_found",
                       _("Knowledge base(s) not found: %(ids)s") % {"ids": ", ".join(map(str, missing))},
                       [{"field": "knowledge_bases", "location": "body", "type": "not_found",
                         "message": _("%(id)s not found") % {"id": pk}} for pk in missing])
    return found


def searchable_ids(request: HttpRequest, requested: list[int] | None) -> list[int]:
    return [kb.pk for kb in searchable_bases(request, requested)]


def hit_dict(hit: retrieval.SearchHit, **extra) -> dict:
    return {**vars(hit), "similarity": hit.similarity, **extra}


@router.post("/search", response={200: SearchResponse, **errors(404)}, auth=SEARCH)
def search(request, payload: SearchRequest):
    """Hybrid, vector or keyword search over knowledge bases."""
    result = retrieval.retrieve(payload.query, searchable_bases(request, payload.knowledge_bases),
                                top_k=payload.top_k, max_distance=payload.max_distance, mode=payload.mode,
                                layers=payload.layers, filters=payload.filters, document_ids=payload.document_ids)
    # A model instance, not a dict: ninja then dumps it without validating it again.
    return SearchResponse.model_validate({
        "query": payload.query, "mode": result.mode, "keyword_fallback_used": result.keyword_fallback_used,
        "best_similarity": result.best_similarity, "hits": [hit_dict(hit) for hit in result.hits]})


@router.post("/search/planned", response={200: PlanResponse, **errors(404)}, auth=SEARCH)
def planned_search(request, payload: PlanRequest):
    """Let the intent router pick the layers and filters (documentation and code layers), then search."""
    plan, hits = router_plan_and_search(payload.query, searchable_ids(request, payload.knowledge_bases))
    return PlanResponse.model_validate({"query": payload.query, "question": payload.query, "plan": plan.to_dict(),
                                        "hits": [hit_dict(hit) for hit in hits]})


@router.post("/answer", response={200: AnswerResponse, **errors(404)}, auth=SEARCH, openapi_extra={
    "responses": {200: {"content": {"text/event-stream": {"schema": {
        "type": "object", "description": "With stream=true, each event: `token` (data: {\"text\": …}), then one "
                                         "`answer` (data: the JSON response), or `error`.",
        "properties": {"event": {"type": "string", "enum": ["token", "answer", "error"]},
                       "data": {"type": "string", "description": "JSON"}},
        "required": ["event", "data"]}}}}}})
def answer(request, payload: AnswerRequest):
    """A grounded answer with numbered citations, or a refusal when the sources do not support one.

    With `"stream": true` the answer comes as Server-Sent Events: `token` events (`{"text": …}`), one
    finished sentence at a time as the chat model writes, each sent only once the outgoing-text check
    has passed it, then one `answer` event with the whole response below (its `answer` text
    is the final one, and an answer held back by the outgoing-text check ends there as refused).
    Without a chat model the text arrives in one `token` event.
    """
    kb_ids = searchable_ids(request, payload.knowledge_bases)
    if payload.stream:
        grounding = answers.ground(payload.question, kb_ids, top_k=payload.top_k, mode=payload.mode,
                                   layers=payload.layers, filters=payload.filters)
        audit.note(request, streamed=True)
        return event_stream(streaming.stream_answer(grounding, payload.question))
    result = answers.answer(payload.question, kb_ids, top_k=payload.top_k, mode=payload.mode,
                            layers=payload.layers, filters=payload.filters)
    response = answer_dict(result)
    audit.note(request, refused=result.refused, flags=result.flags,
               cited=[{"chunk": c.hit.chunk_id, "document": c.hit.document_id} for c in result.citations])
    return AnswerResponse.model_validate(response)


def answer_dict(result: answers.Answer) -> dict:
    """The answer as the API and MCP return it; flagged text is withheld (callers may pass it on unread)."""
    if result.flags:
        result.text, result.refused, result.citations = settings.PORTAL.get("REFUSAL_TEXT", ""), True, []
    return {
        "answer": result.text, "refused": result.refused, "flags": result.flags, "confidence": result.confidence,
        "reasons": result.reasons, "unmentioned": result.unmentioned, "dropped_markers": result.dropped_markers,
        "generator": result.generator,
        "citations": [{"number": c.number, "source": hit_dict(c.hit)} for c in result.citations],
        "sources": [hit_dict(hit, number=number) for number, hit in enumerate(result.sources, start=1)],
    }


def event_stream(events) -> StreamingHttpResponse:
    def lines():
        try:
            for name, value in events:
                data = {"text": value} if name == "token" else AnswerResponse.model_validate(
                    answer_dict(value)).model_dump(mode="json")
                yield f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
        except Exception:
            # The status line has gone already; say so in the stream rather than cut it off silently.
            logger.exception("Streaming an answer failed")
            yield 'event: error\ndata: {"code": "server_error", "message": "Internal server error"}\n\n'

    response = StreamingHttpResponse(lines(), content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass events on as they come
    return response
