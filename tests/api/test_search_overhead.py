"""What one search request costs besides the search: the bases (and the key's limits) in one query,
and writes that do not wait for the disk."""

import json

from django.conf import settings
from django.db import connection
from django.test import TransactionTestCase, override_settings
from django.test.utils import CaptureQueriesContext

from portal.models import ApiRequest, RateCounter
from portal.postgresql import prepared
from tests.api.base import ApiTestCase, make_key
from tests.factories import make_document, make_kb


class SearchOverheadTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kbs = [make_kb() for _ in range(3)]
        for kb in cls.kbs:
            make_document(kb, "# Returns\n\nA refund is possible within thirty days of purchase.", title="Refunds")

    def base_queries(self, token: str, knowledge_bases) -> tuple[int, list[str]]:
        with CaptureQueriesContext(connection) as queries:
            response = self.api("post", "/search", token=token,
                                data={"query": "refund", "mode": "keyword", "knowledge_bases": knowledge_bases})
        # The key's own read brings its limits too (portal/access.py); the bases are one more statement.
        return response, [q["sql"] for q in queries.captured_queries if "knowledge_knowledgebase" in q["sql"]]

    def test_the_bases_and_the_keys_limits_are_read_in_one_query(self):
        for limited_to in ([], self.kbs[:2]):
            _, token = make_key(scopes=["search"], knowledge_bases=limited_to, name=f"key {len(limited_to)}")
            for requested in ([kb.pk for kb in self.kbs[:2]], None):
                response, queries = self.base_queries(token, requested)
                self.assertEqual(response.status_code, 200, response.content[:300])
                self.assertEqual(len(queries), 1, queries)
                self.assertEqual({hit["knowledge_base_id"] for hit in response.json()["hits"]},
                                 {kb.pk for kb in (limited_to or self.kbs)} if requested is None else set(requested))

    def test_forbidden_and_missing_bases_are_both_not_found_by_the_same_query(self):
        _, token = make_key(scopes=["search"], knowledge_bases=self.kbs[:1])
        forbidden, missing = self.kbs[2].pk, max(kb.pk for kb in self.kbs) + 1000
        bodies = []
        for other in (forbidden, missing):
            response, queries = self.base_queries(token, [self.kbs[0].pk, other])
            self.assertError(response, 404, "not_found")
            self.assertEqual(len(queries), 1)
            bodies.append(response.json()["error"]["message"].replace(str(other), "N"))
        self.assertEqual(bodies[0], bodies[1])

    def test_an_id_no_base_can_have_is_not_found_like_any_other(self):
        _, token = make_key(scopes=["search"])
        for other in (2**63, -(2**63) - 1, 2**70):
            response, _ = self.base_queries(token, [self.kbs[0].pk, other])
            self.assertError(response, 404, "not_found")
            self.assertIn(str(other), response.json()["error"]["message"])


class ManyBasesNotFoundTests(ApiTestCase):
    def test_a_hundred_bases_with_forbidden_or_hidden_ones_are_refused_exactly_like_missing_ones(self):
        kbs = [make_kb() for _ in range(100)]
        shadow = make_kb(shadow_of=kbs[0])
        _, token = make_key(scopes=["search"], knowledge_bases=kbs[:97])
        allowed = [kb.pk for kb in kbs[:97]]
        missing = [shadow.pk + 1000, shadow.pk + 1001, shadow.pk + 1002]
        bodies = []
        for others in ([kb.pk for kb in kbs[97:99]] + [shadow.pk], [kbs[99].pk] + missing[:2], missing):
            with CaptureQueriesContext(connection) as queries:
                response = self.api("post", "/search", token=token,
                                    data={"query": "refund", "mode": "vector", "knowledge_bases": allowed + others})
            self.assertError(response, 404, "not_found")
            self.assertFalse([q for q in queries.captured_queries if "knowledge_chunk" in q["sql"]])
            body = response.content.decode()
            for n, pk in enumerate(sorted(others)):
                self.assertIn(str(pk), body)
                body = body.replace(str(pk), f"<{n}>")
            bodies.append(body)
        self.assertEqual(bodies[0], bodies[1])
        self.assertEqual(bodies[0], bodies[2])

    def test_an_evaluations_hidden_shadow_is_not_found_even_for_an_unlimited_key(self):
        kb = make_kb()
        shadow = make_kb(shadow_of=kb)
        _, token = make_key(scopes=["search"])
        bodies = []
        for other in (shadow.pk, shadow.pk + 1000):
            response = self.api("post", "/search", token=token,
                                data={"query": "refund", "mode": "vector", "knowledge_bases": [kb.pk, other]})
            self.assertError(response, 404, "not_found")
            bodies.append(response.content.decode().replace(str(other), "N"))
        self.assertEqual(bodies[0], bodies[1])
        response = self.api("post", "/search", token=token, data={"query": "refund", "mode": "vector"})
        self.assertEqual(response.status_code, 200)
        self.assertFalse([hit for hit in response.json()["hits"] if hit["knowledge_base_id"] == shadow.pk])


