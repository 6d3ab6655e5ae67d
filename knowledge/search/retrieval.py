"""Search over knowledge bases: vector (per-base HNSW), keyword (PostgreSQL full text) and hybrid.

`retrieve()` does the work and returns the details (`Retrieval`); `search()` returns just the hits.

- vector: the query is embedded once per embedder the bases use; each base is searched through its
  own partial HNSW index, or many bases of one embedder through their dimension's shared index
  (`ann_plan`), all in one statement sent with its HNSW settings in one round trip
  (`sql.ann_search_bases`, `sql.with_search_settings`), and the lists are merged by cosine distance.
- keyword: `sql.keyword_search` per text-search configuration (each base stems with its own),
  merged by `ts_rank`; snippets are `ts_headline` excerpts with `<mark>` around the matches.
- hybrid: both lists, `PORTAL["SEARCH_CANDIDATES"]` deep, fused by a weighted sum of normalised
  scores (`fusion.rescore`; reciprocal rank fusion, score = Σ weight / (RRF_K + rank), with
  `PORTAL["FUSION"] = "rrf"`). The keyword fallback of seed 003: when the best vector hit
  is not relevant (its calibrated relevance, see below, is under `KEYWORD_FALLBACK_RELEVANCE`), the
  vector list is mostly noise, so its weight drops to `FALLBACK_VECTOR_WEIGHT` and the keyword
  matches lead; `Retrieval.keyword_fallback_used` tells the caller.

Relevance. Raw cosine similarity means different things for different embedders: e5 models put
unrelated text at about 0.75, the Universal Sentence Encoder near 0.1. `relevance()` maps a
similarity onto 0..1 with the base's similarity floor (`calibration.similarity_floor`: the
embedder's stated floor, or the one measured when the base was created, overridable per embedder
with PORTAL_SIMILARITY_FLOORS), so one threshold (fallback, confidence) works whatever the
embedder. `best_similarity` stays the raw figure.
"""

import functools
import html
import json
import math
import re
import time

from django.conf import settings
from django.db import connection
from django.utils.translation import gettext, gettext_lazy

from knowledge.exceptions import KnowledgeError
from knowledge.indexing import calibration
from knowledge.models import KnowledgeBase
from knowledge.search import (
    ann_plan,
    fusion,
    query_limits,
    query_vectors,
    reranking,
    rows,
    secondary,
    sql,
    term_shares,
)
from knowledge.search.hits import Retrieval, SearchHit
from portal.postgresql import prepared

# The search modes, in the order the forms and the API list them. Every default of retrieval is
# in settings.PORTAL (portal/settings.py), read with `setting()`.
MODES = {"hybrid": gettext_lazy("Hybrid (vector + keyword)"), "vector": gettext_lazy("Vector"),
         "keyword": gettext_lazy("Keyword")}
EXCERPT_CHARS = 240
# Questions whose tsquery texts are remembered (least recently asked dropped first): the keyword
# side and the headlines of one search share them, and a question asked again needs no statement.
TSQUERY_CACHE_SIZE = 1024
_QUANTITY = re.compile(r"\d{1,2}")  # a lexeme that is a small number (`term_weights`)


class SearchError(KnowledgeError):
    """The search request cannot be run (unknown base, bad mode)."""


def setting(name: str):
    return settings.PORTAL[name]


def relevance(similarity: float | None, kb: KnowledgeBase) -> float | None:
    """Similarity mapped onto 0..1 above the base's similarity floor (see module docstring)."""
    if similarity is None:
        return None
    floor = calibration.similarity_floor(kb)
    return max(0.0, min(1.0, (similarity - floor) / (1.0 - floor)))


def search(query: str, kb_ids, *, top_k: int = 6, max_distance: float | None = None, mode: str = "hybrid",
           layers=None, filters: dict | None = None, document_ids=None, without_documents=None,
           ef_search: int | None = None, query_embeddings: dict | None = None) -> list[SearchHit]:
    """The best `top_k` chunks for `query` in the given knowledge bases."""
    return retrieve(query, kb_ids, top_k=top_k, max_distance=max_distance, mode=mode, layers=layers,
                    query_embeddings=query_embeddings, filters=filters, document_ids=document_ids,
                    without_documents=without_documents, ef_search=ef_search).hits


