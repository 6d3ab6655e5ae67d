"""Search latency alone and while documents are uploaded and ingested, in one run.

    .venv/bin/python bench/concurrency.py [--seconds 60] [--searchers 20] [--uploaders 5] [--docs 150]

Starts a real web server (`manage.py runserver`, threaded) and a real worker (`manage.py qcluster`,
one worker process, niced by PORTAL_WORKER_NICE) on the bench database (`portal_bench`), loads a
knowledge base of SciFact abstracts once (kept between runs), then runs two phases of `--seconds`:

1. alone: `--searchers` threads send `POST /api/v1/search` back to back;
2. under load: the same searches while `--uploaders` threads upload Markdown files (each made
   unique, so each is really parsed, chunked and embedded) and the worker ingests them.

It prints search p50/p95 (client-side, successful responses) of both phases side by side, with the
uploads accepted and documents ingested. The target is p95 under load ≤ 3 × p95 alone.
Queued work left at the end is removed with its documents.
"""

import argparse
import json
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from urllib import request as urlrequest
from urllib.error import HTTPError
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DATA_DIR, ROOT, free_port, percentile, read_jsonl, setup_django, stop  # noqa: E402

KB_SLUG = "bench-concurrency"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--searchers", type=int, default=20)
    parser.add_argument("--uploaders", type=int, default=5)
    parser.add_argument("--docs", type=int, default=150, help="SciFact abstracts in the searched base")
    parser.add_argument("--nice", type=int, default=None, help="PORTAL_WORKER_NICE for the worker")
    args = parser.parse_args()
    setup_django()
    kb, token, queries = prepare(args.docs)
    port = free_port()
    env = server_env(args)
    web = start(["manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"], env)
    worker = start(["manage.py", "qcluster"], env)
    base = f"http://127.0.0.1:{port}/api/v1"
    try:
        wait_until_up(base, token)
        alone = run_phase(base, token, queries, kb.pk, args, uploads=False)
        loaded = run_phase(base, token, queries, kb.pk, args, uploads=True)
        print_table(alone, loaded, args)
    finally:
        for process in (web, worker):
            stop(process)
        clean_up(kb)


def prepare(docs: int):
    """The searched base (made once), an API key for this run, and the queries."""
    from knowledge import bases
    from knowledge.indexing import ingestion
    from knowledge.models import KnowledgeBase
    from portal.models import ApiKey, Scope

    corpus = read_jsonl(DATA_DIR / "beir/scifact/corpus.jsonl")[:docs]
    queries = [row["text"] for row in read_jsonl(DATA_DIR / "beir/scifact/queries.jsonl")][:200]
    kb = KnowledgeBase.objects.filter(slug=KB_SLUG).first() or bases.create_knowledge_base(
        name="Bench: concurrency", slug=KB_SLUG)
    if kb.documents.count() < docs:
        print(f"Loading {docs} abstracts into {kb.slug} (once)…", file=sys.stderr)
        for row in corpus:
            ingestion.ingest_text(kb, title=row.get("title") or row["_id"], text=row["text"],
                                  source_uri=f"scifact:{row['_id']}")
    from django.contrib.auth import get_user_model

    owner, _ = get_user_model().objects.get_or_create(username="bench")
    key = ApiKey(name="bench concurrency", owner=owner, scopes=[Scope.READ, Scope.WRITE, Scope.SEARCH])
    token = key.issue_token()
    key.save()
    return kb, token, queries


def server_env(args) -> dict:
    from django.db import connection

    conf = connection.settings_dict
    host = quote(conf["HOST"], safe="") if conf["HOST"].startswith("/") else conf["HOST"]
    password = f":{quote(conf['PASSWORD'])}" if conf["PASSWORD"] else ""
    port = f":{conf['PORT']}" if conf["PORT"] else ""
    url = f"postgres://{quote(conf['USER'])}{password}@{host}{port}/{conf['NAME']}"
    env = {**os.environ, "DATABASE_URL": url, "PORTAL_WORKERS": "1", "PORTAL_LOG_LEVEL": "WARNING",
           "PORTAL_API_RATE_LIMIT_PER_MINUTE": "100000000",
           # runserver starts a thread per request: kept connections would exhaust the server's slots.
           "PORTAL_DB_CONN_MAX_AGE": "0"}
    if args.nice is not None:
        env["PORTAL_WORKER_NICE"] = str(args.nice)
    return env


def start(command: list[str], env: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *command], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=open(os.environ.get("BENCH_SERVER_LOG", os.devnull), "ab"), start_new_session=True)


def call(url: str, token: str, *, body: bytes | None = None, content_type: str = "application/json",
         timeout: float = 120) -> tuple[int, bytes]:
    req = urlrequest.Request(url, data=body, headers={"Authorization": f"Bearer {token}",
                                                      "Content-Type": content_type})
    try:
        with urlrequest.urlopen(req, timeout=timeout) as response:
            return response.status, response.read()
    except HTTPError as exc:
        return exc.code, exc.read()


