"""django-q2 entry points: each takes a job id, loads the row and calls one domain function.

`register()` runs from `EvaluationConfig.ready()`: `portal.jobs.enqueue(job)` then finds the task
of each job kind here, and the domain modules never import this interface.
"""

from evaluation import runs, shadow
from knowledge.models import Job
from portal.jobs import register as register_task
from portal.jobs import run


def run_evaluation_job(job_id: int) -> None:
    run(Job.objects.select_related("knowledge_base").get(pk=job_id), runs.run_job)


def run_switch_job(job_id: int) -> None:
    run(Job.objects.select_related("knowledge_base").get(pk=job_id), shadow.run_build)


def register() -> None:
    register_task(Job.Kind.EVALUATE, run_evaluation_job)
    register_task(Job.Kind.SHADOW, run_switch_job)
