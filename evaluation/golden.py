"""Golden sets: questions written by hand, imported from files, or proposed from work already done.

Imports (BEIR layout, or JSONL/CSV of question + expected document) stream their files in
batches of `BATCH` rows: each batch's questions are inserted as they are read and its documents
resolved with one query, so memory stays bounded whatever the file's size (besides one 8-byte
digest per question, to name duplicates). An import is one transaction: a file with problems
leaves the set as it was, and the error names the first problems with their line numbers.

A corpus id (BEIR) or an expected document (JSONL/CSV) is matched to a document of the base by
its source URI (`beir:<id>` as `--corpus` ingests it, or the id itself), by its database id
(`document_key="id"`), or by a metadata key (`document_key="metadata:<key>"`).
"""

import csv
import hashlib
import io
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.db.models.functions import MD5
from django.utils.translation import gettext

from evaluation.exceptions import InvalidGoldenSetError
from evaluation.models import ExpectedSource, GoldenQuestion, GoldenSet
from knowledge.indexing import ingestion
from knowledge.models import Document, KnowledgeBase

BATCH = 1000
MAX_QUESTION_CHARS = 4000
MAX_PROBLEMS_SHOWN = 10
Progress = Callable[[str, int], None]


@dataclass
class ImportReport:
    questions: int = 0
    expected: int = 0
    without_judgments: int = 0  # BEIR queries judged in no qrels line (other splits): not kept
    documents_ingested: int = 0


@dataclass
class Problems:
    """Problems found in a file, counted in full and shown up to MAX_PROBLEMS_SHOWN."""

    count: int = 0
    shown: list[str] = field(default_factory=list)

    def add(self, where: str, message: str) -> None:
        self.count += 1
        if len(self.shown) < MAX_PROBLEMS_SHOWN:
            self.shown.append(f"{where}: {message}")

    def raise_if_any(self) -> None:
        if not self.count:
            return
        values = {"count": self.count, "more": self.count - len(self.shown), "problems": "; ".join(self.shown)}
        if values["more"] > 0:
            raise InvalidGoldenSetError(
                gettext("%(count)d problem(s), nothing imported (and %(more)d more): %(problems)s") % values)
        raise InvalidGoldenSetError(gettext("%(count)d problem(s), nothing imported: %(problems)s") % values)


def _line(number: int, file: str = "") -> str:
    """Where a problem is: "line 3", or "queries.jsonl line 3"."""
    if file:
        return gettext("%(file)s line %(number)d") % {"file": file, "number": number}
    return gettext("line %(number)d") % {"number": number}


def create_golden_set(kb: KnowledgeBase, *, name: str, description: str = "") -> GoldenSet:
    """A new, empty golden set of the base."""
    name = name.strip()
    if not name:
        raise InvalidGoldenSetError(gettext("The golden set needs a name"))
    if GoldenSet.objects.filter(knowledge_base=kb, name=name).exists():
        raise InvalidGoldenSetError(gettext("The base already has a golden set named %(name)s") % {"name": repr(name)})
    return GoldenSet.objects.create(knowledge_base=kb, name=name, description=description)


def clean_question(text) -> str:
    """The question as stored; raises on empty or over-long text."""
    text = " ".join(str(text or "").split())
    if not text:
        raise InvalidGoldenSetError(gettext("The question is empty"))
    if len(text) > MAX_QUESTION_CHARS:
        raise InvalidGoldenSetError(gettext("The question is longer than %(limit)d characters")
                                    % {"limit": MAX_QUESTION_CHARS})
    return text