def wait_until_up(base: str, token: str) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if call(f"{base}/knowledge-bases", token, timeout=5)[0] == 200:
                # Warm the server's embedder: the first query loads the model.
                call(f"{base}/search", token, body=json.dumps({"query": "warm-up"}).encode())
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit("the web server did not start")


def run_phase(base: str, token: str, queries: list[str], kb_id: int, args, *, uploads: bool) -> dict:
    """Searches (and uploads) for `args.seconds`; latencies and counts."""
    stop = threading.Event()
    latencies: list[float] = []
    counts = {"errors": 0, "uploads": 0, "upload_errors": 0, "statuses": {}}
    lock = threading.Lock()

    def searcher(n: int) -> None:
        i = n
        while not stop.is_set():
            body = json.dumps({"query": queries[i % len(queries)], "knowledge_bases": [kb_id], "top_k": 6}).encode()
            started = time.perf_counter()
            status, _ = call(f"{base}/search", token, body=body)
            elapsed = (time.perf_counter() - started) * 1000
            with lock:
                if status == 200:
                    latencies.append(elapsed)
                else:
                    counts["errors"] += 1
                    counts["statuses"][status] = counts["statuses"].get(status, 0) + 1
            i += args.searchers

    def uploader(n: int) -> None:
        files = sorted((DATA_DIR / "documents/md").rglob("*.md"))
        i = n
        while not stop.is_set():
            path = files[i % len(files)]
            text = path.read_bytes() + f"\n\nUpload {uuid.uuid4()}\n".encode()
            boundary = uuid.uuid4().hex
            body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; "
                    f"filename=\"{uuid.uuid4().hex[:8]}-{path.name}\"\r\nContent-Type: text/markdown\r\n\r\n"
                    ).encode() + text + f"\r\n--{boundary}--\r\n".encode()
            status, _ = call(f"{base}/knowledge-bases/{kb_id}/documents", token, body=body,
                             content_type=f"multipart/form-data; boundary={boundary}")
            with lock:
                counts["uploads" if status == 202 else "upload_errors"] += 1
            i += args.uploaders
            stop.wait(1.0)  # a person or an integration uploading, not a flood

    from knowledge.models import Document

    ready_before = Document.objects.filter(knowledge_base_id=kb_id, status="ready").count()
    threads = [threading.Thread(target=searcher, args=(n,)) for n in range(args.searchers)]
    if uploads:
        threads += [threading.Thread(target=uploader, args=(n,)) for n in range(args.uploaders)]
    for thread in threads:
        thread.start()
    time.sleep(args.seconds)
    stop.set()
    for thread in threads:
        thread.join()
    ingested = Document.objects.filter(knowledge_base_id=kb_id, status="ready").count() - ready_before
    return {"searches": len(latencies), "p50": percentile(latencies, 50), "p95": percentile(latencies, 95),
            "errors": counts["errors"], "error_statuses": counts["statuses"], "uploads": counts["uploads"],
            "upload_errors": counts["upload_errors"], "ingested": ingested}


def clean_up(kb) -> None:
    """Drop the uploaded documents and the work still queued for them; keep the searched base."""
    from django_q.models import OrmQ

    from knowledge.indexing.ingestion import delete_document
    from knowledge.models import Job

    task_ids = set(Job.objects.filter(knowledge_base=kb).exclude(task_id="").values_list("task_id", flat=True))
    for queued in OrmQ.objects.all():
        if queued.task_id() in task_ids:
            queued.delete()
    Job.objects.filter(knowledge_base=kb).delete()
    for document in kb.documents.exclude(source_uri__startswith="scifact:"):
        delete_document(document)


def print_table(alone: dict, loaded: dict, args) -> None:
    ratio = loaded["p95"] / alone["p95"] if alone["p95"] else float("nan")
    print(f"\n{args.searchers} concurrent searches for {args.seconds:g} s each phase; under load also "
          f"{args.uploaders} concurrent uploaders and one worker (os.cpu_count() = {os.cpu_count()})\n")
    print("| phase | searches | p50 ms | p95 ms | search errors | uploads accepted | documents ingested |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, row in (("alone", alone), ("under upload load", loaded)):
        print(f"| {name} | {row['searches']} | {row['p50']:.0f} | {row['p95']:.0f} | {row['errors']} | "
              f"{row['uploads'] if name != 'alone' else '—'} | {row['ingested'] if name != 'alone' else '—'} |")
    print(f"\np95 under load / p95 alone = {ratio:.2f} (target ≤ 3)")
    for name, row in (("alone", alone), ("under upload load", loaded)):
        if row["error_statuses"]:
            print(f"search errors {name}, by status: {row['error_statuses']}")


if __name__ == "__main__":
    main()
