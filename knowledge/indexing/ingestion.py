"""Turning text and files into searchable chunks, idempotently and atomically.

A document's chunks are cut and embedded first, outside any transaction, while the document is
`indexing` and its previous chunks (if any) stay searchable. The swap — delete the old chunks,
insert the new ones with their vectors and full-text vectors, mark the document `ready` — is one
transaction, so search never sees a half-indexed document, and a crash (a killed worker) leaves
the previous state intact for a re-run to complete.
"""

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.postgres.search import SearchVector
from django.db import IntegrityError, transaction
from django.db.models import Value
from django.utils import timezone

from knowledge import outgoing
from knowledge.documents import ParsedDocument, TextChunk
from knowledge.exceptions import KnowledgeError
from knowledge.indexing import chunking, parsing
from knowledge.indexing.embedding import get_embedder
from knowledge.indexing.parsing import ocr
from knowledge.indexing.parsing import quality as parse_quality
from knowledge.indexing.parsing.isolation import parse_file_isolated
from knowledge.models import Chunk, Document, KnowledgeBase

logger = logging.getLogger(__name__)

Progress = Callable[[int, int], None]


@dataclass
class IngestResult:
    document: Document
    outcome: str  # "created", "updated", "unchanged" or "failed"
    error: str = ""


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def config_signature(kb: KnowledgeBase) -> str:
    """A digest of everything that shapes a document's chunks and vectors."""
    embedder = get_embedder(kb.embedder)
    parts = {
        "parser": parsing.PARSER_VERSION,
        "chunker": chunking.CHUNKER_VERSION,
        "chunking": kb.chunking,
        "embedder": [embedder.name, embedder.version, kb.embedding_dim],
        "fts": kb.text_search_config,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:32]


def _find_document(kb: KnowledgeBase, source_kind: str, source_uri: str, sha: str) -> Document | None:
    if source_uri:
        return Document.objects.filter(knowledge_base=kb, source_uri=source_uri).first()
    # Inline text without a URI is identified by its content.
    return Document.objects.filter(knowledge_base=kb, source_kind=source_kind, source_uri="", sha256=sha).first()


def _new_document(kb: KnowledgeBase, source_kind: str, source_uri: str) -> Document:
    try:
        with transaction.atomic():
            return Document.objects.create(knowledge_base=kb, source_kind=source_kind, source_uri=source_uri)
    except IntegrityError:
        # Another worker created it a moment ago; ingestion of the same URI converges on one row.
        return Document.objects.get(knowledge_base=kb, source_uri=source_uri)


def ingest_text(kb: KnowledgeBase, *, title: str, text: str, source_kind: str = Document.SourceKind.INLINE,
                source_uri: str = "", mime: str = "text/plain", metadata: dict | None = None,
                pages: list[tuple[int, int]] | None = None, document: Document | None = None,
                batch_size: int | None = None, progress: Progress | None = None,
                quality: dict | None = None) -> IngestResult:
    """Chunk, embed and store `text` as one document; unchanged text is a no-op.

    `quality` is the file's parse-quality report; text without a file is assessed here.
    """
    sha, signature = text_sha256(text), config_signature(kb)
    document = document or _find_document(kb, source_kind, source_uri, sha)
    if (document and document.status == Document.Status.READY and document.sha256 == sha
            and document.config_signature == signature):
        return IngestResult(document, "unchanged")
    outcome = "updated" if document and document.sha256 else "created"
    document = document or _new_document(kb, source_kind, source_uri)
    try:
        if not text.strip():
            raise KnowledgeError("No text to index: the document is empty")
        document.title, document.mime, document.text = title[:500], mime[:200], text
        document.char_count = len(text)
        document.metadata = {**document.metadata, **(metadata or {}), "pages": len(pages or [])}
        if document.sha256 != sha:
            document.quality_accepted_at = None  # a person accepted the old text, not this one
        document.set_quality(quality or parse_quality.assess(ParsedDocument(text, title, mime, pages=pages or [])))
        # Instruction-like passages mark a possible prompt injection; answers quoting them are held.
        document.metadata.pop("injection_warnings", None)
        if warnings := [flag.match for flag in outgoing.injection_flags(text)]:
            document.metadata["injection_warnings"] = warnings
        document.status, document.error_message = Document.Status.INDEXING, ""
        document.save()
        drafts = build_chunks(kb, document, text, pages or [])
        embed_chunks(kb, drafts, batch_size=batch_size, progress=progress)
        replace_chunks(kb, document, drafts, sha=sha, signature=signature)
    except Exception as exc:
        record_failure(document, exc)
        return IngestResult(document, "failed", document.error_message)
    return IngestResult(document, outcome)


def build_chunks(kb: KnowledgeBase, document: Document, text: str, pages: list[tuple[int, int]]) -> list[Chunk]:
    """Unsaved `Chunk` rows for the text, with heading paths and page numbers."""
    pieces: list[TextChunk] = chunking.split_text(text, **kb.chunking)
    return [
        Chunk(
            document=document,
            knowledge_base=kb,
            position=position,
            layer="D0",
            title=document.title,
            section_path=piece.section_path[:1000],
            parent_heading=(piece.heading_path[-1] if piece.heading_path else "")[:500],
            content=piece.content,
            token_count=chunking.token_estimate(piece.content),
            span_start=piece.start,
            span_end=piece.end,
            page=parsing.page_at(pages, piece.start) if pages else None,
        )
        for position, piece in enumerate(pieces)
    ]


