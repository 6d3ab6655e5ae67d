"""Repeated questions skip the embedder: the per-process query-vector cache."""

from django.test import TestCase, override_settings

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
        with portal(QUERY_CACHE_SIZE=2):
            for query in ("first", "second", "first", "third", "second", "first"):
                self.search(query)
        # "second" was the least recently used when "third" arrived; then "first" was, when "second" came back.
        self.assertEqual(self.embedder.queries, ["first", "second", "third", "second", "first"])

    def test_a_size_of_zero_turns_the_cache_off(self):
        with portal(QUERY_CACHE_SIZE=0):
            self.search("refund")
            self.search("refund")
        self.assertEqual(self.embedder.queries, ["refund", "refund"])
