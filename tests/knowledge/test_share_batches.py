"""A long document's embedding shared batch by batch (knowledge/share_batches.py), in one process: the
holder's side with helpers that take batches, die or fail between its staging and its work (real
workers sharing one document: tests/e2e/test_shares.py)."""

from datetime import timedelta
from unittest import mock

import numpy as np
from django.conf import settings
from django.db import connection
from django.test import TestCase
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from knowledge import jobs, share_batches
from knowledge.exceptions import KnowledgeError
from knowledge.indexing import chunks
from knowledge.models import Chunk, Document, EmbeddingBatch, Job, JobItem
from tests.conftest import DATA
from tests.factories import make_kb
from tests.stubs import counting_embedder

SOURCE = DATA / "documents/md/en/react-reference-react-useEffect.md"
LEASE = timedelta(seconds=60)


class SharedEmbeddingTests(TestCase):
    def setUp(self):
        self.embedder = self.enterContext(counting_embedder.registered())
        self.kb = make_kb(embedder="counting", chunk_size=600, chunk_overlap=60, chunk_min_size=100)
        self.embedder.reset()
        self.document = Document.objects.create(knowledge_base=self.kb, source_uri="https://react.dev/useEffect",
                                                title="useEffect", text=SOURCE.read_text(), mime="text/markdown")
        job = Job.objects.create(kind=Job.Kind.INGEST, knowledge_base=self.kb, status=Job.Status.RUNNING)
        # The document as its holder sees it: claimed, lease alive.
        self.item = JobItem.objects.create(job=job, document=self.document, position=0, name="useEffect.md",
                                           state=Job.ItemState.EMBEDDING, claimed_by="holder:1:a",
                                           lease_until=timezone.now() + LEASE, attempts=1)
        self.invited: list[int] = []

    def shared(self, between=None) -> share_batches.SharedEmbedding:
        """The holder's batch embedding; `between(batches)` runs after staging, where helpers come in."""
        def invite(batches: int) -> None:
            self.invited.append(batches)
            if between:
                between(batches)

        return share_batches.SharedEmbedding(self.item, "holder:1:a", lease=LEASE, invite=invite)

    def ingest(self, embed_batches) -> Document:
        jobs.ingestion.process_document(self.document, embed_batches=embed_batches)
        self.document.refresh_from_db()
        return self.document

    def assert_indexed_once_with_the_embedders_vectors(self) -> None:
        rows = list(Chunk.objects.filter(document=self.document).order_by("position"))
        self.assertEqual((self.document.status, len(rows)), (Document.Status.READY, self.document.chunk_count))
        self.assertGreater(len(rows), 80)
        expected = self.embedder.embed_passages([chunks.embedding_input(row) for row in rows])
        np.testing.assert_allclose(np.array([row.embedding for row in rows]), expected, atol=1e-6)
        self.assertFalse(EmbeddingBatch.objects.exists(), "the staged batches are deleted")

    def test_a_long_document_is_staged_in_batches_each_embedded_once(self):
        document = self.ingest(self.shared())
        self.assertEqual(self.invited, [-(-document.chunk_count // 16)], "helpers invited for its batches")
        self.assertEqual(len(self.embedder.passages), document.chunk_count)
        self.embedder.reset()
        self.assert_indexed_once_with_the_embedders_vectors()

    def test_a_short_document_is_embedded_by_its_holder_alone(self):
        with self.settings(PORTAL={**settings.PORTAL, "INGEST_SPLIT_CHUNKS": 10_000}):
            self.ingest(self.shared())
        self.assertEqual(self.invited, [])
        self.assert_indexed_once_with_the_embedders_vectors()

    def test_a_split_threshold_of_zero_keeps_every_document_on_its_holder(self):
        with self.settings(PORTAL={**settings.PORTAL, "INGEST_SPLIT_CHUNKS": 0}):
            self.ingest(self.shared())
        self.assertEqual(self.invited, [])
        self.assert_indexed_once_with_the_embedders_vectors()

    def test_a_job_kept_on_one_worker_stages_nothing(self):
        with self.settings(PORTAL={**settings.PORTAL, "INGEST_SHARES": 1}), \
                CaptureQueriesContext(connection) as queries:
            self.ingest(self.shared())
        self.assertEqual(self.invited, [])
        self.assertFalse([query for query in queries if EmbeddingBatch._meta.db_table in query["sql"]])
        self.assert_indexed_once_with_the_embedders_vectors()

    def test_a_batch_a_helper_embedded_is_not_embedded_again_by_the_holder(self):
        helped = []

        def helper(batches: int) -> None:
            helped.append(share_batches.help_with_batch(self.item.job, "helper:2:b", lease=LEASE))
            self.assertFalse(share_batches.help_with_batch(Job.objects.create(kind=Job.Kind.INGEST), "helper:2:b",
                                                           lease=LEASE), "another job's batches are not its")

        document = self.ingest(self.shared(between=helper))
        self.assertEqual(helped, [True])
        self.assertEqual(len(self.embedder.passages), document.chunk_count, "every chunk embedded once in all")
        self.embedder.reset()
        self.assert_indexed_once_with_the_embedders_vectors()

    def test_a_dead_helpers_batch_is_embedded_again_once(self):
        def helper_died(batches: int) -> None:
            EmbeddingBatch.objects.filter(item=self.item, position=16).update(
                claimed_by="gone:3:c", lease_until=timezone.now() - timedelta(seconds=1), attempts=1)

        self.ingest(self.shared(between=helper_died))
        self.embedder.reset()
        self.assert_indexed_once_with_the_embedders_vectors()

    def test_a_batch_whose_helper_died_twice_fails_the_document_which_keeps_its_previous_state(self):
        def helper_died_twice(batches: int) -> None:
            EmbeddingBatch.objects.filter(item=self.item, position=16).update(
                claimed_by="gone:3:c", lease_until=timezone.now() - timedelta(seconds=1), attempts=2)

        document = self.ingest(self.shared(between=helper_died_twice))
        self.assertEqual(document.status, Document.Status.ERROR)
        self.assertEqual(document.error_message, "The worker embedding chunks 17–32 of useEffect.md stopped 2 times "
                                                 "(killed or out of memory); not tried again.")
        self.assertFalse(Chunk.objects.filter(document=document).exists())
        self.assertFalse(EmbeddingBatch.objects.exists())

    def test_a_helpers_embedding_error_fails_the_document_with_its_reason(self):
        def helper_failed(batches: int) -> None:
            with mock.patch.object(self.embedder, "_embed", side_effect=KnowledgeError("The model file is damaged")):
                share_batches.help_with_batch(self.item.job, "helper:2:b", lease=LEASE)

        document = self.ingest(self.shared(between=helper_failed))
        self.assertEqual((document.status, document.error_message), (Document.Status.ERROR,
                                                                     "The model file is damaged"))

    def test_a_dead_holders_embedded_batches_are_kept_when_its_document_is_taken_over(self):
        self.left_by_a_dead_holder(embedded=2)
        self.embedder.reset()
        document = self.ingest(self.shared())
        self.assertEqual(len(self.embedder.passages), document.chunk_count - 32, "its two batches were kept")
        self.embedder.reset()
        self.assert_indexed_once_with_the_embedders_vectors()

    def left_by_a_dead_holder(self, *, embedded: int) -> None:
        """The document's batches as a killed holder leaves them: staged, the first `embedded` with vectors."""
        drafts = chunks.build_chunks(self.kb, self.document, self.document.text, [])
        inputs = [chunks.embedding_input(draft) for draft in drafts]
        rows = []
        for n, start in enumerate(range(0, len(inputs), 16)):
            batch = inputs[start:start + 16]
            row = EmbeddingBatch(item=self.item, position=start, embedder="counting", inputs=batch, size=len(batch))
            if n < embedded:
                vectors = np.asarray(self.embedder.embed_passages(batch), dtype=np.float32)
                row.vectors, row.dim, row.claimed_by, row.attempts = vectors.tobytes(), vectors.shape[1], "gone:1:x", 1
            rows.append(row)
        EmbeddingBatch.objects.bulk_create(rows)
