"""Bounded searches: too many filters, layers or ids are refused up front; slow statements are stopped."""

import threading

from django.db import connections
from django.test import TransactionTestCase, override_settings

from tests.api.base import ApiTestCase, make_key
from tests.factories import make_document, make_kb


class SearchLimitTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        make_document(cls.kb, text="# Refunds\n\nA refund is paid back within five days.", title="Refunds")
        _, cls.token = make_key()

    def test_twenty_thousand_filter_values_are_refused_naming_the_limit(self):
        # Before: 228 s of database time for one 129 KB request.
        filters = {"tag": [f"value-{n}" for n in range(20_000)]}
        for path, data in [("/search", {"query": "refund"}), ("/answer", {"question": "refund?"})]:
            with self.subTest(path):
                error = self.assertError(self.api("post", path, token=self.token, data={**data, "filters": filters}),
                                         422, "query_too_large_error")
                self.assertEqual(error["message"], "Too many filter values in all: 20,000; the limit is 200")

    def test_thousands_of_filter_keys_are_refused(self):
        filters = {f"key{n}": "x" for n in range(5000)}
        error = self.assertError(self.api("post", "/search", token=self.token,
                                          data={"query": "refund", "filters": filters}), 422, "query_too_large_error")
        self.assertEqual(error["message"], "Too many filter keys: 5,000; the limit is 20")

    @override_settings(PORTAL={**__import__("django.conf").conf.settings.PORTAL, "SEARCH_MAX_LAYERS": 2})
    def test_layer_limit_is_a_setting(self):
        error = self.assertError(self.api("post", "/search", token=self.token,
                                          data={"query": "refund", "layers": ["D0", "D1", "D2"]}), 422)
        self.assertEqual(error["message"], "Too many layers: 3; the limit is 2")

    def test_within_the_limits_a_search_still_filters(self):
        response = self.api("post", "/search", token=self.token,
                            data={"query": "refund", "filters": {"tag": [f"v{n}" for n in range(200)]}})
        self.assertEqual(response.status_code, 200, response.content[:300])
        self.assertEqual(response.json()["hits"], [])


class SearchTimeoutTests(TransactionTestCase):
    """A search statement that runs past the timeout is cancelled and answered with a 504."""

    def test_a_search_blocked_past_the_statement_timeout_is_a_504(self):
        kb = make_kb()
        make_document(kb, text="# Refunds\n\nA refund is paid back within five days.", title="Refunds")
        _, token = make_key()
        locked, release = threading.Event(), threading.Event()

        def hold_lock():
            # Another session holds the chunk table: the search's statement waits until cancelled.
            connection = connections.create_connection("default")
            try:
                with connection.cursor() as cursor:
                    cursor.execute("BEGIN; LOCK TABLE knowledge_chunk IN ACCESS EXCLUSIVE MODE")
                    locked.set()
                    release.wait(30)
                    cursor.execute("ROLLBACK")
            finally:
                connection.close()

        holder = threading.Thread(target=hold_lock)
        holder.start()
        self.addCleanup(holder.join)
        self.addCleanup(release.set)
        self.assertTrue(locked.wait(30))
        from django.conf import settings

        with override_settings(PORTAL={**settings.PORTAL, "SEARCH_STATEMENT_TIMEOUT_MS": 300}):
            response = self.client.post("/api/v1/search", data='{"query": "refund", "mode": "keyword"}',
                                        content_type="application/json", headers={"Authorization": f"Bearer {token}"})
        self.assertEqual(response.status_code, 504, response.content[:300])
        self.assertEqual(response.json()["error"]["code"], "search_timeout_error")
        self.assertIn("longer than 300 ms", response.json()["error"]["message"])
