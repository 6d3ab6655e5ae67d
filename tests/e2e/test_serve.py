"""`bin/serve`, the production web server (gunicorn), started as an operator starts it.

It runs on the test database (DATABASE_URL), so it sees the rows this TransactionTestCase commits.
Under a burst of 1,000 simultaneous connections (PORTAL_TEST_BURST_CONNECTIONS) it sheds load: one
worker of two threads, requests that waited over 0.3 s for a thread answer 503 (PORTAL_WEB_MAX_QUEUE_WAIT).
"""

import asyncio
import http.client
import json
import os
import signal
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from django.test import TransactionTestCase

from tests.api.base import make_key
from tests.e2e.worker import ROOT, _environment
from tests.factories import make_document, make_kb
from tests.net import free_port


def post(url: str, body: dict, token: str | None = None) -> tuple[int, dict]:
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


CONNECTIONS = int(os.environ.get("PORTAL_TEST_BURST_CONNECTIONS", "1000"))


async def _search(port: int, token: str) -> tuple[int, dict, bytes]:
    """One connection, one keyword search; (status, headers, body), status 0 when the connection failed."""
    body = json.dumps({"query": "refund", "mode": "keyword"}).encode()
    request = (f"POST /api/v1/search HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
               f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request + body)
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), timeout=120)
        writer.close()
    except (TimeoutError, OSError):
        return 0, {}, b""
    head, _, payload = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, payload


async def _gather(port: int, token: str, n: int) -> list[tuple[int, dict, bytes]]:
    return await asyncio.gather(*(_search(port, token) for _ in range(n)))


def _burst(port: int, token: str, n: int) -> list[tuple[int, dict, bytes]]:
    """`n` searches at once, from an event loop of their own thread (the suite's thread may run one)."""
    answers: list = []
    thread = threading.Thread(target=lambda: answers.extend(asyncio.run(_gather(port, token, n))))
    thread.start()
    thread.join()
    return answers


