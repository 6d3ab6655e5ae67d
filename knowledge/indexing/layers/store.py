"""Storing layer rows as chunks: one `repository` document per file, swapped atomically.

For every target file the rows of all its layers are built, compared with the digest stored on
the document (unchanged rows are not re-embedded), embedded outside any transaction, and then
swapped in with `chunks.replace_chunks` — the same transaction the plain ingestion uses, so
search never sees a half-indexed file. Python files are all parsed, even in an incremental run,
because a changed file's calls are resolved against the symbols of the unchanged ones.
"""

import hashlib
import json
import logging
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from django.db import transaction
from django.utils.translation import gettext as _

from knowledge.exceptions import KnowledgeError
from knowledge.indexing import chunking
from knowledge.indexing.chunks import (
    IngestResult,
    config_signature,
    delete_document,
    embed_chunks,
    replace_chunks,
    reuse_vectors,
    text_sha256,
)
from knowledge.indexing.layers import repository, roots
from knowledge.indexing.layers.code import CodeExtractor, CodeFile, PlainTextExtractor, ProjectIndex
from knowledge.indexing.layers.code_rows import build_code_rows
from knowledge.indexing.layers.docs import build_doc_rows
from knowledge.indexing.layers.docs.sections import says_something
from knowledge.indexing.layers.manifests import MANIFEST_NAMES, ManifestExtractor
from knowledge.indexing.layers.markdown import README_PATH, is_doc_path, shadowed_doc, unread_doc
from knowledge.indexing.layers.python import PythonExtractor
from knowledge.indexing.layers.rows import LayerRow
from knowledge.indexing.layers.typescript import ScriptExtractor
from knowledge.indexing.mdx import mdx_as_markdown
from knowledge.indexing.myst import markdown_as_read, myst_targets
from knowledge.indexing.parsing.text import WIDE_BOMS, decode_text
from knowledge.indexing.rst import reads_as_rst, rst_as_markdown, sphinx_targets
from knowledge.models import Chunk, Document, Job, KnowledgeBase
from portal.db_locks import held, lock_key
from portal.jobs import enqueue, run

logger = logging.getLogger(__name__)

SCRIPTS = ScriptExtractor()
EXTRACTORS: dict[str, CodeExtractor] = {
    **{ext: PlainTextExtractor() for ext in PlainTextExtractor.extensions},
    **dict.fromkeys(ScriptExtractor.extensions, SCRIPTS),
    ".py": PythonExtractor(),
    **dict.fromkeys(MANIFEST_NAMES, ManifestExtractor()),  # by whole file name
}
Progress = Callable[[int, int, str], None]
MAX_JOB_WARNINGS = 500  # listed on the job; the counter has them all
_OPENING_CHARS = 2000  # how much of a README is its opening, where a tagline stands


@dataclass
class RepoIndexResult:
    repo_id: str
    commit_sha: str
    files: int = 0
    outcomes: Counter = field(default_factory=Counter)  # created, updated, unchanged, deleted, failed
    rows_written: Counter = field(default_factory=Counter)  # per layer, in this run
    failures: list[tuple[str, str]] = field(default_factory=list)
    module_roots: list[str] = field(default_factory=list)  # the folders Python modules are named from
    # Files skipped or only partly understood (binary, too large, syntax Python cannot read): (path, why).
    warnings: list[tuple[str, str]] = field(default_factory=list)


def extractor_for(rel: str) -> CodeExtractor | None:
    path = PurePosixPath(rel)
    return EXTRACTORS.get(path.name) or EXTRACTORS.get(path.suffix.lower())


def is_indexable(rel: str) -> bool:
    return is_doc_path(rel) or extractor_for(rel) is not None


def source_uri(repo_id: str, rel: str) -> str:
    return f"repo:{repo_id}:{rel}"


def index_repository(kb: KnowledgeBase, path: str | Path, *, since: str = "", name: str = "",
                     batch_size: int = 64, progress: Progress | None = None) -> RepoIndexResult:
    """Index a folder, git checkout or zip into `kb`: every file, or those changed since `since`."""
    with repository.open_repository(path, since=since, name=name, indexable=is_indexable) as snapshot:
        if not name and Path(path).is_dir():
            refuse_another_folder(kb, snapshot.repo_id, Path(path).expanduser().resolve())
        # Two runs of one repository at once (a script and a queued job) would store the same files together.
        with held(lock_key("index_repo", kb.pk, snapshot.repo_id), waiting=lambda: logger.warning(
                "Another run is indexing %s into %s; this one waits for it to finish.", snapshot.repo_id, kb)):
            return index_snapshot(kb, snapshot, batch_size=batch_size, progress=progress)


