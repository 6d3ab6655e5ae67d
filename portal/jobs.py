"""Enqueueing background work and running it with its state on a `Job` row.

Each app's `tasks.py` registers its task functions here from `AppConfig.ready()`, under a job kind
(or, for work that is not a `Job`, a name such as "triage"); domain code then calls
`enqueue(job)` and never imports its app's tasks, so no domain module depends on an interface.

`enqueue` is the only way work reaches django-q2: it passes the registered function object (not a
dotted string), waits for the surrounding transaction to commit (a worker must see the rows it is
given), and stores the task id on the job.

Each run takes the job first (`claim`): a conditional UPDATE moves it from queued to running and
counts an attempt, the job's lease. A task delivered twice (the database broker redelivers a task
not acknowledged after `retry` seconds; a reaped job is queued again) therefore runs the job once:
the copy that finds it running with a live heartbeat, or finished, does nothing. Only the run
holding the current attempt writes the heartbeat, the documents' final state and the outcome.

Jobs cannot hang: while `run` works, a thread writes the job's `heartbeat_at` every
`JOB_HEARTBEAT_SECONDS`. `reap_stale_jobs` (a django-q2 schedule, every minute, and a thread in
every worker process every `JOB_REAP_SECONDS`) takes running jobs whose heartbeat is older than
`JOB_STALE_SECONDS` — their worker was killed, or its machine went away — and queues them again
for another worker, up to `JOB_MAX_ATTEMPTS` attempts in all; after the last one the job fails
with the reason. With Redis a task taken by a worker has left the queue, so without the reaper a
killed worker's task would be lost. Whichever way a job ends (done, cancelled, failed, reaped),
its documents are left in a final state: ready, or `error` with the reason.
"""

import logging
import os
import random
import socket
import threading
import time
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import connections, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext
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
    """Run `body(job)` with the job's state kept on its row; a crash marks the job failed.

    A job this task cannot take (finished, running elsewhere, out of attempts) is left alone.
    """
    attempt = claim(job)
    if attempt is None:
        return job
    heartbeat = Heartbeat(job.pk, attempt)
    try:
        body(job)
    except Exception as exc:
        if isinstance(exc, KnowledgeError):  # a path that does not exist, a bad commit: no traceback to read
            logger.warning("%s failed: %s", job, exc)
        else:
            logger.exception("%s failed", job)
        if holds(job, attempt):
            # A domain error's message is written for people; anything else keeps its type.
            job.fail(str(exc) if isinstance(exc, KnowledgeError) else f"{type(exc).__name__}: {exc}")
            publish_finished(job)
        raise
    finally:
        heartbeat.stop()
        if holds(job, attempt):  # else the worker that took the job over settles them
            ended = gettext("%(job)s ended before this document was indexed") % {"job": job}
            settle_documents(job_documents(job), ended)
    if not holds(job, attempt):
        logger.warning("%s was taken over by another worker while this one ran it; its outcome is theirs", job)
        return job
    job.finish()
    publish_finished(job)
    return job


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def claim(job: Job) -> int | None:
    """Take the job for this worker and return the attempt it runs as, or None when the job is not
    this task's to run: finished, running with a live heartbeat, or stale after its last attempt
    (the reaper fails it). A stale running job is taken over: its task was redelivered after its
    worker died."""
    now = timezone.now()
    takeable = Q(status=Job.Status.QUEUED) | Q(status=Job.Status.RUNNING, heartbeat_at__lt=_stale_before())
    claimed = Job.objects.filter(takeable, pk=job.pk, attempts__lt=settings.PORTAL["JOB_MAX_ATTEMPTS"]).update(
        status=Job.Status.RUNNING, attempts=F("attempts") + 1, worker=worker_name(), started_at=now,
        heartbeat_at=now, finished_at=None, error_message="", updated_at=now)
    current = Job.objects.filter(pk=job.pk).values("status", "attempts", "worker").first()
    if not claimed or current is None:
        logger.info("%s is not this task's to run (%s); nothing to do", job, current and current["status"])
        if current:
            job.status, job.attempts, job.worker = current["status"], current["attempts"], current["worker"]
        return None
    job.status, job.attempts, job.worker = Job.Status.RUNNING, current["attempts"], current["worker"]
    job.started_at = job.heartbeat_at = now
    job.finished_at, job.error_message = None, ""
    return job.attempts


