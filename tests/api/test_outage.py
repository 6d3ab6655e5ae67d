"""A database outage: 503 JSON (not 500) while it lasts, health endpoints that say so, and recovery."""

import socket
import time
from unittest import mock

import psycopg
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client, TransactionTestCase

from knowledge.models import KnowledgeBase
from portal import health
from tests.api.base import make_key
from tests.factories import make_kb


def closed_port() -> int:
    """A loopback port nothing listens on: connecting there fails like a database that is down."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class DatabaseOutageTests(TransactionTestCase):
    def setUp(self):
        # Errors become responses, as for a real client (the test client re-raises them by default).
        self.client = Client(raise_request_exception=False)
        _, self.token = make_key()
        self.real = dict(connection.settings_dict)

    def outage(self):
        connection.close()
        connection.settings_dict.update(HOST="127.0.0.1", PORT=str(closed_port()))

    def recover(self):
        connection.close()
        connection.settings_dict.update(HOST=self.real["HOST"], PORT=self.real["PORT"])

    def get(self, path):
        return self.client.get(path, headers={"Authorization": f"Bearer {self.token}"})

    def test_while_the_database_is_down_the_api_answers_503_json_and_heals_after(self):
        self.assertEqual(self.get("/api/v1/knowledge-bases").status_code, 200)
        self.client.force_login(get_user_model().objects.create_superuser("admin", "admin@example.com", "pw"))
        self.outage()
        try:
            response = self.get("/api/v1/knowledge-bases")
            self.assertEqual(response.status_code, 503, response.content[:300])
            self.assertEqual(response.json()["error"]["code"], "database_unavailable")
            self.assertEqual(response["Retry-After"], "5")
            admin_page = self.client.get("/admin/")
            self.assertEqual((admin_page.status_code, admin_page["Retry-After"]), (503, "5"))
            self.assertEqual(self.client.get("/healthz").json(), {"status": "ok"})  # with a session too
            ready = Client().get("/readyz")  # a load balancer sends no session
            self.assertEqual(ready.status_code, 503)
            self.assertEqual(ready.json()["checks"]["database"], "failed")
        finally:
            self.recover()
        # The database is back: the next request connects again, nothing is restarted.
        self.assertEqual(self.get("/api/v1/knowledge-bases").status_code, 200)
        ready = Client().get("/readyz")
        self.assertEqual(ready.status_code, 200, ready.content)
        self.assertEqual(ready.json(),
                         {"status": "ok", "checks": {"database": "ok", "broker": "ok", "embedder": "ok"}})


class EmbedderReadinessTests(TransactionTestCase):
    def test_a_server_started_on_a_machine_booted_seconds_ago_checks_its_embedders(self):
        # The monotonic clock counts from the boot: at 10 s, a check "30 s after the last one" never
        # came, and /readyz said "ok" for a base whose embedder cannot be loaded.
        KnowledgeBase.objects.filter(pk=make_kb().pk).update(embedder="no-such-embedder")
        booted = mock.patch.object(health.time, "monotonic", return_value=10.0)
        with mock.patch.dict(health._embedders_checked), booted:
            health.forget_embedder_check()  # as a new process starts
            ready = Client().get("/readyz")
        self.assertEqual((ready.status_code, ready.json()["checks"]["embedder"]), (503, "failed"))


class ConnectionHealthCheckTests(TransactionTestCase):
    """A kept connection is checked before each request reuses it (CONN_HEALTH_CHECKS), without a
    round trip: a connection the server ended has something to read (its farewell, or the end)."""

    def setUp(self):
        connection.ensure_connection()
        self.pid = connection.connection.info.backend_pid

    def last_statement(self) -> str:
        """What the server saw last on our connection, read over another one."""
        with psycopg.connect(**self.other_connection_params(), autocommit=True) as other:
            return other.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [self.pid]).fetchone()[0]

    @staticmethod
    def other_connection_params() -> dict:
        params = connection.get_connection_params()
        return {key: value for key, value in params.items() if key not in ("cursor_factory", "context")}

    def test_a_healthy_idle_connection_is_usable_and_the_check_sends_no_statement(self):
        with connection.cursor() as cursor:
            cursor.execute("SELECT 'the last statement'")
        self.assertTrue(connection.is_usable())
        self.assertEqual(self.last_statement(), "SELECT 'the last statement'")

    def test_a_connection_the_server_ended_is_not_usable_and_the_next_request_gets_a_new_one(self):
        with psycopg.connect(**self.other_connection_params(), autocommit=True) as other:
            other.execute("SELECT pg_terminate_backend(%s)", [self.pid])
        deadline = time.monotonic() + 10
        while connection.is_usable() and time.monotonic() < deadline:
            time.sleep(0.05)  # the server's farewell takes a moment to arrive
        self.assertFalse(connection.is_usable())
        # What Django does at the start of a request that reuses the connection: it is replaced.
        connection.health_check_done = False
        connection.close_if_health_check_failed()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            self.assertNotEqual(cursor.fetchone()[0], self.pid)

    def test_a_connection_left_inside_a_transaction_is_not_usable(self):
        connection.connection.execute("BEGIN")
        try:
            self.assertFalse(connection.is_usable())
        finally:
            connection.connection.execute("ROLLBACK")
        self.assertTrue(connection.is_usable())

    def test_every_request_checks_its_kept_connection_with_this_backend(self):
        self.assertTrue(connection.health_check_enabled)
        self.assertEqual(connection.settings_dict["ENGINE"], "portal.postgresql")