def group_rss_mb(pgid: int) -> float:
    """Resident memory of every process in the server's process group (master and workers), MB."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getpgid(int(entry.name)) != pgid:
                continue
            status = (entry / "status").read_text()
        except (OSError, ProcessLookupError):
            continue
        total += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    return total / 1024


def group_pids(pgid: int) -> set[int]:
    pids = set()
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and os.getpgid(int(entry.name)) == pgid:
                pids.add(int(entry.name))
        except ProcessLookupError:
            continue
    return pids


class ServeTests(TransactionTestCase):
    def start(self, **env) -> str:
        port = free_port()
        log = self.enterContext(tempfile.NamedTemporaryFile("w+", suffix=".log"))
        server = subprocess.Popen(["bash", "bin/serve"], cwd=ROOT, start_new_session=True,
                                  env=_environment({"PORTAL_BIND": f"127.0.0.1:{port}", **env}),
                                  stdout=log, stderr=subprocess.STDOUT)
        self.addCleanup(self.stop, server)
        self.server = server
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
        # The liveness probe states its length, so a keep-alive client reads it whole (not chunked).
        probe = http.client.HTTPConnection(base.removeprefix("http://"), timeout=30)
        try:
            probe.request("GET", "/healthz")
            reply = probe.getresponse()
            self.assertEqual((reply.status, reply.read()), (200, b'{"status": "ok"}'))
            self.assertEqual((reply.getheader("Content-Length"), reply.getheader("Transfer-Encoding")), ("16", None))
        finally:
            probe.close()

    def test_every_worker_sees_a_base_taken_from_a_key_and_its_revocation_at_once(self):
        # Each worker process remembers keys and bases (portal/access.py); concurrent requests make both
        # workers serve (and remember) the key before each change, and every request after it sees it.
        kbs = [make_kb() for _ in range(2)]
        for kb in kbs:
            make_document(kb, "# Returns\n\nA refund is possible within thirty days of purchase.", title="Refunds")
        key, token = make_key(scopes=["search"])
        base = self.start(PORTAL_WEB_WORKERS="2", PORTAL_WEB_THREADS="2", PORTAL_API_RATE_LIMIT_PER_MINUTE="100000")

        def searches(body: dict) -> list[tuple[int, dict]]:
            with ThreadPoolExecutor(max_workers=8) as pool:
                return list(pool.map(lambda _: post(f"{base}/api/v1/search", body, token), range(40)))

        both = {"query": "refund", "mode": "keyword", "knowledge_bases": [kb.pk for kb in kbs]}
        self.assertEqual({status for status, _ in searches(both)}, {200})
        key.knowledge_bases.set(kbs[:1])
        self.assertEqual({(status, body["error"]["code"]) for status, body in searches(both)}, {(404, "not_found")})
        hits = searches({"query": "refund", "mode": "keyword"})
        self.assertEqual({hit["knowledge_base_id"] for _, body in hits for hit in body["hits"]}, {kbs[0].pk})
        key.revoke()
        self.assertEqual({(status, body["error"]["code"]) for status, body in searches(both)}, {(401, "key_revoked")})

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

    def test_a_burst_of_connections_is_answered_or_shed_with_503_and_the_server_stays_up(self):
        kb = make_kb()
        make_document(kb, "# Returns\n\nA refund is possible within thirty days of purchase.", title="Refunds")
        _, token = make_key(scopes=["search"])
        # Any wait for a thread is too long: the worker accepts a connection at a time while its threads
        # are busy, so on a quiet machine a keyword search's queue stays short (at 0.3 s, and at 0.05 s, one
        # run in three answered all 1,000 in time and shed none).
        base = self.start(PORTAL_WEB_WORKERS="1", PORTAL_WEB_THREADS="2", PORTAL_WEB_MAX_QUEUE_WAIT="0.001",
                          PORTAL_API_RATE_LIMIT_PER_MINUTE="100000")
        port = int(base.rsplit(":", 1)[1])
        server = self.server
        # Warm: the worker has loaded everything a search needs. At a 1 ms bar even a request alone can be shed
        # on a busy machine (it was, once), so the warm-up asks until five are answered.
        answered = [post(f"{base}/api/v1/search", {"query": "refund", "mode": "keyword"}, token)[0] for _ in range(50)]
        self.assertEqual(set(answered), {200} | ({503} & set(answered)))
        self.assertGreaterEqual(answered.count(200), 5)
        pids, before = group_pids(server.pid), group_rss_mb(server.pid)

        peak = [before]
        sampling = True

        def sample():
            while sampling:
                peak.append(group_rss_mb(server.pid))
                time.sleep(0.05)

        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            answers = _burst(port, token, CONNECTIONS)
        finally:
            sampling = False
            sampler.join()

        statuses = [status for status, _, _ in answers]
        self.assertLessEqual(set(statuses), {200, 429, 503}, sorted(set(statuses)))
        self.assertGreater(statuses.count(200), 0)
        shed = [(headers, body) for status, headers, body in answers if status == 503]
        self.assertGreater(len(shed), 0, "nothing was shed: the burst was too small for this machine")
        headers, body = shed[0]
        self.assertGreaterEqual(int(headers["retry-after"]), 1)
        self.assertEqual(json.loads(body)["error"]["code"], "overloaded")
        # Nothing crashed or was restarted, memory grew by what a few hundred sockets cost, and the
        # server goes on answering.
        self.assertEqual(group_pids(server.pid), pids)
        self.assertLess(max(peak) - before, 150, f"RSS {before:.0f} MB before, {max(peak):.0f} MB at most")
        # It goes on answering. At the 1 ms bar a lone request may still be shed while the burst's last
        # connections drain (CI saw one 503 here), as in the warm-up: it asks until one is answered.
        after = []
        while len(after) < 50 and 200 not in after:
            after.append(post(f"{base}/api/v1/search", {"query": "refund", "mode": "keyword"}, token)[0])
            time.sleep(0.1 if after[-1] == 503 else 0)
        self.assertEqual(set(after), {200} | ({503} & set(after)), after)
        self.assertIn(200, after)
        self.assertIsNone(server.poll())
