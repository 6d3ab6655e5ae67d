"""What one search request costs besides the search: the API's steps one at a time, without load.

    .venv/bin/python bench/overhead.py                      # keyword searches, the base of bench/load.py
    .venv/bin/python bench/overhead.py --mode vector --requests 60

Uses the base of `bench/load.py` (run that first, with the same PORTAL_PGDATA). One thread sends
searches one after the other, so the machine's CPU per request (every process: this one and
PostgreSQL; /proc/stat) is the request's own, and the noise of a shared machine is averaged over
interleaved rounds (each variant once per round, in alternating order, each round with new
questions):

- **API**: Django's WSGI handler called in-process with a real request to POST /api/v1/search (the
  middleware, ninja, the key, the rate count, the search, the JSON, the audit row) — everything
  `bin/serve` runs except gunicorn's HTTP;
- **API, Django's health check**: the same with a kept connection checked by a `SELECT 1` before
  each request (Django's PostgreSQL backend), as before `portal.postgresql`;
- **API, no audit row**: the same without the `ApiRequest` row (what the audit trail costs);
- **in-process**: `retrieval.retrieve` called directly, as the ceiling of bench/load.py does.

The query-vector caches are off and the rate limit out of reach, as in bench/load.py.
"""

import argparse
import io
import json
import statistics
import sys
import time
import types

from common import machine_cpu_seconds
from load import DB_NAME, KB_SLUG, api_token, questions, setup_django

VARIANTS = ("API", "API, Django's health check", "API, no audit row", "in-process")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", default="keyword", choices=("vector", "hybrid", "keyword"))
    parser.add_argument("--requests", type=int, default=90, help="requests per variant and round")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--top-k", type=int, default=6)
    return parser.parse_args(argv)


def wsgi_request(app, token: str, body: bytes) -> None:
    """One POST /api/v1/search through Django's WSGI handler; raises unless it answered 200."""
    environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/api/v1/search", "SCRIPT_NAME": "", "QUERY_STRING": "",
               "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1",
               "REMOTE_ADDR": "127.0.0.1", "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body)),
               "HTTP_AUTHORIZATION": f"Bearer {token}", "HTTP_HOST": "127.0.0.1:8000",
               "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "wsgi.url_scheme": "http",
               "wsgi.version": (1, 0), "wsgi.multithread": True, "wsgi.multiprocess": True, "wsgi.run_once": False}
    status = []
    response = app(environ, lambda line, headers, exc_info=None: status.append(line))
    try:
        b"".join(response)
    finally:
        response.close()
    if not status[0].startswith("200"):
        raise SystemExit(f"the API answered {status[0]}")


def main(argv=None) -> None:
    args = parse_args(argv)
    setup_django(DB_NAME)
    from django.conf import settings
    from django.core.wsgi import get_wsgi_application
    from django.db import connections
    from django.db.backends.postgresql.base import DatabaseWrapper as DjangosBackend

    from knowledge.models import KnowledgeBase
    from knowledge.search import retrieval
    from portal import audit

    settings.PORTAL.update(QUERY_CACHE_SIZE=0, QUERY_CACHE_SHARED_SIZE=0)
    settings.API["RATE_LIMIT_PER_MINUTE"] = 10**9
    kb = KnowledgeBase.objects.filter(slug=KB_SLUG).first()
    if kb is None:
        raise SystemExit("no base: run bench/load.py first (with the same PORTAL_PGDATA)")
    token, app, record = api_token(), get_wsgi_application(), audit.record

    def through_api(query: str) -> None:
        wsgi_request(app, token, json.dumps({"query": query, "mode": args.mode, "top_k": args.top_k}).encode())

    def set_up(variant: str) -> None:
        """Put back what the last variant changed, then change what this one does."""
        db = connections["default"]  # this thread's, which the requests use
        db.is_usable = types.MethodType(
            DjangosBackend.is_usable if variant == "API, Django's health check" else type(db).is_usable, db)
        audit.record = (lambda *args, **kwargs: None) if variant == "API, no audit row" else record

    calls = dict.fromkeys(VARIANTS, through_api)
    calls["in-process"] = lambda query: retrieval.retrieve(query, [kb.pk], mode=args.mode, top_k=args.top_k)
    pool = questions()
    if len(pool) < (args.rounds * len(VARIANTS) + 1) * args.requests:
        raise SystemExit(f"{len(pool)} questions: lower --requests or --rounds")
    for variant in VARIANTS:  # warm: the model, the connection, the key remembered, the pages read
        set_up(variant)
        for query in pool[:20]:
            calls[variant](query)
    unasked = iter(pool[args.requests:])
    cpu: dict[str, list[float]] = {name: [] for name in VARIANTS}
    wall: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for r in range(args.rounds):
        for variant in VARIANTS[::1 if r % 2 == 0 else -1]:
            set_up(variant)
            batch = [next(unasked) for _ in range(args.requests)]
            machine, started = machine_cpu_seconds(), time.perf_counter()
            for query in batch:
                calls[variant](query)
            cpu[variant].append(1000 * (machine_cpu_seconds() - machine) / len(batch))
            wall[variant].append(1000 * (time.perf_counter() - started) / len(batch))
    set_up("API")
    print_table(args, cpu, wall)


def print_table(args, cpu: dict, wall: dict) -> None:
    ceiling = statistics.median(cpu["in-process"])
    print(f"\n{args.mode} search, one request at a time, {args.requests} requests × {args.rounds} interleaved "
          f"rounds per variant (medians of the rounds)\n")
    print("| variant | machine CPU ms / request | more than in-process | wall ms / request | per round (CPU) |")
    print("|---|---|---|---|---|")
    for name in VARIANTS:
        median = statistics.median(cpu[name])
        print(f"| {name} | {median:.3f} | {median - ceiling:+.3f} | {statistics.median(wall[name]):.3f} | "
              f"{', '.join(f'{value:.2f}' for value in cpu[name])} |")


if __name__ == "__main__":
    main()
