"""`portal.web_worker.SheddingThreadWorker` under gunicorn, serving an app that holds each request a
while: with 2 workers of 2 threads, requests that waited over 0.3 s for a thread are shed; with one
worker, a thread serves its kept-alive connection's next request itself."""

import http.client
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from contextlib import closing

from django.test import SimpleTestCase

from tests.concurrency import at_once
from tests.e2e.worker import ROOT
from tests.net import free_port

WORKERS, THREADS = 2, 2


class HeldAppServer(SimpleTestCase):
    """gunicorn with `workers` × `threads` serving tests/e2e/held_app.py, with `env`."""

    workers_count, threads, env = WORKERS, THREADS, {"PORTAL_WEB_MAX_QUEUE_WAIT": "0.3"}

    def setUp(self):
        self.port = free_port()
        log = self.enterContext(tempfile.TemporaryFile("w+"))
        self.server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--worker-class", "portal.web_worker.SheddingThreadWorker",
             "--workers", str(self.workers_count), "--threads", str(self.threads),
             "--bind", f"127.0.0.1:{self.port}", "tests.e2e.held_app:application"],
            cwd=ROOT, env={**os.environ, **self.env}, start_new_session=True, stdout=log, stderr=subprocess.STDOUT)
        self.addCleanup(self.stop)
        deadline = time.monotonic() + 60
        while self.workers() < self.workers_count or not self.every_worker_answers():
            if self.server.poll() is not None:
                log.seek(0)
                self.fail(f"gunicorn exited: {log.read()[-2000:]}")
            self.assertLess(time.monotonic(), deadline, "gunicorn did not start its workers")
            time.sleep(0.2)
        time.sleep(0.3)  # the burst's requests finished, every worker back in its loop

    def stop(self):
        if self.server.poll() is None:
            os.killpg(self.server.pid, signal.SIGTERM)
            self.server.wait(timeout=30)

    def workers(self) -> int:
        found = subprocess.run(["pgrep", "-P", str(self.server.pid)], capture_output=True, text=True)
        return len(found.stdout.split())

    def every_worker_answers(self) -> bool:
        """Whether each worker answered one of a burst of requests. A started worker may still be
        importing the app (seconds on a loaded machine), and its siblings then take every connection."""
        answers = self.at_once(self.workers_count * self.threads, 0.05, timeout=5)
        return len({pid for status, pid in answers if status == 200}) == self.workers_count

    def get(self, connection: http.client.HTTPConnection, seconds: float) -> tuple[int, str]:
        """(status, body) of a request held `seconds`; the body of a 200 is the serving process's id."""
        connection.request("GET", f"/?seconds={seconds}")
        response = connection.getresponse()
        return response.status, response.read().decode()

    def serving_thread(self, connection: http.client.HTTPConnection, seconds: float = 0) -> str:
        """The id of the thread that served a request held `seconds` on `connection`."""
        connection.request("GET", f"/?seconds={seconds}")
        response = connection.getresponse()
        response.read()
        self.assertEqual(response.status, 200)
        return response.getheader("X-Thread")

    def at_once(self, clients: int, seconds: float, timeout: float = 30) -> list[tuple[int, str]]:
        """`clients` connections opened together, each sending one request held `seconds`."""
        def client():
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
            try:
                return self.get(connection, seconds)
            finally:
                connection.close()

        return at_once(clients, client)


class WorkerBalanceTests(HeldAppServer):
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


class KeptConnectionTests(HeldAppServer):
    """One worker: which thread serves a kept-alive connection's requests, and who waits for whom."""

    workers_count, threads = 1, 2
    env = {"PORTAL_WEB_MAX_QUEUE_WAIT": "0", "PORTAL_WEB_LINGER": "0.5"}  # generous: CI machines stall

    def test_the_thread_that_answered_a_kept_connection_serves_its_next_requests(self):
        self.at_once(self.threads, 0.3)  # both threads started; idle, they take queued requests in turn
        connection = self.enterContext(closing(http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)))
        threads = {self.serving_thread(connection) for _ in range(10)}
        self.assertEqual(len(threads), 1, "each request went back through gunicorn's poller and pool")
        # A request after the thread stopped waiting is still answered (through the poller).
        time.sleep(0.8)
        self.serving_thread(connection)

    def test_pipelined_requests_are_all_answered(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as sock:
            sock.sendall(b"".join(f"GET /?seconds={s} HTTP/1.1\r\nHost: x\r\n\r\n".encode() for s in (0.2, 0, 0)))
            replies = b""
            while replies.count(b"HTTP/1.1 200") < 3:
                chunk = sock.recv(65536)
                self.assertTrue(chunk, replies)
                replies += chunk
        self.assertEqual(replies.count(b"HTTP/1.1 200"), 3)


class OneThreadTests(HeldAppServer):
    """One worker of one thread, which would wait 5 s for a kept connection's next request."""

    workers_count, threads = 1, 1
    env = {"PORTAL_WEB_MAX_QUEUE_WAIT": "0", "PORTAL_WEB_LINGER": "5"}

    def another_clients_wait(self) -> float:
        """Seconds a new client's request took to be answered."""
        began = time.monotonic()
        with closing(http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)) as other:
            self.serving_thread(other)
        return time.monotonic() - began

    def test_a_thread_waiting_on_an_idle_kept_connection_serves_a_queued_request_at_once(self):
        idle = self.enterContext(closing(http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)))
        self.serving_thread(idle)
        self.assertLess(self.another_clients_wait(), 1.0, "a client waited for another one's idle kept connection")

    def test_a_client_sending_without_pause_does_not_keep_the_thread_from_others(self):
        stop_at = time.monotonic() + 3

        def keep_sending():
            with closing(http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)) as connection:
                while time.monotonic() < stop_at:
                    self.serving_thread(connection, 0.05)

        sender = threading.Thread(target=keep_sending)
        sender.start()
        self.addCleanup(sender.join)
        time.sleep(0.5)
        self.assertLess(self.another_clients_wait(), 1.0, "a client waited for the sending one to stop")
