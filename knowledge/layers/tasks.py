"""django-q2 entry point for repository indexing: takes a job id, loads the row, calls one function."""

from knowledge.layers import indexing
from knowledge.models import Job


def run_index_repo_job(job_id: int) -> None:
    indexing.run_index_repo(Job.objects.select_related("knowledge_base").get(pk=job_id))
