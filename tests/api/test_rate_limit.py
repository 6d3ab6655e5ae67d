from unittest import skipUnless

from django.conf import settings
from django.core.cache import caches
from django.db import connection
from django.test import Client, TransactionTestCase, override_settings

from portal import rate_limit
from tests import redis_server
from tests.api.base import ApiTestCase, make_key, start_early_in_a_clock_minute
from tests.concurrency import at_once

# Counters in a Redis that is down (nothing listens on port 1).
BROKEN_STORE = {**settings.CACHES, "api": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                           "LOCATION": "redis://127.0.0.1:1/0"}}


class RateLimitTests(ApiTestCase):
    def setUp(self):
        caches["api"].clear()
        rate_limit._failures.update(logged_at=None, since=0)

    def test_a_key_over_its_limit_gets_429_with_retry_after(self):
        start_early_in_a_clock_minute(5)
        _, token = make_key()
        _, other = make_key()
        with override_settings(API={**self.settings_api(), "RATE_LIMIT_PER_MINUTE": 3}):
            for _ in range(3):
                self.assertEqual(self.api("get", "/knowledge-bases", token=token).status_code, 200)
            response = self.api("get", "/knowledge-bases", token=token)
            self.assertError(response, 429, "rate_limited")
            self.assertTrue(1 <= int(response["Retry-After"]) <= 60)
            # Limits are per key.
            self.assertEqual(self.api("get", "/knowledge-bases", token=other).status_code, 200)

    def settings_api(self):
        return settings.API


    def test_a_broken_counter_store_does_not_take_the_api_down(self):
        # Counters in a Redis that is down (nothing listens on port 1): every count fails for real.
        _, token = make_key()
        with override_settings(CACHES=BROKEN_STORE), self.assertLogs("portal.rate_limit", "ERROR") as logs:
            response = self.api("get", "/knowledge-bases", token=token)
        self.assertEqual(response.status_code, 200, response.content[:300])
        self.assertIn("rate limit", logs.output[0])

    def test_a_broken_store_is_logged_once_a_minute_with_the_failures_between_counted(self):
        # A traceback per request would cost more than the request and bury everything else in the log.
        _, token = make_key()
        with override_settings(CACHES=BROKEN_STORE), self.assertLogs("portal.rate_limit", "ERROR") as logs:
            for _ in range(3):
                self.assertEqual(self.api("get", "/knowledge-bases", token=token).status_code, 200)
            self.assertEqual(len(logs.records), 1)
            rate_limit._failures["logged_at"] -= rate_limit.FAILURE_LOG_INTERVAL  # a minute later
            self.assertEqual(self.api("get", "/knowledge-bases", token=token).status_code, 200)
        self.assertEqual(len(logs.records), 2)
        self.assertIn("2 more failures", logs.output[1])
        self.assertIsNotNone(logs.records[1].exc_info)


    @skipUnless(redis_server.AVAILABLE, redis_server.WHY_NOT)
    def test_with_redis_the_counters_live_in_redis(self):
        import redis

        _, token = make_key()
        with redis_server.running_redis() as url:
            start_early_in_a_clock_minute(5)
            in_redis = {**settings.CACHES, "api": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                                   "LOCATION": url}}
            with override_settings(CACHES=in_redis, API={**self.settings_api(), "RATE_LIMIT_PER_MINUTE": 2}):
                statuses = [self.api("get", "/knowledge-bases", token=token).status_code for _ in range(3)]
            counters = redis.Redis.from_url(url).keys("*rate:*")
        self.assertEqual(statuses, [200, 200, 429])
        self.assertTrue(counters)


class CacheTableMigrationTests(ApiTestCase):
    def test_migrate_creates_the_counters_table(self):
        # The test runner creates cache tables itself; check that `migrate` alone would too.
        from importlib import import_module
        from types import SimpleNamespace

        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE portal_api_cache")
        import_module("portal.migrations.0003_fix_api_cache_table").repair(None,
                                                                           SimpleNamespace(connection=connection))
        self.assertIn("portal_api_cache", connection.introspection.table_names())


class ConcurrentRateLimitTests(TransactionTestCase):
    """12 threads at once against one key: the counter is atomic, so at most the limit gets through."""

    LIMIT = 30

    def hammer(self, token: str, threads: int = 12, each: int = 8) -> list[int]:
        start_early_in_a_clock_minute(20)

        def client():
            statuses = []
            try:
                for _ in range(each):
                    response = Client().get("/api/v1/knowledge-bases", headers={"Authorization": f"Bearer {token}"})
                    statuses.append(response.status_code)
            finally:
                connection.close()
            return statuses

        return [status for statuses in at_once(threads, client) for status in statuses]

    def test_twelve_threads_in_the_database_store(self):
        _, token = make_key()
        with override_settings(API={**settings.API, "RATE_LIMIT_PER_MINUTE": self.LIMIT}):
            statuses = self.hammer(token)
        self.assertEqual(len(statuses), 96)
        self.assertEqual(set(statuses), {200, 429})
        self.assertLessEqual(statuses.count(200), self.LIMIT + 2)
        self.assertEqual(statuses.count(200), self.LIMIT)

    @skipUnless(redis_server.AVAILABLE, redis_server.WHY_NOT)
    def test_twelve_threads_in_redis(self):
        _, token = make_key()
        with redis_server.running_redis() as url:
            in_redis = {**settings.CACHES, "api": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                                   "LOCATION": url}}
            with override_settings(CACHES=in_redis, API={**settings.API, "RATE_LIMIT_PER_MINUTE": self.LIMIT}):
                statuses = self.hammer(token)
        self.assertEqual(statuses.count(200), self.LIMIT)
