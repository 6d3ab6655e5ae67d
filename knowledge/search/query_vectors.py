"""Query vectors, cached in two levels in front of the embedder.

Support questions repeat ("how do I reset my password"), and embedding one costs tens of
milliseconds of CPU with the default model, against a millisecond or two for the search itself.
Vectors are keyed by the embedder's name and version (which name its model and configuration, as
in the documents' configuration signatures) and the query text, so a base on another embedder,
or an embedder reconfigured, never gets a vector that is not its own.

1. Each process keeps a bounded LRU of `PORTAL["QUERY_CACHE_SIZE"]` vectors (read-only arrays,
   shared by every request that asks the same question): no round trip at all.
2. After a miss there, the shared level: `PORTAL["QUERY_CACHE_SHARED_SIZE"]` vectors in an
   unlogged table (`knowledge.models.QueryVector`), which every web process and machine reads
   and writes, so a question one of them embedded is one indexed read for the others. With
   several server processes a client's keep-alive connection stays on one of them, so without
   this level only the questions that happen to come back to the same process would be hits.
   One statement to look up, one to store (and every so often one to drop the oldest rows); a
   failing shared level is skipped (logged), never an error.

Either size set to 0 turns that level off.
"""

import hashlib
import logging
import threading
from collections import OrderedDict
from contextlib import nullcontext

import numpy as np
from django.conf import settings
from django.core.signals import setting_changed
from django.db import DatabaseError, connection, transaction
from django.dispatch import receiver

from knowledge.indexing.embedding import Embedder, get_embedder
from knowledge.search import sql

logger = logging.getLogger(__name__)

_cache: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
_lock = threading.Lock()
stats = {"hits": 0, "shared_hits": 0, "misses": 0}
_stored = {"count": 0}  # vectors this process stored: the oldest rows are dropped every so many


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
    return f"{name}:" + hashlib.sha256(f"{version}\0{text}".encode()).hexdigest()


def _shared_get(key: tuple[str, str, str]) -> np.ndarray | None:
    if settings.PORTAL.get("QUERY_CACHE_SHARED_SIZE", 0) <= 0:
        return None
    try:
        with _savepoint(), connection.cursor() as cursor:
            cursor.execute(*sql.stored_query_vector(shared_key(key)))
            row = cursor.fetchone()
    except DatabaseError:
        logger.warning("The shared query-vector cache could not be read; embedding the question", exc_info=True)
        return None
    # Read-only, like the vectors embedded here.
    return np.frombuffer(bytes(row[0]), dtype=np.float32) if row else None


def _shared_set(key: tuple[str, str, str], vector: np.ndarray) -> None:
    size = settings.PORTAL.get("QUERY_CACHE_SHARED_SIZE", 0)
    if size <= 0:
        return
    with _lock:
        _stored["count"] += 1
        prune = _stored["count"] % max(1, size // 16) == 0  # the table stays within ~6 % of its size
    try:
        with _savepoint(), connection.cursor() as cursor:
            cursor.execute(*sql.store_query_vector(shared_key(key), np.asarray(vector, dtype=np.float32).tobytes()))
            if prune:
                cursor.execute(*sql.prune_query_vectors(size))
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