def renumbered(hits: list[SearchHit]) -> list[SearchHit]:
    """`hits` with their `rank` set to their place in the list, from 1 (after a caller reordered them)."""
    for rank, hit in enumerate(hits, start=1):
        hit.rank = rank
    return hits


def retrieve(query: str, kb_ids, *, top_k: int = 6, max_distance: float | None = None, mode: str = "hybrid",
             layers=None, filters: dict | None = None, document_ids=None, without_documents=None,
             ef_search: int | None = None, query_embeddings: dict | None = None) -> Retrieval:
    """Search with the details: hits, best vector similarity, whether the keyword fallback acted, timings.

    `without_documents`: ids of documents left out (a caller searching again past what crowded it).

    `query_embeddings` ({embedder name: vector} for this query) skips embedding the query for
    those embedders; the vectors embedded here are added to it, so a caller that searches the same
    question several times (a planned search, triage) passes one dict and embeds it once.
    """
    started = time.perf_counter()
    if mode not in MODES:
        raise SearchError(gettext("Unknown search mode %(mode)s; use one of %(modes)s")
                          % {"mode": repr(mode), "modes": ", ".join(MODES)})
    query_limits.check_scope(layers=layers, filters=filters, document_ids=document_ids)
    kbs = _load_bases(kb_ids)
    query = (query or "").strip()
    timings: dict[str, float] = {}
    if not query or not kbs or top_k < 1:
        return Retrieval([], None, False, {"total": 0.0}, mode=mode)
    scope = {"layers": list(layers or []), "document_ids": list(document_ids or []), "filters": filters or {},
             "without_documents": list(without_documents or [])}
    reranker = reranking.get_reranker()
    depth = top_k if mode == "vector" and reranker is None else max(top_k, setting("SEARCH_CANDIDATES"))

    vectors, vector_rows, read = {}, [], {}
    if mode in ("vector", "hybrid"):
        vectors = _embed_query(kbs, query, query_embeddings, timings)
    keyword_rows = []
    # The candidate statements carry the caller's filters: they run under the statement timeout.
    with query_limits.timeout_as_error():
        if mode in ("vector", "hybrid"):
            vector_rows = _timed(timings, "vector", _vector_candidates, kbs, vectors, depth, ef_search, scope,
                                 read if mode == "vector" and reranker is None else None)
        if mode in ("keyword", "hybrid"):
            keyword_rows = _timed(timings, "keyword", _keyword_candidates, kbs, query, depth, scope)

    by_id = {kb.pk: kb for kb in kbs}
    best_similarity = 1.0 - vector_rows[0][2] if vector_rows else None
    best_relevance = relevance(best_similarity, by_id[vector_rows[0][1]]) if vector_rows else None
    fallback = bool(mode == "hybrid" and keyword_rows
                    and (best_relevance is None or best_relevance < setting("KEYWORD_FALLBACK_RELEVANCE")))
    fused = fusion.fuse(mode, vector_rows, keyword_rows, fallback)
    if mode == "hybrid":
        _timed(timings, "distances", _fill_distances, fused, by_id, vectors)
        fused = fusion.rescore(fused, vector_rows, keyword_rows, fallback, fusion.fusion_alpha(kbs))
    if max_distance is not None:
        fused = [row for row in fused if row["distance"] is None or row["distance"] <= max_distance]
    # The reranker reorders all the candidates; without one, only the hits returned are read (a
    # few more when derived rows may be demoted below them).
    window = depth if reranker is not None else top_k if layers else min(depth, 3 * top_k)
    hits = _timed(timings, "fetch", _make_hits, fused[:window], read)
    if not layers:
        hits = _demote_secondary(hits, query)
    if reranker is not None and hits:
        hits = _timed(timings, "rerank", reranker.rerank, query, hits)
    hits = renumbered(hits[:top_k])
    if mode != "vector":
        _timed(timings, "snippets", _highlight, hits, by_id, query)
    relevant = sum(1 for hit in hits if (relevance(hit.similarity, by_id[hit.knowledge_base_id]) or 0.0)
                   >= setting("KEYWORD_FALLBACK_RELEVANCE"))
    timings["total"] = (time.perf_counter() - started) * 1000
    return Retrieval(hits, best_similarity, fallback, timings, best_relevance, mode, relevant)


