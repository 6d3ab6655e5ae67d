"""Enqueueing background work and running it with its state on a `Job` row.

`enqueue` is the only way work reaches django-q2: it passes the function object (typos fail at
import, not in the worker), waits for the surrounding transaction to commit (a worker must see
the rows it is given), and stores the task id on the job.
"""

import logging
from collections.abc import Callable

from django.db import transaction
from django_q.tasks import async_task

from knowledge.models import Job
from webhooks.events import publish

logger = logging.getLogger(__name__)


def enqueue(func: Callable[[int], None], job: Job) -> None:
    """Queue `func(job.pk)` once the current transaction commits."""

    def send() -> None:
        task_id = async_task(func, job.pk, task_name=f"{job.kind}-{job.pk}")
        Job.objects.filter(pk=job.pk).update(task_id=str(task_id or ""))

    transaction.on_commit(send)


def run(job: Job, body: Callable[[Job], None]) -> Job:
    """Run `body(job)` with the job's state kept on its row; a crash marks the job failed."""
    if job.is_finished and job.status != Job.Status.FAILED:
        return job  # a redelivered task whose work is already done
    job.start()
    try:
        body(job)
    except Exception as exc:
        logger.exception("%s failed", job)
        job.fail(f"{type(exc).__name__}: {exc}")
        _published(job)
        raise
    job.finish()
    _published(job)
    return job


def _published(job: Job) -> None:
    publish("job.finished", {"job": {"id": job.pk, "kind": job.kind, "status": job.status,
                                     "knowledge_base_id": job.knowledge_base_id, "counters": job.counters,
                                     "error_message": job.error_message}},
            knowledge_base_id=job.knowledge_base_id)
