"""django-q2 entry points: each takes a job id, loads the row and calls one domain function.

`register()` runs from `KnowledgeConfig.ready()`: `portal.jobs.enqueue(job)` then finds the task
of each job kind here, and the domain modules never import this interface.
"""

from knowledge import jobs, shares
from knowledge.indexing import term_statistics
from knowledge.indexing.layers import store
from knowledge.models import Job
from portal.jobs import register as register_task


def run_ingestion_job(job_id: int) -> None:
    jobs.run_ingestion(Job.objects.select_related("knowledge_base").get(pk=job_id))


def run_reindex_job(job_id: int) -> None:
    jobs.run_reindex(Job.objects.select_related("knowledge_base").get(pk=job_id))


def run_ingestion_share(job_id: int) -> None:
    """Another worker's part in a large ingestion or re-index job (`knowledge/shares.py`)."""
    jobs.join_ingestion(Job.objects.select_related("knowledge_base").get(pk=job_id))


def run_delete_job(job_id: int) -> None:
    jobs.run_delete(Job.objects.get(pk=job_id))


def run_index_repo_job(job_id: int) -> None:
    store.run_index_repo(Job.objects.select_related("knowledge_base").get(pk=job_id))


def run_take_due_term_statistics() -> None:
    """The minute's sweep taking the term statistics that are missing or stale (migration 0023)."""
    term_statistics.take_due()


def register() -> None:
    register_task(Job.Kind.INGEST, run_ingestion_job)
    register_task(Job.Kind.REINDEX, run_reindex_job)
    register_task(shares.SHARE_TASK, run_ingestion_share)
    register_task(Job.Kind.DELETE, run_delete_job)
    register_task(Job.Kind.INDEX_REPO, run_index_repo_job)
