"""Retrieval quality benchmark on BEIR-layout folders: nDCG@10, recall@10, MRR@10 and latency per mode.

    .venv/bin/python bench/retrieval.py                       # both sets in ../shared/data, default embedder
    .venv/bin/python bench/retrieval.py --dataset DIR --embedder use-multilingual --max-queries 100
    .venv/bin/python bench/retrieval.py --embed-only          # fill the embedding cache, no database

Each corpus document is chunked and embedded exactly as ingestion does (`chunks.build_chunks`,
`chunks.embedding_input`), stored in a throw-away knowledge base, and queried through
`retrieval.retrieve` with the product defaults. A document's rank is the rank of its best chunk.
Query vectors come from the cache, so the latency columns are the database and fusion time; the
embedder's own query time is printed separately.
"""

import argparse
import json
import sys
import time
from pathlib import Path

from common import DATA_DIR, EmbeddingCache, load_beir, percentile, setup_django

DEFAULT_SETS = [DATA_DIR / "beir" / "scifact", DATA_DIR / "ru" / "tydiqa_goldp_ru"]
# Published BM25 nDCG@10 (BEIR paper, Table 2) where one exists; for the Russian set the figure
# from data/SOURCES.md (plain BM25 without stemming, computed by the data set's authors).
BM25_NDCG10 = {"scifact": 0.665, "tydiqa_goldp_ru": 0.775}
MODES = ["vector", "keyword", "hybrid"]
K = 10


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", action="append", type=Path, help="BEIR folder (repeatable)")
    parser.add_argument("--embedder", help="embedder name (default: settings.PORTAL['DEFAULT_EMBEDDER'])")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--max-docs", type=int)
    parser.add_argument("--max-queries", type=int)
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--embed-only", action="store_true", help="only fill the embedding cache")
    parser.add_argument("--keep", action="store_true", help="keep the benchmark knowledge base")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a PORTAL setting for this run (e.g. FUSION=rrf); reported in the JSON")
    return parser.parse_args(argv)


def build_drafts(dataset, kb):
    """Unsaved documents and chunks for the corpus, cut by the product's chunker."""
    from knowledge.indexing.chunks import build_chunks
    from knowledge.models import Document

    documents, chunks = [], []
    for row in dataset.corpus:
        document = Document(knowledge_base=kb, source_kind=Document.SourceKind.INLINE,
                            source_uri=f"beir:{row['_id']}", title=row["title"][:500], text=row["text"],
                            char_count=len(row["text"]), status=Document.Status.READY, mime="text/plain")
        pieces = build_chunks(kb, document, row["text"], []) if row["text"].strip() else []
        documents.append(document)
        chunks.append(pieces)
    return documents, chunks


def embed_corpus(cache, chunks_per_doc):
    from knowledge.indexing.chunks import embedding_input

    flat = [chunk for chunks in chunks_per_doc for chunk in chunks]
    vectors = cache.passages([embedding_input(chunk) for chunk in flat], progress=True)
    for chunk, vector in zip(flat, vectors, strict=True):
        chunk.embedding = vector


def load_into_database(kb, documents, chunks_per_doc):
    """Bulk-store the corpus and build the base's HNSW index once, after the load."""
    from django.db import transaction
    from django.db.models import F
    from django.utils import timezone

    from knowledge.indexing import term_statistics, vector_index
    from knowledge.indexing.search_text import chunk_search_vector
    from knowledge.models import Chunk, Document

    config = kb.text_search_config
    with transaction.atomic():
        vector_index.drop_kb_index(kb.pk)
        now = timezone.now()
        for document, chunks in zip(documents, chunks_per_doc):
            document.chunk_count, document.ingested_at = len(chunks), now
        Document.objects.bulk_create(documents, batch_size=1000)
        flat = []
        for document, chunks in zip(documents, chunks_per_doc):
            for chunk in chunks:
                chunk.document = document
                flat.append(chunk)
        Chunk.objects.bulk_create(flat, batch_size=1000)
        # As chunks.replace_chunks does: a chunk's title is its document's title.
        Chunk.objects.filter(knowledge_base=kb).update(search_vector=chunk_search_vector(F("title"), config))
    vector_index.create_kb_index(kb.pk, kb.embedding_dim)
    with transaction.atomic():
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("ANALYZE knowledge_chunk")
    term_statistics.take(kb.pk)  # as the worker's minute sweep does after a bulk load
    return len(flat)


