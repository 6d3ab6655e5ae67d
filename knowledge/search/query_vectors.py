"""Query vectors, cached in two levels in front of the embedder.

Support questions repeat ("how do I reset my password"), and embedding one costs tens of
milliseconds of CPU with the default model, against a millisecond or two for the search itself.
Vectors are keyed by the embedder's name and version (which name its model and configuration, as
in the documents' configuration signatures) and the query text, so a base on another embedder,
or an embedder reconfigured, never gets a vector that is not its own.

1. Each process keeps a bounded LRU of `PORTAL["QUERY_CACHE_SIZE"]` vectors (read-only arrays,
   shared by every request that asks the same question): no round trip at all.
2. After a miss there, the shared level: `PORTAL["QUERY_CACHE_SHARED_SIZE"]` vectors in the
   database (`knowledge.models.QueryVector` through Django's database cache), which every web
   process and machine reads and writes, so a question one of them embedded is a lookup of well
   under a millisecond for the others. With several server processes a client's keep-alive
   connection stays on one of them, so without this level only the questions that happen to come
   back to the same process would be hits. A failing shared level is skipped (logged), never an error.

Either size set to 0 turns that level off.
"""

import hashlib
import logging
import threading
from collections import OrderedDict
from contextlib import nullcontext

import numpy as np
from django.conf import settings
from django.core.cache import caches
from django.core.signals import setting_changed
from django.db import DatabaseError, connection, transaction
from django.dispatch import receiver

from knowledge.indexing.embedding import Embedder, get_embedder

logger = logging.getLogger(__name__)

_cache: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
_lock = threading.Lock()
stats = {"hits": 0, "shared_hits": 0, "misses": 0}


def embed_query(embedder_name: str, text: str) -> np.ndarray:
    """The query vector of `text` for the named embedder, from a cache when it was asked before."""
    embedder = get_embedder(embedder_name)
    key = cache_key(embedder, text)
    size = settings.PORTAL.get("QUERY_CACHE_SIZE", 0)
    if size > 0:
        with _lock:
            vector = _cache.get(key)
            if vector is not None:
                _cache.move_to_end(key)
                stats["hits"] += 1
                return vector
    # Embedded outside the lock: other questions go on meanwhile (two threads asking the same new
    # question both embed it, which is harmless).
    vector = _shared_get(key)
    shared = vector is not None
    if not shared:
        vector = embedder.embed_query(text)
        vector.flags.writeable = False
        _shared_set(key, vector)
    with _lock:
        stats["shared_hits" if shared else "misses"] += 1
        if size > 0:
            _cache[key] = vector
            _cache.move_to_end(key)
            while len(_cache) > size:
                _cache.popitem(last=False)
    return vector


def cache_key(embedder: Embedder, text: str) -> tuple[str, str, str]:
    return (embedder.name, str(embedder.version), text)


def shared_key(key: tuple[str, str, str]) -> str:
    """The shared level's key: bounded in length whatever the question, and no text in clear."""
    name, version, text = key
    return f"qv:{name}:" + hashlib.sha256(f"{version}\0{text}".encode()).hexdigest()


def _shared_get(key: tuple[str, str, str]) -> np.ndarray | None:
    if settings.PORTAL.get("QUERY_CACHE_SHARED_SIZE", 0) <= 0:
        return None
    try:
        with _savepoint():
            stored = caches["query_vectors"].get(shared_key(key))
    except DatabaseError:
        logger.warning("The shared query-vector cache could not be read; embedding the question", exc_info=True)
        return None
    if not isinstance(stored, bytes):
        return None
    return np.frombuffer(stored, dtype=np.float32)  # read-only, like the vectors embedded here


def _shared_set(key: tuple[str, str, str], vector: np.ndarray) -> None:
    if settings.PORTAL.get("QUERY_CACHE_SHARED_SIZE", 0) <= 0:
        return
    try:
        with _savepoint():
            # Bytes, not the array: what is read back is a plain float32 vector, whatever wrote it.
            caches["query_vectors"].add(shared_key(key), np.asarray(vector, dtype=np.float32).tobytes())
    except DatabaseError:
        logger.warning("The shared query-vector cache could not be written", exc_info=True)


def _savepoint():
    """A savepoint inside a transaction, so a failing cache statement does not abort the caller's."""
    return transaction.atomic() if connection.in_atomic_block else nullcontext()


def clear() -> None:
    """Forget this process's vectors (the shared level is keyed by embedder version and stays)."""
    with _lock:
        _cache.clear()
        stats.update(hits=0, shared_hits=0, misses=0)


@receiver(setting_changed)
def _forget_on_settings_change(*, setting: str, **kwargs) -> None:
    """Embedders are rebuilt when their settings change (see embedding.py); so are their vectors."""
    if setting in ("OPENAI", "PORTAL"):
        clear()
