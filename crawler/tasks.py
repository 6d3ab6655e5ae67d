"""django-q2 entry points: each takes a job id, loads the row and calls one domain function.

`register()` runs from `CrawlerConfig.ready()`, so `portal.jobs.enqueue(job)` finds the crawl task.
"""

from crawler import jobs
from knowledge.models import Job
from portal.jobs import register as register_task


def run_crawl_job(job_id: int) -> None:
    jobs.run_crawl(Job.objects.select_related("knowledge_base").get(pk=job_id))


def register() -> None:
    register_task(Job.Kind.CRAWL, run_crawl_job)
