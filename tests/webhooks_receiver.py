"""A real HTTP receiver on 127.0.0.1 for webhook tests; `behaviour` is "ok", "error", "hang" or "redirect"."""

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Handler(BaseHTTPRequestHandler):
    server: "Receiver"

    def log_message(self, format, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.received.append({"path": self.path, "headers": dict(self.headers), "body": body,
                                     "at": time.monotonic()})
        behaviour = self.server.behaviour
        if behaviour == "hang":
            time.sleep(self.server.hang_seconds)
        if behaviour == "redirect":
            self.send_response(307)
            self.send_header("Location", self.server.redirect_to)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        status = 500 if behaviour == "error" else 200
        self.send_response(status)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")


class Receiver(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.behaviour, self.hang_seconds, self.redirect_to = "ok", 3.0, "http://169.254.169.254/latest/meta-data"
        self.received: list[dict] = []
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/hook"

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
