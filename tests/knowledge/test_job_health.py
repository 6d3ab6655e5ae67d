"""Jobs cannot hang: heartbeats, the reaper, and documents always left in a final state."""

from datetime import timedelta
from importlib import import_module

from django.apps import apps
from django.conf import settings
from django.db.models import F
from django.test import TestCase, override_settings
from django.utils import timezone
from django_q.models import Schedule

from knowledge import jobs
from knowledge.indexing import term_statistics
from knowledge.models import Chunk, Document, Job, JobItem
from portal import jobs as portal_jobs
from portal.jobs import reap_stale_jobs
from tests.factories import make_document, make_kb


class ReaperTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()

    def dead_job(self, documents, *, seconds_ago=600, attempts=1):
        beat = timezone.now() - timedelta(seconds=seconds_ago)
        return Job.objects.create(kind=Job.Kind.INGEST, knowledge_base=self.kb, status=Job.Status.RUNNING,
                                  started_at=beat, heartbeat_at=beat, attempts=attempts, worker="gone:1",
                                  options={"document_ids": [d.pk for d in documents]})

    def test_a_dead_workers_job_is_queued_again_and_run_to_the_end(self):
        document = Document.objects.create(knowledge_base=self.kb, source_kind=Document.SourceKind.INLINE,
                                           title="Interrupted", text="# Leave\n\nTwenty-eight days a year.",
                                           status=Document.Status.INDEXING)
        job = self.dead_job([document])
        job.counters = {"chunks_embedded": 5}
        job.save()
        # The reaper queues it again once its transaction commits; tests run the queued task at once.
        with self.captureOnCommitCallbacks(execute=True) as queued:
            self.assertEqual(reap_stale_jobs(), 1)
            self.assertEqual(Job.objects.get(pk=job.pk).status, Job.Status.QUEUED)
        # The run's swap also counts its chunks against the base's term statistics once committed.
        self.assertEqual([callback.__name__ for callback in queued if callback.__module__ != term_statistics.__name__],
                         ["send"])
        job.refresh_from_db()
        self.assertEqual((job.status, job.attempts, job.worker), (Job.Status.SUCCEEDED, 2, portal_jobs.worker_name()))
        self.assertEqual(job.counters.get("chunks_embedded"), 1, "the second run counts only what it did")
        document.refresh_from_db()
        self.assertEqual(document.status, Document.Status.READY)
        self.assertEqual(Chunk.objects.filter(document=document).count(), document.chunk_count)

    def test_a_shared_job_queued_again_keeps_its_counts_and_resumes(self):
        documents = [Document.objects.create(knowledge_base=self.kb, source_kind=Document.SourceKind.INLINE,
                                             title=f"Note {n}", text=f"# Note {n}\n\nThe text of note {n}.",
                                             status=Document.Status.INDEXING) for n in range(2)]
        job = self.dead_job(documents)
        JobItem.objects.create(job=job, document=documents[0], position=0, name="Note 0", state=Job.ItemState.READY,
                               attempts=1)
        JobItem.objects.create(job=job, document=documents[1], position=1, name="Note 1", state=Job.ItemState.QUEUED)
        Job.objects.filter(pk=job.pk).update(progress_done=1, progress_total=2, counters={"created": 1})
        documents[0].status = Document.Status.READY  # the dead worker had finished it
        documents[0].save(update_fields=["status"])
        with self.captureOnCommitCallbacks(execute=True):
            self.assertEqual(reap_stale_jobs(), 1)
        job.refresh_from_db()
        self.assertEqual((job.status, job.attempts, job.progress_done, job.counters["created"]),
                         (Job.Status.SUCCEEDED, 2, 2, 2))
        self.assertEqual(list(job.work_items.values_list("attempts", flat=True)), [1, 1])

    @override_settings(PORTAL={**settings.PORTAL, "JOB_MAX_ATTEMPTS": 2})
    def test_a_job_is_failed_after_its_last_attempt(self):
        job = self.dead_job([], attempts=2)
        with self.captureOnCommitCallbacks(execute=True) as queued:
            self.assertEqual(reap_stale_jobs(), 1)
        self.assertEqual(queued, [])
        job.refresh_from_db()
        self.assertEqual(job.status, Job.Status.FAILED)
        self.assertIn("after 2 attempts (PORTAL_JOB_MAX_ATTEMPTS=2)", job.error_message)
        # A copy of its task delivered later finds it finished.
        self.assertEqual(jobs.run_ingestion(job).status, Job.Status.FAILED)

    def test_a_job_whose_heartbeat_stopped_is_failed_and_its_documents_settled(self):
        served = make_document(self.kb, "# Old\n\nThe previous version.", title="Served")
        served.status = Document.Status.INDEXING
        served.save()
        new = Document.objects.create(knowledge_base=self.kb, source_kind=Document.SourceKind.INLINE,
                                      title="New", status=Document.Status.INDEXING)
        job = self.dead_job([served, new], attempts=settings.PORTAL["JOB_MAX_ATTEMPTS"])
        alive = self.dead_job([], seconds_ago=1)
        self.assertEqual(reap_stale_jobs(), 1)
        job.refresh_from_db()
        self.assertEqual(job.status, Job.Status.FAILED)
        self.assertIn("The worker running this job stopped", job.error_message)
        self.assertEqual(Job.objects.get(pk=alive.pk).status, Job.Status.RUNNING)
        served.refresh_from_db()
        new.refresh_from_db()
        self.assertEqual(served.status, Document.Status.READY)
        self.assertIn("previous version is still served", served.error_message)
        self.assertEqual(new.status, Document.Status.ERROR)
        self.assertIn("Indexing stopped: The worker running this job stopped", new.error_message)

    def test_a_cancelled_job_leaves_no_document_pending_or_indexing(self):
        first, _ = jobs.add_text(self.kb, title="One", text="# One\n\nFirst text.", source_uri="inline:one")
        second, job = jobs.add_text(self.kb, title="Two", text="# Two\n\nSecond text.", source_uri="inline:two")
        job.options["document_ids"] = [first.pk, second.pk]
        job.save()
        job.cancel()
        jobs.run_ingestion(job)
        self.assertEqual(Job.objects.get(pk=job.pk).status, Job.Status.CANCELLED)
        for document in Document.objects.filter(pk__in=[first.pk, second.pk]):
            self.assertEqual(document.status, Document.Status.ERROR)
            self.assertIn("ended before this document was indexed", document.error_message)

    def test_the_reaper_is_scheduled_every_minute(self):
        import_module("portal.migrations.0004_reaper_schedule").schedule(apps, None)
        schedule = Schedule.objects.get(name="reap-stale-jobs")
        self.assertEqual((schedule.func, schedule.schedule_type, schedule.minutes),
                         ("portal.jobs.reap_stale_jobs", Schedule.MINUTES, 1))