def holds(job: Job, attempt: int) -> bool:
    """Whether this run still holds the job's lease (no other worker took it over)."""
    return Job.objects.filter(pk=job.pk, attempts=attempt, worker=worker_name()).exists()


def publish_finished(job: Job) -> None:
    """Say that the job ended (the `job.finished` webhook event)."""
    publish("job.finished", {"job": {"id": job.pk, "kind": job.kind, "status": job.status,
                                     "status_label": job.status_label, "failures": len(job.failures),
                                     "knowledge_base_id": job.knowledge_base_id, "counters": job.counters,
                                     "error_message": job.error_message}},
            knowledge_base_id=job.knowledge_base_id)


class Heartbeat:
    """A daemon thread that writes `heartbeat_at` on a running job, for the attempt it runs as, until
    stopped; `on_beat` runs with each beat (a worker sharing a job renews its documents' leases there)."""

    def __init__(self, job_id: int, attempt: int, *, on_beat: Callable[[], None] | None = None):
        self.job_id, self.attempt, self.on_beat, self.stopped = job_id, attempt, on_beat, threading.Event()
        self.thread = threading.Thread(target=self._beat, name=f"heartbeat-{job_id}", daemon=True)
        self.thread.start()

    def _beat(self) -> None:
        try:
            while not self.stopped.wait(settings.PORTAL["JOB_HEARTBEAT_SECONDS"]):
                Job.objects.filter(pk=self.job_id, status=Job.Status.RUNNING, attempts=self.attempt).update(
                    heartbeat_at=timezone.now())
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
    """Queue again the running jobs whose worker stopped beating, or fail those that used their last
    attempt, and queue again the queued jobs whose task was lost; return how many were reaped."""
    reaped = 0
    for job in Job.objects.filter(status=Job.Status.RUNNING, heartbeat_at__lt=_stale_before()):
        if job.attempts < settings.PORTAL["JOB_MAX_ATTEMPTS"]:
            reaped += _requeue(job)
        else:
            reaped += _give_up(job)
    return reaped + requeue_lost_tasks()


def requeue_lost_tasks() -> int:
    """Queue again the jobs queued for over `JOB_STALE_SECONDS` whose task is no longer in Redis.

    A worker cluster fetches tasks ahead of its processes (django-q2 holds up to PORTAL_WORKERS²
    of them); with Redis they have left the queue, so a cluster killed with them loses them and
    their jobs would wait forever. A job whose task is only waiting behind a long one in a live
    cluster gets another copy each `JOB_STALE_SECONDS`, which an idle worker may run first: whichever
    runs first claims the job, the others do nothing. The database broker keeps a fetched task until
    it is done and delivers it again by itself.
    """
    if not settings.Q_CLUSTER.get("redis"):
        return 0
    waiting = Job.objects.filter(status=Job.Status.QUEUED, updated_at__lt=_stale_before()).exclude(task_id="")
    if not waiting.exists():
        return 0
    in_redis = _redis_task_ids()
    if in_redis is None:
        return 0
    requeued = 0
    for job in waiting.exclude(task_id__in=in_redis):
        if Job.objects.filter(pk=job.pk, status=Job.Status.QUEUED, updated_at=job.updated_at).update(
                updated_at=timezone.now()):
            logger.warning("%s: its task %s has left the Redis queue without starting (fetched by a worker that "
                           "died, or waiting behind a busy one); queued again", job, job.task_id)
            enqueue(job)
            requeued += 1
    return requeued


def _redis_task_ids(limit: int = 10_000) -> set[str] | None:
    """The ids of the tasks waiting in Redis, or None for a backlog too long to read every time
    (its jobs wait their turn anyway)."""
    from django_q.brokers import get_broker
    from django_q.signing import SignedPackage

    broker = get_broker()
    if broker.queue_size() > limit:
        return None
    ids = set()
    for package in broker.connection.lrange(broker.list_key, 0, -1):
        try:
            ids.add(SignedPackage.loads(package)["id"])
        except Exception:  # noqa: BLE001, S112 - not a task of ours (another secret, another version)
            continue
    return ids


def _still_stale(job: Job):
    """The job as the reaper saw it: a worker that beat again, or took it over, makes it alive after all."""
    return Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING, heartbeat_at=job.heartbeat_at,
                              attempts=job.attempts)