@transaction.atomic
def add_question(golden_set: GoldenSet, *, question: str, document_ids: Iterable[int] = (),
                 should_refuse: bool = False, status: str = GoldenQuestion.Status.CONFIRMED,
                 origin: str = GoldenQuestion.Origin.MANUAL, external_id: str = "",
                 note: str = "") -> GoldenQuestion:
    """One question with the documents that answer it; the documents must belong to the set's base."""
    text = clean_question(question)
    ids = sorted(set(document_ids))
    if status == GoldenQuestion.Status.CONFIRMED and not ids and not should_refuse:
        raise InvalidGoldenSetError(gettext("Name the document that answers the question, or mark it 'should refuse'"))
    found = set(Document.objects.filter(knowledge_base_id=golden_set.knowledge_base_id, pk__in=ids)
                .values_list("pk", flat=True))
    if missing := [str(pk) for pk in ids if pk not in found]:
        raise InvalidGoldenSetError(gettext("No document with id %(ids)s in %(base)s")
                                    % {"ids": ", ".join(missing), "base": golden_set.knowledge_base})
    if golden_set.questions.filter(question=text).exists():
        raise InvalidGoldenSetError(gettext("The set already has the question %(question)s")
                                    % {"question": repr(text[:80])})
    item = GoldenQuestion.objects.create(golden_set=golden_set, question=text, should_refuse=should_refuse,
                                         status=status, origin=origin, external_id=external_id, note=note)
    titles = dict(Document.objects.filter(pk__in=ids).values_list("pk", "title"))
    ExpectedSource.objects.bulk_create([ExpectedSource(question=item, document_id=pk, document_title=titles[pk])
                                        for pk in ids])
    return item


def confirm_question(item: GoldenQuestion) -> GoldenQuestion:
    """A person accepts a proposed question; it needs an expected document or 'should refuse' first."""
    _keep_titles(item.golden_set)  # documents added by hand in the admin's inline
    if not item.should_refuse and not item.expected.exists():
        raise InvalidGoldenSetError(gettext(
            "Question #%(id)s has no expected document: add the one that answers it, or mark it 'should refuse'")
            % {"id": item.pk})
    item.status = GoldenQuestion.Status.CONFIRMED
    item.save(update_fields=["status"])
    return item


def dismiss_question(item: GoldenQuestion) -> GoldenQuestion:
    item.status = GoldenQuestion.Status.DISMISSED
    item.save(update_fields=["status"])
    return item


# --- Matching files' document keys to documents ---------------------------------------------------

class DocumentResolver:
    """Maps the document keys of a file to document ids of one base, one query per batch."""

    def __init__(self, kb: KnowledgeBase, key: str = "source_uri") -> None:
        if key not in ("source_uri", "id") and not key.startswith("metadata:"):
            raise InvalidGoldenSetError(gettext("Unknown document key %(key)s: use source_uri, id or metadata:<name>")
                                        % {"key": repr(key)})
        self.kb, self.key = kb, key

    def resolve(self, keys: Iterable[str]) -> dict[str, int]:
        keys = {str(k) for k in keys}
        documents = Document.objects.filter(knowledge_base=self.kb)
        if self.key == "id":
            ids = {k: int(k) for k in keys if k.isdigit()}
            found = set(documents.filter(pk__in=ids.values()).values_list("pk", flat=True))
            return {k: pk for k, pk in ids.items() if pk in found}
        if self.key.startswith("metadata:"):
            name = self.key.removeprefix("metadata:")
            rows = documents.filter(**{f"metadata__{name}__in": list(keys)}).values_list("pk", f"metadata__{name}")
            return {str(value): pk for pk, value in rows}
        # A corpus id is the source URI the corpus import gave it (beir:<id>), or the URI itself.
        uris = {f"beir:{k}": k for k in keys} | {k: k for k in keys}
        rows = documents.filter(source_uri__in=list(uris)).values_list("pk", "source_uri")
        return {uris[uri]: pk for pk, uri in rows}


def _batches(rows: Iterable, size: int = BATCH) -> Iterator[list]:
    iterator = iter(rows)
    while batch := list(islice(iterator, size)):
        yield batch


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=8).digest()


