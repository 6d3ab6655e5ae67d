"""A small OpenAI-compatible server on 127.0.0.1 for tests: /v1/embeddings, /v1/chat/completions and
a Cohere/Jina-style /v1/rerank (documents scored by how many query words they contain).

Behaviour is steered per test through `server.behaviour`:
  - "ok": embeddings from the deterministic hash embedder; chat replies with `server.reply`
  - "slow": sleeps `server.delay` seconds before answering
  - "error": HTTP 500
  - "malformed": a 200 with a body that is not the expected JSON
  - "flaky": HTTP 500 once, then "ok"
  - "broken_stream": a streamed reply that breaks off with a malformed chunk
A request with `"stream": true` is answered with Server-Sent Events, one chunk per word.
Every request body is kept in `server.requests` so tests can read the prompt that was sent.
"""

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Handler(BaseHTTPRequestHandler):
    server: "OpenAIStub"

    def log_message(self, format, *args):  # keep test output quiet
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        stub = self.server
        stub.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
        behaviour = stub.behaviour
        if behaviour == "flaky":
            stub.behaviour, behaviour = "ok", "error"
        if behaviour == "slow":
            time.sleep(stub.delay)
        if behaviour == "error":
            return self._send(500, {"error": {"message": "stub failure", "type": "server_error"}})
        if behaviour == "malformed":
            return self._send_raw(200, b"{not json")
        if self.path.rstrip("/").endswith("/embeddings"):
            return self._send(200, stub.embeddings(body))
        if self.path.rstrip("/").endswith("/chat/completions"):
            if body.get("stream"):
                return self._stream(stub.completion_chunks(body), broken=behaviour == "broken_stream")
            return self._send(200, stub.completion(body))
        if self.path.rstrip("/").endswith("/rerank"):
            return self._send(200, stub.rerank(body))
        return self._send(404, {"error": {"message": f"no route {self.path}"}})

    def _stream(self, chunks, *, broken: bool = False):
        """Server-Sent Events as OpenAI streams them: one chunk per `data:` line, then [DONE]."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for number, chunk in enumerate(chunks):
            if broken and number == 2:
                self.wfile.write(b"data: {not json\n\n")
                self.wfile.flush()
                return
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            self.wfile.flush()
            self.server.chunks_sent += 1
            time.sleep(self.server.chunk_delay)
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True

    def _send(self, status, payload):
        self._send_raw(status, json.dumps(payload).encode())

    def _send_raw(self, status, raw):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


class OpenAIStub(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, dim: int = 256):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.dim = dim
        self.behaviour = "ok"
        self.delay = 2.0
        self.reply = "Stub answer [1]."
        self.chunk_delay = 0.0  # seconds between streamed chunks
        self.chunks_sent = 0
        self.requests: list[dict] = []
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def start(self) -> "OpenAIStub":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    def embeddings(self, body: dict) -> dict:
        from knowledge.indexing.embedding import HashEmbedder

        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        vectors = HashEmbedder()._embed(texts, is_query=False)[:, : self.dim]
        return {
            "object": "list",
            "model": body.get("model", "stub"),
            "data": [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)],
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        }

    def rerank(self, body: dict) -> dict:
        words = set(re.findall(r"\w+", body["query"].lower()))
        scores = [len(words & set(re.findall(r"\w+", doc.lower()))) / (1 + len(words)) for doc in body["documents"]]
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        return {"results": [{"index": i, "relevance_score": scores[i]} for i in order]}

    def completion_chunks(self, body: dict) -> list[dict]:
        """The reply cut into word-sized `chat.completion.chunk`s (what `stream: true` receives)."""
        reply = self.reply(body) if callable(self.reply) else self.reply
        pieces = re.findall(r"\S+\s*|\s+", reply)
        base = {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": int(time.time()),
                "model": body.get("model", "stub")}
        chunks = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                        "finish_reason": None}]}]
        chunks += [{**base, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
                   for piece in pieces]
        chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        return chunks

    def completion(self, body: dict) -> dict:
        reply = self.reply(body) if callable(self.reply) else self.reply
        return {
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "stub"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": reply}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
