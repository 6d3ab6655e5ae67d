"""Enqueueing background work and running it with its state on a `Job` row.

Each app's `tasks.py` registers its task functions here from `AppConfig.ready()`, under a job kind
(or, for work that is not a `Job`, a name such as "triage"); domain code then calls
`enqueue(job)` and never imports its app's tasks, so no domain module depends on an interface.

`enqueue` is the only way work reaches django-q2: it passes the registered function object (not a
dotted string), waits for the surrounding transaction to commit (a worker must see the rows it is
given), and stores the task id on the job.
"""

import logging
from collections.abc import Callable

from django.db import transaction
from django_q.tasks import async_task

from knowledge.models import Job
from webhooks.events import publish

logger = logging.getLogger(__name__)

Task = Callable[[int], None]
TASKS: dict[str, Task] = {}


def register(name: str, task: Task) -> None:
    """Make `task(pk)` the work queued for `name` (a `Job.Kind` value, or a name like "triage")."""
    TASKS[name] = task


def task_for(name: str) -> Task:
    try:
        return TASKS[name]
    except KeyError:
        raise LookupError(f"No task registered for {name!r}: is its app's tasks.py registered in ready()?") from None


def enqueue(job: Job) -> None:
    """Queue the task registered for the job's kind, with the job's id, once the transaction commits."""

    def stored(task_id: str) -> None:
        Job.objects.filter(pk=job.pk).update(task_id=task_id)

    enqueue_task(job.kind, job.pk, on_queued=stored)


def enqueue_task(name: str, pk: int, *, on_queued: Callable[[str], None] | None = None) -> None:
    """Queue the task registered under `name` with `pk` once the current transaction commits."""
    task = task_for(name)

    def send() -> None:
        task_id = async_task(task, pk, task_name=f"{name}-{pk}")
        if on_queued:
            on_queued(str(task_id or ""))

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
                                     "status_label": job.status_label, "failures": len(job.failures),
                                     "knowledge_base_id": job.knowledge_base_id, "counters": job.counters,
                                     "error_message": job.error_message}},
            knowledge_base_id=job.knowledge_base_id)
