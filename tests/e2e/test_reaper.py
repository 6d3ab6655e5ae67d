"""kill -9 of a real qcluster worker mid-ingest, with the database broker: the reaper queues the job
again within seconds and the cluster's new worker process runs it to the end; after the last attempt
the job is failed instead. (With Redis and two machines: tests/e2e/test_scale_out.py.)"""

import time
from datetime import timedelta
from importlib import import_module

import psutil
from django.apps import apps
from django.conf import settings
from django.core.files import File
from django.test import TransactionTestCase
from django.utils import timezone
from django_q.conf import Conf
from django_q.models import OrmQ, Schedule

from knowledge import jobs
from knowledge.models import Chunk, Document, Job
from tests.conftest import DATA
from tests.e2e.worker import running_worker, wait_for
from tests.factories import make_kb
from tests.stubs.openai_stub import OpenAIStub


class ReaperWithRealWorkerTests(TransactionTestCase):
    def setUp(self):
        Conf.SYNC = False
        self.addCleanup(setattr, Conf, "SYNC", True)

    def kill_mid_ingestion(self, **env) -> tuple[Job, str, float]:
        """Upload a document, kill the worker processes of a real cluster once the first batch is
        embedded, and wait until the job ends; the job, the killed task's id and the seconds that took."""
        stub = OpenAIStub().start()
        self.addCleanup(stub.stop)
        stub.behaviour, stub.delay = "slow", 0.5
        # TransactionTestCase empties the tables between tests: declare the schedule again, due now.
        import_module("portal.migrations.0004_reaper_schedule").schedule(apps, None)
        Schedule.objects.filter(name="reap-stale-jobs").update(next_run=timezone.now() - timedelta(seconds=1))
        env = {"OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": "k", "PORTAL_OPENAI_EMBEDDING_DIM": "256",
               "PORTAL_JOB_HEARTBEAT_SECONDS": "1", "PORTAL_JOB_STALE_SECONDS": "5", **env}
        openai = {**settings.OPENAI, "BASE_URL": stub.base_url, "API_KEY": "k", "EMBEDDING_DIM": 256}
        with self.settings(OPENAI=openai):
            kb = make_kb(embedder="openai", chunk_size=300, chunk_overlap=30, chunk_min_size=50)
            path = DATA / "documents/md/en/react-reference-react-useState.md"
            with open(path, "rb") as handle:
                job, _ = jobs.add_uploads(kb, [File(handle, name=path.name)])
            with running_worker(**env) as worker:
                wait_for(lambda: Job.objects.get(pk=job.pk).counters.get("chunks_embedded", 0) > 0,
                         what="the first embedded batch")
                killed_task = Job.objects.get(pk=job.pk).task_id
                # The cluster's processes (workers, monitor, pusher) are children of its sentinel.
                sentinel = psutil.Process(worker.pid).children()[0]
                # Workers run niced (PORTAL_WORKER_NICE), so ingestion yields the CPU to searches.
                self.assertIn(min(psutil.Process().nice() + 10, 19), [c.nice() for c in sentinel.children()])
                for child in sentinel.children(recursive=True):
                    child.kill()
                killed_at = time.monotonic()
                stub.delay = 0.05
                wait_for(lambda: Job.objects.get(pk=job.pk).is_finished, timeout=300, interval=1,
                         what="the job to end")
                self.assertIsNone(worker.poll(), "the cluster itself died")
        job.refresh_from_db()
        return job, killed_task, time.monotonic() - killed_at

    def test_a_killed_workers_job_is_queued_again_and_finished_by_the_new_worker(self):
        job, killed_task, took = self.kill_mid_ingestion(PORTAL_JOB_REAP_SECONDS="1")
        self.assertEqual((job.status, job.attempts), (Job.Status.SUCCEEDED, 2), job.error_message)
        document = Document.objects.get()
        self.assertEqual(document.status, Document.Status.READY)
        self.assertEqual(Chunk.objects.filter(document=document).count(), document.chunk_count)
        self.assertNotEqual(job.task_id, killed_task, "the job was not queued again")
        queued = [entry.task_id() for entry in OrmQ.objects.all()]
        self.assertNotIn(killed_task, queued, "the broker would deliver the killed task again in an hour")
        print(f"\nrun again and finished {took:.0f} s after the kill")

    def test_a_job_of_a_killed_worker_is_failed_after_its_last_attempt_and_no_document_stays_indexing(self):
        # The minute's schedule alone finds it (no reaper thread in the workers).
        job, killed_task, took = self.kill_mid_ingestion(PORTAL_JOB_MAX_ATTEMPTS="1", PORTAL_JOB_REAP_SECONDS="0")
        self.assertEqual(job.status, Job.Status.FAILED)
        self.assertIn("The worker running this job stopped", job.error_message)
        self.assertIn("after 1 attempt (PORTAL_JOB_MAX_ATTEMPTS=1)", job.error_message)
        self.assertFalse(Document.objects.filter(status__in=["indexing", "pending"]).exists())
        document = Document.objects.get()
        self.assertEqual(document.status, Document.Status.ERROR)
        self.assertIn("Indexing stopped", document.error_message)
        self.assertEqual(job.task_id, killed_task)
        queued = [entry.task_id() for entry in OrmQ.objects.all()]
        self.assertNotIn(killed_task, queued, "the broker would run it again in an hour")
        print(f"\nreaped {took:.0f} s after the kill")
