"""Repeated questions skip the embedder: the per-process query-vector cache and the shared level behind it."""

import threading
import time
from unittest import mock

import numpy as np
from django.db import connection
from django.test import SimpleTestCase, TestCase, override_settings

from knowledge.exceptions import EmbedderError
from knowledge.models import QueryVector
from knowledge.search import query_vectors, retrieval
from tests.factories import make_document, make_kb
from tests.stubs import counting_embedder


def portal(**values):
    from django.conf import settings

    return override_settings(PORTAL={**settings.PORTAL, **values})


class QueryVectorCacheTests(TestCase):
    def setUp(self):
        self.embedder = self.enterContext(counting_embedder.registered())
        query_vectors.clear()
        self.addCleanup(query_vectors.clear)
        self.kb = make_kb(embedder="counting")
        make_document(self.kb, "# Returns\n\nA refund is possible within thirty days of purchase.", title="Refunds")
        self.embedder.reset()

    def search(self, query: str, kb=None, mode: str = "vector"):
        return retrieval.retrieve(query, [(kb or self.kb).pk], mode=mode)

    def test_a_repeated_question_is_embedded_once_and_finds_the_same_hits(self):
        first = self.search("refund within thirty days")
        second = self.search("refund within thirty days", mode="hybrid")
        self.assertEqual(self.embedder.queries, ["refund within thirty days"])
        self.assertEqual([hit.chunk_id for hit in first.hits][:1], [hit.chunk_id for hit in second.hits][:1])
        self.assertEqual(first.best_similarity, second.best_similarity)

    def test_other_questions_and_other_embedders_are_embedded_anew(self):
        hash_kb = make_kb(embedder="hash")
        make_document(hash_kb, "A refund is possible within thirty days.", title="Hash refunds")
        self.search("refund please", kb=hash_kb)  # the hash embedder's vector, cached under its name
        self.search("refund please")
        self.search("refund, please")
        self.assertEqual(self.embedder.queries, ["refund please", "refund, please"])

    def test_the_cache_is_bounded_and_forgets_the_least_recently_used(self):
        with portal(QUERY_CACHE_SIZE=2, QUERY_CACHE_SHARED_SIZE=0):
            for query in ("first", "second", "first", "third", "second", "first"):
                self.search(query)
        # "second" was the least recently used when "third" arrived; then "first" was, when "second" came back.
        self.assertEqual(self.embedder.queries, ["first", "second", "third", "second", "first"])

    def test_a_size_of_zero_turns_the_cache_off(self):
        with portal(QUERY_CACHE_SIZE=0, QUERY_CACHE_SHARED_SIZE=0):
            self.search("refund")
            self.search("refund")
        self.assertEqual(self.embedder.queries, ["refund", "refund"])


class SharedQueryVectorTests(TestCase):
    """The level every process shares: a question embedded by one process is a lookup for the others."""

    def setUp(self):
        self.embedder = self.enterContext(counting_embedder.registered())
        self.kb = make_kb(embedder="counting")
        make_document(self.kb, "# Returns\n\nA refund is possible within thirty days of purchase.", title="Refunds")
        self.embedder.reset()
        query_vectors.clear()
        self.addCleanup(query_vectors.clear)

    def search(self, query: str):
        return retrieval.retrieve(query, [self.kb.pk], mode="vector")

    def test_another_process_finds_the_vector_without_embedding_it(self):
        first = self.search("refund within thirty days")
        query_vectors.clear()  # what a second web process holds: nothing of its own yet
        second = self.search("refund within thirty days")
        self.assertEqual(self.embedder.queries, ["refund within thirty days"])
        self.assertEqual(query_vectors.stats["shared_hits"], 1)
        self.assertEqual([hit.chunk_id for hit in first.hits], [hit.chunk_id for hit in second.hits])
        self.assertAlmostEqual(first.best_similarity, second.best_similarity, places=6)
        cached = query_vectors.embed_query("counting", "refund within thirty days")
        np.testing.assert_allclose(cached, self.embedder.embed_query("refund within thirty days"), rtol=1e-6)
        self.assertFalse(cached.flags.writeable)

    def test_the_question_is_not_stored_in_clear(self):
        self.search("my secret order number 4711")
        keys = list(QueryVector.objects.values_list("key", flat=True))
        self.assertEqual(len(keys), 1)
        self.assertNotIn("4711", keys[0])
        self.assertTrue(keys[0].startswith("counting:"), keys[0])

    def test_stored_vectors_are_not_audited_and_can_be_deleted(self):
        # Seen in bench/load.py: deleting them ran auditlog's diff, which cannot read their bytes.
        from auditlog.models import LogEntry

        self.search("refund within thirty days")
        before = LogEntry.objects.count()
        self.assertEqual(QueryVector.objects.all().delete()[0], 1)
        self.assertEqual(LogEntry.objects.count(), before)

    def test_another_embedder_version_does_not_reuse_the_vector(self):
        self.search("refund")
        query_vectors.clear()
        with mock.patch.object(type(self.embedder), "version", "counting-2"):
            self.search("refund")
        self.assertEqual(self.embedder.queries, ["refund", "refund"])

    def test_the_shared_level_is_bounded(self):
        with portal(QUERY_CACHE_SIZE=0, QUERY_CACHE_SHARED_SIZE=4):
            for n in range(12):
                self.search(f"question {n}")
            self.assertEqual(QueryVector.objects.count(), 4)
            # The newest are kept: the last question is a lookup, the first is embedded again.
            self.embedder.reset()
            self.search("question 11")
            self.search("question 0")
        self.assertEqual(self.embedder.queries, ["question 0"])

    def test_a_size_of_zero_turns_the_shared_level_off(self):
        with portal(QUERY_CACHE_SHARED_SIZE=0):
            self.search("refund")
            query_vectors.clear()
            self.search("refund")
        self.assertEqual(self.embedder.queries, ["refund", "refund"])
        self.assertFalse(QueryVector.objects.exists())

    def test_a_failing_shared_level_is_skipped(self):
        with connection.cursor() as cursor:
            cursor.execute("ALTER TABLE knowledge_query_vectors RENAME TO knowledge_query_vectors_gone")
        try:
            with self.assertLogs("knowledge.search.query_vectors", "WARNING"):
                first = self.search("refund within thirty days")
        finally:
            with connection.cursor() as cursor:
                cursor.execute("ALTER TABLE knowledge_query_vectors_gone RENAME TO knowledge_query_vectors")
        self.assertEqual(self.embedder.queries, ["refund within thirty days"])
        self.assertTrue(first.hits)



