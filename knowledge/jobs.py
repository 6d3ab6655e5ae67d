"""Starting and running the knowledge app's background jobs: ingest, re-index, delete.

`start_*` functions create the rows and enqueue; `run_*` functions do the work inside a worker
(or in the foreground for management commands) and record progress on the job between items.
Every `run_*` is idempotent: a redelivered or re-run job skips what is already done.
"""

from pathlib import Path

from django.core.files import File
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils.translation import gettext

from knowledge import archives, bases, notion, shares, uploads
from knowledge.exceptions import JobStateError, KnowledgeError, SwitchInProgressError
from knowledge.indexing import entries, ingestion, parsing, tables, vector_index
from knowledge.indexing.ingestion import delete_document
from knowledge.models import Document, Job, KnowledgeBase
from portal.jobs import enqueue, run


@transaction.atomic
def add_uploads(kb: KnowledgeBase, files: list[UploadedFile], *, user=None,
                column_mapping: dict[str, str] | None = None) -> tuple[Job | None, list[dict]]:
    """Store accepted files as pending documents and queue one ingestion job for them.

    Returns the job (None when nothing was accepted) and the refused files with reasons
    (`uploads.check_uploads`, the one upload policy). A column mapping is checked against each
    file's tables now (`tables.MappingError` undoes the upload), so a mapping naming a column that
    does not exist is refused before anything is queued.
    """
    accepted, refusals = uploads.check_uploads(files)
    refused = [refusal.as_dict() for refusal in refusals]
    document_ids = []
    for upload in accepted:
        if archives.is_archive(upload.name):
            document_ids += _store_archive(kb, upload, refused, user=user)
        else:
            document = _store_upload(kb, upload)
            if column_mapping:
                _apply_mapping(document, column_mapping)
            document_ids.append(document.pk)
    if not document_ids:
        return None, refused
    return start_ingestion(kb, document_ids, user=user), refused


def _apply_mapping(document: Document, mapping: dict[str, str]) -> None:
    try:
        parsed = parsing.parse_file(document.original_file.path)
        _, described = entries.split_document(parsed.text)
        document.column_mapping = tables.check_mapping(mapping, entries.known_columns(described))
    except KnowledgeError:
        # The transaction is undone; the stored file is not part of it.
        document.original_file.delete(save=False)
        raise
    document.save(update_fields=["column_mapping", "updated_at"])


def _store_archive(kb: KnowledgeBase, upload: UploadedFile, refused: list, *, user=None) -> list[int]:
    """Documents for a zip's files, or for a Notion export's pages; refused members go to `refused`."""
    members, problems = archives.unpack(upload, check=_member_refusal)
    refused += problems
    if not notion.is_export(members):
        return [_store_upload(kb, member.upload, path=member.path).pk for member in members]
    # A Notion export: pages by their Notion ids; pages gone from this export are deleted.
    ids, vanished = notion.store_export(kb, members)
    if vanished:
        start_delete(vanished, user=user)
    return ids


def _member_refusal(name: str, size: int) -> str:
    refusal = uploads.check_upload(name, size)
    return refusal.reason if refusal else ""


def _store_upload(kb: KnowledgeBase, upload: UploadedFile, *, path: str = "") -> Document:
    """A pending document for the file; `path` (folders/name, from an archive) is its identity when given."""
    name = Path(upload.name).name
    path = path or name
    document, _ = Document.objects.get_or_create(
        knowledge_base=kb, source_uri=f"upload:{path}",
        defaults={"source_kind": Document.SourceKind.UPLOAD},
    )
    if document.original_file:
        document.original_file.delete(save=False)
    document.original_file.save(name, File(upload), save=False)
    document.path, document.file_size = path, upload.size
    if "/" in path:
        document.metadata = {**document.metadata, "folder": path.rsplit("/", 1)[0]}
    if document.status != Document.Status.READY:
        document.status = Document.Status.PENDING
    document.save()
    return document


@transaction.atomic
def add_text(kb: KnowledgeBase, *, title: str, text: str, source_uri: str = "", metadata: dict | None = None,
             user=None) -> tuple[Document, Job]:
    """Store inline text as a pending document (replacing the one with the same URI) and queue it."""
    document = Document(knowledge_base=kb, source_kind=Document.SourceKind.INLINE)
    if source_uri:
        document, _ = Document.objects.get_or_create(
            knowledge_base=kb, source_uri=source_uri, defaults={"source_kind": Document.SourceKind.INLINE})
    document.title, document.text, document.mime = title, text, "text/plain"
    document.metadata = {**document.metadata, **(metadata or {})}
    if document.status != Document.Status.READY:
        document.status = Document.Status.PENDING
    document.save()
    return document, start_ingestion(kb, [document.pk], user=user)


def start_ingestion(kb: KnowledgeBase, document_ids: list[int], *, user=None, force_ocr: bool = False) -> Job:
    """Queue one job that (re)builds the documents; `force_ocr` reads every PDF page with OCR."""
    options = {"document_ids": document_ids, **({"force_ocr": True} if force_ocr else {})}
    job = Job.objects.create(kind=Job.Kind.INGEST, knowledge_base=kb, created_by=user,
                             options=options, progress_total=len(document_ids))
    enqueue(job)
    return job


def run_ingestion(job: Job) -> Job:
    """Ingest the job's documents, shared with the other free workers; a bad document fails alone."""
    return shares.run(job, plan=_ingestion_documents, work=_ingest_one, after=_ensure_index)