def refuse_another_folder(kb: KnowledgeBase, repo_id: str, folder: Path) -> None:
    """Two folders of one name ("src", "docs") would be one repository, the second run deleting the files
    of the first: a folder named like a repository the base holds from another folder needs a name."""
    last = (Job.objects.filter(knowledge_base=kb, kind=Job.Kind.INDEX_REPO,
                               status__in=(Job.Status.SUCCEEDED, Job.Status.PARTIAL),
                               options__repo_id=repo_id).order_by("-pk").first())
    if last is None or Path(last.options.get("path", "")).expanduser().resolve() == folder:
        return
    if repo_documents(kb, repo_id).exists():
        raise repository.RepositoryError(
            _("This base already holds the repository %(id)s, indexed from %(origin)s. To index %(path)s beside "
              "it, give it a name of its own (--name); to replace it, pass --name %(id)s.")
            % {"id": repo_id, "origin": last.options["path"], "path": folder})


def index_snapshot(kb: KnowledgeBase, snapshot: repository.Snapshot, *, batch_size: int = 64,
                   progress: Progress | None = None) -> RepoIndexResult:
    """Index the snapshot's target files, delete the documents of files that are gone."""
    result = RepoIndexResult(snapshot.repo_id, snapshot.commit_sha, files=len(snapshot.targets))
    # Stored paths are project paths (`knowledge/api.py` when the root is the `knowledge` folder).
    result.warnings.extend((snapshot.prefix + rel, reason) for rel, reason in snapshot.skipped)
    texts = read_texts(snapshot, result.warnings)
    texts = {path: text for path, text in texts.items()
             if not shadowed_doc(path, texts) and not unread_doc(path, text)}
    targets = [snapshot.prefix + rel for rel in snapshot.targets if snapshot.prefix + rel in texts]
    result.files = len(targets)
    code_files, index = parse_project(texts, packaging_files(snapshot))
    result.module_roots = sorted(set(index.file_roots.values()))
    for done, path in enumerate(targets, start=1):
        try:
            if path in index.unparsed:
                raise KnowledgeError(index.unparsed[path])
            outcome, rows = index_file(kb, snapshot.repo_id, path, texts[path], code_files.get(path), index,
                                       commit_sha=snapshot.commit_sha, batch_size=batch_size)
            result.outcomes[outcome] += 1
            result.warnings.extend((path, warning) for warning in getattr(code_files.get(path), "warnings", []))
            result.rows_written.update(row.layer for row in rows)
        except Exception as exc:
            if not isinstance(exc, KnowledgeError):
                logger.exception("Indexing %s failed", path)
            result.outcomes["failed"] += 1
            result.failures.append((path, str(exc)))
        if progress:
            progress(done, len(targets), path)
    gone = {snapshot.prefix + rel for rel in snapshot.deleted}
    if snapshot.changed is None:
        stale = repo_documents(kb, snapshot.repo_id).exclude(path__in=texts)
        gone.update(stale.values_list("path", flat=True))
    for document in repo_documents(kb, snapshot.repo_id).filter(path__in=gone):
        delete_document(document)
        result.outcomes["deleted"] += 1
    if snapshot.commit_sha:
        # Files that did not change are as they were at the new commit too.
        repo_documents(kb, snapshot.repo_id).filter(status=Document.Status.READY).update(
            commit_sha=snapshot.commit_sha)
    return result


def read_texts(snapshot: repository.Snapshot, warnings: list) -> dict[str, str]:
    """Project path → text of the snapshot's files; binary files are left out with a warning."""
    texts = {}
    for rel in snapshot.files:
        try:
            data = (snapshot.root / rel).read_bytes()
        except OSError as exc:
            warnings.append((snapshot.prefix + rel, f"unreadable: {exc.strerror or exc}"))
            continue
        # PostgreSQL text cannot hold NUL bytes, and no source file has them (UTF-16 text decoded has none).
        text = decode_text(data) if b"\0" not in data[:8192] or data.startswith(WIDE_BOMS) else "\0"
        if "\0" in text:
            warnings.append((snapshot.prefix + rel, "binary content (NUL bytes): not indexed"))
            continue
        if repository.minified(rel, text):
            warnings.append((snapshot.prefix + rel, "minified code (a build's output): not indexed"))
            continue
        texts[snapshot.prefix + rel] = text
    return texts