class SimultaneousQuestionTests(SimpleTestCase):
    """The same new question asked by several requests of one process at once is embedded once: the
    others wait for that vector (a burst of identical questions, say during an outage)."""

    def setUp(self):
        self.embedder = self.enterContext(counting_embedder.registered())
        self.enterContext(portal(QUERY_CACHE_SIZE=100, QUERY_CACHE_SHARED_SIZE=0))
        query_vectors.clear()
        self.addCleanup(query_vectors.clear)
        self.embedder.gate = threading.Event()
        self.addCleanup(self.embedder.gate.set)

    def ask_at_once(self, questions: list[str], waiting: int) -> list:
        """Ask each question from its own thread, the first being embedded (and held) before the others
        ask; the embedder lets it go once `waiting` threads wait for a question being embedded."""
        results: list = [None] * len(questions)

        def ask(n: int) -> None:
            try:
                results[n] = query_vectors.embed_query("counting", questions[n])
            except Exception as exc:  # noqa: BLE001 - what a thread raised is the result the test checks
                results[n] = exc

        threads = [threading.Thread(target=ask, args=(n,)) for n in range(len(questions))]
        threads[0].start()
        self.wait_for(lambda: len(self.embedder.queries) == 1)
        for thread in threads[1:]:
            thread.start()
        self.wait_for(lambda: query_vectors.stats["waited"] == waiting)
        self.embedder.gate.set()
        for thread in threads:
            thread.join(timeout=30)
        return results

    def wait_for(self, condition) -> None:
        deadline = time.monotonic() + 10
        while not condition():
            self.assertLess(time.monotonic(), deadline, "the threads never got there")
            time.sleep(0.01)

    def test_the_same_question_asked_at_once_is_embedded_once(self):
        vectors = self.ask_at_once(["is the service down?"] * 4, waiting=3)
        self.assertEqual(self.embedder.queries, ["is the service down?"])
        self.assertEqual(query_vectors.stats["waited"], 3)
        for vector in vectors[1:]:
            self.assertIs(vector, vectors[0])
        self.assertFalse(vectors[0].flags.writeable)

    def test_other_questions_asked_meanwhile_are_embedded_as_usual(self):
        vectors = self.ask_at_once(["is the service down?", "how do I reset my password?", "is the service down?"],
                                   waiting=1)
        self.assertEqual(sorted(self.embedder.queries), ["how do I reset my password?", "is the service down?"])
        self.assertIs(vectors[2], vectors[0])

    def test_when_the_embedder_fails_every_waiting_request_gets_the_error_and_the_next_one_tries_again(self):
        real = type(self.embedder)._embed
        calls = {"n": 0}

        def failing_once(embedder, texts, is_query):
            calls["n"] += 1
            vector = real(embedder, texts, is_query)
            if calls["n"] == 1:
                raise EmbedderError("the endpoint is down")
            return vector

        with mock.patch.object(type(self.embedder), "_embed", failing_once):
            results = self.ask_at_once(["is the service down?"] * 3, waiting=2)
            self.assertTrue(all(isinstance(result, EmbedderError) for result in results), results)
            again = query_vectors.embed_query("counting", "is the service down?")
        self.assertEqual(again.shape, (256,))
        self.assertEqual(self.embedder.queries, ["is the service down?"] * 2)

    def test_with_the_process_cache_off_each_request_embeds_its_own(self):
        with portal(QUERY_CACHE_SIZE=0, QUERY_CACHE_SHARED_SIZE=0):
            self.embedder.gate.set()
            for _ in range(2):
                query_vectors.embed_query("counting", "is the service down?")
        self.assertEqual(self.embedder.queries, ["is the service down?"] * 2)
