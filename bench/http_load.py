"""The load generator of bench/load.py and the summary of a pass.

`Connections`: keep-alive connections to the server, driven by one thread, each sending the next
request when the last one is answered. They live for the whole run and keep their connections
from one pass to the next, as keep-alive clients do: a pass that opened new ones measured their
set-up too (8 TCP connections accepted and spread over the server's processes, each one's first
request), 5–6 % of a short keyword pass.

The client must cost next to nothing: it runs on the same cores as the server it measures, and
the in-process ceiling it is compared with pays for no client at all. `http.client` spends
≈ 0.5 ms of CPU per request (its header parsing, `email.message` objects) and a thread per
connection ≈ 0.25 ms (locks, GIL hand-offs), against a few milliseconds the server spends on a
keyword search; `Connections` sends bytes built in advance and reads each reply by its
Content-Length, from one thread. bench/load.py prints the CPU its client used per request.

`Clients`: threads that live across passes, each calling a function with the next item — the
in-process ceiling's, each keeping its database connection as the server's threads do.
"""

import json
import queue
import selectors
import socket
import threading
import time

from common import percentile

HEADER_END = b"\r\n\r\n"


class Connections:
    """`count` HTTP/1.1 keep-alive connections to 127.0.0.1:`port`, kept for the whole run and driven
    by one thread with a selector: each sends its next request (`build(item)`: the bytes of a whole
    request) as soon as its last one is answered, and reads the reply by its Content-Length.

    One thread, not one per connection: threads cost the machine ≈ 0.25 ms per request in locks and
    GIL hand-offs, on the same cores as the server measured. A kept connection the server closed
    while idle (its keep-alive timeout) is opened again and the request sent once more, as HTTP
    clients do, when not a byte of the reply came; any other failure counts the request as failed."""

    def __init__(self, port: int, count: int, build, timeout: float = 120) -> None:
        self.port, self.build, self.timeout = port, build, timeout
        self.selector = selectors.DefaultSelector()
        self.slots = [_Slot() for _ in range(count)]
        self.latencies: list[float] = []
        self.failures = 0

    def run(self, items: list) -> tuple[list[float], int, float]:
        """Send every item's request, `count` at a time; (latencies ms, failures, seconds)."""
        unsent, self.latencies, self.failures = iter(list(items)), [], 0
        started = time.perf_counter()
        for slot in self.slots:
            self._send_next(slot, unsent)
        while self.selector.get_map():
            events = self.selector.select(self.timeout)
            if not events:
                raise TimeoutError(f"no reply in {self.timeout} s")
            for key, _ in events:
                slot = key.data
                status = self._receive(slot)
                if status is not None:
                    self._finish(slot, status)
                    self._send_next(slot, unsent)
        return self.latencies, self.failures, time.perf_counter() - started

    def _send_next(self, slot: "_Slot", unsent) -> None:
        """Send the next item's request on `slot`, if any is left (a request that cannot be sent fails)."""
        for item in unsent:
            slot.request, slot.retried, slot.started = self.build(item), False, time.perf_counter()
            if self._send(slot):
                return
            self._finish(slot, 0)

    def _send(self, slot: "_Slot") -> bool:
        slot.reply, slot.length = b"", None
        try:
            if slot.sock is None:
                slot.sock = socket.create_connection(("127.0.0.1", self.port), timeout=self.timeout)
                slot.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                slot.reused = False
            slot.sock.sendall(slot.request)
        except OSError:
            self._close(slot)
            return self._retry(slot)
        self.selector.register(slot.sock, selectors.EVENT_READ, slot)
        return True

    def _retry(self, slot: "_Slot") -> bool:
        """Send the request again on a new connection, once, if the kept one was closed while idle."""
        if not slot.reused or slot.retried:
            return False
        slot.retried = True
        return self._send(slot)

    def _receive(self, slot: "_Slot") -> int | None:
        """The reply's status once it is whole (0 when the request failed); None while it is not."""
        try:
            data = slot.sock.recv(262144)
        except OSError:
            data = b""
        if not data:
            self.selector.unregister(slot.sock)
            self._close(slot)
            return None if not slot.reply and self._retry(slot) else 0
        slot.reply += data
        if slot.length is None:
            end = slot.reply.find(HEADER_END)
            if end < 0:
                return None
            head = slot.reply[:end].decode("latin-1").split("\r\n")
            headers = {name.strip().lower(): value.strip().lower()
                       for name, _, value in (line.partition(":") for line in head[1:])}
            slot.status, slot.keep = int(head[0].split()[1]), headers.get("connection") != "close"
            slot.length = end + len(HEADER_END) + int(headers.get("content-length", 0))
        if len(slot.reply) < slot.length:
            return None
        self.selector.unregister(slot.sock)
        slot.reused = True
        if not slot.keep:
            self._close(slot)
        return slot.status

    def _finish(self, slot: "_Slot", status: int) -> None:
        self.latencies.append((time.perf_counter() - slot.started) * 1000)
        self.failures += status != 200

    @staticmethod
    def _close(slot: "_Slot") -> None:
        if slot.sock is not None:
            slot.sock.close()
            slot.sock = None

    def close(self) -> None:
        for slot in self.slots:
            self._close(slot)
        self.selector.close()

    def __enter__(self) -> "Connections":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Slot:
    """One connection of `Connections` and the request it waits on."""

    def __init__(self) -> None:
        self.sock: socket.socket | None = None
        self.reused = self.retried = self.keep = False
        self.request, self.reply, self.length, self.status, self.started = b"", b"", None, 0, 0.0