def packaging_files(snapshot: repository.Snapshot) -> dict[str, str]:
    """`pyproject.toml` and `setup.cfg` files in the folders of the snapshot's files (they name roots)."""
    folders = {str(PurePosixPath(rel).parent) for rel in snapshot.files} | {"."}
    found = {}
    for folder in sorted(folders):
        for name in ("pyproject.toml", "setup.cfg"):
            path = snapshot.root / folder / name
            if path.is_file() and not path.is_symlink() and path.stat().st_size <= repository.MAX_FILE_BYTES:
                rel = name if folder == "." else f"{folder}/{name}"
                found[snapshot.prefix + rel] = decode_text(path.read_bytes())
    return found


def parse_project(texts: dict[str, str], configs: dict[str, str] | None = None,
                  file_roots: dict[str, str] | None = None) -> tuple[dict[str, CodeFile], ProjectIndex]:
    """Parse every code file and index their symbols, app objects and entrypoints.

    Python module names are taken from each file's module root (`roots.find_roots`), or from
    `file_roots` when they are known already (a re-index from stored documents).
    """
    file_roots = roots.find_roots(texts, configs) if file_roots is None else file_roots
    code_files, unparsed = {}, {}
    for rel, text in texts.items():
        extractor = extractor_for(rel)
        if extractor is not None:
            module = roots.module_name(rel, file_roots[rel]) if rel in file_roots else None
            try:
                code_files[rel] = extractor.parse(rel, text, module=module)
            except Exception as exc:  # one file the extractor cannot read fails alone, never the repository
                logger.exception("Parsing %s failed", rel)
                unparsed[rel] = _("Its code could not be read: %(error)s") % {"error": f"{type(exc).__name__}: {exc}"}
    index = ProjectIndex(list(code_files.values()))
    index.unparsed = unparsed
    index.file_roots = {rel: root for rel, root in file_roots.items() if rel in code_files}
    index.labels = {**sphinx_targets(texts), **myst_targets(texts)}
    languages = {**{e.language: e for e in EXTRACTORS.values()}, "javascript": SCRIPTS}
    index.detect_entrypoints(list(code_files.values()), languages)
    return code_files, index


def build_rows(rel: str, text: str, code_file: CodeFile | None, index: ProjectIndex,
               kb: KnowledgeBase) -> list[LayerRow]:
    """The rows of every layer for one file (documentation or code)."""
    if is_doc_path(rel):
        # reStructuredText (Sphinx docs, README.rst) is read as Markdown, MyST's markup as CommonMark, MDX as the
        # Markdown between its components' tags, line for line.
        if rel.lower().endswith(".mdx"):
            text = mdx_as_markdown(text)
        text = (rst_as_markdown if reads_as_rst(rel, text) else markdown_as_read)(text, index.labels, rel)
        folder = rel.rpartition("/")[0]
        names, description = index.package_names.get(folder), index.package_descriptions.get(folder, "")
        # A README without a title of its own (parse's opens with "Installation" and "Usage") is the package's.
        untitled = min(names) if names and README_PATH.search(rel) else ""
        rows = build_doc_rows(rel, text, chunk_size=kb.chunk_size, chunk_overlap=kb.chunk_overlap,
                              chunk_min_size=kb.chunk_min_size, untitled=untitled)
        for row in rows:  # a README's card knows the package the manifest beside it names, and what it says it is
            if row.layer != "D1" or row.metadata.get("doc_kind") != "readme":
                continue
            if names:
                row.metadata["project_names"] = sorted(set(names))
            # What the manifest says the package is, unless the README says it in a sentence: filelock's README is
            # badges and a link, termcolor's opens with its install command.
            summary = row.metadata.get("summary_text", "")
            if description and not says_something(summary):
                row.metadata["summary_text"] = description
                row.content = f"{row.title}\n\n{description}"
            # Said first when the README's opening says it word for word, a tagline passed over for having no full
            # stop: camelcase's "> Convert a dash/dot/underscore/space separated string to camelCase …" before its
            # summary "Correctly handles Unicode strings." (not when its title or summary says it: validators' title
            # "validators - Python Data Validation for Humans™").
            elif description and _words(description) in _words(text[:_OPENING_CHARS]) and (
                    _words(description) not in _words(f"{row.title} {summary}")):
                row.content = f"{row.title}\n\n{description}\n\n{summary}"
        return rows
    extractor = extractor_for(rel)
    return build_code_rows(code_file or extractor.parse(rel, text), index, extractor)


