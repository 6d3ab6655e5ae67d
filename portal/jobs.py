"""Enqueueing background work and running it with its state on a `Job` row.

Each app's `tasks.py` registers its task functions here from `AppConfig.ready()`, under a job kind
(or, for work that is not a `Job`, a name such as "triage"); domain code then calls
`enqueue(job)` and never imports its app's tasks, so no domain module depends on an interface.

`enqueue` is the only way work reaches django-q2: it passes the registered function object (not a
dotted string), waits for the surrounding transaction to commit (a worker must see the rows it is
given), and stores the task id on the job.

Jobs cannot hang: while `run` works, a thread writes the job's `heartbeat_at` every
`JOB_HEARTBEAT_SECONDS`; `reap_stale_jobs` (a django-q2 schedule, every minute) fails running jobs
whose heartbeat is older than `JOB_STALE_SECONDS` — their worker was killed — instead of waiting an
hour for the broker to redeliver them. Whichever way a job ends (done, cancelled, failed, reaped),
its documents are left in a final state: ready, or `error` with the reason.
"""

import logging
import os
import threading
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import connections, transaction
from django.utils import timezone
from django_q.tasks import async_task

from knowledge.exceptions import KnowledgeError

# chunks, not ingestion: ingestion reaches the layered index, which imports this module.
from knowledge.indexing.chunks import settle_documents
from knowledge.models import Document, Job
from webhooks.events import publish

logger = logging.getLogger(__name__)

REAPER_SCHEDULE = "reap-stale-jobs"
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
    heartbeat = Heartbeat(job.pk)
    try:
        body(job)
    except Exception as exc:
        logger.exception("%s failed", job)
        # A domain error's message is written for people; anything else keeps its type.
        job.fail(str(exc) if isinstance(exc, KnowledgeError) else f"{type(exc).__name__}: {exc}")
        publish_finished(job)
        raise
    finally:
        heartbeat.stop()
        settle_documents(job_documents(job), f"{job} ended before this document was indexed")
    job.finish()
    publish_finished(job)
    return job


def publish_finished(job: Job) -> None:
    """Say that the job ended (the `job.finished` webhook event)."""
    publish("job.finished", {"job": {"id": job.pk, "kind": job.kind, "status": job.status,
                                     "status_label": job.status_label, "failures": len(job.failures),
                                     "knowledge_base_id": job.knowledge_base_id, "counters": job.counters,
                                     "error_message": job.error_message}},
            knowledge_base_id=job.knowledge_base_id)


class Heartbeat:
    """A daemon thread that writes `heartbeat_at` on a running job until stopped; `on_beat` runs with
    each beat (a worker sharing a job renews the leases of its documents there)."""

    def __init__(self, job_id: int, *, on_beat: Callable[[], None] | None = None):
        self.job_id, self.on_beat, self.stopped = job_id, on_beat, threading.Event()
        self.thread = threading.Thread(target=self._beat, name=f"heartbeat-{job_id}", daemon=True)
        self.thread.start()

    def _beat(self) -> None:
        try:
            while not self.stopped.wait(settings.PORTAL["JOB_HEARTBEAT_SECONDS"]):
                Job.objects.filter(pk=self.job_id, status=Job.Status.RUNNING).update(heartbeat_at=timezone.now())
                if self.on_beat:
                    self.on_beat()
        except Exception:  # noqa: BLE001 - a lost heartbeat must not end the job; the reaper will judge
            logger.exception("Heartbeat of job %s stopped", self.job_id)
        finally:
            connections.close_all()  # this thread's own connections

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=5)


def lower_worker_priority(sender=None, proc_name: str = "", **kwargs) -> None:
    """In each new django-q2 worker: yield the CPU to web requests (`PORTAL_WORKER_NICE`).

    Ingestion (parsing, embedding) is CPU-bound and can wait a little; a search cannot. On a small
    machine this keeps search latency under upload load near what it is alone (bench/concurrency.py).
    """
    from django_q.conf import Conf

    niceness = settings.PORTAL["WORKER_NICE"]
    # In sync mode (tests) the "worker" runs inside the calling process, which must keep its priority.
    if niceness and not Conf.SYNC:
        os.nice(niceness)


def job_documents(job: Job):
    """The documents a job works on: those it names, else its base's documents being indexed."""
    ids = job.options.get("document_ids")
    if ids:
        return Document.objects.filter(pk__in=ids)
    if job.knowledge_base_id is None:
        return Document.objects.none()
    others_alive = Job.objects.filter(knowledge_base_id=job.knowledge_base_id, status=Job.Status.RUNNING,
                                      heartbeat_at__gte=_stale_before()).exclude(pk=job.pk)
    if others_alive.exists():
        return Document.objects.none()  # their documents are theirs to finish
    return Document.objects.filter(knowledge_base_id=job.knowledge_base_id, status=Document.Status.INDEXING)


def _stale_before():
    return timezone.now() - timedelta(seconds=settings.PORTAL["JOB_STALE_SECONDS"])


def reap_stale_jobs() -> int:
    """Fail running jobs whose worker stopped beating; return how many were reaped."""
    reaped = 0
    for job in Job.objects.filter(status=Job.Status.RUNNING, heartbeat_at__lt=_stale_before()):
        message = (f"The worker running this job stopped (killed, out of memory or the machine restarted); "
                   f"last sign of life {job.heartbeat_at:%Y-%m-%d %H:%M:%S} UTC. Start it again to finish.")
        # Conditional: a job that beat again in the meantime is alive after all.
        claimed = Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING, heartbeat_at=job.heartbeat_at).update(
            status=Job.Status.FAILED, finished_at=timezone.now(), error_message=message, updated_at=timezone.now())
        if not claimed:
            continue
        logger.warning("Reaped %s: %s", job, message)
        settle_documents(job_documents(job), f"Indexing stopped: {message}")
        _drop_queued_copy(job)
        job.refresh_from_db()
        publish_finished(job)
        reaped += 1
    return reaped


def _drop_queued_copy(job: Job) -> None:
    """Remove the database broker's locked copy of the task, which would otherwise run it again in an hour."""
    if not job.task_id or settings.Q_CLUSTER.get("redis"):
        return  # Redis removes a task from its queue when a worker takes it
    from django_q.models import OrmQ

    for queued in OrmQ.objects.all():
        try:
            task_id = queued.task_id()
        except Exception:  # noqa: BLE001 - an undecodable entry is not ours to judge
            continue
        if task_id == job.task_id:
            queued.delete()


def schedule_reaper() -> None:
    """Declare the reaper's schedule (every minute); idempotent."""
    from django_q.models import Schedule

    Schedule.objects.update_or_create(name=REAPER_SCHEDULE, defaults={
        "func": "portal.jobs.reap_stale_jobs", "schedule_type": Schedule.MINUTES, "minutes": 1, "repeats": -1,
    })