class Clients:
    """`count` threads that live across passes, each with its own state (a dict `call` keeps its
    connection in, and a `"close"` for it, called when the clients close)."""

    def __init__(self, count: int, call) -> None:
        self.call = call
        self._inboxes = [queue.SimpleQueue() for _ in range(count)]
        self._finished: queue.SimpleQueue = queue.SimpleQueue()
        self._threads = [threading.Thread(target=self._serve, args=(inbox,), daemon=True) for inbox in self._inboxes]
        for thread in self._threads:
            thread.start()

    def run(self, items: list) -> tuple[list[float], int, float]:
        """Call `call(item, state)` for every item, from every thread at once; (latencies ms, failures,
        seconds). `call` returns False for a failed request."""
        work = _Pass(items)
        started = time.perf_counter()
        for inbox in self._inboxes:
            inbox.put(work)
        for _ in self._inboxes:
            self._finished.get()
        return work.latencies, work.failures, time.perf_counter() - started

    def close(self) -> None:
        for inbox in self._inboxes:
            inbox.put(None)
        for thread in self._threads:
            thread.join()

    def __enter__(self) -> "Clients":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _serve(self, inbox: queue.SimpleQueue) -> None:
        state: dict = {}
        while (work := inbox.get()) is not None:
            try:
                work.take_turns(self.call, state)
            finally:
                self._finished.put(True)
        if "close" in state:
            state["close"]()


class _Pass:
    """One pass's items, taken one at a time by the clients, and what they measured."""

    def __init__(self, items: list) -> None:
        self.latencies: list[float] = []
        self.failures = 0
        self._items = iter(list(items))
        self._lock = threading.Lock()

    def take_turns(self, call, state: dict) -> None:
        while True:
            with self._lock:
                item = next(self._items, None)
            if item is None:
                return
            started = time.perf_counter()
            ok = call(item, state)
            elapsed = (time.perf_counter() - started) * 1000
            with self._lock:
                self.latencies.append(elapsed)
                self.failures += 0 if ok else 1


def search_request(port: int, token: str, top_k: int):
    """A `Connections` builder: the bytes of POST /api/v1/search for one (mode, question) item."""
    head = (f"POST /api/v1/search HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: application/json\r\n")

    def build(item) -> bytes:
        mode, query = item
        body = json.dumps({"query": query, "mode": mode, "top_k": top_k}).encode()
        return f"{head}Content-Length: {len(body)}\r\n\r\n".encode("latin-1") + body
    return build


def healthz_request(port: int):
    """A `Connections` builder: GET /healthz, which the first middleware answers (the HTTP floor)."""
    request = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode("latin-1")
    return lambda item: request


def summary(latencies: list[float], failures: int, seconds: float) -> dict:
    return {"requests": len(latencies), "failures": failures, "seconds": round(seconds, 2),
            "rps": round(len(latencies) / seconds, 1) if seconds else 0.0,
            "p50_ms": round(percentile(latencies, 50), 1), "p99_ms": round(percentile(latencies, 99), 1)}
