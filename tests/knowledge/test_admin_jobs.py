"""The admin's job pages: progress, cancel and retry, with the right and the wrong permissions."""


from django.urls import reverse
from django.utils import timezone, translation

from knowledge.admin_views import counter_label
from knowledge.models import Job, JobItem
from tests.factories import make_kb
from tests.knowledge.admin_base import AdminTestCase


class JobTests(AdminTestCase):
    def make_job(self, **fields) -> Job:
        fields = {"kind": Job.Kind.INGEST, "knowledge_base": self.kb, "options": {"document_ids": [self.doc.pk]},
                  **fields}
        return Job.objects.create(**fields)

    def test_progress_json(self):
        job = self.make_job(status=Job.Status.RUNNING, progress_done=1, progress_total=4, counters={"created": 1})
        self.login(self.viewer)
        data = self.client.get(reverse("admin:knowledge_job_progress", args=[job.pk])).json()
        self.assertEqual((data["percent"], data["finished"], data["counters"]), (25, False, {"created": 1}))
        self.login(self.outsider)
        self.assertEqual(self.client.get(reverse("admin:knowledge_job_progress", args=[job.pk])).status_code, 403)

    def test_progress_json_carries_each_document_and_chunk_progress(self):
        job = self.make_job(status=Job.Status.RUNNING, progress_done=1, progress_total=2, started_at=timezone.now())
        JobItem.objects.create(job=job, document_id=self.doc.pk, position=0, name="faq.xlsx", state="ready",
                               chunks_done=8, chunks_total=8)
        JobItem.objects.create(job=job, document_id=self.doc.pk + 1, position=1, name="big.xlsx", state="embedding",
                               chunks_done=20, chunks_total=50)
        self.login(self.viewer)
        data = self.client.get(reverse("admin:knowledge_job_progress", args=[job.pk])).json()
        # One file done and 20 of the next one's 50 chunks: 1.4 of 2 files, and the bar says so.
        self.assertEqual((data["percent"], data["chunks_done"], data["chunks_total"]), (70, 28, 58))
        self.assertEqual([(item["name"], item["label"]) for item in data["documents"]],
                         [("faq.xlsx", "Ready · 8 chunks"), ("big.xlsx", "Embedding 20 / 50 chunks")])
        self.assertEqual(data["documents"][0]["url"], reverse("admin:knowledge_document_change", args=[self.doc.pk]))
        self.assertTrue(data["started_at"])
        self.assertEqual((data["status_label"], data["finished_at"]), ("Running", ""))

    def test_a_scan_being_read_shows_its_pages_and_moves_the_bar_before_its_chunks_are_embedded(self):
        job = self.make_job(status=Job.Status.RUNNING, progress_done=1, progress_total=2, started_at=timezone.now())
        JobItem.objects.create(job=job, document_id=self.doc.pk, position=0, name="faq.xlsx", state="ready",
                               chunks_done=8, chunks_total=8)
        scan = JobItem.objects.create(job=job, document_id=self.doc.pk + 1, position=1, name="contract-scan.pdf",
                                      state="parsing", pages_done=20, pages_total=40)
        self.login(self.viewer)
        url = reverse("admin:knowledge_job_progress", args=[job.pk])
        data = self.client.get(url).json()
        # Half of the scan's pages read: OCR is most of a scan's time (Job's OCR_SHARE, 0.8), so 1.4 of 2.
        self.assertEqual(data["percent"], 70)
        self.assertEqual(data["documents"][1]["label"], "Reading 20 / 40 pages with OCR")
        self.assertEqual((data["documents"][1]["pages_done"], data["documents"][1]["pages_total"]), (20, 40))
        JobItem.objects.filter(pk=scan.pk).update(state="embedding", pages_done=40, chunks_done=25, chunks_total=50)
        data = self.client.get(url).json()
        self.assertEqual((data["percent"], data["documents"][1]["label"]), (95, "Embedding 25 / 50 chunks"),
                         "the bar goes on from where the pages left it, never back")

    def test_a_job_with_failures_is_amber_in_the_list_and_its_own_filter(self):
        partial = self.make_job(status=Job.Status.PARTIAL, failures=[{"item": "a.pdf", "reason": "encrypted"}] * 2)
        self.make_job(status=Job.Status.SUCCEEDED)
        self.login(self.viewer)
        response = self.client.get(reverse("admin:knowledge_job_changelist"), {"status__exact": "partial"})
        self.assertContains(response, '<span class="kp-badge kp-partial">Completed with 2 failures</span>', html=True)
        self.assertEqual(list(response.context["cl"].result_list), [partial])
        self.assertContains(response, "Completed with failures")  # the filter's choice

    def test_activity_stamp_changes_with_the_documents_and_says_when_a_job_runs(self):
        url = reverse("admin:knowledge_job_activity")
        self.login(self.viewer)
        before = self.client.get(url, {"kb": self.kb.pk}).json()
        self.assertFalse(before["active"])
        job = self.make_job(status=Job.Status.RUNNING)
        self.doc.mark_failed("broken")
        after = self.client.get(url, {"kb": self.kb.pk}).json()
        self.assertTrue(after["active"])
        self.assertNotEqual(after["stamp"], before["stamp"])
        job.finish()
        self.assertFalse(self.client.get(url, {"kb": make_kb().pk}).json()["active"])
        self.login(self.outsider)
        self.assertEqual(self.client.get(url).status_code, 403)

    def test_detail_shows_progress_bar_counters_and_failures(self):
        job = self.make_job(status=Job.Status.RUNNING, progress_done=1, progress_total=2, counters={"created": 1},
                            failures=[{"item": "bad.pdf", "reason": "The PDF is <encrypted>"}])
        self.login(self.manager)
        response = self.client.get(reverse("admin:knowledge_job_change", args=[job.pk]))
        self.assertContains(response, 'data-progress-url="/admin/knowledge/job/')
        self.assertContains(response, "width: 50%")
        self.assertContains(response, "The PDF is &lt;encrypted&gt;")
        self.assertContains(response, "Cancel job")
        self.assertContains(response, "knowledge/job_progress.js")
        self.assertContains(response, "kp-cancel-form")

    def test_cancel(self):
        job = self.make_job(status=Job.Status.RUNNING)
        url = reverse("admin:knowledge_job_cancel", args=[job.pk])
        self.login(self.viewer)
        self.assertEqual(self.client.post(url).status_code, 403)
        self.login(self.manager)
        self.assertEqual(self.client.get(url).status_code, 405)
        self.client.post(url)
        job.refresh_from_db()
        self.assertTrue(job.cancel_requested)

    def test_retry_starts_a_new_job_with_the_same_items(self):
        job = self.make_job(status=Job.Status.FAILED, error_message="worker died")
        self.login(self.manager)
        page = self.client.get(reverse("admin:knowledge_job_change", args=[job.pk]))
        self.assertContains(page, "Retry")
        self.assertContains(page, "worker died")
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client.post(reverse("admin:knowledge_job_retry", args=[job.pk]))
        new_job = Job.objects.exclude(pk=job.pk).get()
        self.assertRedirects(response, reverse("admin:knowledge_job_change", args=[new_job.pk]),
                             fetch_redirect_response=False)
        self.assertEqual(new_job.options["document_ids"], [self.doc.pk])

    def test_a_failed_crawl_is_retried_with_its_options(self):
        options = {"seed_url": "http://127.0.0.1:9/docs/", "max_pages": 7, "max_depth": 2}
        job = self.make_job(kind=Job.Kind.CRAWL, status=Job.Status.FAILED, options=options)
        self.login(self.manager)
        self.client.post(reverse("admin:knowledge_job_retry", args=[job.pk]))
        new_job = Job.objects.exclude(pk=job.pk).get()
        self.assertEqual((new_job.kind, new_job.options, new_job.created_by), ("crawl", options, self.manager))

    def test_viewer_cannot_retry_and_running_jobs_are_not_retried(self):
        job = self.make_job(status=Job.Status.FAILED)
        self.login(self.viewer)
        self.assertEqual(self.client.post(reverse("admin:knowledge_job_retry", args=[job.pk])).status_code, 403)
        running = self.make_job(status=Job.Status.RUNNING)
        self.login(self.manager)
        self.client.post(reverse("admin:knowledge_job_retry", args=[running.pk]))
        self.assertEqual(Job.objects.count(), 2)

    def test_changelist_query_count_does_not_grow_with_rows(self):
        self.make_job()
        self.login(self.manager)
        url = reverse("admin:knowledge_job_changelist")
        self.client.get(url)
        with self.assertNumQueries(8):
            self.client.get(url)
        for _ in range(5):
            self.make_job(knowledge_base=make_kb(), created_by=self.manager)
        with self.assertNumQueries(8):
            response = self.client.get(url)
        self.assertContains(response, "kp-mini-bar")

    def test_cancel_action(self):
        job = self.make_job(status=Job.Status.RUNNING)
        self.login(self.manager)
        self.client.post(reverse("admin:knowledge_job_changelist"),
                         {"action": "cancel_jobs", "_selected_action": [job.pk]})
        job.refresh_from_db()
        self.assertTrue(job.cancel_requested)


def test_the_chunks_counter_of_an_ingestion_is_labelled_in_the_readers_language():
    with translation.override("ru"):
        assert counter_label("chunks") == "фрагменты"  # was shown as "chunks" on Russian job pages