def _requeue(job: Job) -> int:
    """Put a dead worker's job back in the queue for another worker; its run starts over (a shared
    job resumes). The next run counts and lists again what it does; its documents stay in indexing meanwhile."""
    # A shared job (knowledge/shares.py) resumes its planned documents, so it keeps what it counted.
    fresh = {} if job.work_items.exists() else {"counters": {}, "failures": [], "progress_done": 0,
                                                 "current_item": ""}
    claimed = _still_stale(job).update(status=Job.Status.QUEUED, heartbeat_at=None, worker="",
                                       updated_at=timezone.now(), **fresh)
    if not claimed:
        return 0
    logger.warning("%s: its worker %s stopped beating at %s UTC; queued again (attempt %s of %s next)", job,
                   job.worker or "?", f"{job.heartbeat_at:%H:%M:%S}", job.attempts + 1,
                   settings.PORTAL["JOB_MAX_ATTEMPTS"])
    _drop_queued_copy(job)
    enqueue(job)
    return 1


def _give_up(job: Job) -> int:
    attempts = settings.PORTAL["JOB_MAX_ATTEMPTS"]
    values = {"time": f"{job.heartbeat_at:%Y-%m-%d %H:%M:%S}", "attempts": job.attempts, "limit": attempts}
    if job.attempts == 1:
        message = gettext("The worker running this job stopped (killed, out of memory or the machine restarted); "
                          "last sign of life %(time)s UTC, after %(attempts)d attempt "
                          "(PORTAL_JOB_MAX_ATTEMPTS=%(limit)s). Start it again to finish.") % values
    else:
        message = gettext("The worker running this job stopped (killed, out of memory or the machine restarted); "
                          "last sign of life %(time)s UTC, after %(attempts)d attempts "
                          "(PORTAL_JOB_MAX_ATTEMPTS=%(limit)s). Start it again to finish.") % values
    # One transaction: whoever sees the job failed sees its documents settled and its task gone from the
    # database broker (a test that read the queue as soon as the job ended found the task still there).
    with transaction.atomic():
        claimed = _still_stale(job).update(status=Job.Status.FAILED, finished_at=timezone.now(),
                                           error_message=message, updated_at=timezone.now())
        if not claimed:
            return 0
        settle_documents(job_documents(job), gettext("Indexing stopped: %(reason)s") % {"reason": message})
        _drop_queued_copy(job)
    logger.warning("Reaped %s: %s", job, message)
    job.refresh_from_db()
    publish_finished(job)
    return 1


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


def start_reaper(sender=None, proc_name: str = "", **kwargs) -> None:
    """In each new django-q2 worker: a thread that reaps stale jobs every `JOB_REAP_SECONDS`, so a
    dead worker's job is queued again within seconds of going stale, not at the next minute's
    schedule. Every worker on every machine may run it: each job is reaped by one conditional UPDATE."""
    from django_q.conf import Conf

    interval = settings.PORTAL["JOB_REAP_SECONDS"]
    if interval > 0 and not Conf.SYNC:
        start_periodic(reap_stale_jobs, interval, name="job-reaper")


def start_periodic(func: Callable[[], object], interval: float, *, name: str) -> None:
    """Run `func` every `interval` seconds in a daemon thread of this process (a django-q2 worker):
    for work that must not wait for django-q2's scheduler, which looks at its schedules every 30 s."""
    threading.Thread(target=_every, args=(func, interval), name=name, daemon=True).start()


def _every(func: Callable[[], object], interval: float) -> None:
    while True:
        # Jittered, so the workers of one cluster do not all query at the same moment.
        time.sleep(interval * random.uniform(0.75, 1.25))
        try:
            func()
        except Exception:  # noqa: BLE001 - the database may be away for a while; try again next time
            logger.exception("%s failed", func.__name__)
        finally:
            connections.close_all()  # this thread's own connections


def schedule_reaper() -> None:
    """Declare the reaper's schedule (every minute); idempotent."""
    from django_q.models import Schedule

    Schedule.objects.update_or_create(name=REAPER_SCHEDULE, defaults={
        "func": "portal.jobs.reap_stale_jobs", "schedule_type": Schedule.MINUTES, "minutes": 1, "repeats": -1,
    })
