"""End to end with a real django-q2 worker process (a TransactionTestCase: the worker must see commits)."""

from contextlib import ExitStack
from datetime import timedelta
from unittest import skipUnless

from django.conf import settings
from django.core.files import File
from django.test import TransactionTestCase
from django.utils import timezone
from django_q.conf import Conf
from django_q.models import OrmQ

from knowledge import jobs
from knowledge.models import Chunk, Document, Job
from tests import redis_server
from tests.conftest import DATA
from tests.e2e.worker import kill, run_manage, running_worker, wait_for
from tests.factories import make_kb
from tests.stubs.openai_stub import OpenAIStub


class RealWorkerTests(TransactionTestCase):
    def setUp(self):
        Conf.SYNC = False  # really queue: the worker process runs the task
        self.addCleanup(setattr, Conf, "SYNC", True)

    def upload(self, kb, *paths):
        with ExitStack() as stack:
            handles = [stack.enter_context(open(path, "rb")) for path in paths]
            return jobs.add_uploads(kb, [File(handle, name=handle.name.rsplit("/", 1)[-1]) for handle in handles])

    def test_an_upload_goes_from_pending_to_ready_in_a_real_worker(self):
        kb = make_kb()
        job, refused = self.upload(kb, DATA / "documents/md/en/react-learn-installation.md",
                                   DATA / "documents/pdf/malformed/header-only-invalid.pdf")
        self.assertEqual(refused, [])
        self.assertEqual(set(Document.objects.values_list("status", flat=True)), {Document.Status.PENDING})
        with running_worker() as worker:
            wait_for(lambda: Job.objects.get(pk=job.pk).is_finished, what="the ingestion job")
            self.assertIsNone(worker.poll(), "the worker died")
        job.refresh_from_db()
        self.assertEqual(job.status, Job.Status.PARTIAL)
        self.assertEqual((job.progress_done, job.progress_total), (2, 2))
        self.assertTrue(job.task_id)
        statuses = dict(Document.objects.values_list("path", "status"))
        self.assertEqual(statuses, {"react-learn-installation.md": "ready", "header-only-invalid.pdf": "error"})
        self.assertEqual([failure["item"] for failure in job.failures], ["header-only-invalid.pdf"])

    def test_killing_the_worker_mid_ingestion_leaves_nothing_half_visible_and_a_rerun_completes(self):
        stub = OpenAIStub().start()
        self.addCleanup(stub.stop)
        stub.behaviour, stub.delay = "slow", 0.5
        # The killed worker's claim on the document runs out after PORTAL_JOB_STALE_SECONDS.
        openai_env = {"OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": "k", "PORTAL_OPENAI_EMBEDDING_DIM": "256",
                      "PORTAL_JOB_HEARTBEAT_SECONDS": "0.5", "PORTAL_JOB_STALE_SECONDS": "3"}
        with self.settings(OPENAI={**self.settings_openai(), "BASE_URL": stub.base_url, "API_KEY": "k",
                                   "EMBEDDING_DIM": 256}):
            kb = make_kb(embedder="openai", chunk_size=300, chunk_overlap=30, chunk_min_size=50)
            job, _ = self.upload(kb, DATA / "documents/md/en/react-reference-react-useState.md")
            with running_worker(**openai_env) as worker:
                wait_for(lambda: Job.objects.get(pk=job.pk).counters.get("chunks_embedded", 0) > 0,
                         what="the first embedded batch")
                kill(worker)
            document = Document.objects.get()
            self.assertEqual(document.status, Document.Status.INDEXING)
            self.assertFalse(Chunk.objects.filter(document=document).exists())
            stub.behaviour = "ok"
            # The task delivered again once the dead worker's heartbeat is stale takes the job over.
            stale = timezone.now() - timedelta(seconds=settings.PORTAL["JOB_STALE_SECONDS"] + 1)
            Job.objects.filter(pk=job.pk).update(heartbeat_at=stale)
            jobs.run_ingestion(Job.objects.get(pk=job.pk))
        document.refresh_from_db()
        self.assertEqual(document.status, Document.Status.READY)
        self.assertEqual(Chunk.objects.filter(document=document).count(), document.chunk_count)
        job.refresh_from_db()
        self.assertEqual((job.status, job.attempts), (Job.Status.SUCCEEDED, 2))

    def settings_openai(self):
        return settings.OPENAI


@skipUnless(redis_server.AVAILABLE, redis_server.WHY_NOT)
class RedisBrokerTests(TransactionTestCase):
    """REDIS_URL moves the task queue to Redis: the web side enqueues there, a worker takes it from there."""

    def test_a_job_queued_through_redis_is_run_by_a_worker_reading_redis(self):
        import redis

        kb = make_kb()
        with redis_server.running_redis() as url:
            env = {"REDIS_URL": url}
            # The web side is another process too: the broker is chosen when django-q2 is imported.
            run_manage("shell", "-c", "from knowledge import jobs; from knowledge.models import KnowledgeBase; "
                       f"jobs.add_text(KnowledgeBase.objects.get(pk={kb.pk}), title='Queued', "
                       "text='# Redis\\n\\nThis text travelled through a Redis queue.')", **env)
            job = Job.objects.get(knowledge_base=kb)
            self.assertEqual(OrmQ.objects.count(), 0, "the task went to the database queue")
            self.assertEqual(redis.Redis.from_url(url).llen("django_q:portal:q"), 1)
            with running_worker(**env) as worker:
                wait_for(lambda: Job.objects.get(pk=job.pk).is_finished, what="the job queued in Redis")
                self.assertIsNone(worker.poll(), "the worker died")
            self.assertEqual(redis.Redis.from_url(url).llen("django_q:portal:q"), 0)
        self.assertEqual(Job.objects.get(pk=job.pk).status, Job.Status.SUCCEEDED)
        self.assertEqual(Document.objects.get(knowledge_base=kb).status, Document.Status.READY)