def _words(text: str) -> str:
    """`text`'s words in lower case, one space apart: what it says whatever its markup."""
    return " ".join(re.findall(r"\w+", text.lower()))


def index_file(kb: KnowledgeBase, repo_id: str, rel: str, text: str, code_file: CodeFile | None,
               index: ProjectIndex, *, commit_sha: str = "", batch_size: int = 64,
               force: bool = False) -> tuple[str, list[LayerRow]]:
    """Build, embed and store one file's rows; ("unchanged", []) when its rows are what is stored."""
    uri = source_uri(repo_id, rel)
    rows = build_rows(rel, text, code_file, index, kb)
    digest, signature = rows_digest(rows), config_signature(kb)
    if rel in index.file_roots:  # a file moved to another module root is re-stored
        digest = hashlib.sha256(f"{digest}:{index.file_roots[rel]}".encode()).hexdigest()
    document = Document.objects.filter(knowledge_base=kb, source_uri=uri).first()
    if (not force and document and document.status == Document.Status.READY
            and document.metadata.get("rows_sha") == digest
            and document.config_signature == signature):
        return "unchanged", []
    chunks = to_chunks(kb, rows, repo_id)
    if document is not None:
        reuse_vectors(kb, document, chunks)  # an edited function re-embeds its rows, not the file's
    embed_chunks(kb, chunks, batch_size=batch_size)
    outcome = "updated" if document else "created"
    store_file(kb, document, uri=uri, rel=rel, text=text, rows=rows, chunks=chunks, digest=digest,
               signature=signature, repo_id=repo_id, commit_sha=commit_sha,
               extra={**({"module_root": index.file_roots[rel]} if rel in index.file_roots else {}),
                      "warnings": list(code_file.warnings) if code_file else []})
    return outcome, rows


def to_chunks(kb: KnowledgeBase, rows: list[LayerRow], repo_id: str) -> list[Chunk]:
    """Unsaved chunks for the rows, numbered from 0 within each layer."""
    positions: Counter = Counter()
    chunks = []
    for row in rows:
        chunks.append(Chunk(
            knowledge_base=kb,
            position=positions[row.layer],
            layer=row.layer,
            title=row.title[:500],
            section_path=row.section_path[:1000],
            parent_heading=(row.section_path.rsplit(" > ", 1)[-1] if row.layer == "D0" else "")[:500],
            content=row.content,
            token_count=chunking.token_estimate(row.content),
            span_start=row.span_start,
            span_end=row.span_end,
            language=row.language[:20],
            metadata={**row.metadata, "repo_id": repo_id},
        ))
        positions[row.layer] += 1
    return chunks


@transaction.atomic
def store_file(kb: KnowledgeBase, document: Document | None, *, uri: str, rel: str, text: str,
               rows: list[LayerRow], chunks: list[Chunk], digest: str, signature: str, repo_id: str,
               commit_sha: str, extra: dict | None = None) -> Document:
    """Create or update the file's document and swap its chunks, in one transaction."""
    if document is None:
        document = Document(knowledge_base=kb, source_kind=Document.SourceKind.REPOSITORY, source_uri=uri)
    catalog = next((row for row in rows if row.layer == "D1"), None)
    document.path, document.commit_sha = rel[:1000], commit_sha
    document.title = (catalog.title if catalog else rel)[:500]
    document.mime = "text/markdown" if catalog else "text/x-source"
    document.text, document.char_count = text, len(text)
    document.metadata = {**document.metadata, "repo_id": repo_id, "rows_sha": digest,
                         "layers": dict(sorted(Counter(row.layer for row in rows).items())), **(extra or {})}
    document.save()
    for chunk in chunks:
        chunk.document = document
    replace_chunks(kb, document, chunks, sha=text_sha256(text), signature=signature)
    return document


