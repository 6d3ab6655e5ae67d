"""One upload shared by real qcluster workers: each document once, the job ended once, a dead worker's
document taken over, cancel heard by every participant (knowledge/shares.py); a long document's
batches and a long scan's pages shared too (knowledge/share_batches.py, share_pages.py)."""

import json
import tempfile
from contextlib import ExitStack
from pathlib import Path

import psutil
from django.conf import settings
from django.core.files import File
from django.test import TransactionTestCase, override_settings
from django_q.conf import Conf
from django_q.models import OrmQ, Task

from knowledge import jobs
from knowledge.models import Chunk, Document, EmbeddingBatch, Job, JobItem, ScanPage
from tests.conftest import DATA
from tests.e2e.worker import kill, running_worker, wait_for
from tests.factories import make_kb
from tests.knowledge.test_ocr import needs_tesseract
from tests.knowledge.test_share_pages import SOURCE as SCANNED_SOURCE
from tests.knowledge.test_share_pages import picture_pdf
from tests.stubs.openai_stub import OpenAIStub
from tests.webhooks_receiver import Receiver
from webhooks.delivery import create_endpoint

GUIDES = ["react-learn-conditional-rendering.md", "react-learn-describing-the-ui.md", "react-learn-editor-setup.md",
          "react-learn-keeping-components-pure.md", "react-learn-rendering-lists.md",
          "react-learn-thinking-in-react.md"]
IN_PROGRESS = [Job.ItemState.PARSING, Job.ItemState.EMBEDDING]
LONG = "react-reference-react-useEffect.md"  # ≈ 240 chunks of 300 characters: 15 batches


def pid(token: str) -> str:
    return token.split(":")[1]


def processes(cluster) -> set[str]:
    """A cluster's worker processes (spawned after it starts: asked each time)."""
    return {str(process.pid) for process in psutil.Process(cluster.pid).children(recursive=True)}


