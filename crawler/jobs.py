"""Crawls as background jobs: `start_crawl` creates the job and enqueues it, `run_crawl` does it.

The crawl's progress, counters and per-URL failures live on the `knowledge.Job` row (kind
`crawl`), written after every page, so the admin and the API show them while it runs;
`job.cancel()` stops it between two pages. `start_ingest_url` runs `ingest_url` the same
way, for "add this URL" in the admin and the API (source kind `url`, no links, no robots.txt), and
`start_recrawl` queues all of a knowledge base's crawls and URLs again.
"""

import logging
from dataclasses import asdict

from django.db import transaction
from django.utils.translation import gettext as _

from crawler import guard, urlnorm
from crawler.crawling import CrawlOptions, Progress, crawl_site, ingest_url
from crawler.exceptions import CrawlerError
from knowledge.models import Job, KnowledgeBase
from portal.jobs import enqueue, run

logger = logging.getLogger(__name__)


@transaction.atomic
def start_crawl(kb: KnowledgeBase, seed_url: str, *, user=None, **options) -> Job:
    """Validate the seed and options, create a crawl job and queue it after commit.

    Options are those of `crawl_site` (max_pages, max_depth, same_domain, follow_docs,
    respect_robots, use_sitemap, allow_hosts). Raises `CrawlerError` (or a subclass) when refused.
    """
    job = create_crawl_job(kb, seed_url, user=user, **options)
    enqueue(job)
    return job


def create_crawl_job(kb: KnowledgeBase, seed_url: str, *, user=None, **options) -> Job:
    """The job row of a crawl, not queued (the `crawl` command runs it in the foreground)."""
    seed = urlnorm.normalize_url(seed_url)
    try:
        crawl_options = CrawlOptions(**{**options, "allow_hosts": tuple(options.get("allow_hosts") or ())})
    except TypeError as exc:
        raise CrawlerError(_("Unknown crawl option: %(error)s") % {"error": exc}) from None
    guard.check_url(seed, allow_hosts=crawl_options.allow_hosts)
    return Job.objects.create(kind=Job.Kind.CRAWL, knowledge_base=kb, created_by=user,
                              options={"seed_url": seed, **asdict(crawl_options)})


@transaction.atomic
def start_ingest_url(kb: KnowledgeBase, url: str, *, user=None) -> Job:
    """Queue `ingest_url` as a one-page job (kind `crawl`); raises `CrawlerError` when refused."""
    url = urlnorm.normalize_url(url)
    guard.check_url(url)
    job = Job.objects.create(kind=Job.Kind.CRAWL, knowledge_base=kb, created_by=user, progress_total=1,
                             options={"seed_url": url, "single_url": True})
    enqueue(job)
    return job


def start_recrawl(kb: KnowledgeBase, *, user=None) -> list[Job]:
    """Queue every crawl and URL of the base again, with the latest options used for each seed.

    Conditional requests and text hashes make this cheap: only changed pages are re-indexed, and
    pages that are gone lose their documents. A seed that is now refused is logged and skipped.
    """
    latest: dict[str, dict] = {}
    crawls = Job.objects.filter(knowledge_base=kb, kind=Job.Kind.CRAWL).order_by("created_at", "pk")
    for options in crawls.values_list("options", flat=True):
        if options.get("seed_url"):
            latest[options["seed_url"]] = options
    queued = []
    for seed, options in latest.items():
        options = {name: value for name, value in options.items() if name != "seed_url"}
        try:
            if options.pop("single_url", False):
                queued.append(start_ingest_url(kb, seed, user=user))
            else:
                queued.append(start_crawl(kb, seed, user=user, **options))
        except CrawlerError as exc:
            logger.warning("Not re-crawling %s: %s", seed, exc)
    return queued


def run_crawl(job: Job, *, progress: Progress | None = None) -> Job:
    """Run the job's crawl (in a worker, or in the foreground for the `crawl` command)."""
    return run(job, lambda job: _crawl(job, progress))


def _crawl(job: Job, progress: Progress | None) -> None:
    if job.knowledge_base is None:
        raise CrawlerError(_("The knowledge base of this job was deleted"))
    if job.counters or job.failures:
        # A redelivered task starts the crawl over (pages fetched before are mostly 304s now);
        # its counters start over with it, so they describe one crawl.
        job.counters, job.failures, job.progress_done, job.progress_total = {}, [], 0, 0
        job.save(update_fields=["counters", "failures", "progress_done", "progress_total", "updated_at"])
        job.crawl_urls.all().delete()
    options = dict(job.options)
    seed = options.pop("seed_url")
    if options.pop("single_url", False):
        _ingest_one(job, seed)
        return
    report = crawl_site(job.knowledge_base, seed, job=job, progress=progress, **options)
    if report.stored_nothing() and not report.cancelled:
        # Nothing got in: the job failed, whatever the reason of each URL (robots.txt, blocked, 404, too large).
        job.error_message = report.why_nothing()


def _ingest_one(job: Job, url: str) -> None:
    try:
        result = ingest_url(job.knowledge_base, url)
    except CrawlerError as exc:  # refused (e.g. the address is blocked): the job fails with the reason
        job.add_failure(url, str(exc))
        job.record(done=1, total=1, fetched=1)
        job.error_message = str(exc)
        return
    if result.outcome == "failed":
        job.add_failure(url, result.error)
        job.error_message = result.error
    outcome = {"created": "ingested", "updated": "ingested"}.get(result.outcome, result.outcome)
    job.record(done=1, total=1, fetched=1, **({outcome: 1} if outcome != "failed" else {}))