def run_mode(kb, dataset, query_vectors, mode, doc_ids):
    from evaluation.metrics import score_ranking
    from knowledge.search import retrieval

    totals = {"ndcg@10": 0.0, "recall@10": 0.0, "mrr@10": 0.0}
    latencies, fallbacks = [], 0
    for qid, text in dataset.queries.items():
        started = time.perf_counter()
        # Chunks, not documents, are ranked: ask for a few more so ten distinct documents remain.
        result = retrieval.retrieve(text, [kb.pk], top_k=3 * K, mode=mode,
                                    query_embeddings={kb.embedder: query_vectors[qid]})
        latencies.append((time.perf_counter() - started) * 1000)
        fallbacks += result.keyword_fallback_used
        ranked = list(dict.fromkeys(doc_ids[hit.document_id] for hit in result.hits))
        for name, value in score_ranking(ranked, dataset.qrels[qid]).items():
            totals[name] += value
    n = len(dataset.queries)
    figures = {name: round(value / n, 4) for name, value in totals.items()}
    figures.update(p50_ms=round(percentile(latencies, 50), 2), p95_ms=round(percentile(latencies, 95), 2))
    if mode == "hybrid":
        figures["keyword_fallback_share"] = round(fallbacks / n, 3)
    return figures


def run_dataset(path: Path, args, embedder) -> dict:
    from knowledge import bases
    from knowledge.models import KnowledgeBase

    dataset = load_beir(path, max_docs=args.max_docs, max_queries=args.max_queries)
    print(f"\n== {dataset.name}: {len(dataset.corpus)} docs, {len(dataset.queries)} queries, "
          f"embedder {embedder.name}", file=sys.stderr, flush=True)
    cache = EmbeddingCache(embedder)
    slug = f"bench-{dataset.name}-{embedder.name}"[:100].replace("_", "-")
    stale = KnowledgeBase.objects.filter(slug=slug).first()
    if stale:
        bases.delete_knowledge_base(stale)
    kb = bases.create_knowledge_base(name=f"Benchmark {dataset.name}", slug=slug, embedder=embedder.name)
    try:
        documents, chunks = build_drafts(dataset, kb)
        embed_corpus(cache, chunks)
        query_vectors = {qid: cache.query(text) for qid, text in dataset.queries.items()}
        if args.embed_only:
            return {}
        started = time.perf_counter()
        n_chunks = load_into_database(kb, documents, chunks)
        print(f"  loaded {n_chunks} chunks in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        doc_ids = {document.pk: document.source_uri.removeprefix("beir:") for document in documents}
        results = {}
        for mode in args.modes.split(","):
            results[mode] = run_mode(kb, dataset, query_vectors, mode, doc_ids)
            print(f"  {mode}: {results[mode]}", file=sys.stderr, flush=True)
        results["_info"] = {"docs": len(dataset.corpus), "chunks": n_chunks, "queries": len(dataset.queries),
                            "embedder": embedder.name, "query_embed_ms_p50": query_embed_ms(embedder, dataset),
                            "bm25_ndcg@10": BM25_NDCG10.get(dataset.name)}
        return results
    finally:
        if not args.keep:
            bases.delete_knowledge_base(kb)


def query_embed_ms(embedder, dataset, sample=20) -> float:
    """The embedder's own time for one query (not cached), median over a few queries."""
    texts = list(dataset.queries.values())[:sample]
    times = []
    for text in texts:
        started = time.perf_counter()
        embedder.embed_query(text)
        times.append((time.perf_counter() - started) * 1000)
    return round(percentile(times, 50), 1)


def print_table(all_results: dict) -> None:
    print("| set | mode | nDCG@10 | recall@10 | MRR@10 | p50 ms | p95 ms | BM25 nDCG@10 |")
    print("|---|---|---|---|---|---|---|---|")
    for name, results in all_results.items():
        info = results.get("_info", {})
        for mode, figures in results.items():
            if mode.startswith("_"):
                continue
            bm25 = info.get("bm25_ndcg@10")
            print(f"| {name} | {mode} | {figures['ndcg@10']:.3f} | {figures['recall@10']:.3f} | "
                  f"{figures['mrr@10']:.3f} | {figures['p50_ms']:.1f} | {figures['p95_ms']:.1f} | "
                  f"{bm25 if bm25 is not None else '–'} |")
    for name, results in all_results.items():
        info = results.get("_info", {})
        if info:
            print(f"\n{name}: {info['docs']} docs → {info['chunks']} chunks, {info['queries']} queries, "
                  f"embedder {info['embedder']} (query embedding p50 {info['query_embed_ms_p50']} ms, not in the "
                  f"latency columns)")


def main(argv=None) -> None:
    args = parse_args(argv)
    setup_django()
    from django.conf import settings

    from knowledge.indexing.embedding import get_embedder

    embedder = get_embedder(args.embedder or settings.PORTAL["DEFAULT_EMBEDDER"])
    for item in args.set:
        key, _, value = item.partition("=")
        settings.PORTAL[key] = json.loads(value) if value[:1].isdigit() or value in ("true", "false") else value
    all_results = {}
    for path in args.dataset or DEFAULT_SETS:
        results = run_dataset(path, args, embedder)
        if results:
            all_results[path.name] = results
    if not all_results:
        return
    print_table(all_results)
    if args.json:
        clean = {name: dict(results) for name, results in all_results.items()}
        args.json.write_text(json.dumps(clean, indent=2))


if __name__ == "__main__":
    main()
