"""A document's chunks: cut, embedded and swapped in atomically, and what they were built from.

`build_chunks` cuts the D0 chunks of a text; the layered index builds its own rows. Either way
`embed_chunks` fills the vectors outside any transaction and `replace_chunks` swaps the document's
chunks for the new ones and marks it ready in one transaction. `text_sha256` (the project's one
content hash) and `config_signature` say what a document's chunks were built from, so unchanged
documents are skipped; `embedder_signature` says what their vectors were made with, so a rebuild
(a new parser, other chunk settings) re-embeds only the chunks whose embedding input changed.
"""

import bisect
import hashlib
import itertools
import json
import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from knowledge.exceptions import KnowledgeError
from knowledge.indexing import chunking, entries, parsing, tables, term_statistics
from knowledge.indexing.embedding import get_embedder
from knowledge.indexing.search_text import chunk_search_vector
from knowledge.models import Chunk, Document, KnowledgeBase

logger = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
# Who embeds `embed_chunks`' batches: (embedder name, batches of inputs, progress) → the vectors, in order.
BatchEmbedding = Callable[[str, list[list[str]], Progress | None], Sequence]


@dataclass
class IngestResult:
    document: Document
    outcome: str  # "created", "updated", "unchanged" or "failed"
    error: str = ""


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def config_signature(kb: KnowledgeBase) -> str:
    """A digest of everything that shapes a document's chunks and vectors."""
    parts = {
        "parser": parsing.PARSER_VERSION,
        "chunker": chunking.CHUNKER_VERSION,
        "chunking": kb.chunking,
        "embedder": _vector_parts(kb),
        "fts": kb.text_search_config,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:32]


def embedder_signature(kb: KnowledgeBase) -> str:
    """A digest of what makes a vector: the embedder's name and version (its roles and prefixes) and the
    dimension. Equal embedding input and equal signature, equal vector."""
    return hashlib.sha256(json.dumps(_vector_parts(kb)).encode()).hexdigest()[:32]


def _vector_parts(kb: KnowledgeBase) -> list:
    embedder = get_embedder(kb.embedder)
    return [embedder.name, embedder.version, kb.embedding_dim]


def build_chunks(kb: KnowledgeBase, document: Document, text: str, pages: list[tuple[int, int]]) -> list[Chunk]:
    """Unsaved `Chunk` rows for the text: table rows and FAQ entries whole, prose by the chunker.

    The tables found are described on `document.metadata["tables"]` (columns, rows, the mapping
    in effect), which the admin shows and the mapping form edits.
    """
    mapping = document.column_mapping or {}
    # A written-answers document is an FAQ by construction: its first question is an entry already.
    min_questions = 1 if document.metadata.get("faq") else 2
    pieces, described = entries.split_document(text, mapping=mapping, min_questions=min_questions,
                                               title=document.title, **kb.chunking)
    if mapping:
        tables.check_mapping(mapping, entries.known_columns(described))
    document.metadata = {**document.metadata, "tables": described}
    return [
        Chunk(
            document=document,
            knowledge_base=kb,
            position=position,
            layer="D0",
            title=(piece.title or document.title)[:500],
            section_path=" > ".join(piece.heading_path)[:1000],
            parent_heading=(piece.heading_path[-1] if piece.heading_path else "")[:500],
            content=piece.content,
            token_count=chunking.token_estimate(piece.content),
            span_start=piece.start,
            span_end=piece.end,
            page=parsing.page_at(pages, piece.start) if pages else None,
            metadata=_with_page_breaks(piece.metadata, text, pages, piece.start, piece.end),
        )
        for position, piece in enumerate(pieces)
    ]


PAGE_BREAK_WORDS = 8


def _with_page_breaks(metadata: dict, text: str, pages: list[tuple[int, int]], start: int, end: int) -> dict:
    """A piece's metadata with the first words of each page starting inside it (`page_breaks`), so a
    citation can name the page of the text it quotes (`knowledge.search.quoted_pages`)."""
    breaks = []
    # Pages are in order of their offsets: the first one after `start`, on while they start before `end`.
    pages = pages or []
    for offset, number in itertools.islice(pages, bisect.bisect_right(pages, (start, math.inf)), None):
        if offset >= end:
            break
        words = " ".join(text[offset:offset + 200].split()[:PAGE_BREAK_WORDS])
        if words:
            breaks.append([number, words])
    return {**metadata, "page_breaks": breaks} if breaks else metadata


def embedding_input(chunk: Chunk) -> str:
    """What the embedder reads: the chunk with its title and heading path as context.

    An entry (a table row, an FAQ answer) is read as its title, its question and its answer: the
    question is what incoming questions resemble most; the file name and sheet add only noise.
    """
    entry = (chunk.metadata or {}).get("entry")
    if entry:
        title = chunk.title if chunk.title != chunk.document.title else ""
        return "\n\n".join(part for part in (title, entry.get("question", ""), chunk.content) if part)
    context = " > ".join(part for part in (chunk.title, chunk.section_path) if part)
    return f"{context}\n\n{chunk.content}" if context else chunk.content


def input_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest().hex()


