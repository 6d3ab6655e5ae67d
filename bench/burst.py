"""Burst benchmark: 1,000 connections at once against `bin/serve`; does it shed load or queue it?

    .venv/bin/python bench/burst.py [--connections 1000] [--mode vector] [--max-queue-wait 5]

Uses the base of `bench/load.py` (run that first). Every connection is opened at the same moment
and sends one search (a distinct real question each, query-vector cache off); the table gives the
answers by status, how long clients waited for them, the `Retry-After` of the 503s, the server's
resident memory (master and workers) before and at its peak, and whether its processes survived.
Run once with the shedding worker (`--max-queue-wait`, PORTAL_WEB_MAX_QUEUE_WAIT) and once with it
off (`--max-queue-wait 0`: plain gthread queueing) to see the difference.
"""

import argparse
import asyncio
import json
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from common import percentile
from load import DB_NAME, api_token, database_url, questions, setup_django, start_server, stop_server


async def search(port: int, token: str, query: str, mode: str, timeout: float) -> tuple[int, float, str]:
    """One connection, one search: (status or 0 when it failed, seconds, Retry-After)."""
    body = json.dumps({"query": query, "mode": mode, "top_k": 6}).encode()
    request = (f"POST /api/v1/search HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
               f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
    started = time.perf_counter()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request + body)
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), timeout=timeout)
        writer.close()
    except (TimeoutError, OSError):
        return 0, time.perf_counter() - started, ""
    head = raw.partition(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
    headers = {name.lower(): value for name, _, value in (line.partition(": ") for line in head[1:])}
    status = int(head[0].split()[1]) if head and head[0].startswith("HTTP/") else 0
    return status, time.perf_counter() - started, headers.get("retry-after", "")


async def burst(port: int, token: str, queries: list[str], mode: str, timeout: float):
    return await asyncio.gather(*(search(port, token, q, mode, timeout) for q in queries))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--mode", default="vector", choices=["vector", "hybrid", "keyword"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--max-queue-wait", type=float, default=5.0)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds a client waits for its answer")
    args = parser.parse_args(argv)
    setup_django(DB_NAME)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.e2e.test_serve import group_pids, group_rss_mb  # the test's own measure of the server

    token = api_token()
    pool = questions()
    queries = [pool[i % len(pool)] for i in range(args.connections)]
    env = {"DATABASE_URL": database_url(), "PORTAL_WEB_WORKERS": str(args.workers),
           "PORTAL_WEB_THREADS": str(args.threads), "PORTAL_API_RATE_LIMIT_PER_MINUTE": "1000000000",
           "PORTAL_QUERY_CACHE_SIZE": "0", "PORTAL_QUERY_CACHE_SHARED_SIZE": "0",
           "PORTAL_WEB_MAX_QUEUE_WAIT": str(args.max_queue_wait)}
    server, port = start_server(env)
    try:
        asyncio.run(burst(port, token, ["warm up"] * (args.workers * args.threads * 2), args.mode, 120))
        pids, before = group_pids(server.pid), group_rss_mb(server.pid)
        peak, sampling = [before], True

        def sample():
            while sampling:
                peak.append(group_rss_mb(server.pid))
                time.sleep(0.1)

        sampler = threading.Thread(target=sample)
        sampler.start()
        started = time.perf_counter()
        try:
            answers = asyncio.run(burst(port, token, queries, args.mode, args.timeout))
        finally:
            sampling = False
            sampler.join()
        seconds = time.perf_counter() - started
        survived = group_pids(server.pid) == pids and server.poll() is None
    finally:
        stop_server(server)
    statuses = Counter(status for status, _, _ in answers)
    print(f"\n{args.connections} connections at once, {args.mode} search, {args.workers} processes × "
          f"{args.threads} threads, PORTAL_WEB_MAX_QUEUE_WAIT={args.max_queue_wait}\n")
    print("| status | answers | p50 s | p99 s | max s | Retry-After |")
    print("|---|---|---|---|---|---|")
    for status in sorted(statuses):
        waits = [wait for s, wait, _ in answers if s == status]
        retry = sorted({r for s, _, r in answers if s == status and r}, key=int)
        print(f"| {status or 'no answer'} | {statuses[status]} | {percentile(waits, 50):.2f} | "
              f"{percentile(waits, 99):.2f} | {max(waits):.2f} | {', '.join(retry) or '—'} |")
    print(f"\nall answered in {seconds:.1f} s; server RSS {before:.0f} MB before, {max(peak):.0f} MB at most; "
          f"processes {'unchanged, all alive' if survived else 'CHANGED (crash or restart)'}")


if __name__ == "__main__":
    main()