class LeaseTests(TestCase):
    """A job runs once, whatever copies of its task arrive: the broker's redelivery, the reaper's requeue."""

    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()

    def queued_job(self):
        document, job = jobs.add_text(self.kb, title="Leave", text="# Leave\n\nTwenty-eight days a year.")
        return document, job

    def test_a_task_for_a_job_running_alive_elsewhere_does_nothing(self):
        document, job = self.queued_job()
        Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING, attempts=1, worker="other:7",
                                             heartbeat_at=timezone.now())
        jobs.run_ingestion(Job.objects.get(pk=job.pk))
        job.refresh_from_db()
        self.assertEqual((job.status, job.attempts, job.worker), (Job.Status.RUNNING, 1, "other:7"))
        self.assertEqual(Document.objects.get(pk=document.pk).status, Document.Status.PENDING)

    def test_a_task_for_a_finished_job_does_nothing_even_when_it_failed(self):
        for status in (Job.Status.SUCCEEDED, Job.Status.FAILED, Job.Status.CANCELLED):
            document, job = self.queued_job()
            Job.objects.filter(pk=job.pk).update(status=status, attempts=1, error_message="before")
            jobs.run_ingestion(Job.objects.get(pk=job.pk))
            job.refresh_from_db()
            self.assertEqual((job.status, job.attempts, job.error_message), (status, 1, "before"))
            self.assertEqual(Document.objects.get(pk=document.pk).status, Document.Status.PENDING)

    def test_a_redelivered_task_takes_over_a_job_whose_worker_died(self):
        # The database broker delivers a task again when its worker never acknowledged it.
        document, job = self.queued_job()
        stale = timezone.now() - timedelta(seconds=settings.PORTAL["JOB_STALE_SECONDS"] + 5)
        Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING, attempts=1, worker="gone:1",
                                             heartbeat_at=stale)
        jobs.run_ingestion(Job.objects.get(pk=job.pk))
        job.refresh_from_db()
        self.assertEqual((job.status, job.attempts), (Job.Status.SUCCEEDED, 2))
        self.assertEqual(Document.objects.get(pk=document.pk).status, Document.Status.READY)

    def test_a_stale_job_out_of_attempts_is_left_to_the_reaper(self):
        document, job = self.queued_job()
        stale = timezone.now() - timedelta(seconds=settings.PORTAL["JOB_STALE_SECONDS"] + 5)
        Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING, heartbeat_at=stale,
                                             attempts=settings.PORTAL["JOB_MAX_ATTEMPTS"])
        jobs.run_ingestion(Job.objects.get(pk=job.pk))
        self.assertEqual(Job.objects.get(pk=job.pk).status, Job.Status.RUNNING)
        self.assertEqual(reap_stale_jobs(), 1)
        self.assertEqual(Job.objects.get(pk=job.pk).status, Job.Status.FAILED)

    def test_a_run_that_lost_its_lease_leaves_the_outcome_to_the_worker_that_took_over(self):
        _document, job = self.queued_job()

        def taken_over(job):
            # What another worker's claim writes after this one was presumed dead.
            Job.objects.filter(pk=job.pk).update(attempts=F("attempts") + 1, worker="other:7")

        portal_jobs.run(job, taken_over)
        job.refresh_from_db()
        self.assertEqual((job.status, job.attempts, job.worker), (Job.Status.RUNNING, 2, "other:7"))
        self.assertIsNone(job.finished_at)
