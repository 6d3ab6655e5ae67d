"""kill -9 of a real qcluster worker mid-ingest: the reaper fails the job within minutes, not an hour."""

import time
from datetime import timedelta
from importlib import import_module

import psutil
from django.apps import apps
from django.core.files import File
from django.test import TransactionTestCase
from django.utils import timezone
from django_q.conf import Conf
from django_q.models import OrmQ, Schedule

from knowledge import jobs
from knowledge.models import Document, Job
from tests.conftest import DATA
from tests.e2e.worker import running_worker, wait_for
from tests.factories import make_kb
from tests.stubs.openai_stub import OpenAIStub


class ReaperWithRealWorkerTests(TransactionTestCase):
    def setUp(self):
        Conf.SYNC = False
        self.addCleanup(setattr, Conf, "SYNC", True)

    def test_a_job_of_a_killed_worker_is_failed_and_no_document_stays_indexing(self):
        stub = OpenAIStub().start()
        self.addCleanup(stub.stop)
        stub.behaviour, stub.delay = "slow", 0.5
        # TransactionTestCase empties the tables between tests: declare the schedule again, due now.
        import_module("portal.migrations.0004_reaper_schedule").schedule(apps, None)
        Schedule.objects.filter(name="reap-stale-jobs").update(next_run=timezone.now() - timedelta(seconds=1))
        env = {"OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": "k", "PORTAL_OPENAI_EMBEDDING_DIM": "256",
               "PORTAL_JOB_HEARTBEAT_SECONDS": "1", "PORTAL_JOB_STALE_SECONDS": "5"}
        from django.conf import settings

        openai = {**settings.OPENAI, "BASE_URL": stub.base_url, "API_KEY": "k", "EMBEDDING_DIM": 256}
        with self.settings(OPENAI=openai):
            kb = make_kb(embedder="openai", chunk_size=300, chunk_overlap=30, chunk_min_size=50)
            path = DATA / "documents/md/en/react-reference-react-useState.md"
            with open(path, "rb") as handle:
                job, _ = jobs.add_uploads(kb, [File(handle, name=path.name)])
            with running_worker(**env) as worker:
                wait_for(lambda: Job.objects.get(pk=job.pk).counters.get("chunks_embedded", 0) > 0,
                         what="the first embedded batch")
                # The cluster's processes (workers, monitor, pusher) are children of its sentinel.
                sentinel = psutil.Process(worker.pid).children()[0]
                # Workers run niced (PORTAL_WORKER_NICE), so ingestion yields the CPU to searches.
                self.assertIn(min(psutil.Process().nice() + 10, 19), [c.nice() for c in sentinel.children()])
                for child in sentinel.children(recursive=True):
                    child.kill()
                killed_at = time.monotonic()
                wait_for(lambda: Job.objects.get(pk=job.pk).is_finished, timeout=300, interval=1,
                         what="the reaper to fail the job")
                self.assertIsNone(worker.poll(), "the cluster itself died")
        reaped_after = time.monotonic() - killed_at
        job.refresh_from_db()
        self.assertEqual(job.status, Job.Status.FAILED)
        self.assertIn("The worker running this job stopped", job.error_message)
        self.assertFalse(Document.objects.filter(status__in=["indexing", "pending"]).exists())
        document = Document.objects.get()
        self.assertEqual(document.status, Document.Status.ERROR)
        self.assertIn("Indexing stopped", document.error_message)
        queued = [(entry.task_id(), entry.func()) for entry in OrmQ.objects.all()]
        self.assertNotIn(job.task_id, [task_id for task_id, _ in queued], "the broker would run it again in an hour")
        print(f"\nreaped {reaped_after:.0f} s after the kill")
