"""Keyword search weighs a question's terms by how common they are in the bases searched: each base's
own term statistics, taken by the worker as its documents change, or the whole table's before those."""

import math
import threading
from importlib import import_module
from unittest import mock

from django.apps import apps
from django.conf import settings
from django.db import connection, connections
from django.test import TestCase, override_settings
from django.utils.module_loading import import_string
from django_q.models import Schedule

from knowledge.indexing import ingestion, term_statistics
from knowledge.models import Chunk, KnowledgeBase, TermStatistics
from knowledge.search import retrieval, sql, term_shares
from tests.api.base import ApiTestCase, make_key
from tests.factories import make_document, make_kb

ACCOUNTS = "# Notes\n\nAccount account account account account account."
INVOICE = "# Billing\n\nEach invoice is sent on the first day of the month."
# Every term collects candidates (none is left out as too common): the ranking is tested.
ALL_TERMS_COLLECT = {**settings.PORTAL, "COMMON_TERM_SHARE": 1.0}


def first_document(query: str, kbs) -> int:
    with override_settings(PORTAL=ALL_TERMS_COLLECT):
        return retrieval.search(query, [kb.pk for kb in kbs], mode="keyword")[0].document_id


class RareTermsTests(TestCase):
    """Keyword ranking weighs each term of the question by its rarity."""

    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        cls.repeats = make_document(cls.kb, ACCOUNTS)
        cls.rare = make_document(cls.kb, INVOICE)

    def ranked(self, weights: list[tuple[str, float]] | None) -> list[int]:
        statement, params = sql.keyword_search(kb_ids=[self.kb.pk], all_terms="'account' & 'invoic'",
                                               any_term="'account' | 'invoic'", limit=5, candidates=100,
                                               term_weights=weights, rerank=50)
        with connection.cursor() as cursor:
            cursor.execute(statement, params)
            ids = [row[0] for row in cursor.fetchall()]
        return list(Chunk.objects.filter(pk__in=ids[:1]).values_list("document_id", flat=True)) + [len(ids)]

    def test_each_term_counts_by_its_weight(self):
        self.assertEqual(self.ranked(None), [self.repeats.pk, 2], "ts_rank alone: the term repeated wins")
        self.assertEqual(self.ranked([("account", 0.5), ("invoic", 4.0)]), [self.rare.pk, 2])
        self.assertEqual(self.ranked([("account", 4.0), ("invoic", 0.5)]), [self.repeats.pk, 2])
        self.assertEqual(self.ranked([("account", 0.0), ("invoic", 0.0)]), [self.repeats.pk, 2],
                         "terms that weigh nothing leave ts_rank's order")

    def test_a_terms_weight_is_its_rarity(self):
        weights = dict(retrieval.term_weights({"account": 1.0, "plan": 0.5, "seat": 0.01}))
        self.assertEqual(weights["account"], 0.0, "a term in every chunk weighs nothing")
        self.assertAlmostEqual(weights["plan"], math.log(2))
        self.assertAlmostEqual(weights["seat"], math.log(100))
        self.assertIsNone(retrieval.term_weights(None), "no statistics: ts_rank alone")
        self.assertEqual(retrieval.informative_terms({"account": 0.5, "invoic": 0.05}), "'invoic'")

    def test_a_small_number_weighs_no_more_than_the_questions_words_on_average(self):
        # tenacity: "How do I stop retrying after 3 attempts?" — "3", in few chunks, put every section whose example
        # retries 3 times before "Stopping", whose example is `stop_after_attempt(7)`.
        weights = dict(retrieval.term_weights({"stop": 0.1, "attempt": 0.05, "3": 0.001}))
        self.assertAlmostEqual(weights["3"], (math.log(10) + math.log(20)) / 2, msg="the words' mean")
        weights = dict(retrieval.term_weights({"error": 0.1, "502": 0.001}))
        self.assertAlmostEqual(weights["502"], math.log(1000), msg="an error's code or a year is no quantity")
        self.assertAlmostEqual(dict(retrieval.term_weights({"3": 0.001}))["3"], math.log(1000), msg="alone, its own")

    def test_before_its_own_statistics_a_base_is_weighed_by_the_whole_tables(self):
        """With the statistics of a real ANALYZE: "account" is in nine chunks of ten, "invoice" in one;
        `ts_rank` alone puts the chunk repeating "account" first."""
        for n in range(8):
            make_document(self.kb, f"# Team {n}\n\nThe account of team {n} is managed by its owner.")
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE knowledge_chunk")
        with mock.patch.object(term_shares, "_table_shares", return_value={"account": 0.5, "seat": 0.01}):
            self.assertEqual(term_shares.shares(None, [self.kb], ["account", "invoic"]),
                             {"account": 0.5, "invoic": 0.005}, "unlisted: half as common as the rarest")
        first = {}
        # As a process starts, on a machine booted a minute ago (CI's): the clock's reading is below the
        # interval the statistics are re-read at, and they are read all the same.
        with mock.patch.object(term_shares.time, "monotonic", return_value=60.0):
            term_shares.forget()
            for rerank in (200, 0):
                with override_settings(PORTAL={**ALL_TERMS_COLLECT, "KEYWORD_RERANK": rerank}):
                    first[rerank] = retrieval.search("account invoice", [self.kb.pk], mode="keyword")[0].document_id
        self.assertEqual(first, {200: self.rare.pk, 0: self.repeats.pk})