def _timed(timings: dict, name: str, func, *args):
    started = time.perf_counter()
    try:
        return func(*args)
    finally:
        timings[name] = timings.get(name, 0.0) + (time.perf_counter() - started) * 1000


def _load_bases(kb_ids) -> list[KnowledgeBase]:
    """The bases to search, in id order: given as ids (read here) or as rows already read (the API)."""
    ids = [kb_ids] if isinstance(kb_ids, int | str | KnowledgeBase) else list(kb_ids or [])
    if ids and all(isinstance(kb, KnowledgeBase) for kb in ids):
        return sorted(ids, key=lambda kb: kb.pk)
    ids = [int(getattr(i, "pk", i)) for i in ids]
    kbs = list(KnowledgeBase.objects.filter(pk__in=ids).order_by("pk"))
    missing = sorted(set(ids) - {kb.pk for kb in kbs})
    if missing:
        raise SearchError(gettext("Unknown knowledge base id(s): %(ids)s") % {"ids": ", ".join(map(str, missing))})
    return kbs


def _embed_query(kbs, query: str, given: dict | None, timings: dict) -> dict:
    """One query vector per embedder the bases use; new ones are added to `given` for the next search."""
    vectors = given if given is not None else {}
    started = time.perf_counter()
    for name in sorted({kb.embedder for kb in kbs} - set(vectors)):
        vectors[name] = query_vectors.embed_query(name, query)
    timings["embed"] = (time.perf_counter() - started) * 1000
    return vectors


def _vector_candidates(kbs, vectors: dict, depth: int, ef_search: int | None, scope: dict,
                       hits: dict | None = None) -> list[tuple]:
    """(chunk id, kb id, distance) nearest first: each base through its own index, all in one round trip.

    With `hits` (a dict, for a search whose hits are these rows), a statement of one branch also
    reads what the hits show (`sql.with_hit_rows`) into it, by chunk id: one round trip fewer.
    """
    ef = max(int(ef_search or setting("HNSW_EF_SEARCH")), depth)
    # During an embedder switch the index predicate's dimension test skips rows not yet
    # re-embedded; until the index is rebuilt the query scans the base exactly. Many bases of one
    # embedder share one walk of their dimension's index (ann_plan), with a wider search list: that
    # graph mixes every base of the dimension.
    own, shared = ann_plan.plan(kbs)
    if shared:
        ef = max(ef, setting("SHARED_INDEX_EF_SEARCH"))
    statement = sql.ann_search_bases(own, vectors, limit=depth, shared=shared, **scope)
    with_hits = hits is not None and len(own) + len(shared) == 1
    if with_hits:
        statement = sql.with_hit_rows(statement)
    generic = prepared.enabled()

    def send(cursor, runnable: tuple[str, dict]) -> int:
        """`runnable` (the statement or its EXECUTE) in a batch with the search's settings."""
        batch, params, position = sql.with_search_settings(runnable, ef_search=ef, generic_plan=generic,
                                                           in_transaction=connection.in_atomic_block,
                                                           statement_timeout_ms=query_limits.timeout_ms())
        cursor.execute(batch, params)
        return position

    with connection.cursor() as cursor:
        position = prepared.execute(cursor, statement, send)
        for _ in range(position):
            cursor.nextset()
        rows = [(row[0], row[1], float(row[2]), row[3:]) for row in cursor.fetchall()]
    if with_hits:
        hits.update((row[0], row[3]) for row in rows)
    rows = [row[:3] for row in rows]
    # Iterative scans return rows in relaxed order; several bases interleave.
    rows.sort(key=lambda row: (row[2], row[0]))
    return rows[:depth]


