"""manage.py ingest <kb-slug> PATH... — ingest files and folders in the foreground."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from knowledge import uploads
from knowledge.indexing import ingestion, parsing
from knowledge.models import Document, KnowledgeBase


class Command(BaseCommand):
    help = "Ingest files and folders (recursively) into a knowledge base, with a progress bar and a summary."

    def add_arguments(self, parser):
        parser.add_argument("kb_slug")
        parser.add_argument("paths", nargs="+", type=Path)

    def handle(self, *args, kb_slug, paths, **options):
        kb = KnowledgeBase.objects.filter(slug=kb_slug).first()
        if kb is None:
            raise CommandError(f"No knowledge base with slug {kb_slug!r}")
        files, skipped = collect_files(paths)
        outcomes: dict[str, int] = {"created": 0, "updated": 0, "unchanged": 0, "failed": 0}
        failures = [(str(path), reason) for path, reason in skipped]
        for path in tqdm(files, desc=f"Ingesting into {kb.slug}", unit="file", disable=not files):
            result = ingestion.ingest_file(kb, path, source_kind=Document.SourceKind.UPLOAD,
                                           source_uri=f"file:{path.resolve()}")
            outcomes[result.outcome] += 1
            if result.outcome == "failed":
                failures.append((str(path), result.error))
        self.print_summary(outcomes, failures)
        if outcomes["failed"] and not (outcomes["created"] + outcomes["updated"] + outcomes["unchanged"]):
            raise CommandError("No file was ingested")

    def print_summary(self, outcomes, failures):
        ready = outcomes["created"] + outcomes["updated"]
        self.stdout.write(self.style.SUCCESS(
            f"ready: {ready} (new {outcomes['created']}, updated {outcomes['updated']}), "
            f"unchanged: {outcomes['unchanged']}, failed: {len(failures)}"))
        for path, reason in failures:
            self.stdout.write(self.style.ERROR(f"  failed  {path}: {reason}"))


def collect_files(paths: list[Path]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Supported files under `paths` (folders recursively), and the refused ones with reasons."""
    files, skipped = [], []
    for root in paths:
        if not root.exists():
            skipped.append((root, "No such file or folder"))
            continue
        candidates = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
        for path in candidates:
            if any(part.startswith(".") for part in path.relative_to(root).parts if root.is_dir()):
                continue  # hidden files and folders (.git, .DS_Store)
            if parsing.is_supported(path):
                files.append(path)
            elif not root.is_dir():
                skipped.append((path, uploads.unsupported_reason(path.name)))
    return files, skipped
