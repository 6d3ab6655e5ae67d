"""Which HNSW index serves each base of a vector search: its own, or its dimension's shared one.

A search over N bases through their own indexes is N branches of one statement, each walking a
small graph: ~1 ms per branch, so 100 bases cost ~100 ms however small they are. The shared index
of their dimension (knowledge/indexing/vector_index.py) serves them all in one walk filtered by
`knowledge_base_id = ANY(…)`, which costs about what one base of the dimension's size costs,
divided by the share of its rows the bases hold: the iterative scan goes on until the LIMIT is
filled with rows of the requested bases. So bases of one embedder go to the shared index when
they are many (`SHARED_INDEX_MIN_BASES`) and hold a large enough share of their dimension's
chunks (`SHARED_INDEX_MIN_SHARE`); a few bases, or a small share of a big dimension, keep their
own indexes, where the walk is short and recall is that of a graph built for them alone.

The row counts are the indexes' own `pg_class.reltuples` (a partial index counts the rows of its
base; ANALYZE and VACUUM keep them current, autovacuum included), read with one query and kept
for `STATS_SECONDS` per process: no COUNT(*) per request. When the shared index has no count yet
(-1: never analysed) the number of bases decides alone; a base whose own index has none counts as
empty, which keeps freshly loaded bases on their own indexes until ANALYZE (autovacuum) has run.
"""

import time

from django.conf import settings
from django.db import connection

from knowledge.indexing.vector_index import index_name, shared_index_name

STATS_SECONDS = 60.0
_stats: dict = {"at": float("-inf"), "rows": {}}


def plan(kbs) -> tuple[list[tuple[int, int, str]], list[tuple[list[int], int, str]]]:
    """(bases searched through their own index as (kb id, dim, embedder), groups searched through
    their dimension's shared index as (kb ids, dim, embedder))."""
    groups: dict[tuple[str, int], list[int]] = {}
    for kb in kbs:
        groups.setdefault((kb.embedder, kb.embedding_dim), []).append(kb.pk)
    own, shared = [], []
    for (embedder, dim), ids in groups.items():
        if uses_shared_index(ids, dim):
            shared.append((ids, dim, embedder))
        else:
            own.extend((kb_id, dim, embedder) for kb_id in ids)
    return own, shared


def uses_shared_index(kb_ids: list[int], dim: int) -> bool:
    if len(kb_ids) < settings.PORTAL["SHARED_INDEX_MIN_BASES"]:
        return False
    rows = index_rows()
    total = rows.get(shared_index_name(dim))
    if total is None:  # no shared index (yet): a migration or the first base of the dimension builds it
        return False
    if total <= 0:  # never analysed
        return True
    share = sum(max(0.0, rows.get(index_name(kb_id), 0.0)) for kb_id in kb_ids) / total
    return share >= settings.PORTAL["SHARED_INDEX_MIN_SHARE"]


def index_rows() -> dict[str, float]:
    """Rows per HNSW index of the chunk table (-1: never analysed), re-read every STATS_SECONDS."""
    if time.monotonic() - _stats["at"] > STATS_SECONDS:
        with connection.cursor() as cursor:
            cursor.execute("SELECT relname, reltuples FROM pg_class WHERE relkind = 'i' "
                           "AND relname LIKE 'knowledge\\_chunk\\_emb\\_%%'")
            _stats.update(at=time.monotonic(), rows={name: float(rows) for name, rows in cursor.fetchall()})
    return _stats["rows"]


def forget_index_rows() -> None:
    """Read the counts again on the next search (after a bulk load and ANALYZE, in tests)."""
    _stats["at"] = float("-inf")
