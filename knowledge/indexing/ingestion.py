"""Turning text, files and stored documents into searchable chunks, idempotently and atomically.

A document's chunks are cut and embedded first, outside any transaction, while the document is
`indexing` and its previous chunks (if any) stay searchable. The swap — delete the old chunks,
insert the new ones with their vectors and full-text vectors, mark the document `ready` — is one
transaction, so search never sees a half-indexed document, and a crash (a killed worker) leaves
the previous state intact for a re-run to complete.
"""

from pathlib import Path

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from knowledge import outgoing
from knowledge.documents import ParsedDocument
from knowledge.exceptions import KnowledgeError
from knowledge.indexing.chunks import (
    BatchEmbedding,
    IngestResult,
    Progress,
    build_chunks,
    config_signature,
    delete_document,
    embed_chunks,
    record_failure,
    replace_chunks,
    reuse_vectors,
    settle_documents,
    text_sha256,
)
from knowledge.indexing.layers import store
from knowledge.indexing.parsing import ocr
from knowledge.indexing.parsing import quality as parse_quality
from knowledge.indexing.parsing.isolation import parse_file_isolated
from knowledge.models import Document, KnowledgeBase

# The write side's entry points live here; what they share with the layered index is in chunks.py.
__all__ = ["IngestResult", "config_signature", "delete_document", "ingest_file", "ingest_text", "process_document",
           "settle_documents", "text_sha256"]

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
                quality: dict | None = None, embed_batches: BatchEmbedding | None = None) -> IngestResult:
    """Chunk, embed and store `text` as one document; unchanged text is a no-op.

    `quality` is the file's parse-quality report; text without a file is assessed here.
    `embed_batches`: who embeds the chunks (`chunks.embed_chunks`); this process by default.
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
            raise KnowledgeError(_("No text to index: the document is empty"))
        if document.sha256 != sha:
            document.quality_accepted_at = None  # a person accepted the old text, not this one
        document.set_quality(quality or parse_quality.assess(ParsedDocument(text, title, mime, pages=pages or [])))
        metadata = {**document.metadata, **(metadata or {}), "pages": len(pages or [])}
        # Instruction-like passages mark a possible prompt injection; answers quoting them are held.
        metadata.pop("injection_warnings", None)
        if warnings := [flag.match for flag in outgoing.injection_flags(text)]:
            metadata["injection_warnings"] = warnings
        document.start_indexing(title=title, mime=mime, text=text, metadata=metadata)
        drafts = build_chunks(kb, document, text, pages or [])
        reuse_vectors(kb, document, drafts)
        embed_chunks(kb, drafts, batch_size=batch_size, progress=progress, embed_batches=embed_batches)
        replace_chunks(kb, document, drafts, sha=sha, signature=signature)
    except Exception as exc:
        record_failure(document, exc)
        return IngestResult(document, "failed", document.error_message)
    return IngestResult(document, outcome)


def ingest_file(kb: KnowledgeBase, path: str | Path, *, source_kind: str = Document.SourceKind.UPLOAD,
                source_uri: str = "", title: str = "", document: Document | None = None,
                batch_size: int | None = None, progress: Progress | None = None,
                ocr_progress: ocr.PageProgress | None = None, force_ocr: bool = False,
                embed_batches: BatchEmbedding | None = None, read_pages: ocr.PageReader | None = None) -> IngestResult:
    """Parse a file (OCR for its pages without text) and ingest its text; a bad file fails only its own document.

    `read_pages`: who reads the pages without text with OCR (`ocr.PageReader`); this process by default.
    """
    path = Path(path)
    source_uri = source_uri or (document.source_uri if document else f"file:{path.name}")
    document = (document or _find_document(kb, source_kind, source_uri, "")
                or _new_document(kb, source_kind, source_uri))
    try:
        # In a child process with a memory limit: a hostile file fails only its own document.
        parsed = parse_file_isolated(path)
        parsed = ocr.recognise_pages(parsed, path, languages=kb.ocr_languages, force=force_ocr, on_page=ocr_progress,
                                     read_pages=read_pages)
        report = parse_quality.assess(parsed, encoding=parse_quality.file_encoding(path))
    except Exception as exc:
        record_failure(document, exc)
        return IngestResult(document, "failed", document.error_message)
    return ingest_text(kb, title=title or parsed.title or path.name, text=parsed.text, source_kind=source_kind,
                       source_uri=source_uri, mime=parsed.mime, metadata=parsed.metadata, pages=parsed.pages,
                       document=document, batch_size=batch_size, progress=progress, quality=report,
                       embed_batches=embed_batches)


def process_document(document: Document, *, batch_size: int | None = None, progress: Progress | None = None,
                     ocr_progress: ocr.PageProgress | None = None, force_ocr: bool = False,
                     embed_batches: BatchEmbedding | None = None,
                     read_pages: ocr.PageReader | None = None) -> IngestResult:
    """(Re)build one stored document the way its source needs.

    A repository file keeps its layers (rebuilt from its stored text by the layered index); any
    other document is parsed again from its original file (`force_ocr`: every PDF page read with
    OCR), or chunked again from its kept text.
    """
    if document.source_kind == Document.SourceKind.REPOSITORY:
        return store.reindex_document(document)
    kb = document.knowledge_base
    if document.original_file:
        # The file's own title (frontmatter, first heading, PDF metadata) wins over an older one.
        return ingest_file(kb, document.original_file.path, source_kind=document.source_kind,
                           source_uri=document.source_uri, document=document,
                           batch_size=batch_size, progress=progress, ocr_progress=ocr_progress, force_ocr=force_ocr,
                           embed_batches=embed_batches, read_pages=read_pages)
    return ingest_text(kb, title=document.title, text=document.text, source_kind=document.source_kind,
                       source_uri=document.source_uri, mime=document.mime, document=document,
                       batch_size=batch_size, progress=progress, embed_batches=embed_batches)
