"""Per-knowledge-base partial HNSW indexes on the untyped `knowledge_chunk.embedding` column.

Knowledge bases may use embedders of different dimensions, so the column is an untyped `vector`
and each base gets `CREATE INDEX … USING hnsw ((embedding::vector(dim)) vector_cosine_ops)
WHERE knowledge_base_id = id AND vector_dims(embedding) = dim`. Queries must repeat the same cast
and predicate (see sql.py) for the planner to pick the index. Dimensions above pgvector's
2,000-dimension HNSW limit for `vector` are indexed as `halfvec` (up to 4,000).

Beside them, one shared index per dimension (`shared_index_name`) covers every base of that
dimension: `… WHERE vector_dims(embedding) = dim`. A search over many bases of one embedder walks
it once with `knowledge_base_id = ANY(…)` instead of one branch per base (see
knowledge/search/sql.py). It is created with the first base of its dimension (`create_kb_index`
ensures it, so creation, re-index, embedder switches and evaluation shadows all keep it), for
existing installs by migration 0012, and is never dropped: an index of a dimension with no rows
is empty and costs nothing. Every chunk insert then updates two graphs, which the embedding of the
chunk (tens of milliseconds) dwarfs.
"""

from django.db import connection

HNSW_M = 16
# 128 rather than pgvector's 64: at 1M clustered vectors it lifted recall@10 at ef_search 100 from
# 0.81 to 0.95 (bench/scale.py, docs/retrieval.md) for a 2.4× slower build, which embedding dwarfs.
HNSW_EF_CONSTRUCTION = 128
MAX_VECTOR_DIM = 2000
MAX_HALFVEC_DIM = 4000


def index_name(kb_id: int) -> str:
    return f"knowledge_chunk_emb_kb{int(kb_id)}"


def shared_index_name(dim: int) -> str:
    return f"knowledge_chunk_emb_dim{int(dim)}"


def vector_type(dim: int) -> str:
    """The SQL type the embedding is cast to for a base of this dimension."""
    if not isinstance(dim, int) or dim < 1 or dim > MAX_HALFVEC_DIM:
        raise ValueError(f"Unsupported embedding dimension {dim!r} (1..{MAX_HALFVEC_DIM})")
    return f"vector({dim})" if dim <= MAX_VECTOR_DIM else f"halfvec({dim})"


def opclass(dim: int) -> str:
    return "vector_cosine_ops" if dim <= MAX_VECTOR_DIM else "halfvec_cosine_ops"


def index_predicate(kb_id: int, dim: int, alias: str = "") -> str:
    """The partial index's predicate; ANN queries repeat it word for word.

    The dimension test keeps rows of another dimension out of the cast: after an embedder switch,
    old row versions may still be visible to some snapshot while the new index is built, and a
    failed cast would abort the build.
    """
    prefix = f"{alias}." if alias else ""
    return f"{prefix}knowledge_base_id = {int(kb_id)} AND vector_dims({prefix}embedding) = {int(dim)}"


def shared_predicate(dim: int, alias: str = "") -> str:
    """The shared index's predicate; ANN queries over it repeat it word for word."""
    prefix = f"{alias}." if alias else ""
    return f"vector_dims({prefix}embedding) = {int(dim)}"


def _create_index(name: str, dim: int, predicate: str) -> None:
    qn = connection.ops.quote_name
    statement = (
        f"CREATE INDEX IF NOT EXISTS {qn(name)} ON knowledge_chunk USING hnsw "
        f"((embedding::{vector_type(dim)}) {opclass(dim)}) "
        f"WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION}) WHERE {predicate}"
    )
    with connection.cursor() as cursor:
        # Inside a transaction that inserted chunks, deferred FK checks must fire before PostgreSQL
        # allows CREATE INDEX on the table; outside one this is a no-op.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(statement)


def create_kb_index(kb_id: int, dim: int, *, name: str = "") -> None:
    """Create the base's HNSW index (idempotent), and its dimension's shared index if missing."""
    _create_index(name or index_name(kb_id), dim, index_predicate(kb_id, dim))
    ensure_shared_index(dim)


def ensure_shared_index(dim: int) -> None:
    """Create the shared index of `dim` unless it exists (checked first: CREATE INDEX IF NOT EXISTS
    would wait for the table's writers before finding it there)."""
    if not _index_exists(shared_index_name(dim)):
        _create_index(shared_index_name(dim), dim, shared_predicate(dim))


def drop_shared_index(dim: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"DROP INDEX IF EXISTS {connection.ops.quote_name(shared_index_name(dim))}")


def replace_kb_index(kb_id: int, dim: int) -> None:
    """Build the base's index for `dim` beside the current one, then let it take the current one's name.

    Meant for the inside of the transaction that gave the base vectors of a new dimension: the build
    takes a SHARE lock (writers wait, readers do not), and other sessions keep searching through the
    old index, on the rows they still see, until the commit. Only the final drop and rename take an
    exclusive lock, for a moment.
    """
    kb_id = int(kb_id)
    qn = connection.ops.quote_name
    staged = f"{index_name(kb_id)}_next"
    with connection.cursor() as cursor:
        cursor.execute(f"DROP INDEX IF EXISTS {qn(staged)}")
    create_kb_index(kb_id, dim, name=staged)
    drop_kb_index(kb_id)
    with connection.cursor() as cursor:
        cursor.execute(f"ALTER INDEX {qn(staged)} RENAME TO {qn(index_name(kb_id))}")


def drop_kb_index(kb_id: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"DROP INDEX IF EXISTS {connection.ops.quote_name(index_name(kb_id))}")


def kb_index_exists(kb_id: int) -> bool:
    return _index_exists(index_name(kb_id))


def shared_index_exists(dim: int) -> bool:
    return _index_exists(shared_index_name(dim))


def _index_exists(name: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", [name])
        return cursor.fetchone() is not None
