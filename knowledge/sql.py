"""Raw SQL of the knowledge app, as builders returning `(sql, params)`.

ANN search: the per-base partial HNSW index is declared on `(embedding::vector(dim))` with
`WHERE knowledge_base_id = <id>`. The planner uses it only when a query orders by the same
expression (`embedding::vector(dim) <=> %(query)s::vector(dim)`) and repeats the predicate with
the same constant, so the base id is inlined as a validated integer and the cast type comes from
`vector_index.vector_type`. Extra filters (status, layers) are applied on the index's output;
HNSW iterative scans (`hnsw.iterative_scan = relaxed_order`) keep filling the LIMIT when they
drop rows.
"""

from knowledge.vector_index import vector_type


def vector_literal(values) -> str:
    return "[" + ",".join(repr(float(v)) for v in values) + "]"


def ann_search(*, dim: int, kb_id: int, query, limit: int, layers: list[str] | None = None,
               document_ids: list[int] | None = None) -> tuple[str, dict]:
    """Nearest chunks of one knowledge base by cosine distance, through its HNSW index."""
    cast = vector_type(dim)
    kb_id = int(kb_id)
    where = [f"c.knowledge_base_id = {kb_id}", "d.status = 'ready'"]
    params: dict = {"query": vector_literal(query), "limit": int(limit)}
    if layers:
        where.append("c.layer = ANY(%(layers)s)")
        params["layers"] = list(layers)
    if document_ids:
        where.append("c.document_id = ANY(%(document_ids)s)")
        params["document_ids"] = [int(i) for i in document_ids]
    sql = (
        f"SELECT c.id, (c.embedding::{cast}) <=> %(query)s::{cast} AS distance "
        f"FROM knowledge_chunk c JOIN knowledge_document d ON d.id = c.document_id "
        f"WHERE {' AND '.join(where)} AND c.embedding IS NOT NULL "
        f"ORDER BY (c.embedding::{cast}) <=> %(query)s::{cast} LIMIT %(limit)s"
    )
    return sql, params
