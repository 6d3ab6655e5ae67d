"""A test embedder that counts what it embeds: the embedder edge, where calls are observed.

Registered in the embedder registry under "counting" by `registered()` (and removed after),
it embeds like the hash embedder.
"""

import threading
from contextlib import contextmanager

from knowledge.indexing import embedding
from knowledge.indexing.embedding import EmbedderInfo, HashEmbedder


class CountingEmbedder(HashEmbedder):
    info = EmbedderInfo("counting", 256, 100_000, "Hash embedder that counts its inputs (tests only)")
    version = "counting-1"

    def __init__(self):
        super().__init__()
        self.passages: list[str] = []
        self.queries: list[str] = []
        self._count_lock = threading.Lock()
        # Set `gate` to hold every call inside the embedder (counted already) until it is set.
        self.gate: threading.Event | None = None

    def _embed(self, texts, is_query):
        with self._count_lock:
            (self.queries if is_query else self.passages).extend(texts)
        if self.gate is not None and not self.gate.wait(timeout=30):
            raise TimeoutError("the test never opened the counting embedder's gate")
        return super()._embed(texts, is_query)

    def reset(self) -> None:
        with self._count_lock:
            self.passages.clear()
            self.queries.clear()


@contextmanager
def registered():
    """Register the counting embedder; yield the process-wide instance."""
    embedding.REGISTRY["counting"] = CountingEmbedder
    try:
        yield embedding.get_embedder("counting")
    finally:
        embedding.REGISTRY.pop("counting", None)
        with embedding._instances_lock:
            embedding._instances.pop("counting", None)
