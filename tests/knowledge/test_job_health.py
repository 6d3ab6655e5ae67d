"""Jobs cannot hang: heartbeats, the reaper, and documents always left in a final state."""

from datetime import timedelta
from importlib import import_module

from django.apps import apps
from django.test import TestCase
from django.utils import timezone
from django_q.models import Schedule

from knowledge import jobs
from knowledge.models import Document, Job
from portal.jobs import reap_stale_jobs
from tests.factories import make_document, make_kb


class ReaperTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()

    def dead_job(self, documents, *, seconds_ago=600):
        beat = timezone.now() - timedelta(seconds=seconds_ago)
        return Job.objects.create(kind=Job.Kind.INGEST, knowledge_base=self.kb, status=Job.Status.RUNNING,
                                  started_at=beat, heartbeat_at=beat,
                                  options={"document_ids": [d.pk for d in documents]})

    def test_a_job_whose_heartbeat_stopped_is_failed_and_its_documents_settled(self):
        served = make_document(self.kb, "# Old\n\nThe previous version.", title="Served")
        served.status = Document.Status.INDEXING
        served.save()
        new = Document.objects.create(knowledge_base=self.kb, source_kind=Document.SourceKind.INLINE,
                                      title="New", status=Document.Status.INDEXING)
        job = self.dead_job([served, new])
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
