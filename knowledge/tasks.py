"""django-q2 entry points: each takes a job id, loads the row and calls one domain function."""

from knowledge import jobs
from knowledge.indexing.layers import store
from knowledge.models import Job


def run_ingestion_job(job_id: int) -> None:
    jobs.run_ingestion(Job.objects.select_related("knowledge_base").get(pk=job_id))


def run_reindex_job(job_id: int) -> None:
    jobs.run_reindex(Job.objects.select_related("knowledge_base").get(pk=job_id))


def run_delete_job(job_id: int) -> None:
    jobs.run_delete(Job.objects.get(pk=job_id))


def run_index_repo_job(job_id: int) -> None:
    store.run_index_repo(Job.objects.select_related("knowledge_base").get(pk=job_id))
