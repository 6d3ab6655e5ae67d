"""`bin/serve`, the production web server (gunicorn), started as an operator starts it.

It runs on the test database (DATABASE_URL), so it sees the rows this TransactionTestCase commits.
"""

import http.client
import json
import os
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from django.test import TransactionTestCase

from tests.api.base import make_key
from tests.e2e.test_up import free_port
from tests.e2e.worker import ROOT, _environment
from tests.factories import make_document, make_kb


def post(url: str, body: dict, token: str | None = None) -> tuple[int, dict]:
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


class ServeTests(TransactionTestCase):
    def start(self, **env) -> str:
        port = free_port()
        log = self.enterContext(tempfile.NamedTemporaryFile("w+", suffix=".log"))
        server = subprocess.Popen(["bash", "bin/serve"], cwd=ROOT, start_new_session=True,
                                  env=_environment({"PORTAL_BIND": f"127.0.0.1:{port}", **env}),
                                  stdout=log, stderr=subprocess.STDOUT)
        self.addCleanup(self.stop, server)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/docs", timeout=5).close()
                return base
            except OSError:
                output = Path(log.name).read_text()[-3000:]
                self.assertIsNone(server.poll(), f"bin/serve exited:\n{output}")
                self.assertLess(time.monotonic(), deadline, f"bin/serve never answered:\n{output}")
                time.sleep(0.5)

    def stop(self, server: subprocess.Popen) -> None:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait(timeout=30)

    def test_serve_answers_the_search_api_under_gunicorn(self):
        kb = make_kb()
        make_document(kb, "# Returns\n\nA refund is possible within thirty days of purchase.", title="Refunds")
        _, token = make_key(scopes=["search"])
        base = self.start(PORTAL_WEB_WORKERS="2", PORTAL_WEB_THREADS="2")

        status, body = post(f"{base}/api/v1/search", {"query": "refund purchase", "knowledge_bases": [kb.pk]}, token)
        self.assertEqual(status, 200, body)
        self.assertEqual(body["hits"][0]["document_title"], "Refunds")
        status, body = post(f"{base}/api/v1/search", {"query": "refund"})
        self.assertEqual(status, 401)
        self.assertEqual(body["error"]["code"], "unauthorized")

    def test_a_10_mb_body_is_refused_and_a_burst_of_connections_is_answered_or_limited(self):
        kb = make_kb()
        make_document(kb, "# Returns\n\nA refund is possible within thirty days of purchase.", title="Refunds")
        _, token = make_key(scopes=["search"])
        base = self.start(PORTAL_WEB_WORKERS="2", PORTAL_WEB_THREADS="2", PORTAL_API_RATE_LIMIT_PER_MINUTE="60")

        # A 10 MB body is refused from its Content-Length, before it is read: the answer comes while
        # the client is still sending (a client that insists then finds the connection closed).
        connection = http.client.HTTPConnection(base.removeprefix("http://"), timeout=30)
        connection.putrequest("POST", "/api/v1/search")
        for name, value in (("Authorization", f"Bearer {token}"), ("Content-Type", "application/json"),
                            ("Content-Length", str(10 * 1024 * 1024))):
            connection.putheader(name, value)
        connection.endheaders(b'{"query": "' + b"refund " * 10_000)
        response = connection.getresponse()
        self.assertEqual(response.status, 413)
        self.assertEqual(json.loads(response.read())["error"]["code"], "payload_too_large")
        connection.close()

        # 200 clients at once against 4 threads and a limit of 60 a minute: each is answered, with
        # results or with 429, and the server goes on serving.
        with ThreadPoolExecutor(max_workers=200) as pool:
            statuses = list(pool.map(lambda _: post(f"{base}/api/v1/search",
                                                    {"query": "refund", "mode": "keyword"}, token)[0], range(200)))
        self.assertLessEqual(set(statuses), {200, 429}, statuses)
        self.assertGreater(statuses.count(429), 0)
        self.assertGreater(statuses.count(200), 0)
        status, _ = post(f"{base}/api/v1/search", {"query": "refund"})
        self.assertEqual(status, 401)
