"""gunicorn's threaded worker, shedding load instead of queueing it without bound (`bin/serve`).

A gthread worker accepts connections up to `worker_connections` and hands each to a pool of
`threads`; when requests come faster than the threads finish them, they wait in the pool's queue
(and beyond `worker_connections`, in the kernel's listen backlog). Under a burst of a thousand
clients a search would then wait for minutes and be answered long after its client gave up.

This worker notes when each request was queued. A request that waited longer than
PORTAL_WEB_MAX_QUEUE_WAIT seconds for a thread is answered at once with 503 and `Retry-After`,
in the API's error shape, without Django, the database or the embedder: a few hundred
microseconds, so a backlog drains at thousands of requests a second and the threads go back to
requests that can still be answered in time. Memory stays bounded by `worker_connections`
per process (each a socket and a parser); the backlog beyond it is the kernel's, whose overflow
it refuses.

A worker whose threads are all busy also leaves new connections to its siblings for
`FULL_ACCEPT_DELAY` seconds. The kernel wakes every worker for a new connection and the first to
call accept() gets it, so a busy worker would otherwise take connections a free sibling could
serve at once — and with keep-alive, every later request of those clients too (8 clients on 2
workers of 4 threads were split 6 + 2 in half of the tries: part of the server idle while the
other part queued). If it is still full after the delay, so are its siblings (nobody took the
connections): it takes them all, and they queue for a thread (and are shed) as before, until
its queue is empty again.

A thread that has answered a request on a kept-alive connection waits up to PORTAL_WEB_LINGER
seconds (5 ms) for that connection's next request and serves it itself, unless another request
is waiting for a thread. gunicorn hands every request to the main thread's poller and back to the
pool (a pipe written to wake the loop, the socket registered and unregistered, a future queued):
≈ 0.1 ms of CPU per request on this kind of machine, a fifth of the cheapest request's cost
(`GET /healthz` served a quarter more per second, bench/floor.py). A client that pauses longer goes back to the
poller as before; a waiting thread stops waiting as soon as a request is queued for a thread,
and one sending without pause cannot keep it from others either (it is returned to the poller
whenever a request is queued).
"""

import contextlib
import json
import os
import select
import threading
import time

from gunicorn.workers.gthread import ThreadWorker

from portal.env import env_float

# Read what a shed client already sent, at most this much, so closing does not reset the
# connection before the client reads the answer (gunicorn drains the socket on close as well).
DRAIN_BYTES = 1024 * 1024

_waited = threading.local()

# Seconds a worker whose threads are all busy leaves new connections to a sibling before taking them itself.
FULL_ACCEPT_DELAY = 0.1


