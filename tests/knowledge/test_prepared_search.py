"""A search over many bases is planned once per connection: the ANN statement is prepared and run
with a generic plan that still walks each base's own HNSW index."""

from django.conf import settings
from django.db import connection
from django.test import TestCase, override_settings

from knowledge.indexing import vector_index
from knowledge.search import retrieval, sql
from portal.postgresql import prepared
from tests.base import explain
from tests.factories import make_document, make_kb

TOPICS = ["password reset and account recovery", "kitchen recipes with garlic", "crawler politeness and robots",
          "refunds within thirty days", "shipping to the islands"]


def prepared_statements() -> dict[str, tuple[int, int]]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name, generic_plans, custom_plans FROM pg_prepared_statements "
                       "WHERE name LIKE 'portal_%%'")
        return {name: (generic, custom) for name, generic, custom in cursor.fetchall()}


class PreparedSearchTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kbs = [make_kb() for _ in TOPICS]
        for kb, topic in zip(cls.kbs, TOPICS, strict=True):
            make_document(kb, f"# {topic}\n\nAll about {topic}.", title=topic)

    def setUp(self):
        with connection.cursor() as cursor:
            cursor.execute("DEALLOCATE ALL")
            # The statements are planned when prepared, under this: once ANALYZE has seen the tiny
            # test table (another test, autovacuum), a sequential scan is cheapest; the point is
            # that the generic plan *can* walk each base's index.
            cursor.execute("SET LOCAL enable_seqscan = off")
        prepared.forget()

    def search(self, query: str, **options):
        return retrieval.retrieve(query, [kb.pk for kb in self.kbs], mode="vector", top_k=3, **options)

    def test_a_many_base_search_is_prepared_once_and_runs_on_a_generic_plan(self):
        results = [self.search(topic) for topic in TOPICS]
        statements = prepared_statements()
        self.assertEqual(len(statements), 1, statements)
        self.assertEqual(list(statements.values()), [(len(TOPICS), 0)])
        for topic, result in zip(TOPICS, results, strict=True):
            self.assertEqual(result.hits[0].document_title, topic)

    def test_prepared_and_plain_statements_find_the_same_hits(self):
        with override_settings(PORTAL={**settings.PORTAL, "PREPARED_STATEMENTS": False}):
            plain = [[(hit.chunk_id, round(hit.distance, 6)) for hit in self.search(topic).hits] for topic in TOPICS]
            self.assertEqual(prepared_statements(), {})
        prepared = [[(hit.chunk_id, round(hit.distance, 6)) for hit in self.search(topic).hits] for topic in TOPICS]
        self.assertEqual(len(prepared_statements()), 1)
        self.assertEqual(prepared, plain)

    def test_other_filters_are_another_statement_and_the_generic_plan_uses_each_bases_index(self):
        self.search("garlic")
        self.search("garlic", layers=["D0"])
        self.assertEqual(len(prepared_statements()), 2)
        queries = {"hash": [0.1] * self.kbs[0].embedding_dim}
        name, _, execute = prepared.forms(sql.ann_search_bases(
            [(kb.pk, kb.embedding_dim, "hash") for kb in self.kbs], queries, limit=5, layers=["D0"]))
        self.assertIn(name, prepared_statements())  # the search prepared the same statement
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        plan = explain(*execute)
        for kb in self.kbs:
            self.assertIn(vector_index.index_name(kb.pk), plan)
        self.assertNotIn("Seq Scan on knowledge_chunk", plan)
