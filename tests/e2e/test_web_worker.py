"""`portal.web_worker.SheddingThreadWorker` under gunicorn (2 workers of 2 threads), serving an app
that holds each request a while; requests that waited over 0.3 s for a thread are shed."""

import http.client
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter

from django.test import SimpleTestCase

from tests.concurrency import at_once
from tests.e2e.worker import ROOT
from tests.net import free_port

WORKERS, THREADS = 2, 2


class WorkerBalanceTests(SimpleTestCase):
    def setUp(self):
        self.port = free_port()
        log = self.enterContext(tempfile.TemporaryFile("w+"))
        self.server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--worker-class", "portal.web_worker.SheddingThreadWorker",
             "--workers", str(WORKERS), "--threads", str(THREADS), "--bind", f"127.0.0.1:{self.port}",
             "tests.e2e.held_app:application"],
            cwd=ROOT, env={**os.environ, "PORTAL_WEB_MAX_QUEUE_WAIT": "0.3"}, start_new_session=True, stdout=log,
            stderr=subprocess.STDOUT)
        self.addCleanup(self.stop)
        deadline = time.monotonic() + 60
        while self.workers() < WORKERS or not self.answers():
            if self.server.poll() is not None:
                log.seek(0)
                self.fail(f"gunicorn exited: {log.read()[-2000:]}")
            self.assertLess(time.monotonic(), deadline, "gunicorn did not start its workers")
            time.sleep(0.2)
        time.sleep(0.5)  # every worker in its loop, waiting for connections

    def stop(self):
        if self.server.poll() is None:
            os.killpg(self.server.pid, signal.SIGTERM)
            self.server.wait(timeout=30)

    def workers(self) -> int:
        found = subprocess.run(["pgrep", "-P", str(self.server.pid)], capture_output=True, text=True)
        return len(found.stdout.split())

    def answers(self) -> bool:
        try:
            return self.get(http.client.HTTPConnection("127.0.0.1", self.port, timeout=5), 0)[0] == 200
        except OSError:
            return False

    def get(self, connection: http.client.HTTPConnection, seconds: float) -> tuple[int, str]:
        """(status, body) of a request held `seconds`; the body of a 200 is the serving process's id."""
        connection.request("GET", f"/?seconds={seconds}")
        response = connection.getresponse()
        return response.status, response.read().decode()

    def at_once(self, clients: int, seconds: float) -> list[tuple[int, str]]:
        """`clients` connections opened together, each sending one request held `seconds`."""
        def client():
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            try:
                return self.get(connection, seconds)
            finally:
                connection.close()

        return at_once(clients, client)

    def test_a_worker_with_every_thread_busy_leaves_new_connections_to_a_free_sibling(self):
        # As many clients as threads in all, connecting at once, each request held a second: with
        # every worker taking connections whatever its threads do, one took 3 or 4 of them in most
        # tries, and its clients waited for each other (or were shed) while the other worker idled.
        for _ in range(3):
            began = time.monotonic()
            answers = self.at_once(WORKERS * THREADS, 1.0)
            self.assertEqual(sorted(status for status, _ in answers), [200] * WORKERS * THREADS, answers)
            self.assertEqual(sorted(Counter(pid for _, pid in answers).values()), [THREADS] * WORKERS, answers)
            self.assertLess(time.monotonic() - began, 1.9, "a request waited for another one's thread")

    def test_when_every_worker_is_full_new_connections_queue_and_are_shed_as_before(self):
        # Twice as many clients as threads: the first four fill both workers; the others are taken
        # after the delay, wait for a thread past the 0.3 s allowed and are answered 503, not left
        # in the kernel's backlog to be served seconds later.
        began = time.monotonic()
        statuses = sorted(status for status, _ in self.at_once(2 * WORKERS * THREADS, 1.0))
        self.assertEqual(statuses, [200] * WORKERS * THREADS + [503] * WORKERS * THREADS)
        self.assertLess(time.monotonic() - began, 1.9, "the connections beyond the threads waited for them")
