"""A database outage: 503 JSON (not 500) while it lasts, health endpoints that say so, and recovery."""

import socket

from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client, TransactionTestCase

from tests.api.base import make_key


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