class _QuestionWriter:
    """Validates and inserts questions batch by batch, remembering digests to name duplicates."""

    def __init__(self, golden_set: GoldenSet, problems: Problems) -> None:
        self.golden_set, self.problems, self.seen = golden_set, problems, set()

    def write(self, rows: list[tuple[str, str, dict]]) -> list[GoldenQuestion | None]:
        """rows: (where, question, fields) → the unsaved-or-saved question per row (None when refused)."""
        items, texts = [], []
        for where, raw, fields in rows:
            try:
                text = clean_question(raw)
            except InvalidGoldenSetError as exc:
                self.problems.add(where, str(exc))
                items.append(None)
                continue
            digest = _digest(text)
            if digest in self.seen:
                self.problems.add(where, gettext("duplicate question %(question)s") % {"question": repr(text[:60])})
                items.append(None)
                continue
            self.seen.add(digest)
            texts.append(text)
            items.append(GoldenQuestion(golden_set=self.golden_set, question=text,
                                        origin=GoldenQuestion.Origin.IMPORT, **fields))
        # Compared on md5(question), the expression of the unique index, so the index serves it.
        hashes = [hashlib.md5(text.encode()).hexdigest() for text in texts]
        existing = set(self.golden_set.questions.annotate(hash=MD5("question")).filter(hash__in=hashes)
                       .values_list("question", flat=True))
        for (where, _, _), item in zip(rows, items):
            if item is not None and item.question in existing:
                self.problems.add(where, gettext("the set already has the question %(question)s")
                                  % {"question": repr(item.question[:60])})
        if not self.problems.count:
            GoldenQuestion.objects.bulk_create([item for item in items if item is not None])
        return items


# --- BEIR layout ----------------------------------------------------------------------------------

def _jsonl(path: Path) -> Iterator[tuple[int, dict | None]]:
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    yield number, json.loads(line)
                except json.JSONDecodeError:
                    yield number, None


def ingest_beir_corpus(kb: KnowledgeBase, folder: Path, *, progress: Progress | None = None) -> int:
    """Ingest corpus.jsonl as inline documents with source URI `beir:<id>` and metadata `beir_id`."""
    done = 0
    for number, row in _jsonl(folder / "corpus.jsonl"):
        if not row or not str(row.get("_id", "")).strip():
            problem = gettext("not a JSON object with an _id")
            raise InvalidGoldenSetError(f"{_line(number, 'corpus.jsonl')}: {problem}")
        result = ingestion.ingest_text(kb, title=row.get("title") or str(row["_id"]), text=row.get("text", ""),
                                       source_uri=f"beir:{row['_id']}", metadata={"beir_id": str(row["_id"])})
        if result.outcome == "failed":
            raise InvalidGoldenSetError(f"{_line(number, 'corpus.jsonl')} ({row['_id']}): {result.error}")
        done += 1
        if progress and done % 100 == 0:
            progress("corpus", done)
    return done


