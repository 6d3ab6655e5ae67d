"""Pad the load benchmark's base to a size (100k, 1M chunks) with synthetic filler chunks.

The real documents and their real questions stay; filler chunks (clustered unit vectors of the
base's dimension, Zipf-flavoured text from `synthetic.Corpus`) make the base as large as asked, so
the searches pay what they cost at that size. They are COPYed in binary with the base's HNSW indexes
dropped, their full-text vectors computed in one statement, then the index rebuilt, as in
`bench/scale.py`. The padded base stays in the benchmark database for the next run: asking for the
same size again costs nothing, a larger size adds the difference.
"""

import sys
import time

import numpy as np
from synthetic import Corpus, copy_chunks, synthetic_documents, unit

FILLER_URI = "filler:"
BATCH = 20_000


def filler_count(kb) -> int:
    from knowledge.models import Chunk

    return Chunk.objects.filter(knowledge_base=kb, document__source_uri__startswith=FILLER_URI).count()


def pad_base(kb, total: int, maintenance_work_mem: str = "1GB") -> None:
    """Add filler chunks to `kb` until it holds `total` chunks (real ones included)."""
    from django.db import connection

    from knowledge.indexing import term_statistics, vector_index
    from knowledge.models import Chunk

    missing = total - Chunk.objects.filter(knowledge_base=kb).count()
    if missing <= 0:
        return
    rng = np.random.default_rng(filler_count(kb) + 21)
    print(f"  padding the base with {missing:,} filler chunks", file=sys.stderr, flush=True)
    # Both of the base's HNSW indexes (its own and its dimension's shared one) are dropped and
    # rebuilt: inserting a million rows into a live graph would take hours.
    vector_index.drop_kb_index(kb.pk)
    vector_index.drop_shared_index(kb.embedding_dim)
    started = time.perf_counter()
    _copy(kb, missing, rng)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE knowledge_chunk SET search_vector = to_tsvector(%s::regconfig, content) "
                       "WHERE knowledge_base_id = %s AND search_vector IS NULL", [kb.text_search_config, kb.pk])
        cursor.execute("SELECT set_config('maintenance_work_mem', %s, false)", [maintenance_work_mem])
    print(f"  copied in {time.perf_counter() - started:.0f} s; building the HNSW indexes", file=sys.stderr, flush=True)
    vector_index.create_kb_index(kb.pk, kb.embedding_dim)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE knowledge_chunk")
    term_statistics.take(kb.pk)  # as the worker's minute sweep does after a bulk load
    print(f"  padded in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)


def _copy(kb, n: int, rng) -> None:
    from knowledge.models import Document

    corpus = Corpus(n, rng)  # for its texts; the vectors below have the base's dimension
    dim = kb.embedding_dim
    topics = unit(rng.standard_normal((corpus.n_topics, dim)))
    # Numbered after the filler documents already there (the last of which may be partly filled).
    first = Document.objects.filter(knowledge_base=kb, source_uri__startswith=FILLER_URI).count()
    docs = synthetic_documents(kb, FILLER_URI, "Filler", n, first)
    for start in range(0, n, BATCH):
        size = min(BATCH, n - start)
        chosen = rng.integers(0, corpus.n_topics, size=size)
        noise = rng.standard_normal((size, dim), dtype=np.float32)
        vectors = unit(topics[chosen] + 0.9 * noise / np.sqrt(dim)).astype(np.float32)
        copy_chunks(kb, docs, start, corpus.texts(chosen), vectors)
        print(f"  copied {start + size:,}/{n:,}", file=sys.stderr, flush=True)
