"""Crawls as background jobs: `start_crawl` creates the job and enqueues it, `run_crawl` does it.

The crawl's progress, counters and per-URL failures live on the `knowledge.Job` row (kind
`crawl`), written after every page, so the admin and the API show them while it runs;
`job.request_cancel()` stops it between two pages.
"""

from dataclasses import asdict

from django.db import transaction

from crawler import guard, urlnorm
from crawler.crawling import CrawlOptions, Progress, crawl_site
from crawler.exceptions import CrawlerError
from knowledge.models import Job, KnowledgeBase
from portal.jobs import enqueue, run


@transaction.atomic
def start_crawl(kb: KnowledgeBase, seed_url: str, *, user=None, **options) -> Job:
    """Validate the seed and options, create a crawl job and queue it after commit.

    Options are those of `crawl_site` (max_pages, max_depth, same_domain, follow_docs,
    respect_robots, use_sitemap, allow_hosts). Raises `CrawlerError` (or a subclass) when refused.
    """
    from crawler import tasks

    job = create_crawl_job(kb, seed_url, user=user, **options)
    enqueue(tasks.run_crawl_job, job)
    return job


def create_crawl_job(kb: KnowledgeBase, seed_url: str, *, user=None, **options) -> Job:
    """The job row of a crawl, not queued (the `crawl` command runs it in the foreground)."""
    seed = urlnorm.normalize_url(seed_url)
    try:
        crawl_options = CrawlOptions(**{**options, "allow_hosts": tuple(options.get("allow_hosts") or ())})
    except TypeError as exc:
        raise CrawlerError(f"Unknown crawl option: {exc}") from None
    guard.check_url(seed, allow_hosts=crawl_options.allow_hosts)
    return Job.objects.create(kind=Job.Kind.CRAWL, knowledge_base=kb, created_by=user,
                              options={"seed_url": seed, **asdict(crawl_options)},
                              progress_total=crawl_options.max_pages)


def run_crawl(job: Job, *, progress: Progress | None = None) -> Job:
    """Run the job's crawl (in a worker, or in the foreground for the `crawl` command)."""
    return run(job, lambda job: _crawl(job, progress))


def _crawl(job: Job, progress: Progress | None) -> None:
    if job.knowledge_base is None:
        raise CrawlerError("The knowledge base of this job was deleted")
    if job.counters or job.failures:
        # A redelivered task starts the crawl over (pages fetched before are mostly 304s now);
        # its counters start over with it, so they describe one crawl.
        job.counters, job.failures, job.progress_done = {}, [], 0
        job.save(update_fields=["counters", "failures", "progress_done", "updated_at"])
    options = dict(job.options)
    seed = options.pop("seed_url")
    crawl_site(job.knowledge_base, seed, job=job, progress=progress, **options)