def rows_digest(rows: list[LayerRow]) -> str:
    """A digest of the rows themselves: a file whose calls now resolve differently is re-stored."""
    payload = [(r.layer, r.title, r.content, r.section_path, r.span_start, r.span_end, r.metadata)
               for r in rows]
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def repo_documents(kb: KnowledgeBase, repo_id: str):
    return Document.objects.filter(knowledge_base=kb, source_kind=Document.SourceKind.REPOSITORY,
                                   source_uri__startswith=f"repo:{repo_id}:")


def layer_counts(kb: KnowledgeBase, repo_id: str = "") -> dict[str, int]:
    """Rows per layer stored for the base (or one repository of it)."""
    chunks = Chunk.objects.filter(knowledge_base=kb)
    if repo_id:
        chunks = chunks.filter(document__in=repo_documents(kb, repo_id))
    return dict(sorted(Counter(chunks.values_list("layer", flat=True)).items()))


def reindex_document(document: Document, *, force: bool = True) -> IngestResult:
    """Rebuild one repository document from its stored text (after an embedder or config change).

    `ingestion.process_document` calls it for these documents (plain chunking would replace
    their layers with D0 chunks). Calls are resolved against the other files of the
    same repository as stored, so no checkout is needed.
    """
    kb = document.knowledge_base
    repo_id = document.metadata.get("repo_id", "")
    stored = list(repo_documents(kb, repo_id).values_list("path", "text", "metadata"))
    texts = {path: text for path, text, _ in stored}
    texts[document.path] = document.text
    # The module roots found when the repository was indexed (recorded on each Python document).
    file_roots = {path: meta["module_root"] for path, _, meta in stored if "module_root" in meta}
    try:
        code_files, index = parse_project({path: text for path, text in texts.items() if is_indexable(path)},
                                          file_roots=file_roots or None)
        if document.path in index.unparsed:
            return IngestResult(document, "failed", index.unparsed[document.path])
        outcome, _ = index_file(kb, repo_id, document.path, document.text, code_files.get(document.path),
                                index, commit_sha=document.commit_sha, force=force)
    except Exception as exc:
        logger.exception("Re-indexing repository document %s failed", document.pk)
        return IngestResult(document, "failed", f"{type(exc).__name__}: {exc}")
    document.refresh_from_db()
    return IngestResult(document, outcome)


# --- jobs -------------------------------------------------------------------------------------------


def start_index_repo(kb: KnowledgeBase, path: str, *, since: str = "", name: str = "", user=None) -> Job:
    """Queue an `index_repo` job for a path the workers can read (a shared folder or checkout)."""
    job = Job.objects.create(kind=Job.Kind.INDEX_REPO, knowledge_base=kb, created_by=user,
                             options={"path": str(path), "since": since, "name": name})
    enqueue(job)
    return job


def run_index_repo(job: Job, *, progress: Progress | None = None) -> Job:
    """Run an `index_repo` job: options `path`, `since`, `name`; counts and failures on the job."""

    def body(job: Job) -> None:
        def report(done: int, total: int, path: str) -> None:
            job.record(done=done, total=total)
            if progress:
                progress(done, total, path)

        result = index_repository(job.knowledge_base, job.options["path"], since=job.options.get("since", ""),
                                  name=job.options.get("name", ""), progress=report)
        job.options = {**job.options, "repo_id": result.repo_id, "commit_sha": result.commit_sha,
                       "module_roots": result.module_roots}
        job.save(update_fields=["options", "updated_at"])
        outcomes = {name: n for name, n in result.outcomes.items() if name != "failed"}  # add_failure counts
        job.options = {**job.options, "warnings": [{"item": path, "reason": reason}
                                                   for path, reason in result.warnings[:MAX_JOB_WARNINGS]]}
        job.save(update_fields=["options", "updated_at"])
        job.record(**outcomes, warnings=len(result.warnings),
                   **{f"rows_{layer}": n for layer, n in result.rows_written.items()})
        for path, reason in result.failures:
            job.add_failure(path, reason)

    return run(job, body)
