"""manage.py import_golden <kb-slug> <path> --set NAME — questions from a BEIR folder or a JSONL/CSV file."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from evaluation import golden
from evaluation.exceptions import EvaluationError
from evaluation.models import GoldenSet
from knowledge.models import KnowledgeBase


class Command(BaseCommand):
    help = ("Import golden questions: a BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) or a "
            ".jsonl/.csv file of question + document (+ should_refuse). The set is created when missing.")

    def add_arguments(self, parser):
        parser.add_argument("kb_slug")
        parser.add_argument("path", type=Path)
        parser.add_argument("--set", dest="set_name", required=True)
        parser.add_argument("--corpus", action="store_true",
                            help="BEIR: ingest corpus.jsonl first, as documents with source URI beir:<id>.")
        parser.add_argument("--split", default="test", help="BEIR: the qrels file (qrels/<split>.tsv).")
        parser.add_argument("--document-key", default="source_uri",
                            help="How a file names documents: source_uri (default; BEIR ids match beir:<id>), "
                                 "id, or metadata:<key>.")

    def handle(self, *args, kb_slug, path, set_name, corpus, split, document_key, **options):
        kb = KnowledgeBase.objects.filter(slug=kb_slug).first()
        if kb is None:
            raise CommandError(f"No knowledge base with slug {kb_slug!r}")
        if not path.exists():
            raise CommandError(f"{path} does not exist")
        progress = lambda stage, done: self.stderr.write(f"  {stage}: {done}")  # noqa: E731
        try:
            golden_set = GoldenSet.objects.filter(knowledge_base=kb, name=set_name).first() or (
                golden.create_golden_set(kb, name=set_name))
            if path.is_dir():
                ingested = golden.ingest_beir_corpus(kb, path, progress=progress) if corpus else 0
                report = golden.import_beir(golden_set, path, split=split, document_key=document_key,
                                            progress=progress)
                report.documents_ingested = ingested
            else:
                with open(path, encoding="utf-8", newline="") as handle:
                    report = golden.import_rows(golden_set, path.name, handle, document_key=document_key,
                                                progress=progress)
        except EvaluationError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(self.style.SUCCESS(
            f"{golden_set}: {report.questions} questions, {report.expected} expected documents imported"
            + (f", {report.documents_ingested} corpus documents ingested" if report.documents_ingested else "")
            + (f"; {report.without_judgments} queries without judgments skipped" if report.without_judgments else "")))
