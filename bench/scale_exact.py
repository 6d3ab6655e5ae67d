"""Exact nearest neighbours for bench/scale.py's recall, computed in numpy from one read of the vectors.

An exact scan in SQL detoasts every 1.5 KB vector of the rows it filters (each is stored out of
line): 4–8 s per query at 1M chunks on this machine, so 200 queries took longer than the load.
Reading every (id, base, vector) once with a binary COPY and ranking by cosine distance in numpy
gives the same top 10 (the vectors are unit length, so the distance is 1 − dot product) in
seconds. `sql.exact_search` stays the SQL reference; its time per query is still measured on a
few queries, and `check_against_sql` compares both on those.
"""

import time

import numpy as np
from synthetic import DIM


def read_vectors() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(chunk ids, base ids, unit vectors) of every chunk, in one binary COPY."""
    from django.db import connection
    from pgvector.psycopg import register_vector

    register_vector(connection.connection)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM knowledge_chunk WHERE embedding IS NOT NULL")
        n = cursor.fetchone()[0]
    ids, bases, vectors = np.empty(n, np.int64), np.empty(n, np.int64), np.empty((n, DIM), np.float32)
    statement = ("COPY (SELECT id, knowledge_base_id, embedding FROM knowledge_chunk WHERE embedding IS NOT NULL) "
                 "TO STDOUT WITH (FORMAT BINARY)")
    with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        copy.set_types(["int8", "int8", "vector"])
        for i, (chunk_id, kb_id, vector) in enumerate(copy.rows()):
            ids[i], bases[i], vectors[i] = chunk_id, kb_id, vector.to_numpy()
    return ids, bases, vectors


def top10(data, query: np.ndarray, kb_ids) -> set[int]:
    ids, bases, vectors = data
    distances = 1.0 - vectors @ np.asarray(query, np.float32)  # every row: no copy of a large slice
    distances[~np.isin(bases, list(kb_ids))] = np.inf
    best = np.argpartition(distances, 10)[:10]
    return {int(i) for i in ids[best]}


def exact_top10(queries, data=None) -> tuple[list[set], list[float]]:
    """The true 10 nearest chunks of each (kb, vector, text) query in its base, and the SQL exact
    scan's time on the first 5 queries (the reference's cost, as printed)."""
    from django.db import connection, transaction

    from knowledge.search import sql

    data = data if data is not None else read_vectors()
    truths = [top10(data, vector, [kb.pk]) for kb, vector, _ in queries]
    times = []
    for (kb, vector, _), truth in list(zip(queries, truths))[:5]:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_indexscan = off")
            cursor.execute("SET LOCAL enable_bitmapscan = off")
            started = time.perf_counter()
            cursor.execute(*sql.exact_search(dim=kb.embedding_dim, kb_id=kb.pk, query=vector, limit=10))
            rows = cursor.fetchall()
            times.append((time.perf_counter() - started) * 1000)
        # numpy and SQL agree, up to ties in the last place
        assert len({row[0] for row in rows} & truth) >= 9, "numpy and SQL exact searches disagree"
    return truths, times


def exact_subset_top10(kbs, queries: dict[int, list[tuple]], data=None) -> dict[int, list[set]]:
    """The true 10 nearest chunks of each subset query among the subset's bases."""
    data = data if data is not None else read_vectors()
    return {n: [top10(data, vector, [kb.pk for kb in kbs[:n]]) for _, vector, _ in picked]
            for n, picked in queries.items()}