def _keyword_candidates(kbs, query: str, depth: int, scope: dict) -> list[tuple]:
    """(chunk id, kb id, ts_rank) best first; one query per text-search configuration."""
    groups: dict[str, list[KnowledgeBase]] = {}
    for kb in kbs:
        groups.setdefault(kb.text_search_config, []).append(kb)
    rows = []
    with connection.cursor() as cursor:
        for config, group in groups.items():
            all_terms, any_term, lexemes = tsqueries(config, query)
            if not any_term:  # only stop words
                continue
            rerank = setting("KEYWORD_RERANK")
            shares = term_shares.shares(cursor, group, list(dict.fromkeys(lexemes)))
            statement = sql.keyword_search(kb_ids=[kb.pk for kb in group], all_terms=all_terms, any_term=any_term,
                                           limit=depth, candidate_terms=informative_terms(shares),
                                           candidates=setting("KEYWORD_CANDIDATES"), rerank=rerank,
                                           term_weights=term_weights(shares) if rerank else None, **scope)
            batch, params, position = sql.with_search_settings(statement, ef_search=setting("HNSW_EF_SEARCH"),
                                                               in_transaction=connection.in_atomic_block,
                                                               statement_timeout_ms=query_limits.timeout_ms())
            cursor.execute(batch, params)
            for _ in range(position):
                cursor.nextset()
            rows.extend((chunk_id, kb_id, float(rank)) for chunk_id, kb_id, rank in cursor.fetchall())
    rows.sort(key=lambda row: (-row[2], row[0]))
    return rows[:depth]


def informative_terms(shares: dict[str, float] | None) -> str | None:
    """An OR tsquery of the lexemes that are not in most chunks, or None to use every term."""
    if not shares:
        return None
    kept = [lexeme for lexeme, share in shares.items() if share < setting("COMMON_TERM_SHARE")]
    if not kept or len(kept) == len(shares):
        return None
    return " | ".join(sql.tsquery_lexeme(lexeme) for lexeme in kept)


def term_weights(shares: dict[str, float] | None) -> list[tuple[str, float]] | None:
    """Each lexeme of the question with its inverse document frequency, ln(1 / share of the chunks
    holding it) (`term_shares`); a lexeme in every chunk weighs nothing (the plain `ts_rank` then
    breaks ties). None without statistics: `ts_rank` alone."""
    if not shares:
        return None
    weights = {lexeme: math.log(1 / min(1.0, max(share, 1e-9))) for lexeme, share in shares.items()}
    # A number of one or two digits is a quantity ("after 3 attempts", "every 10 minutes"): the documentation's
    # example has its own (`stop_after_attempt(7)`), and a rare "3" put rows about something else first. It weighs no
    # more than the question's words do on average.
    words = [weight for lexeme, weight in weights.items() if not _QUANTITY.fullmatch(lexeme)]
    if words:
        weights = {lexeme: min(weight, sum(words) / len(words)) if _QUANTITY.fullmatch(lexeme) else weight
                   for lexeme, weight in weights.items()}
    return list(weights.items())


@functools.lru_cache(maxsize=TSQUERY_CACHE_SIZE)
def tsqueries(config: str, query: str) -> tuple[str, str, list[str]]:
    """(all terms, any term, lexemes) of `query` under `config`, computed once and remembered."""
    with connection.cursor() as cursor:
        cursor.execute(*sql.tsqueries(config=config, query=query))
        return cursor.fetchone()


def _demote_secondary(hits: list[SearchHit], query: str) -> list[SearchHit]:
    """Derived rows (edges) scored by `DERIVED_WEIGHT` when the search did not ask for their layers, and
    rows of a repository's tests and example apps, of changelogs, and for a how-to of private code, by
    `TEST_FILE_WEIGHT` when the question is not about them (`secondary.secondary_row`).

    An edge row restates a line of the source its file already has as a chunk; left as they are,
    they crowd the first places of a plain search with several rows of one file. A test names the
    function it tests as often as the function's own file does, and is seldom what was asked for; so
    does an example app. Likewise a table's rows after its first that name no value the question
    names go after every other hit (`rows.repeated_rows`).
    """
    derived = set(setting("DERIVED_LAYERS"))
    weights = [(setting("DERIVED_WEIGHT") if hit.layer in derived else 1.0)
               * (setting("TEST_FILE_WEIGHT") if secondary.secondary_row(hit, query) else 1.0) for hit in hits]
    if any(weight != 1.0 for weight in weights):
        for hit, weight in zip(hits, weights, strict=True):
            hit.score *= weight
        hits = sorted(hits, key=lambda hit: -hit.score)
    repeated = rows.repeated_rows(query, hits)
    if not repeated:
        return hits
    return ([hit for at, hit in enumerate(hits) if at not in repeated]
            + [hit for at, hit in enumerate(hits) if at in repeated])