def reuse_vectors(kb: KnowledgeBase, document: Document, chunks: list[Chunk]) -> int:
    """Give the new chunks whose embedding input is unchanged the vectors the document's current
    chunks already have (matched by a hash of that input); the number of chunks given one.

    Only within the document and when its vectors were made by the base's embedder (name, version,
    dimension: `embedder_signature`): an edited paragraph re-embeds the chunks it touches, and a new
    parser or chunker the chunks it changes, not the whole document. Old chunks are read without
    their vectors first; only the vectors reused are read.
    """
    if document.pk is None or not document.chunk_count or document.embedder_signature != embedder_signature(kb):
        return 0
    wanted: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        wanted.setdefault(input_sha256(embedding_input(chunk)), []).append(chunk)
    current = Chunk.objects.filter(document=document, embedding__isnull=False)
    source: dict[str, int] = {}  # digest → an old chunk with that input
    rows = current.values_list("pk", "title", "section_path", "content", "metadata")
    for pk, title, section_path, content, metadata in rows:
        # With its metadata and document: an entry (a table row, a question heading) is read differently.
        old = Chunk(document=document, title=title, section_path=section_path, content=content, metadata=metadata)
        digest = input_sha256(embedding_input(old))
        if digest in wanted:
            source.setdefault(digest, pk)
    digest_of = {pk: digest for digest, pk in source.items()}
    reused = 0
    for pk, vector in current.filter(pk__in=list(digest_of)).values_list("pk", "embedding").iterator(chunk_size=500):
        for chunk in wanted[digest_of[pk]]:
            chunk.embedding = vector
            reused += 1
    return reused


def embed_chunks(kb: KnowledgeBase, chunks: list[Chunk], *, batch_size: int | None = None,
                 progress: Progress | None = None, embed_batches: BatchEmbedding | None = None) -> None:
    """Fill `chunk.embedding` in batches, reporting progress between batches; chunks that have a
    vector already (`reuse_vectors`) keep it.

    `embed_batches` is who embeds the batches: this process (`embed_locally`), or every free
    worker of the job (`knowledge/share_batches.py`).
    """
    batch_size = batch_size or settings.PORTAL["EMBED_BATCH_SIZE"]
    chunks = [chunk for chunk in chunks if chunk.embedding is None]
    if progress:
        progress(0, len(chunks))  # the chunk count is known: watchers see "0 / n" before the first batch
    inputs = [embedding_input(chunk) for chunk in chunks]
    batches = [inputs[start:start + batch_size] for start in range(0, len(inputs), batch_size)]
    vectors = (embed_batches or embed_locally)(kb.embedder, batches, progress)
    for chunk, vector in zip(chunks, vectors, strict=True):
        chunk.embedding = vector


def embed_locally(embedder_name: str, batches: list[list[str]], progress: Progress | None) -> list:
    """The batches' vectors, in order, embedded one batch after another in this process."""
    embedder = get_embedder(embedder_name)
    total, vectors = sum(map(len, batches)), []
    for batch in batches:
        vectors.extend(embedder.embed_passages(batch))
        if progress:
            progress(len(vectors), total)
    return vectors


@transaction.atomic
def replace_chunks(kb: KnowledgeBase, document: Document, chunks: list[Chunk], *, sha: str, signature: str) -> None:
    """Swap the document's chunks for `chunks` and mark it ready, in one transaction."""
    # Lock the row: two workers re-indexing one document must not interleave their swaps.
    Document.objects.select_for_update().filter(pk=document.pk).first()
    # Chunks written by hand (indexing/edits.py) are not the source's: they stay, after the new ones.
    deleted, _ = Chunk.objects.filter(document=document).exclude(metadata__contains={"manual": True}).delete()
    term_statistics.count_changes_after_commit(kb.pk, deleted + len(chunks))
    _move_manual_chunks(document, after=len(chunks))
    Chunk.objects.bulk_create(chunks, batch_size=500)
    config = kb.text_search_config
    Chunk.objects.filter(document=document).exclude(metadata__contains={"manual": True}).update(
        search_vector=chunk_search_vector(document.title, config))
    document.mark_ready(sha256=sha, config_signature=signature, embedder_signature=embedder_signature(kb),
                        chunk_count=Chunk.objects.filter(document=document).count())


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
    if not isinstance(exc, KnowledgeError):
        logger.exception("Ingestion of document %s failed", document.pk)
    document.mark_failed(user_facing(document, failure_message(exc)))


def failure_message(exc: Exception) -> str:
    """What a document's page says of a failure: a domain error as written, anything else with its type."""
    if isinstance(exc, KnowledgeError):
        return str(exc)
    return _("Unexpected error: %(type)s: %(error)s") % {"type": type(exc).__name__, "error": exc}


def user_facing(document: Document, message: str) -> str:
    """The message with the stored file's path and name (with its random suffix) replaced by the name
    the user uploaded, so it names a file they know."""
    if not document.original_file or not document.path:
        return message
    stored = document.original_file.name
    for name in (document.original_file.path, stored, stored.rsplit("/", 1)[-1]):
        message = message.replace(name, document.path)
    return message


def settle_documents(documents, reason: str) -> int:
    """Documents a finished job left pending or indexing: back to their ready version, or `error`."""
    settled = 0
    for document in documents.filter(status__in=[Document.Status.PENDING, Document.Status.INDEXING]):
        record_failure(document, KnowledgeError(reason))
        settled += 1
    return settled


def delete_document(document: Document) -> None:
    """Delete one document with its chunks and its stored original."""
    term_statistics.count_changes_after_commit(document.knowledge_base_id, document.chunk_count)
    if document.original_file:
        document.original_file.delete(save=False)
    document.delete()
