"""A document's chunks: cut, embedded and swapped in atomically, and what they were built from.

`build_chunks` cuts the D0 chunks of a text; the layered index builds its own rows. Either way
`embed_chunks` fills the vectors outside any transaction and `replace_chunks` swaps the document's
chunks for the new ones and marks it ready in one transaction. `text_sha256` (the project's one
content hash) and `config_signature` say what a document's chunks were built from, so unchanged
documents are skipped.
"""

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.contrib.postgres.search import SearchVector
from django.db import transaction
from django.db.models import Value

from knowledge.documents import TextChunk
from knowledge.exceptions import KnowledgeError
from knowledge.indexing import chunking, parsing
from knowledge.indexing.embedding import get_embedder
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
    if progress:
        progress(0, total)  # the chunk count is known: watchers see "0 / n" before the first batch
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
    # Chunks written by hand (indexing/edits.py) are not the source's: they stay, after the new ones.
    Chunk.objects.filter(document=document).exclude(metadata__contains={"manual": True}).delete()
    _move_manual_chunks(document, after=len(chunks))
    Chunk.objects.bulk_create(chunks, batch_size=500)
    config = kb.text_search_config
    Chunk.objects.filter(document=document).exclude(metadata__contains={"manual": True}).update(
        search_vector=SearchVector(Value(document.title), weight="A", config=config)
        + SearchVector("section_path", weight="A", config=config)
        + SearchVector("content", weight="B", config=config)
    )
    document.mark_ready(sha256=sha, config_signature=signature, chunk_count=Chunk.objects.filter(document=document)
                        .count())


def _move_manual_chunks(document: Document, *, after: int) -> None:
    """Renumber the document's hand-written chunks to follow the `after` new ones (no position clash)."""
    manual = list(Chunk.objects.filter(document=document, metadata__contains={"manual": True})
                  .order_by("layer", "position"))
    for offset, chunk in enumerate(manual):  # first out of the way, then into place
        Chunk.objects.filter(pk=chunk.pk).update(position=1_000_000 + offset)
    for offset, chunk in enumerate(manual):
        Chunk.objects.filter(pk=chunk.pk).update(position=after + offset)


def record_failure(document: Document, exc: Exception) -> None:
    """Put the failure on the document; a document that was ready keeps serving its old chunks."""
    message = str(exc) if isinstance(exc, KnowledgeError) else f"Unexpected error: {type(exc).__name__}: {exc}"
    if not isinstance(exc, KnowledgeError):
        logger.exception("Ingestion of document %s failed", document.pk)
    document.mark_failed(user_facing(document, message))


def user_facing(document: Document, message: str) -> str:
    """The message with the stored file's path and name (with its random suffix) replaced by the name
    the user uploaded, so it names a file they know."""
    if not document.original_file or not document.path:
        return message
    stored = document.original_file.name
    for name in (document.original_file.path, stored, stored.rsplit("/", 1)[-1]):
        message = message.replace(name, document.path)
    return message


def delete_document(document: Document) -> None:
    """Delete one document with its chunks and its stored original."""
    if document.original_file:
        document.original_file.delete(save=False)
    document.delete()
