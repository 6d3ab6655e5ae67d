"""manage.py reindex <kb-slug> — rebuild what is out of date, in the foreground."""

from django.core.management.base import BaseCommand, CommandError

from knowledge import jobs
from knowledge.indexing.embedding import REGISTRY
from knowledge.models import KnowledgeBase


class Command(BaseCommand):
    help = "Re-index a knowledge base: documents whose configuration changed, or all with --force."

    def add_arguments(self, parser):
        parser.add_argument("kb_slug")
        parser.add_argument("--embedder", choices=sorted(REGISTRY), help="Switch to this embedder and re-embed all.")
        parser.add_argument("--force", action="store_true", help="Rebuild every document.")

    def handle(self, *args, kb_slug, embedder, force, **options):
        kb = KnowledgeBase.objects.filter(slug=kb_slug).first()
        if kb is None:
            raise CommandError(f"No knowledge base with slug {kb_slug!r}")
        # Run the job here rather than in a worker, so the operator sees it finish.
        job = jobs.run_reindex(jobs.create_reindex_job(kb, embedder=embedder or "", force=force))
        counters = job.counters
        self.stdout.write(self.style.SUCCESS(
            f"Re-index job #{job.pk} {job.status}: {job.progress_done}/{job.progress_total} documents, "
            f"updated {counters.get('updated', 0)}, unchanged {counters.get('unchanged', 0)}, "
            f"failed {counters.get('failed', 0)}"))
        for failure in job.failures:
            self.stdout.write(self.style.ERROR(f"  failed  {failure['item']}: {failure['reason']}"))
