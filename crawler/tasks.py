"""django-q2 entry points: each takes a job id, loads the row and calls one domain function."""

from crawler import jobs
from knowledge.models import Job


def run_crawl_job(job_id: int) -> None:
    jobs.run_crawl(Job.objects.select_related("knowledge_base").get(pk=job_id))