class HeldShareTests(TestCase):
    """A row is weighed by the share of the question's weight it holds, not only by how well it matches each term."""

    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        cls.heading = make_document(cls.kb, "# Using pip\n\nYou just need to run pip install.", title="Install")
        cls.all_terms = make_document(cls.kb, (
            "# Streaming\n\nThe module is very fast, based on an event-driven parser, and has a streaming mode with a "
            "small memory footprint, suitable for big dumps of a wiki or of a music catalogue: each item at a given "
            "depth is handed to a callback as soon as it is parsed, and the callback returns false to stop reading. "
            "Items of every kind arrive in the order of the document, with their attributes and their text. It can "
            "also be used from the command line to pipe objects to a script reading them one after another."),
            title="Streaming")

    def test_a_row_saying_every_rare_term_beats_one_whose_heading_repeats_a_common_one(self):
        """xmltodict's "How do I use xmltodict from the command line?" found "### Using pypi" first."""
        statement, params = sql.keyword_search(
            kb_ids=[self.kb.pk], all_terms="'use' & 'command' & 'line'", any_term="'use' | 'command' | 'line'",
            limit=5, candidates=100, term_weights=[("use", 3.2), ("command", 4.2), ("line", 4.8)], rerank=50)
        with connection.cursor() as cursor:
            cursor.execute(statement, params)
            ids = [row[0] for row in cursor.fetchall()]
        self.assertEqual(len(ids), 2)
        self.assertEqual(Chunk.objects.get(pk=ids[0]).document_id, self.all_terms.pk)


class TakingTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        make_document(cls.kb, ACCOUNTS, title="Notes")
        for n in range(3):
            make_document(cls.kb, f"# Team {n}\n\nThe account of team {n} is managed by its owner.", title="Team")
        make_document(cls.kb, INVOICE, title="Billing")

    def test_they_count_the_chunks_holding_each_lexeme_found_in_two_or_more(self):
        self.assertTrue(term_statistics.take(self.kb.pk))
        stats = TermStatistics.objects.get(knowledge_base=self.kb)
        self.assertEqual((stats.chunks, stats.sampled, stats.changed), (5, 5, 0))
        self.assertEqual(stats.lexemes["account"], 4)
        self.assertEqual(stats.lexemes["team"], 3)
        self.assertNotIn("invoic", stats.lexemes, "in one chunk: not listed")
        self.kb.refresh_from_db()
        self.assertEqual(self.kb.term_statistics_at, stats.taken_at)
        self.assertEqual(term_shares.shares(None, [self.kb], ["team", "invoic", "pasta"]),
                         {"team": 0.6, "invoic": 0.2, "pasta": 0.2})

    def test_they_are_taken_again_once_a_tenth_of_the_base_changed_or_its_stemming(self):
        with self.captureOnCommitCallbacks(execute=True):
            kb = make_kb()
            make_document(kb, ACCOUNTS)
        self.assertEqual(TermStatistics.objects.get(knowledge_base=kb).chunks, 1, "a new base: taken at once")
        for n in range(9):
            make_document(kb, f"# Team {n}\n\nThe account of team {n} is managed by its owner.")
        term_statistics.take(kb.pk)
        with mock.patch.object(term_statistics, "STALE_CHUNKS", 0):
            self.assertFalse(term_statistics.count_changes(kb.pk, 1), "a tenth of ten chunks: not more")
            self.assertTrue(term_statistics.count_changes(kb.pk, 1))
            self.assertEqual(TermStatistics.objects.get(knowledge_base=kb).changed, 0)
            KnowledgeBase.objects.filter(pk=kb.pk).update(text_search_config="simple")
            self.assertTrue(term_statistics.count_changes(kb.pk, 1), "stemmed another way")
            self.assertEqual(TermStatistics.objects.get(knowledge_base=kb).text_search_config, "simple")
            with self.captureOnCommitCallbacks(execute=True):
                ingestion.delete_document(kb.documents.first())
                ingestion.delete_document(kb.documents.first())
        self.assertEqual(TermStatistics.objects.get(knowledge_base=kb).chunks, 8, "two deleted of ten")

    def test_the_minutes_sweep_takes_those_missing_or_stale(self):
        import_module("knowledge.migrations.0023_term_statistics_schedule").schedule(apps, None)
        schedule = Schedule.objects.get(name="take-term-statistics")
        self.assertEqual((schedule.schedule_type, schedule.minutes, schedule.repeats), (Schedule.MINUTES, 1, -1))
        empty = make_kb()
        ours = {self.kb.pk, empty.pk}
        # Only this test's bases are counted: a worker process another test started may still be making a
        # base of its own (a shadow base of a re-embedding) in this database while this test runs.
        self.assertEqual(self.bases_taken(import_string(schedule.func)) & ours, ours)
        self.assertEqual(TermStatistics.objects.get(knowledge_base=empty).lexemes, {})
        self.assertEqual(self.bases_taken(term_statistics.take_due) & ours, set())
        TermStatistics.objects.filter(knowledge_base=self.kb).update(changed=21)
        self.assertEqual(self.bases_taken(term_statistics.take_due) & ours, {self.kb.pk},
                         "a count lost to a crash is made up for")

    @staticmethod
    def bases_taken(sweep) -> set[int]:
        with mock.patch.object(term_statistics, "take", wraps=term_statistics.take) as take:
            sweep()
        return {call.args[0] for call in take.call_args_list}

    def test_a_failure_to_take_them_leaves_the_document_ready(self):
        kb = make_kb()
        failing = mock.patch.object(term_statistics, "take", side_effect=RuntimeError("statement timeout"))
        with failing, self.assertLogs(level="ERROR"), self.captureOnCommitCallbacks(execute=True):
            document = make_document(kb, ACCOUNTS)
        document.refresh_from_db()
        self.assertEqual(document.status, document.Status.READY)
        self.assertFalse(TermStatistics.objects.filter(knowledge_base=kb).exists(), "the sweep takes them later")

    def test_a_large_base_is_read_from_a_sample(self):
        with mock.patch.object(term_statistics, "SAMPLE", 3):
            self.assertTrue(term_statistics.take(self.kb.pk))
        stats = TermStatistics.objects.get(knowledge_base=self.kb)
        self.assertEqual((stats.chunks, stats.sampled), (5, 3))
        self.assertLessEqual(max(stats.lexemes.values()), 3)

    def test_one_process_takes_them_at_a_time(self):
        held, release = threading.Event(), threading.Event()

        def hold_the_lock():
            other = connections.create_connection("default")
            try:
                with other.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_lock(%s, %s)", [term_statistics._LOCK_CLASS, self.kb.pk])
                    held.set()
                    release.wait(10)
            finally:
                other.close()

        thread = threading.Thread(target=hold_the_lock)
        thread.start()
        try:
            self.assertTrue(held.wait(10))
            self.assertFalse(term_statistics.take(self.kb.pk))
        finally:
            release.set()
            thread.join()
        self.assertFalse(TermStatistics.objects.filter(knowledge_base=self.kb).exists())


