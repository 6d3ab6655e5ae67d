"""manage.py index_repo <kb-slug> PATH [--since COMMIT] — the layered index of a repository."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from knowledge.indexing.layers import LAYER_NAMES
from knowledge.indexing.layers.store import layer_counts, run_index_repo
from knowledge.models import Job, KnowledgeBase


class Command(BaseCommand):
    help = ("Index a folder, git checkout or zip into the documentation (D0–D6) and code (C0–C4) layers, "
            "in full or only the files changed since a commit.")

    def add_arguments(self, parser):
        parser.add_argument("kb_slug")
        parser.add_argument("path")
        parser.add_argument("--since", default="",
                            help="Only the files changed since this commit (git checkouts).")
        parser.add_argument("--name", default="", help="Repository id (default: the folder or archive name).")

    def handle(self, *args, kb_slug, path, since, name, **options):
        kb = KnowledgeBase.objects.filter(slug=kb_slug).first()
        if kb is None:
            raise CommandError(f"No knowledge base with slug {kb_slug!r}")
        job = Job.objects.create(kind=Job.Kind.INDEX_REPO, knowledge_base=kb,
                                 options={"path": str(Path(path).resolve()), "since": since, "name": name})
        with tqdm(desc=f"Indexing into {kb.slug}", unit="file", file=self.stderr) as bar:
            def progress(done, total, rel):
                bar.total = total
                bar.set_postfix_str(rel[-40:], refresh=False)
                bar.update(done - bar.n)

            try:
                run_index_repo(job, progress=progress)
            except Exception as exc:
                raise CommandError(f"Index job #{job.pk} failed: {exc}") from exc
        self.print_summary(job, kb)

    def print_summary(self, job: Job, kb: KnowledgeBase) -> None:
        job.refresh_from_db()
        counters, repo_id = job.counters, job.options.get("repo_id", "")
        self.stdout.write(self.style.SUCCESS(
            f"Index job #{job.pk} {job.status}: repository {repo_id} at "
            f"{job.options.get('commit_sha') or '-'}; "
            f"files: new {counters.get('created', 0)}, updated {counters.get('updated', 0)}, "
            f"unchanged {counters.get('unchanged', 0)}, deleted {counters.get('deleted', 0)}, "
            f"failed {counters.get('failed', 0)}, warnings {counters.get('warnings', 0)}"))
        module_roots = job.options.get("module_roots")
        if module_roots:
            self.stdout.write("Python module roots: " + ", ".join(root or "(top folder)" for root in module_roots))
        totals = layer_counts(kb, repo_id)
        self.stdout.write(f"{'layer':<6}{'name':<24}{'written':>9}{'stored':>9}")
        for layer, title in LAYER_NAMES.items():
            written = counters.get(f"rows_{layer}", 0)
            if written or totals.get(layer):
                self.stdout.write(f"{layer:<6}{title:<24}{written:>9}{totals.get(layer, 0):>9}")
        for warning in job.options.get("warnings", []):
            self.stdout.write(self.style.WARNING(f"  warning {warning['item']}: {warning['reason']}"))
        for failure in job.failures:
            self.stdout.write(self.style.ERROR(f"  failed  {failure['item']}: {failure['reason']}"))