def join_ingestion(job: Job) -> Job:
    """Take part in a running ingestion or re-index job (the task its own task queues for other workers)."""
    return shares.take_part(job, work=_ingest_one, after=_ensure_index)


def _ingestion_documents(job: Job) -> list[Document]:
    ids = job.options.get("document_ids", [])
    return list(Document.objects.filter(pk__in=ids).order_by("pk"))


def _ingest_one(job: Job, document: Document, claim: shares.Claim) -> None:
    """(Re)build one document and complete its claim with the outcome."""
    if job.options.get("force"):
        document.config_signature = ""  # forces the rebuild even when the text is unchanged
    result = ingestion.process_document(document, progress=claim.embedding_progress(),
                                        embed_batches=claim.batch_embedding(), ocr_progress=claim.reading_progress(),
                                        read_pages=claim.page_reading(), force_ocr=job.options.get("force_ocr", False))
    if result.outcome == "failed":
        claim.complete(Job.ItemState.FAILED, reason=result.error)
        return
    chunks = result.document.chunk_count
    if result.outcome == "unchanged":
        claim.complete(Job.ItemState.UNCHANGED, chunk_count=chunks, unchanged=1, chunks=0)
        return
    claim.complete(Job.ItemState.READY, chunk_count=chunks, **{result.outcome: 1, "chunks": chunks})


def _ensure_index(job: Job) -> None:
    kb = job.knowledge_base
    if kb is not None and not vector_index.kb_index_exists(kb.pk):
        vector_index.create_kb_index(kb.pk, kb.embedding_dim)


@transaction.atomic
def create_reindex_job(kb: KnowledgeBase, *, embedder: str = "", force: bool = False, user=None) -> Job:
    """A re-index job row; with another embedder, the base switches to it first (vectors are rebuilt)."""
    if kb.shadows.exists():
        # Its cut-over swaps chunks with this base; a re-index in between would be lost or mixed in.
        raise SwitchInProgressError(gettext("A new version of %(base)s is being built beside it (a shadow switch); "
                                     "cut over, cancel or confirm that switch before re-indexing") % {"base": kb})
    if embedder and embedder != kb.embedder:
        bases.switch_embedder(kb, embedder)
        force = True
    return Job.objects.create(kind=Job.Kind.REINDEX, knowledge_base=kb, created_by=user,
                              options={"force": force, "embedder": kb.embedder})


@transaction.atomic
def start_reindex(kb: KnowledgeBase, *, embedder: str = "", force: bool = False, user=None) -> Job:
    """Queue a re-index job for the worker."""
    job = create_reindex_job(kb, embedder=embedder, force=force, user=user)
    enqueue(job)
    return job


def run_reindex(job: Job) -> Job:
    """Re-process the documents whose configuration signature (or vectors) are out of date, shared
    with the other free workers."""
    return shares.run(job, plan=_reindex_documents, work=_ingest_one, after=_ensure_index)


def _reindex_documents(job: Job) -> list[Document]:
    kb = job.knowledge_base
    if kb is None:
        raise KnowledgeError(gettext("The knowledge base of this job was deleted"))
    signature = ingestion.config_signature(kb)
    documents = kb.documents.all() if job.options.get("force") else kb.documents.exclude(
        config_signature=signature, status=Document.Status.READY)
    return list(documents.order_by("pk"))


def retry(job: Job, *, user=None) -> Job:
    """Start a finished job's work again as a new job of the same kind; done items are skipped
    (every job is idempotent). Raises `JobStateError` when the job is not worth retrying."""
    if not job.is_retryable:
        raise JobStateError(gettext("%(job)s cannot be retried.") % {"job": job})
    options, total = dict(job.options), job.progress_total
    if "document_ids" in options:  # documents deleted since are left out
        options["document_ids"] = list(Document.objects.filter(pk__in=options["document_ids"])
                                       .order_by("pk").values_list("pk", flat=True))
        total = len(options["document_ids"])
    new_job = Job.objects.create(kind=job.kind, knowledge_base=job.knowledge_base, created_by=user,
                                 options=options, progress_total=total)
    enqueue(new_job)
    return new_job


def start_delete(document_ids: list[int], *, user=None) -> Job:
    first = Document.objects.filter(pk__in=document_ids).select_related("knowledge_base").first()
    job = Job.objects.create(kind=Job.Kind.DELETE, knowledge_base=first.knowledge_base if first else None,
                             created_by=user, options={"document_ids": document_ids},
                             progress_total=len(document_ids))
    enqueue(job)
    return job


def run_delete(job: Job) -> Job:
    """Delete the job's documents, their chunks and stored files."""
    return run(job, _delete_documents)


def _delete_documents(job: Job) -> None:
    ids = job.options.get("document_ids", [])
    for done, document in enumerate(Document.objects.filter(pk__in=ids), start=1):
        delete_document(document)
        job.record(done=done, deleted=1)
    job.record(done=len(ids))


def change_column_mapping(document: Document, mapping: dict[str, str], *, user=None) -> Job:
    """Store a new column mapping on the document and re-chunk that document only.

    Columns the mapping leaves out keep their guessed role. Raises `tables.MappingError` when it
    names a column the document's tables do not have.
    """
    columns = entries.known_columns(document.metadata.get("tables", []))
    document.column_mapping = tables.check_mapping(mapping, columns)
    # An empty signature makes the rebuild happen although the text is unchanged.
    document.config_signature = ""
    document.save(update_fields=["column_mapping", "config_signature", "updated_at"])
    return start_ingestion(document.knowledge_base, [document.pk], user=user)
