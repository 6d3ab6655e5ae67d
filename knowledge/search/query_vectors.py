"""Query vectors with a bounded, per-process LRU cache in front of the embedder.

Support questions repeat ("how do I reset my password"), and embedding one costs tens of
milliseconds of CPU with the default model, against a millisecond or two for the search itself.
The cache is keyed by the embedder's name and version (which name its model and configuration,
as in the documents' configuration signatures) and the query text, so a base on another
embedder, or an embedder reconfigured, never gets a vector that is not its own. Each web process
has its own cache of at most `PORTAL["QUERY_CACHE_SIZE"]` vectors (0 turns it off); the vectors
are read-only arrays, shared by every request that asks the same question.
"""

import threading
from collections import OrderedDict

import numpy as np
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

from knowledge.indexing.embedding import Embedder, get_embedder

_cache: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
_lock = threading.Lock()
stats = {"hits": 0, "misses": 0}


def embed_query(embedder_name: str, text: str) -> np.ndarray:
    """The query vector of `text` for the named embedder, from the cache when it was asked before."""
    embedder = get_embedder(embedder_name)
    size = settings.PORTAL.get("QUERY_CACHE_SIZE", 0)
    if size <= 0:
        return embedder.embed_query(text)
    key = cache_key(embedder, text)
    with _lock:
        vector = _cache.get(key)
        if vector is not None:
            _cache.move_to_end(key)
            stats["hits"] += 1
            return vector
        stats["misses"] += 1
    # Embedded outside the lock: other questions go on meanwhile (two threads asking the same new
    # question both embed it, which is harmless).
    vector = embedder.embed_query(text)
    vector.flags.writeable = False
    with _lock:
        _cache[key] = vector
        _cache.move_to_end(key)
        while len(_cache) > size:
            _cache.popitem(last=False)
    return vector


def cache_key(embedder: Embedder, text: str) -> tuple[str, str, str]:
    return (embedder.name, str(embedder.version), text)


def clear() -> None:
    with _lock:
        _cache.clear()
        stats.update(hits=0, misses=0)


@receiver(setting_changed)
def _forget_on_settings_change(*, setting: str, **kwargs) -> None:
    """Embedders are rebuilt when their settings change (see embedding.py); so are their vectors."""
    if setting in ("OPENAI", "PORTAL"):
        clear()
