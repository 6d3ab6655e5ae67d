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
"""

import json
import threading
import time

from gunicorn.workers.gthread import ThreadWorker

from portal.env import env_float

# Read what a shed client already sent, at most this much, so closing does not reset the
# connection before the client reads the answer (gunicorn drains the socket on close as well).
DRAIN_BYTES = 1024 * 1024

_waited = threading.local()


class SheddingThreadWorker(ThreadWorker):
    """ThreadWorker whose requests answer 503 after waiting more than `max_queue_wait` for a thread."""

    def init_process(self) -> None:
        self.max_queue_wait = env_float("PORTAL_WEB_MAX_QUEUE_WAIT", 5.0)
        super().init_process()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        self.wsgi = shed_when_late(self.wsgi, self.max_queue_wait)

    def enqueue_req(self, conn) -> None:
        conn.queued_at = time.monotonic()
        super().enqueue_req(conn)

    def handle(self, conn):
        _waited.seconds = time.monotonic() - getattr(conn, "queued_at", time.monotonic())
        return super().handle(conn)

    def handle_request(self, req, conn):
        if is_late(self.max_queue_wait):
            req.must_close = True  # the slot goes to a client still waiting to be accepted
        return super().handle_request(req, conn)


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
