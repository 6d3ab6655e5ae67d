"""A search over many bases of one embedder walks their dimension's shared HNSW index once, and
finds what a branch per base on each base's own index finds; a few bases keep their own indexes."""

import re

from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import TestCase, TransactionTestCase, override_settings
from django.test.utils import CaptureQueriesContext

from knowledge.indexing import vector_index
from knowledge.search import ann_plan, retrieval, sql, term_shares
from portal.postgresql import prepared
from tests.base import explain
from tests.factories import make_document, make_kb

TOPICS = ["password reset and account recovery", "kitchen recipes with garlic", "crawler politeness and robots",
          "refunds within thirty days", "shipping to the islands", "invoices and tax numbers",
          "printer drivers on linux", "holiday opening hours", "api keys and scopes", "backup of the database",
          "translation of the interface", "parking near the office"]


def own_path(**overrides):
    """Settings under which every base is searched through its own index."""
    return override_settings(PORTAL={**settings.PORTAL, "SHARED_INDEX_MIN_BASES": 10**9, **overrides})


def shared_path(**overrides):
    return override_settings(PORTAL={**settings.PORTAL, "SHARED_INDEX_MIN_BASES": 2, "SHARED_INDEX_MIN_SHARE": 0.0,
                                     **overrides})


class SharedIndexSearchTests(TestCase):
    @classmethod
    def setUpClass(cls):
        # The dimension's shared index also holds the entries of the rows earlier tests of this database inserted
        # and rolled back: dead, and so many that a walk through it could spend itself on them and miss a base's
        # nearest chunk (once in a full run of the suite). A vacuum takes them out; before the class's
        # transaction opens, as a vacuum runs outside one.
        with connection.cursor() as cursor:
            cursor.execute("VACUUM knowledge_chunk")
        super().setUpClass()

    @classmethod
    def setUpTestData(cls):
        cls.kbs = [make_kb() for _ in TOPICS]
        for kb, topic in zip(cls.kbs, TOPICS, strict=True):
            make_document(kb, f"# {topic}\n\nAll about {topic}.\n\n# Other\n\nNotes on {topic} and more.", title=topic)

    def setUp(self):
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE knowledge_chunk")  # the partial indexes' row counts the planner reads
            # A statement an earlier test of this process prepared keeps the generic plan it cached then,
            # made under that test's settings and statistics (a scan of the bases and a sort).
            cursor.execute("DEALLOCATE ALL")
        prepared.forget()
        ann_plan.forget_index_rows()
        # The keyword search weighs the question's words by the statistics just taken, not by those an
        # earlier test of this process read (remembered for minutes): which hits are keyword-only depends on it.
        term_shares.forget()

    def search(self, query: str, kbs=None):
        # The widest walk, on both paths: the indexes also hold the entries of the rows earlier tests of this
        # database inserted and rolled back (dead until a vacuum, which may come at any time), and a narrow
        # walk may spend itself on them — a hit missed on one path now and then, whichever the path.
        return retrieval.retrieve(query, [kb.pk for kb in kbs or self.kbs], mode="vector", top_k=5, ef_search=1000)

    def test_many_bases_go_to_the_shared_index_and_a_few_keep_their_own(self):
        own, shared = ann_plan.plan(self.kbs)
        self.assertEqual((own, shared), ([], [([kb.pk for kb in self.kbs], 256, "hash")]))
        own, shared = ann_plan.plan(self.kbs[:3])
        self.assertEqual((own, shared), ([(kb.pk, 256, "hash") for kb in self.kbs[:3]], []))

    def test_a_small_share_of_the_dimensions_chunks_keeps_each_bases_own_index(self):
        # 10 of the 12 bases hold 10/12 of the dimension's chunks.
        with override_settings(PORTAL={**settings.PORTAL, "SHARED_INDEX_MIN_SHARE": 0.9}):
            self.assertEqual(ann_plan.plan(self.kbs[:10])[1], [])
        with override_settings(PORTAL={**settings.PORTAL, "SHARED_INDEX_MIN_SHARE": 0.8}):
            self.assertEqual(len(ann_plan.plan(self.kbs[:10])[1]), 1)

    def test_the_shared_walk_finds_the_same_hits_as_a_branch_per_base(self):
        for topic in TOPICS:
            with own_path():
                own = [(hit.chunk_id, round(hit.distance, 6)) for hit in self.search(topic).hits]
            with shared_path():
                shared = [(hit.chunk_id, round(hit.distance, 6)) for hit in self.search(topic).hits]
            # The same distances, and the same chunks above the last one's distance: chunks tied at the
            # cut (this embedder puts many at one distance) may be any of them.
            self.assertEqual([distance for _, distance in shared], [distance for _, distance in own])
            cut = own[-1][1]
            self.assertEqual({hit for hit in shared if hit[1] < cut}, {hit for hit in own if hit[1] < cut})
            self.assertEqual(self.search(topic).hits[0].document_title, topic)

    def test_a_vector_search_of_one_branch_reads_its_hits_in_the_same_round_trip(self):
        # The bases are given as rows, as the API does (it reads them with the key's limits).
        for kbs, path in ((self.kbs[:1], own_path), (self.kbs, shared_path)):
            with path():
                self.search("garlic", kbs)  # prepares the statement and reads the index statistics
                with CaptureQueriesContext(connection) as queries:
                    hits = retrieval.retrieve("garlic", kbs, mode="vector", top_k=5).hits
            self.assertEqual(len(queries), 1, [q["sql"][:200] for q in queries.captured_queries])
            self.assertEqual(hits[0].document_title, TOPICS[1] if len(kbs) > 1 else TOPICS[0])
            self.assertTrue(hits[0].content and hits[0].section_path is not None)
        with own_path():  # several branches: the hits are read after merging them
            self.search("garlic", self.kbs[:3])
            with CaptureQueriesContext(connection) as queries:
                retrieval.retrieve("garlic", self.kbs[:3], mode="vector", top_k=5)
        self.assertEqual(len(queries), 2)

    def test_keyword_only_hits_get_their_distances_in_one_statement_whatever_their_bases(self):
        question = "garlic printer parking holiday invoices translation backup"
        with (override_settings(PORTAL={**settings.PORTAL, "PREPARED_STATEMENTS": False, "SEARCH_CANDIDATES": 4}),
              CaptureQueriesContext(connection) as queries):
            hits = retrieval.retrieve(question, self.kbs, mode="hybrid", top_k=4).hits
        self.assertTrue([hit for hit in hits if hit.retrievers == ["keyword"]])
        self.assertTrue(all(hit.distance is not None for hit in hits))
        exact = [q for q in queries.captured_queries if "c.id = ANY" in q["sql"] and "<=>" in q["sql"]]
        self.assertEqual(len(exact), 1)

    def test_the_shared_walk_keeps_the_searchs_filters(self):
        kb = self.kbs[1]
        with shared_path():
            hits = retrieval.retrieve("garlic", [kb.pk for kb in self.kbs], mode="vector", top_k=5,
                                      document_ids=[kb.documents.get().pk]).hits
        self.assertEqual({hit.knowledge_base_id for hit in hits}, {kb.pk})

    def test_a_walk_of_the_shared_index_searches_a_wider_list_than_a_bases_own(self):
        def ef_searched(path, **kwargs) -> set[str]:
            with path(HNSW_EF_SEARCH=150, SHARED_INDEX_EF_SEARCH=300), CaptureQueriesContext(connection) as queries:
                retrieval.retrieve("garlic", [kb.pk for kb in self.kbs], mode="vector", top_k=5, **kwargs)
            return {match for q in queries.captured_queries
                    for match in re.findall(r"set_config\('hnsw.ef_search', '(\d+)'", q["sql"])}

        self.assertEqual(ef_searched(own_path), {"150"})
        self.assertEqual(ef_searched(shared_path), {"300"})
        self.assertEqual(ef_searched(shared_path, ef_search=500), {"500"})

    def test_the_prepared_shared_statement_walks_the_shared_index(self):
        with connection.cursor() as cursor:  # see test_prepared_search.py
            cursor.execute("SET LOCAL enable_seqscan = off")
            # The test's few rows would let a scan of their bases and a sort by distance cost less than
            # the walk, as the table's statistics happen to be: only the index gives the order unsorted.
            cursor.execute("SET LOCAL enable_sort = off")
        with shared_path():
            self.search("garlic")
        queries = {"hash": [0.1] * 256}
        name, _, execute = prepared.forms(sql.with_hit_rows(sql.ann_search_bases(
            [], queries, limit=5, shared=[([kb.pk for kb in self.kbs], 256, "hash")])))
        with connection.cursor() as cursor:
            cursor.execute("SELECT name FROM pg_prepared_statements")
            self.assertIn(name, [row[0] for row in cursor.fetchall()])  # the search prepared this very statement
            cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        plan = explain(*execute)  # the plan the search cached (made under the server's own settings)
        self.assertIn(f"Index Scan using {vector_index.shared_index_name(256)} on knowledge_chunk", plan)
        for kb in self.kbs:
            self.assertNotIn(vector_index.index_name(kb.pk), plan)