class SheddingThreadWorker(ThreadWorker):
    """ThreadWorker whose requests answer 503 after waiting more than `max_queue_wait` for a thread,
    and which leaves new connections to its siblings while every thread of its own is busy."""

    def init_process(self) -> None:
        self.max_queue_wait = env_float("PORTAL_WEB_MAX_QUEUE_WAIT", 5.0)
        self.linger = env_float("PORTAL_WEB_LINGER", 0.005)
        # Readable while a request waits for a thread (written and read on gunicorn's main thread).
        self.queued_r, self.queued_w = os.pipe()
        os.set_blocking(self.queued_r, False)  # never block the main thread, whatever the count says
        # All on gunicorn's main thread: requests handed to the pool and not finished; since when
        # this full worker has left new connections to its siblings; whether they were full too.
        self.busy = 0
        self.refusing_since: float | None = None
        self.siblings_full = False
        super().init_process()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        self.wsgi = shed_when_late(self.wsgi, self.max_queue_wait)

    def enqueue_req(self, conn) -> None:
        conn.queued_at = time.monotonic()
        self.busy += 1
        if self.busy == self.cfg.threads + 1:  # a request now waits for a thread: lingering threads stop
            os.write(self.queued_w, b"q")
        super().enqueue_req(conn)

    def finish_request(self, conn, fs) -> None:
        self.busy -= 1
        if self.busy == self.cfg.threads:
            with contextlib.suppress(BlockingIOError):
                os.read(self.queued_r, 1)
        if self.busy < self.cfg.threads:
            self.siblings_full = False
        super().finish_request(conn, fs)

    def accept(self, listener) -> None:
        super().accept(listener)
        if self.busy >= self.cfg.threads and not self.siblings_full and self.refusing_since is None:
            self.refusing_since = time.monotonic()
            self.set_accept_enabled(False)
            # gunicorn's loop asks to accept again after each event, or a second: one event at the delay.
            timer = threading.Timer(FULL_ACCEPT_DELAY, self.method_queue.defer, args=(_nothing,))
            timer.daemon = True
            timer.start()

    def set_accept_enabled(self, enabled: bool) -> None:
        if enabled and self.refusing_since is not None:
            if self.busy < self.cfg.threads:
                self.refusing_since = None
            elif time.monotonic() - self.refusing_since >= FULL_ACCEPT_DELAY:
                self.refusing_since, self.siblings_full = None, True
            else:
                enabled = False
        super().set_accept_enabled(enabled)

    def handle(self, conn):
        while True:
            _waited.seconds = time.monotonic() - getattr(conn, "queued_at", time.monotonic())
            kept = super().handle(conn)
            if kept is not True or not self._next_request_soon(conn):
                return kept
            conn.queued_at = time.monotonic()

    def _next_request_soon(self, conn) -> bool:
        """Whether this thread should serve the connection's next request itself: it came within
        `linger` seconds and no other request waits for a thread (its own connection then goes back
        to the poller, as gunicorn does after every request)."""
        if self.linger <= 0 or not self.alive or self.busy > self.cfg.threads:
            return False
        if conn.parser.unreader.buf.getvalue():  # read ahead with the last one (pipelined)
            return True
        poller = select.poll()
        try:
            poller.register(conn.sock, select.POLLIN)
            poller.register(self.queued_r, select.POLLIN)
            ready = {fd for fd, _ in poller.poll(self.linger * 1000)}
        except (OSError, ValueError):  # closed meanwhile
            return False
        return bool(ready) and self.queued_r not in ready

    def handle_request(self, req, conn):
        if is_late(self.max_queue_wait):
            req.must_close = True  # the slot goes to a client still waiting to be accepted
        return super().handle_request(req, conn)


def _nothing() -> None:
    """A callback that only wakes gunicorn's loop."""


def is_late(max_wait: float) -> bool:
    return max_wait > 0 and getattr(_waited, "seconds", 0.0) > max_wait


def shed_when_late(app, max_wait: float):
    """The WSGI `app`, answering 503 instead when this thread's request waited over `max_wait` seconds."""

    def application(environ, start_response):
        late, waited = is_late(max_wait), getattr(_waited, "seconds", 0.0)
        _waited.seconds = 0.0  # a next request on a kept-alive connection is queued afresh
        if not late or environ.get("PATH_INFO") == "/healthz":
            return app(environ, start_response)
        return overloaded(environ, start_response, waited)

    return application


def overloaded(environ, start_response, waited: float) -> list[bytes]:
    from django.utils.translation import gettext

    _drain(environ.get("wsgi.input"))
    message = gettext("The server is busy; retry in a few seconds")
    if environ.get("PATH_INFO", "").startswith("/api/"):
        body = json.dumps({"error": {"code": "overloaded", "message": message}}, ensure_ascii=False).encode()
        content_type = "application/json; charset=utf-8"
    else:
        body, content_type = message.encode(), "text/plain; charset=utf-8"
    # Retry when the queue has had the time to drain: about as long as this request waited.
    retry_after = str(max(1, min(30, round(waited))))
    start_response("503 Service Unavailable", [
        ("Content-Type", content_type), ("Content-Length", str(len(body))), ("Retry-After", retry_after),
        ("Cache-Control", "no-store"),
    ])
    return [body]


def _drain(stream) -> None:
    if stream is None:
        return
    left = DRAIN_BYTES
    while left > 0:
        data = stream.read(min(65536, left))
        if not data:
            return
        left -= len(data)