def _fill_distances(fused: list[dict], by_id: dict, vectors: dict) -> None:
    """Exact distances for keyword-only candidates, so every hybrid hit carries one."""
    missing: dict[tuple[int, str], list[int]] = {}  # one statement per query vector, whatever the bases
    for row in fused:
        if row["distance"] is None:
            kb = by_id[row["kb"]]
            missing.setdefault((kb.embedding_dim, kb.embedder), []).append(row["id"])
    if not missing:
        return
    found = {}
    with connection.cursor() as cursor:
        for (dim, embedder), ids in missing.items():
            cursor.execute(*sql.distances(dim=dim, ids=ids, query=vectors[embedder]))
            found.update({chunk_id: float(distance) for chunk_id, distance in cursor.fetchall()})
    for row in fused:
        if row["distance"] is None:
            row["distance"] = found.get(row["id"])


def hits_of(chunk_ids: list[int]) -> list[SearchHit]:
    """The chunks as search hits, in the order given, with no score of a search (chunks deleted meanwhile are
    skipped)."""
    return _make_hits([{"id": chunk_id, "distance": None, "score": 0.0, "retrievers": []} for chunk_id in chunk_ids],
                      {})


def _make_hits(fused: list[dict], read: dict) -> list[SearchHit]:
    """SearchHits for the fused candidates, in their order (chunks deleted meanwhile are skipped);
    `read` holds the rows of those already read with the candidates."""
    by_id = read
    if any(row["id"] not in read for row in fused):
        with connection.cursor() as cursor:
            cursor.execute(*sql.hit_rows(ids=[row["id"] for row in fused]))
            by_id = {row[0]: row for row in cursor.fetchall()}
    hits = []
    for row in fused:
        if row["id"] not in by_id:  # deleted between the two queries
            continue
        (chunk_id, document_id, kb_id, title, source_uri, section_path, page, layer, content, metadata,
         position, span_start, span_end) = by_id[row["id"]]
        hits.append(SearchHit(
            chunk_id=chunk_id, document_id=document_id, knowledge_base_id=kb_id,
            document_title=title or source_uri or f"Document {document_id}", source_uri=source_uri,
            section_path=section_path, page=page, layer=layer, content=content, snippet=excerpt(content),
            distance=row["distance"], score=row["score"], rank=0, retrievers=row["retrievers"],
            metadata={**json.loads(metadata), "position": position, "span_start": span_start, "span_end": span_end},
        ))
    return hits


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """The start of `text`, cut at a word boundary, HTML-escaped."""
    text = " ".join(text.split())
    if len(text) > limit:
        cut = text.rfind(" ", 0, limit)
        text = text[: cut if cut > limit // 2 else limit] + " …"
    return html.escape(text, quote=False)


def _highlight(hits: list[SearchHit], by_id: dict, query: str) -> None:
    """`ts_headline` snippets with <mark>ed matches (escaped); hits without a match keep their excerpt."""
    groups: dict[str, list[int]] = {}
    for hit in hits:
        groups.setdefault(by_id[hit.knowledge_base_id].text_search_config, []).append(hit.chunk_id)
    headlines = {}
    with connection.cursor() as cursor:
        for config, ids in groups.items():
            _, any_term, _ = tsqueries(config, query)
            if not any_term:
                continue
            cursor.execute(*sql.headlines(config=config, any_term=any_term, ids=ids))
            headlines.update(dict(cursor.fetchall()))
    for hit in hits:
        headline = headlines.get(hit.chunk_id) or ""
        if sql.HIGHLIGHT_START not in headline:
            continue
        escaped = html.escape(" ".join(headline.split()), quote=False)
        hit.snippet = escaped.replace(sql.HIGHLIGHT_START, "<mark>").replace(sql.HIGHLIGHT_STOP, "</mark>")