def embedding_input(chunk: Chunk) -> str:
    """What the embedder reads: the chunk with its title and heading path as context."""
    context = " > ".join(part for part in (chunk.title, chunk.section_path) if part)
    return f"{context}\n\n{chunk.content}" if context else chunk.content


def embed_chunks(kb: KnowledgeBase, chunks: list[Chunk], *, batch_size: int | None = None,
                 progress: Progress | None = None) -> None:
    """Fill `chunk.embedding` in batches, reporting progress between batches."""
    embedder = get_embedder(kb.embedder)
    batch_size = batch_size or settings.PORTAL["EMBED_BATCH_SIZE"]
    total = len(chunks)
    for start in range(0, total, batch_size):
        batch = chunks[start:start + batch_size]
        vectors = embedder.embed_passages([embedding_input(chunk) for chunk in batch])
        for chunk, vector in zip(batch, vectors, strict=True):
            chunk.embedding = vector
        if progress:
            progress(min(start + batch_size, total), total)


@transaction.atomic
def replace_chunks(kb: KnowledgeBase, document: Document, chunks: list[Chunk], *, sha: str, signature: str) -> None:
    """Swap the document's chunks for `chunks` and mark it ready, in one transaction."""
    # Lock the row: two workers re-indexing one document must not interleave their swaps.
    Document.objects.select_for_update().filter(pk=document.pk).first()
    Chunk.objects.filter(document=document).delete()
    Chunk.objects.bulk_create(chunks, batch_size=500)
    config = kb.text_search_config
    Chunk.objects.filter(document=document).update(
        search_vector=SearchVector(Value(document.title), weight="A", config=config)
        + SearchVector("section_path", weight="A", config=config)
        + SearchVector("content", weight="B", config=config)
    )
    document.sha256, document.config_signature = sha, signature
    document.chunk_count, document.status, document.error_message = len(chunks), Document.Status.READY, ""
    document.ingested_at = timezone.now()
    document.save(update_fields=["sha256", "config_signature", "chunk_count", "status", "error_message",
                                 "ingested_at", "updated_at"])


def record_failure(document: Document, exc: Exception) -> None:
    """Put the failure on the document; a document that was ready keeps serving its old chunks."""
    message = str(exc) if isinstance(exc, KnowledgeError) else f"Unexpected error: {type(exc).__name__}: {exc}"
    if not isinstance(exc, KnowledgeError):
        logger.exception("Ingestion of document %s failed", document.pk)
    if document.sha256 and document.chunk_count:
        document.status = Document.Status.READY
        document.error_message = f"The last update failed and the previous version is still served: {message}"
        document.save(update_fields=["status", "error_message", "updated_at"])
    else:
        document.mark_failed(message)


def settle_documents(documents, reason: str) -> int:
    """Documents a finished job left pending or indexing: back to their ready version, or `error`."""
    settled = 0
    for document in documents.filter(status__in=[Document.Status.PENDING, Document.Status.INDEXING]):
        record_failure(document, KnowledgeError(reason))
        settled += 1
    return settled


def ingest_file(kb: KnowledgeBase, path: str | Path, *, source_kind: str = Document.SourceKind.UPLOAD,
                source_uri: str = "", title: str = "", document: Document | None = None,
                batch_size: int | None = None, progress: Progress | None = None,
                ocr_progress: ocr.PageProgress | None = None, force_ocr: bool = False) -> IngestResult:
    """Parse a file (OCR for its pages without text) and ingest its text; a bad file fails only its own document."""
    path = Path(path)
    source_uri = source_uri or (document.source_uri if document else f"file:{path.name}")
    document = (document or _find_document(kb, source_kind, source_uri, "")
                or _new_document(kb, source_kind, source_uri))
    try:
        # In a child process with a memory limit: a hostile file fails only its own document.
        parsed = parse_file_isolated(path)
        parsed = ocr.recognise_pages(parsed, path, languages=kb.ocr_languages, force=force_ocr, on_page=ocr_progress)
        report = parse_quality.assess(parsed, encoding=parse_quality.file_encoding(path))
    except Exception as exc:
        record_failure(document, exc)
        return IngestResult(document, "failed", document.error_message)
    return ingest_text(kb, title=title or parsed.title or path.name, text=parsed.text, source_kind=source_kind,
                       source_uri=source_uri, mime=parsed.mime, metadata=parsed.metadata, pages=parsed.pages,
                       document=document, batch_size=batch_size, progress=progress, quality=report)


def process_document(document: Document, *, batch_size: int | None = None, progress: Progress | None = None,
                     ocr_progress: ocr.PageProgress | None = None, force_ocr: bool = False) -> IngestResult:
    """(Re)build one stored document from its original file, or from its kept text."""
    kb = document.knowledge_base
    if document.original_file:
        # The file's own title (frontmatter, first heading, PDF metadata) wins over an older one.
        return ingest_file(kb, document.original_file.path, source_kind=document.source_kind,
                           source_uri=document.source_uri, document=document,
                           batch_size=batch_size, progress=progress, ocr_progress=ocr_progress, force_ocr=force_ocr)
    return ingest_text(kb, title=document.title, text=document.text, source_kind=document.source_kind,
                       source_uri=document.source_uri, mime=document.mime, document=document,
                       batch_size=batch_size, progress=progress)


def delete_document(document: Document) -> None:
    """Delete one document with its chunks and its stored original."""
    if document.original_file:
        document.original_file.delete(save=False)
    document.delete()
