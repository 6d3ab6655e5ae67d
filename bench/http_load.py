"""The load generator of bench/load.py: threads, each on its own keep-alive connection, sending the
next request when the last one is answered, and the summary of a pass.

The threads (`Clients`) live for the whole run and keep their connections from one pass to the
next, as keep-alive clients do: a pass that opened new ones measured their set-up too (8 TCP
connections accepted and spread over the server's processes, each thread's first request), 5–6 %
of a short keyword pass. The in-process ceiling's threads keep their database connections the same
way, as the server's threads do.

The client must cost next to nothing: it runs on the same cores as the server it measures, and
the in-process ceiling it is compared with pays for no client at all. `http.client` spends
≈ 0.5 ms of CPU per request (its header parsing, `email.message` objects), a tenth of what the
server spends on a keyword search; `Connection` sends bytes built in advance and reads the reply
by its Content-Length. bench/load.py prints the CPU its client used per request.
"""

import json
import queue
import socket
import threading
import time

from common import percentile

HEADER_END = b"\r\n\r\n"


class StaleConnection(ConnectionResetError):
    """The connection was closed before a byte of the reply came."""


class Connection:
    """One HTTP/1.1 keep-alive connection to 127.0.0.1:`port` for requests built by `post`."""

    def __init__(self, port: int, timeout: float = 120) -> None:
        self.port, self.timeout, self.sock = port, timeout, None

    def post(self, path: str, body: bytes, headers: dict[str, str]) -> bytes:
        """The bytes of a POST of `body` to `path` with `headers` (and Host, Content-Length)."""
        lines = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}", f"Content-Length: {len(body)}",
                 *(f"{name}: {value}" for name, value in headers.items())]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body

    def send(self, request: bytes) -> int:
        """Send one request and read its whole reply; its status. A kept connection the server closed
        while it was idle (its keep-alive timeout) is opened again and the request sent once more, as
        HTTP clients do, when not a byte of the reply came; any other failure raises OSError."""
        reused = self.sock is not None
        try:
            return self._exchange(request)
        except StaleConnection:
            if not reused:
                raise
            return self._exchange(request)

    def _exchange(self, request: bytes) -> int:
        if self.sock is None:
            self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=self.timeout)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            try:
                self.sock.sendall(request)
            except (BrokenPipeError, ConnectionResetError) as exc:
                raise StaleConnection(str(exc)) from exc
            status, keep_alive = self._read_reply()
        except OSError:
            self.close()
            raise
        if not keep_alive:
            self.close()
        return status

    def _read_reply(self) -> tuple[int, bool]:
        buffer = b""
        while (end := buffer.find(HEADER_END)) < 0:
            try:
                buffer += self._recv()
            except ConnectionResetError as exc:
                if buffer:
                    raise
                raise StaleConnection(str(exc)) from exc
        head = buffer[:end].decode("latin-1").split("\r\n")
        headers = {name.strip().lower(): value.strip().lower()
                   for name, _, value in (line.partition(":") for line in head[1:])}
        received = len(buffer) - end - len(HEADER_END)
        if "content-length" not in headers:  # no length: the body ends with the connection
            while self._recv(allow_close=True):
                pass
            return int(head[0].split()[1]), False
        while received < int(headers["content-length"]):
            received += len(self._recv())
        return int(head[0].split()[1]), headers.get("connection") != "close"

    def _recv(self, allow_close: bool = False) -> bytes:
        data = self.sock.recv(262144)
        if not data and not allow_close:
            raise ConnectionResetError("the server closed the connection mid-reply")
        return data

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None


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


def search_call(port: int, token: str, top_k: int):
    """A `Clients` call that sends one (mode, question) item to POST /api/v1/search; True on 200."""
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def call(item, state) -> bool:
        mode, query = item
        if "conn" not in state:
            state["conn"] = Connection(port)
            state["close"] = state["conn"].close
        body = json.dumps({"query": query, "mode": mode, "top_k": top_k}).encode()
        try:
            return state["conn"].send(state["conn"].post("/api/v1/search", body, headers)) == 200
        except OSError:
            return False
    return call


def summary(latencies: list[float], failures: int, seconds: float) -> dict:
    return {"requests": len(latencies), "failures": failures, "seconds": round(seconds, 2),
            "rps": round(len(latencies) / seconds, 1) if seconds else 0.0,
            "p50_ms": round(percentile(latencies, 50), 1), "p99_ms": round(percentile(latencies, 99), 1)}
