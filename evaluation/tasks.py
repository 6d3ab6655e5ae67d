"""django-q2 entry points: each takes a job id, loads the row and calls one domain function."""

from evaluation import runs, shadow
from knowledge.models import Job
from portal.jobs import run


def run_evaluation_job(job_id: int) -> None:
    run(Job.objects.select_related("knowledge_base").get(pk=job_id), runs.run_job)


def run_switch_job(job_id: int) -> None:
    run(Job.objects.select_related("knowledge_base").get(pk=job_id), shadow.run_build)