class OwnStatisticsTests(TestCase):
    """The bug: weights came from the whole chunk table, so a base's keyword ranking changed when
    another base was added to the database."""

    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        cls.repeats = make_document(cls.kb, ACCOUNTS)
        cls.rare = make_document(cls.kb, INVOICE)
        for n in range(8):
            make_document(cls.kb, f"# Team {n}\n\nThe account of team {n} is managed by its owner.")
        cls.other = make_kb()  # a bigger base where every chunk is about invoices
        for n in range(30):
            make_document(cls.other, f"# Invoice {n}\n\nInvoice {n} was paid; the invoice is archived.")
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE knowledge_chunk")

    def test_a_base_is_weighed_by_its_own_statistics_whatever_the_others_hold(self):
        self.assertEqual(first_document("account invoice", [self.kb]), self.repeats.pk,
                         "by the whole table's, the invoices elsewhere make 'invoice' a common word")
        for kb in (self.kb, self.other):
            term_statistics.take(kb.pk)
        self.kb.refresh_from_db()
        self.assertEqual(first_document("account invoice", [self.kb]), self.rare.pk)

    def test_several_bases_weigh_a_term_by_its_share_of_all_their_chunks(self):
        for kb in (self.kb, self.other):
            term_statistics.take(kb.pk)
            kb.refresh_from_db()
        shares = term_shares.shares(None, [self.kb, self.other], ["invoic", "account"])
        self.assertAlmostEqual(shares["invoic"], (10 * 0.1 + 30 * 1.0) / 40)
        self.assertAlmostEqual(shares["account"], (10 * 0.9 + 30 * (1 / 30)) / 40)

    def test_a_process_reads_them_once_and_again_when_they_are_taken_again(self):
        term_statistics.take(self.kb.pk)
        self.kb.refresh_from_db()
        with self.assertNumQueries(1):
            term_shares.shares(None, [self.kb], ["account"])
        with self.assertNumQueries(0):
            self.assertAlmostEqual(term_shares.shares(None, [self.kb], ["account"])["account"], 0.9)
        make_document(self.kb, "# Accounts\n\nAn account is opened in a minute.")
        term_statistics.take(self.kb.pk)
        self.kb.refresh_from_db()
        with self.assertNumQueries(1):
            self.assertAlmostEqual(term_shares.shares(None, [self.kb], ["account"])["account"], 10 / 11)


class ServedTests(ApiTestCase):
    def test_the_apis_remembered_bases_bring_the_statistics_taken_since(self):
        kb = make_kb()
        for text in (ACCOUNTS, INVOICE):
            make_document(kb, text)
        term_statistics.take(kb.pk)
        _, token = make_key(scopes=["search"])
        for _ in range(2):
            response = self.api("post", "/search", token=token, data={"query": "account invoice", "mode": "keyword"})
            self.assertEqual(response.status_code, 200, response.content[:300])
            at = KnowledgeBase.objects.get(pk=kb.pk).term_statistics_at
            self.assertIsNotNone(term_shares._remembered.get(kb.pk, at), "read at the base's current version")
            make_document(kb, "# Accounts\n\nAn account is opened in a minute.")
            term_statistics.take(kb.pk)
