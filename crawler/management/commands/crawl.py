"""manage.py crawl <kb-slug> <url> — crawl a site into a knowledge base in the foreground."""

import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from crawler import jobs
from crawler.crawling import COUNTERS, CrawlReport
from crawler.exceptions import CrawlerError
from knowledge.models import Job, KnowledgeBase


class Command(BaseCommand):
    help = "Crawl a site into a knowledge base, with a progress bar, and print the crawl report."

    def add_arguments(self, parser):
        parser.add_argument("kb_slug")
        parser.add_argument("url")
        parser.add_argument("--max-pages", type=int, default=100)
        parser.add_argument("--max-depth", type=int, default=3)
        parser.add_argument("--follow-docs", action="store_true", help="Also ingest linked PDF, DOCX, XLSX… files.")
        parser.add_argument("--no-robots", action="store_true", help="Ignore robots.txt and robots meta tags.")
        parser.add_argument("--no-sitemap", action="store_true", help="Do not read sitemap.xml.")
        parser.add_argument("--any-domain", action="store_true", help="Follow links to other sites too.")
        parser.add_argument("--allow-host", action="append", default=[], metavar="HOST",
                            help="Let the crawler reach this private host, address or network (repeatable).")

    def handle(self, *args, kb_slug, url, **options):
        kb = KnowledgeBase.objects.filter(slug=kb_slug).first()
        if kb is None:
            raise CommandError(f"No knowledge base with slug {kb_slug!r}")
        crawl_options = {
            "max_pages": options["max_pages"], "max_depth": options["max_depth"],
            "follow_docs": options["follow_docs"], "respect_robots": not options["no_robots"],
            "use_sitemap": not options["no_sitemap"], "same_domain": not options["any_domain"],
            "allow_hosts": options["allow_host"],
        }
        try:
            job = jobs.create_crawl_job(kb, url, **crawl_options)
        except CrawlerError as exc:
            raise CommandError(str(exc)) from None
        reports: list[CrawlReport] = []
        with tqdm(total=options["max_pages"], desc=f"Crawling into {kb.slug}", unit="page",
                  file=sys.stderr, disable=options["verbosity"] == 0) as bar:
            def progress(report: CrawlReport) -> None:
                bar.total = min(options["max_pages"], report.queued) or 1
                bar.n = report.fetched
                bar.set_postfix(ingested=report.ingested, failed=report.failed, refresh=False)
                bar.refresh()
                reports[:] = [report]

            job = jobs.run_crawl(job, progress=progress)
        self.print_report(job, reports[0] if reports else None, verbose=options["verbosity"] >= 2)

    def print_report(self, job: Job, report: CrawlReport | None, *, verbose: bool) -> None:
        counters = report.counters() if report else job.counters
        status = self.style.SUCCESS if job.status == Job.Status.SUCCEEDED else self.style.WARNING
        self.stdout.write(status(f"Crawl job #{job.pk}: {job.status_label}"))
        if job.error_message:
            self.stdout.write(status(f"  {job.error_message}"))
        self.stdout.write("  " + ", ".join(f"{name.replace('_', ' ')}: {counters.get(name, 0)}" for name in COUNTERS))
        for failure in (report.failures if report else job.failures):
            self.stdout.write(self.style.ERROR(f"  failed  {failure['item']}: {failure['reason']}"))
        if report and verbose:
            for skip in report.skipped:
                self.stdout.write(f"  skipped {skip['item']}: {skip['reason']}")