@override_settings(WEBHOOKS={**settings.WEBHOOKS, "ALLOWED_HOSTS": ["127.0.0.1"]})
class SharedIngestionTests(TransactionTestCase):
    def setUp(self):
        Conf.SYNC = False  # really queue: worker processes run the tasks
        self.addCleanup(setattr, Conf, "SYNC", True)
        # Each embedding request takes a while, so every worker has documents to take.
        self.stub = OpenAIStub().start()
        self.addCleanup(self.stub.stop)
        self.stub.behaviour, self.stub.delay = "slow", 0.3
        self.receiver = Receiver()
        self.addCleanup(self.receiver.stop)
        create_endpoint(name="Jobs", url=self.receiver.url, events=["job.finished"])
        self.env = {"OPENAI_BASE_URL": self.stub.base_url, "OPENAI_API_KEY": "k", "PORTAL_OPENAI_EMBEDDING_DIM": "256",
                    "PORTAL_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1", "PORTAL_INGEST_SHARES": "2",
                    "PORTAL_JOB_HEARTBEAT_SECONDS": "0.5", "PORTAL_JOB_STALE_SECONDS": "3"}
        openai = {**settings.OPENAI, "BASE_URL": self.stub.base_url, "API_KEY": "k", "EMBEDDING_DIM": 256}
        self.enterContext(self.settings(OPENAI=openai))
        self.kb = make_kb(embedder="openai", chunk_size=300, chunk_overlap=30, chunk_min_size=50)

    def upload(self, *names: str) -> Job:
        with ExitStack() as stack:
            handles = [stack.enter_context(open(DATA / "documents/md/en" / name, "rb")) for name in names]
            files = [File(handle, name=handle.name.rsplit("/", 1)[-1]) for handle in handles]
            job, _ = jobs.add_uploads(self.kb, files)
        return job

    def finished_events(self, job: Job) -> list[dict]:
        wait_for(lambda: self.receiver.received, what="the job.finished webhook")
        events = [json.loads(request["body"])["data"]["job"] for request in self.receiver.received]
        return [event for event in events if event["id"] == job.pk]

    def assert_each_document_once(self, job: Job) -> None:
        documents = list(Document.objects.filter(knowledge_base=self.kb))
        self.assertEqual({document.status for document in documents}, {Document.Status.READY})
        for document in documents:  # no duplicate chunks
            self.assertEqual(Chunk.objects.filter(document=document).count(), document.chunk_count)
        job.refresh_from_db()
        chunks = sum(document.chunk_count for document in documents)
        self.assertEqual((job.status, job.progress_done, job.progress_total), (Job.Status.SUCCEEDED, 6, 6))
        self.assertEqual((job.counters["created"], job.counters["chunks"]), (6, chunks))
        self.assertEqual(job.counters["chunks_embedded"], chunks, "each document's chunks counted once")
        self.assertEqual([(item["state"], item["chunks_total"]) for item in job.items],
                         [(Job.ItemState.READY, document.chunk_count) for document in sorted(documents,
                                                                                             key=lambda d: d.pk)])

    def test_two_workers_share_one_upload_each_document_once_and_the_job_ends_once(self):
        job = self.upload(*GUIDES)
        with running_worker(PORTAL_WORKERS="2", **self.env) as cluster:
            wait_for(lambda: Job.objects.get(pk=job.pk).is_finished, what="the shared ingestion job")
            self.assertIsNone(cluster.poll(), "the cluster died")
            events = self.finished_events(job)
        self.assert_each_document_once(job)
        tokens = JobItem.objects.filter(job=job).values_list("claimed_by", flat=True)
        holders = {token.split(":")[1] for token in tokens}
        self.assertEqual(len(holders), 2, "both worker processes ingested documents")
        self.assertEqual(set(JobItem.objects.filter(job=job).values_list("attempts", flat=True)), {1})
        self.assertEqual([event["status"] for event in events], ["succeeded"])

    def test_a_killed_participants_document_is_taken_over_once_without_duplicates(self):
        job = self.upload(*GUIDES)
        with running_worker(PORTAL_WORKERS="1", **self.env) as first, \
                running_worker(PORTAL_WORKERS="1", **self.env) as second:
            def held_by_second():
                pids = processes(second)
                items = JobItem.objects.filter(job=job, state=Job.ItemState.EMBEDDING, chunks_done__gt=0)
                return next((item for item in items if pid(item.claimed_by) in pids), None), pids

            victim, second_pids = wait_for(lambda: (found := held_by_second())[0] and found,
                                           what="the second cluster's worker to embed a document")
            kill(second)
            wait_for(lambda: Job.objects.get(pk=job.pk).is_finished, what="the surviving worker to end the job")
            self.assertIsNone(first.poll(), "the surviving cluster died")
            events = self.finished_events(job)
        self.assert_each_document_once(job)
        victim.refresh_from_db()
        self.assertEqual(victim.attempts, 2, "taken over once, by the live worker")
        self.assertNotIn(victim.claimed_by.split(":")[1], second_pids)
        self.assertEqual(JobItem.objects.filter(job=job, attempts__gt=1).count(), 1)
        self.assertEqual([event["status"] for event in events], ["succeeded"])

    def test_cancel_stops_every_participant(self):
        job = self.upload(*GUIDES)
        with running_worker(PORTAL_WORKERS="2", **self.env) as cluster:
            wait_for(lambda: len(set(JobItem.objects.filter(job=job, state__in=IN_PROGRESS)
                                     .values_list("claimed_by", flat=True))) == 2, what="two participants at work")
            job.cancel()
            wait_for(lambda: Job.objects.get(pk=job.pk).is_finished, what="the cancelled job to end")
            # Every task returned: the job's own, the share that took part and the spare shares.
            wait_for(lambda: not OrmQ.objects.exists(), what="every participant to return")
            self.assertTrue(Task.objects.filter(name=f"ingest-{job.pk}").exists())
            self.assertIsNone(cluster.poll(), "the cluster died")
            events = self.finished_events(job)
        job.refresh_from_db()
        self.assertEqual(job.status, Job.Status.CANCELLED)
        items = JobItem.objects.filter(job=job)
        self.assertFalse(items.filter(state__in=IN_PROGRESS).exists())
        left = items.filter(state=Job.ItemState.QUEUED)
        self.assertTrue(left.exists(), "the documents not yet claimed were left alone")
        self.assertEqual(job.progress_done, items.count() - left.count())
        self.assertFalse(Document.objects.filter(status__in=["pending", "indexing"]).exists())
        self.assertEqual([event["status"] for event in events], ["cancelled"])

    def upload_scan(self) -> Job:
        """An eight-page scan (pictures only), read with OCR in English."""
        self.kb.ocr_languages = "eng"
        self.kb.save(update_fields=["ocr_languages"])
        folder = Path(self.enterContext(tempfile.TemporaryDirectory(prefix="portal-scan-")))
        scan = picture_pdf(SCANNED_SOURCE, folder / "manual-scan.pdf", copies=2)
        with scan.open("rb") as handle:
            job, _ = jobs.add_uploads(self.kb, [File(handle, name=scan.name)])
        return job

    def assert_the_scan_read_whole_once(self, job: Job) -> None:
        job.refresh_from_db()
        document = Document.objects.get(knowledge_base=self.kb)
        self.assertEqual((job.status, document.status), (Job.Status.SUCCEEDED, Document.Status.READY))
        self.assertEqual(document.metadata["ocr"]["pages"], list(range(1, 9)))
        self.assertEqual(sorted(set(Chunk.objects.filter(document=document).values_list("page", flat=True))),
                         list(range(1, 9)), "every page's text is in the document")
        positions = list(Chunk.objects.filter(document=document).values_list("position", flat=True))
        self.assertEqual(sorted(positions), list(range(document.chunk_count)), "each chunk once")
        self.assertEqual(job.counters["ocr_pages"], 8, "each page counted once")
        self.assertFalse(ScanPage.objects.exists(), "the staged pages are gone")

    @needs_tesseract
    def test_a_killed_helpers_page_is_read_again_by_the_holder(self):
        job = self.upload_scan()
        env = {**self.env, "PORTAL_OCR_DPI": "100"}
        with running_worker(PORTAL_WORKERS="1", **env) as first, running_worker(PORTAL_WORKERS="1", **env) as second:
            def helper():
                """The cluster whose worker is reading a page of the scan it does not hold."""
                item = JobItem.objects.filter(job=job).exclude(claimed_by="").first()
                readers = {pid(token) for token in ScanPage.objects.filter(item__job=job, text__isnull=True)
                           .exclude(claimed_by="").values_list("claimed_by", flat=True)}
                for cluster in (first, second):
                    pids = processes(cluster)
                    if item and pid(item.claimed_by) not in pids and pids & readers:
                        return cluster
                return None

            victim = wait_for(helper, what="a helper reading a page")
            kill(victim)
            wait_for(lambda: Job.objects.get(pk=job.pk).is_finished, what="the holder to finish the scan")
            self.assertIsNone((second if victim is first else first).poll(), "the holder's cluster died")
        self.assert_the_scan_read_whole_once(job)
        self.assertEqual(JobItem.objects.get(job=job).attempts, 1, "the holder kept the document")

    @needs_tesseract
    def test_two_workers_share_one_long_scan_page_by_page(self):
        job = self.upload_scan()
        readers = set()

        def both_read_pages() -> bool:
            tokens = ScanPage.objects.filter(item__job=job).exclude(claimed_by="").values_list("claimed_by", flat=True)
            readers.update(pid(token) for token in tokens)
            return len(readers) == 2

        with running_worker(PORTAL_WORKERS="2", PORTAL_OCR_DPI="100", **self.env) as cluster:
            wait_for(both_read_pages, what="both workers to read pages of the scan")
            wait_for(lambda: Job.objects.get(pk=job.pk).is_finished, what="the job")
            self.assertIsNone(cluster.poll(), "the cluster died")
        self.assert_the_scan_read_whole_once(job)
        self.assertEqual(JobItem.objects.get(job=job).attempts, 1)

    def batch_holders(self, job: Job, *, embedding: bool = False) -> set[str]:
        """The processes that took batches of the job's long document (only those embedding one now)."""
        batches = EmbeddingBatch.objects.filter(item__job=job).exclude(claimed_by="")
        batches = batches.filter(vectors__isnull=True) if embedding else batches
        return {pid(token) for token in batches.values_list("claimed_by", flat=True)}

    def assert_the_long_document_indexed_once(self, job: Job) -> Document:
        job.refresh_from_db()
        document = Document.objects.get(knowledge_base=self.kb)
        self.assertEqual((job.status, document.status), (Job.Status.SUCCEEDED, Document.Status.READY))
        self.assertGreaterEqual(document.chunk_count, 160)
        positions = list(Chunk.objects.filter(document=document).values_list("position", flat=True))
        self.assertEqual(sorted(positions), list(range(document.chunk_count)), "each chunk once")
        self.assertEqual(job.counters["chunks_embedded"], document.chunk_count)
        self.assertFalse(EmbeddingBatch.objects.exists(), "the staged batches are gone")
        return document

    def test_two_workers_share_one_long_document_batch_by_batch(self):
        job = self.upload(LONG)
        with running_worker(PORTAL_WORKERS="2", **self.env) as cluster:
            wait_for(lambda: len(self.batch_holders(job)) == 2, what="both workers to embed batches of the document")
            wait_for(lambda: Job.objects.get(pk=job.pk).is_finished, what="the job")
            self.assertIsNone(cluster.poll(), "the cluster died")
        self.assert_the_long_document_indexed_once(job)
        self.assertEqual(JobItem.objects.get(job=job).attempts, 1)

    def test_a_killed_helpers_batch_is_embedded_again_by_the_holder(self):
        job = self.upload(LONG)
        with running_worker(PORTAL_WORKERS="1", **self.env) as first, \
                running_worker(PORTAL_WORKERS="1", **self.env) as second:
            def helper():
                """The cluster whose worker embeds a batch of the document it does not hold."""
                item = JobItem.objects.filter(job=job).exclude(claimed_by="").first()
                holder = item and pid(item.claimed_by)
                for cluster in (first, second):
                    pids = processes(cluster)
                    if holder not in pids and pids & self.batch_holders(job, embedding=True):
                        return cluster
                return None

            victim = wait_for(helper, what="a helper embedding a batch")
            kill(victim)
            wait_for(lambda: Job.objects.get(pk=job.pk).is_finished, what="the holder to finish the document")
            survivor = second if victim is first else first
            self.assertIsNone(survivor.poll(), "the holder's cluster died")
        self.assert_the_long_document_indexed_once(job)
        self.assertEqual(JobItem.objects.get(job=job).attempts, 1, "the holder kept the document")

    def test_a_killed_holders_long_document_is_taken_over_keeping_the_batches_embedded(self):
        job = self.upload(LONG)
        requests_before = len(self.stub.requests)  # creating the base calibrated the embedder
        with running_worker(PORTAL_WORKERS="1", **self.env) as first, \
                running_worker(PORTAL_WORKERS="1", **self.env) as second:
            def holder():
                """The cluster holding the document, once three of its batches have vectors."""
                item = JobItem.objects.filter(job=job).exclude(claimed_by="").first()
                if item is None or EmbeddingBatch.objects.filter(item=item, vectors__isnull=False).count() < 3:
                    return None
                return next((cluster for cluster in (first, second) if pid(item.claimed_by) in processes(cluster)),
                            None)

            victim = wait_for(holder, what="the holder to have three batches embedded")
            kill(victim)
            embedded_before = sum(EmbeddingBatch.objects.filter(item__job=job, vectors__isnull=False)
                                  .values_list("size", flat=True))
            wait_for(lambda: Job.objects.get(pk=job.pk).is_finished, what="the survivor to take the document over")
            self.assertIsNone((second if victim is first else first).poll(), "the surviving cluster died")
        document = self.assert_the_long_document_indexed_once(job)
        self.assertEqual(JobItem.objects.get(job=job).attempts, 2, "taken over once")
        texts = sum(len(request["body"]["input"]) for request in self.stub.requests[requests_before:]
                    if request["path"].rstrip("/").endswith("/embeddings"))
        self.assertLess(texts, document.chunk_count + embedded_before, "the batches embedded before were kept")

    def test_a_single_short_document_job_runs_alone(self):
        job = self.upload("react-learn-editor-setup.md")
        with running_worker(PORTAL_WORKERS="2", **self.env):
            wait_for(lambda: Job.objects.get(pk=job.pk).is_finished, what="the job")
            wait_for(lambda: Task.objects.filter(name=f"ingest-{job.pk}").exists(), what="its task to return")
        self.assertFalse(Task.objects.filter(name__startswith="ingest-share").exists(), "no share was queued")
        job.refresh_from_db()
        self.assertEqual((job.status, job.progress_done, job.counters["created"]), (Job.Status.SUCCEEDED, 1, 1))
        self.assertLess(job.counters["chunks"], settings.PORTAL["INGEST_SPLIT_CHUNKS"], "short enough not to split")