@transaction.atomic
def import_beir(golden_set: GoldenSet, folder: Path, *, split: str = "test", document_key: str = "source_uri",
                progress: Progress | None = None) -> ImportReport:
    """Questions from queries.jsonl with their judged documents from qrels/<split>.tsv."""
    folder, problems, report = Path(folder), Problems(), ImportReport()
    qrels = folder / "qrels" / f"{split}.tsv"
    for path in (folder / "queries.jsonl", qrels):
        if not path.is_file():
            raise InvalidGoldenSetError(gettext("%(name)s is missing in %(folder)s")
                                        % {"name": path.name, "folder": folder})
    first_new = (GoldenQuestion.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1
    writer = _QuestionWriter(golden_set, problems)
    for batch in _batches(_jsonl(folder / "queries.jsonl")):
        rows = []
        for number, row in batch:
            where = _line(number, "queries.jsonl")
            if not row or "_id" not in row:
                problems.add(where, gettext("not a JSON object with an _id"))
                continue
            rows.append((where, row.get("text"), {"external_id": str(row["_id"])[:200]}))
        report.questions += sum(item is not None for item in writer.write(rows))
        if progress:
            progress("questions", report.questions)
    problems.raise_if_any()
    resolver = DocumentResolver(golden_set.knowledge_base, document_key)
    for batch in _batches(_qrels_lines(qrels)):
        report.expected += _store_judgments(golden_set, resolver, batch, problems)
        if progress:
            progress("judgments", report.expected)
    problems.raise_if_any()
    # Queries of other splits have no judgment here; a question with nothing to find is no test.
    unjudged = golden_set.questions.filter(pk__gte=first_new, expected__isnull=True)
    report.without_judgments = unjudged.count()
    unjudged.delete()
    report.questions -= report.without_judgments
    _keep_titles(golden_set)
    return report


def _keep_titles(golden_set: GoldenSet) -> None:
    """Copy the expected documents' titles onto the rows, in one statement, so they outlive a deletion."""
    title = Document.objects.filter(pk=OuterRef("document_id")).values("title")[:1]
    ExpectedSource.objects.filter(question__golden_set=golden_set, document_title="",
                                  document__isnull=False).update(document_title=Subquery(title))


def _qrels_lines(path: Path) -> Iterator[tuple[int, str, str, int]]:
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3 or parts[0] == "query-id":
                continue
            score = int(parts[2]) if parts[2].strip().lstrip("-").isdigit() else 0
            if score > 0:  # as BEIR's evaluation: a zero is "judged not relevant"
                yield number, parts[0], parts[1], score


def _store_judgments(golden_set: GoldenSet, resolver: DocumentResolver, batch, problems: Problems) -> int:
    questions = dict(golden_set.questions.filter(external_id__in={qid for _, qid, _, _ in batch})
                     .values_list("external_id", "pk"))
    documents = resolver.resolve({cid for _, _, cid, _ in batch})
    rows = {}
    for number, qid, cid, score in batch:
        if qid not in questions:
            problems.add(_line(number, "qrels"),
                         gettext("query %(query)s is not in queries.jsonl") % {"query": repr(qid)})
        elif cid not in documents:
            problems.add(_line(number, "qrels"), gettext("corpus id %(id)s matches no document of %(base)s")
                         % {"id": repr(cid), "base": golden_set.knowledge_base})
        else:
            rows[(questions[qid], documents[cid])] = score
    if problems.count:
        return 0
    ExpectedSource.objects.bulk_create(
        [ExpectedSource(question_id=q, document_id=d, relevance=score) for (q, d), score in rows.items()],
        ignore_conflicts=True)
    return len(rows)


# --- JSONL / CSV: question + expected document ------------------------------------------------------

def _rows(name: str, data: io.TextIOBase) -> Iterator[tuple[str, dict | None]]:
    if name.lower().endswith(".csv"):
        for number, row in enumerate(csv.DictReader(data), start=2):
            yield _line(number), row
    else:
        for number, line in enumerate(data, start=1):
            if line.strip():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    row = None
                yield _line(number), row if isinstance(row, dict) else None


def _document_keys(row: dict) -> list[str]:
    value = row.get("documents", row.get("document", ""))
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    return [part.strip() for part in str(value or "").split("|") if part.strip()]


def _truthy(value) -> bool:
    return value is True or str(value).strip().lower() in ("1", "true", "yes")


@transaction.atomic
def import_rows(golden_set: GoldenSet, name: str, data: io.TextIOBase, *, document_key: str = "source_uri",
                progress: Progress | None = None) -> ImportReport:
    """Rows of `question`, `document` (or `documents`, a list or `|`-separated) and `should_refuse`."""
    problems, report = Problems(), ImportReport()
    writer = _QuestionWriter(golden_set, problems)
    resolver = DocumentResolver(golden_set.knowledge_base, document_key)
    for batch in _batches(_rows(name, data)):
        parsed = []
        for where, row in batch:
            if row is None:
                problems.add(where, gettext("not a JSON object"))
                continue
            keys, refuse = _document_keys(row), _truthy(row.get("should_refuse"))
            if not keys and not refuse:
                problems.add(where, gettext("name the expected document, or set should_refuse"))
                continue
            parsed.append((where, row.get("question"), keys, refuse))
        documents = resolver.resolve({key for _, _, keys, _ in parsed for key in keys})
        for where, _, keys, _ in parsed:
            for key in keys:
                if key not in documents:
                    problems.add(where, gettext("document %(key)s matches no document of %(base)s")
                                 % {"key": repr(key), "base": golden_set.knowledge_base})
        items = writer.write([(where, text, {"should_refuse": refuse}) for where, text, _, refuse in parsed])
        if problems.count:
            continue  # keep reading: the error lists the problems of the whole file
        expected = [ExpectedSource(question=item, document_id=documents[key])
                     for item, (_, _, keys, _) in zip(items, parsed) for key in dict.fromkeys(keys)]
        ExpectedSource.objects.bulk_create(expected)
        report.questions += len(items)
        report.expected += len(expected)
        if progress:
            progress("questions", report.questions)
    problems.raise_if_any()
    _keep_titles(golden_set)
    return report

