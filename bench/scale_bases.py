"""Requests over many bases for bench/scale.py: each base through its own index, or all through the
dimension's shared one (knowledge/search/ann_plan.py), interleaved query by query in one run.

For 10, 30 and all the bases (the first ones by id): p50/p95 of `retrieval.retrieve` (vector,
top 10, the default ef_search), the ANN statement prepared as in production, and recall@10 against
an exact scan of the same bases. The queries come from the requested bases' own corpora (a
question about their topics), so the nearest chunks are among them.
"""

import time

import numpy as np
from common import percentile

SUBSETS = (10, 30, 100)
QUERIES_PER_SUBSET = 50
PATHS = ("own", "shared")


def subsets(kbs) -> list[list]:
    return [kbs[:n] for n in sorted({min(n, len(kbs)) for n in SUBSETS}) if n > 1]


def make_subset_queries(kbs, corpora, rng) -> dict[int, list[tuple]]:
    """QUERIES_PER_SUBSET queries for each subset, each from one of its bases' corpora."""
    queries = {}
    for subset in subsets(kbs):
        picked = []
        for i in range(QUERIES_PER_SUBSET):
            kb = subset[i % len(subset)]
            topic = int(rng.integers(0, corpora[kb.pk].n_topics))
            picked.append((kb, corpora[kb.pk].vectors(np.array([topic]))[0], corpora[kb.pk].query_text(topic)))
        queries[len(subset)] = picked
    return queries


def force_path(path: str) -> None:
    """Make ann_plan choose `path` for every request (own: never the shared index)."""
    from django.conf import settings

    if path == "own":
        settings.PORTAL.update(SHARED_INDEX_MIN_BASES=10**9)
    else:
        settings.PORTAL.update(SHARED_INDEX_MIN_BASES=2, SHARED_INDEX_MIN_SHARE=0.0)


def many_bases(kbs, queries: dict[int, list[tuple]], truths: dict[int, list[set]]) -> dict:
    """Per subset and path: p50/p95 ms, recall@10, and which path the default rule picks."""
    from django.conf import settings

    from knowledge.search import ann_plan, retrieval

    defaults = {name: settings.PORTAL[name] for name in ("SHARED_INDEX_MIN_BASES", "SHARED_INDEX_MIN_SHARE")}
    ann_plan.forget_index_rows()
    results = {}
    for n, picked in queries.items():
        subset = kbs[:n]  # rows, as the API passes them (read with the key's limits)
        settings.PORTAL.update(defaults)
        _, shared = ann_plan.plan(kbs[:n])
        latencies = {path: [] for path in PATHS}
        recalls = {path: [] for path in PATHS}
        for warm_up in (True, False):  # an unmeasured pass prepares the statements and warms the caches
            for (_, vector, text), truth in zip(picked, truths[n]):
                for path in PATHS:  # interleaved, so the machine's load drifts alike for both
                    force_path(path)
                    started = time.perf_counter()
                    result = retrieval.retrieve(text, subset, top_k=10, mode="vector",
                                                query_embeddings={kbs[0].embedder: vector})
                    if not warm_up:
                        latencies[path].append((time.perf_counter() - started) * 1000)
                        recalls[path].append(len({hit.chunk_id for hit in result.hits} & truth) / max(1, len(truth)))
        settings.PORTAL.update(defaults)
        results[n] = {"default_path": "shared" if shared else "own"}
        for path in PATHS:
            results[n][path] = {"p50_ms": round(percentile(latencies[path], 50), 2),
                                "p95_ms": round(percentile(latencies[path], 95), 2),
                                "recall@10": round(float(np.mean(recalls[path])), 4)}
    return results


def print_many_bases(results: dict, n_bases: int) -> None:
    print(f"\nOne request over the first N of the {n_bases} bases (vector, top 10, default ef_search):")
    print("| bases | path | p50 ms | p95 ms | recall@10 |")
    print("|---|---|---|---|---|")
    for n, figures in results.items():
        for path in PATHS:
            chosen = " (chosen)" if figures["default_path"] == path else ""
            label = "each base's own index" if path == "own" else "the shared index"
            print(f"| {n} | {label}{chosen} | {figures[path]['p50_ms']} | {figures[path]['p95_ms']} | "
                  f"{figures[path]['recall@10']} |")
