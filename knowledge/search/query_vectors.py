"""Query vectors, cached in two levels in front of the embedder.

Support questions repeat ("how do I reset my password"), and embedding one costs tens of
milliseconds of CPU with the default model, against a millisecond or two for the search itself.
Vectors are keyed by the embedder's name and version (which name its model and configuration, as
in the documents' configuration signatures) and the query text, so a base on another embedder,
or an embedder reconfigured, never gets a vector that is not its own.

1. Each process keeps a bounded LRU of `PORTAL["QUERY_CACHE_SIZE"]` vectors (read-only arrays,
   shared by every request that asks the same question): no round trip at all. A question being
   embedded is there too, as a promise: the same new question asked again meanwhile (a burst of
   identical questions during an outage) waits for that vector instead of embedding it again, and
   gets the embedder's error if it fails (the next request tries again).
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
from concurrent.futures import Future
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
_pending: dict[tuple[str, str, str], Future] = {}  # questions being embedded by a thread of this process
_lock = threading.Lock()
stats = {"hits": 0, "shared_hits": 0, "misses": 0, "waited": 0}
_stored = {"count": 0}  # vectors this process stored: the oldest rows are dropped every so many


def embed_query(embedder_name: str, text: str) -> np.ndarray:
    """The query vector of `text` for the named embedder, from a cache when it was asked before."""
    embedder = get_embedder(embedder_name)
    key = cache_key(embedder, text)
    size = settings.PORTAL.get("QUERY_CACHE_SIZE", 0)
    if size <= 0:
        vector, shared = _look_up_or_embed(embedder, key, text)
        with _lock:
            stats["shared_hits" if shared else "misses"] += 1
        return vector
    with _lock:
        vector = _cache.get(key)
        if vector is not None:
            _cache.move_to_end(key)
            stats["hits"] += 1
            return vector
        promise = _pending.get(key)
        embedded_elsewhere = promise is not None
        if embedded_elsewhere:
            stats["waited"] += 1
        else:
            promise = _pending[key] = Future()
    if embedded_elsewhere:
        return promise.result()  # another thread's vector, or its error
    try:
        # Outside the lock: other questions go on meanwhile.
        vector, shared = _look_up_or_embed(embedder, key, text)
    except BaseException as exc:
        with _lock:
            del _pending[key]
        promise.set_exception(exc)
        raise
    with _lock:
        del _pending[key]
        stats["shared_hits" if shared else "misses"] += 1
        _cache[key] = vector
        _cache.move_to_end(key)
        while len(_cache) > size:
            _cache.popitem(last=False)
    promise.set_result(vector)
    return vector


def _look_up_or_embed(embedder: Embedder, key: tuple[str, str, str], text: str) -> tuple[np.ndarray, bool]:
    """The vector from the shared level, or embedded (and stored there); whether it was shared."""
    vector = _shared_get(key)
    if vector is not None:
        return vector, True
    vector = embedder.embed_query(text)
    vector.flags.writeable = False
    _shared_set(key, vector)
    return vector, False


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
        stats.update(hits=0, shared_hits=0, misses=0, waited=0)


@receiver(setting_changed)
def _forget_on_settings_change(*, setting: str, **kwargs) -> None:
    """Embedders are rebuilt when their settings change (see embedding.py); so are their vectors."""
    if setting in ("OPENAI", "PORTAL"):
        clear()