class SearchWritesTests(TransactionTestCase):
    """A search request writes two rows (its rate-limit count, its audit entry); neither commit may
    wait for the WAL to reach the disk, which costs more than a keyword search on a busy machine,
    and neither statement is parsed and planned again for each request."""

    def search(self, token: str, times: int, mode: str = "keyword") -> None:
        for _ in range(times):
            response = self.client.post("/api/v1/search", json.dumps({"query": "refund", "mode": mode}),
                                        content_type="application/json", headers={"Authorization": f"Bearer {token}"})
            self.assertEqual(response.status_code, 200, response.content[:300])

    def executions(self) -> dict[str, int]:
        """How often each prepared statement writing to the rate counts or the audit trail ran."""
        with connection.cursor() as cursor:
            cursor.execute("SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements")
            rows = cursor.fetchall()
        return {table: sum(runs for statement, runs in rows if f"INTO {table} " in statement)
                for table in (RateCounter._meta.db_table, ApiRequest._meta.db_table)}

    def test_the_rate_count_and_the_audit_row_are_prepared_once_per_connection(self):
        make_document(make_kb(), "# Returns\n\nA refund is possible within thirty days of purchase.")
        _, token = make_key(scopes=["search"])
        for enabled, runs in ((False, 0), (True, 5)):
            with connection.cursor() as cursor:
                cursor.execute("DEALLOCATE ALL")
            prepared.forget()
            with override_settings(PORTAL={**settings.PORTAL, "PREPARED_STATEMENTS": enabled}):
                self.search(token, 5)
            self.assertEqual(self.executions(), {RateCounter._meta.db_table: runs, ApiRequest._meta.db_table: runs})
        self.assertEqual(ApiRequest.objects.filter(status=200).count(), 10)
        self.assertEqual(RateCounter.objects.get().count, 10)

    def test_statements_the_server_forgot_are_prepared_again_and_nothing_is_lost(self):
        make_document(make_kb(), "# Returns\n\nA refund is possible within thirty days of purchase.")
        _, token = make_key(scopes=["search"])
        self.search(token, 2, mode="vector")  # the vector search's statement is prepared too
        with connection.cursor() as cursor:
            cursor.execute("DEALLOCATE ALL")  # what a pooler's reset or DISCARD ALL does; this process is not told
        self.search(token, 3, mode="vector")
        self.assertEqual(ApiRequest.objects.filter(status=200).count(), 5)
        self.assertEqual(RateCounter.objects.get().count, 5)
        self.assertEqual(self.executions(), {RateCounter._meta.db_table: 3, ApiRequest._meta.db_table: 3})
        # One statement forgotten while the others stay: only that one is prepared again.
        with connection.cursor() as cursor:
            cursor.execute("SELECT name FROM pg_prepared_statements WHERE statement LIKE %s",
                           [f"%INTO {ApiRequest._meta.db_table} %"])
            cursor.execute(f"DEALLOCATE {cursor.fetchone()[0]}")
        self.search(token, 2, mode="vector")
        self.assertEqual(ApiRequest.objects.filter(status=200).count(), 7)
        self.assertEqual(RateCounter.objects.get().count, 7)
        self.assertEqual(self.executions(), {RateCounter._meta.db_table: 5, ApiRequest._meta.db_table: 2})

    def wal_flushes(self) -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_stat_force_next_flush()")
            # This connection's own (the test client serves the requests on it): the server-wide count took in
            # other test processes' commits and, once under load, reached 20.
            cursor.execute("SELECT coalesce(sum(fsyncs), 0) FROM pg_stat_get_backend_io(pg_backend_pid()) "
                           "WHERE object = 'wal'")
            return int(cursor.fetchone()[0])

    def test_search_requests_commit_their_writes_without_waiting_for_the_disk(self):
        kb = make_kb()
        make_document(kb, "# Returns\n\nA refund is possible within thirty days of purchase.", title="Refunds")
        _, token = make_key(scopes=["search"])
        before = self.wal_flushes()
        self.search(token, 20)
        flushes = self.wal_flushes() - before
        self.assertEqual(ApiRequest.objects.filter(status=200).count(), 20)
        self.assertEqual(RateCounter.objects.get().count, 20)
        # Two flushed commits per request would be 40, one 20. The first request's key stamp
        # (`last_used_at`, at most once a minute) is flushed; and a backend that evicts a page dirtied by a
        # newer WAL record, or writes the last page of a WAL segment, flushes the WAL itself — on a
        # busy machine, other tests' writes make that happen a few times (CI saw 3).
        self.assertLess(flushes, 10)