class SharedIndexUpkeepTests(TestCase):
    def test_the_first_base_of_a_dimension_creates_its_shared_index_and_others_reuse_it(self):
        vector_index.drop_shared_index(256)
        first = make_kb()
        self.assertTrue(vector_index.shared_index_exists(256))
        second = make_kb()
        make_document(second, "# Garlic\n\nGarlic bread.")
        self.assertTrue(vector_index.kb_index_exists(first.pk) and vector_index.kb_index_exists(second.pk))
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_indexes WHERE indexname = %s",
                           [vector_index.shared_index_name(256)])
            self.assertEqual(cursor.fetchone()[0], 1)

    def test_without_its_shared_index_a_dimension_searches_each_bases_own(self):
        kbs = [make_kb() for _ in range(3)]
        vector_index.drop_shared_index(256)
        ann_plan.forget_index_rows()
        with shared_path():
            self.assertEqual(ann_plan.plan(kbs)[1], [])


class SharedIndexMigrationTests(TransactionTestCase):
    def test_the_migration_builds_the_shared_index_of_every_dimension_in_use(self):
        make_kb()
        executor = MigrationExecutor(connection)
        # Every app's leaf, not only knowledge's: going back unapplies the other apps' migrations that
        # depend on later knowledge ones (tickets, mail), and the tests after this one need them.
        leaves = executor.loader.graph.leaf_nodes()
        executor.migrate([("knowledge", "0013_job_items")])
        self.assertFalse(vector_index.shared_index_exists(256))
        executor = MigrationExecutor(connection)
        executor.migrate(leaves)
        self.assertTrue(vector_index.shared_index_exists(256))
