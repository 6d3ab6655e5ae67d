"""Round-trip latency of MCP `search` next to REST `POST /api/v1/search`: same questions, same server, same run.

A knowledge base of SciFact abstracts (the `hash` embedder by default, so the query embedding costs
next to nothing and the numbers show transport and search, not a model) is built in the bench
database; `manage.py runserver` serves it on 127.0.0.1 in another process. For every question, in
turn: REST (one keep-alive httpx client), MCP in an open session (the SDK's client, one
`tools/call` per question), and MCP with a new session per question (initialize + call, what a
client that connects per question pays). Rounds repeat the question set; the first round warms up
and is not counted. The knowledge base and the key are deleted at the end.

    .venv/bin/python bench/mcp_rest.py [--docs 300] [--questions 30] [--rounds 3] [--embedder hash]
"""

import argparse
import asyncio
import os
import subprocess
import sys
import time

import httpx
from common import DATA_DIR, ROOT, database_url, free_port, load_beir, percentile, setup_django
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

PREFIX = "bench-mcp"


def build(args):
    from django.contrib.auth import get_user_model

    from knowledge import bases
    from knowledge.indexing import ingestion
    from knowledge.models import KnowledgeBase
    from portal.models import ApiKey, Scope

    KnowledgeBase.objects.filter(slug=PREFIX).delete()
    dataset = load_beir(DATA_DIR / "beir" / "scifact", max_docs=args.docs, max_queries=args.questions)
    kb = bases.create_knowledge_base(name=PREFIX, slug=PREFIX, embedder=args.embedder)
    started = time.perf_counter()
    for doc in dataset.corpus:
        ingestion.ingest_text(kb, title=doc["title"] or doc["_id"], text=doc["text"],
                              source_uri=f"scifact:{doc['_id']}")
    print(f"Indexed {len(dataset.corpus)} documents with {args.embedder} in {time.perf_counter() - started:.1f} s")
    user, _ = get_user_model().objects.get_or_create(username=PREFIX)
    key = ApiKey(name=PREFIX, owner=user, scopes=[Scope.READ, Scope.SEARCH])
    token = key.issue_token()
    key.save()
    return kb, key, token, list(dataset.queries.values())


def start_server(port: int) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": database_url(), "PORTAL_API_RATE_LIMIT_PER_MINUTE": "1000000",
           "PORTAL_LOG_LEVEL": "WARNING", "PORTAL_DEBUG": "false"}
    server = subprocess.Popen([sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
                              cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(300):
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/docs", timeout=1)
            return server
        except httpx.HTTPError:
            if server.poll() is not None:
                raise SystemExit(f"runserver died: {server.stderr.read().decode()[-2000:]}") from None
            time.sleep(0.2)
    server.kill()
    raise SystemExit("runserver did not start")


async def measure(base: str, token: str, questions: list[str], rounds: int, top_k: int) -> dict[str, list[float]]:
    headers = {"Authorization": f"Bearer {token}"}
    times: dict[str, list[float]] = {"REST /search": [], "MCP search (open session)": [],
                                     "MCP new session + search": []}
    sizes: dict[str, int] = {}

    async def new_session_call(http, question):
        async with (streamable_http_client(f"{base}/mcp", http_client=http) as (read, write, _),
                    ClientSession(read, write) as fresh):
            await fresh.initialize()
            return await fresh.call_tool("search", {"query": question, "top_k": top_k})

    async with (httpx.AsyncClient(headers=headers, timeout=60) as http,
                streamable_http_client(f"{base}/mcp", http_client=http) as (read, write, _),
                ClientSession(read, write) as session):
        await session.initialize()
        for round_number in range(rounds + 1):
            for question in questions:
                t0 = time.perf_counter()
                rest = await http.post(f"{base}/api/v1/search", json={"query": question, "top_k": top_k})
                t1 = time.perf_counter()
                result = await session.call_tool("search", {"query": question, "top_k": top_k})
                t2 = time.perf_counter()
                fresh = await new_session_call(http, question)
                t3 = time.perf_counter()
                if rest.status_code != 200 or result.isError or fresh.isError:
                    raise SystemExit(f"a request failed: {rest.status_code} {result.content[:1]}")
                if round_number == 0:
                    continue  # warm-up
                times["REST /search"].append(t1 - t0)
                times["MCP search (open session)"].append(t2 - t1)
                times["MCP new session + search"].append(t3 - t2)
                sizes["REST /search"] = len(rest.content)
                sizes["MCP search (open session)"] = len(result.content[0].text)
    return times, sizes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=300)
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--top-k", type=int, default=6)
    parser.add_argument("--embedder", default="hash")
    args = parser.parse_args()
    setup_django()
    kb, key, token, questions = build(args)
    port = free_port()
    server = start_server(port)
    try:
        times, sizes = asyncio.run(measure(f"http://127.0.0.1:{port}", token, questions, args.rounds, args.top_k))
    finally:
        server.terminate()
        server.wait(timeout=30)
        kb.delete()
        key.delete()
    print(f"\n{len(questions)} questions x {args.rounds} rounds (+1 warm-up), top_k={args.top_k}, "
          f"{args.docs} SciFact documents, embedder {args.embedder}, manage.py runserver on 127.0.0.1\n")
    print(f"| {'transport':<28} | {'n':>4} | {'mean ms':>8} | {'p50 ms':>7} | {'p95 ms':>7} | {'max ms':>7} |")
    print(f"|{'-' * 30}|{'-' * 6}|{'-' * 10}|{'-' * 9}|{'-' * 9}|{'-' * 9}|")
    for name, values in times.items():
        ms = [v * 1000 for v in values]
        print(f"| {name:<28} | {len(ms):>4} | {sum(ms) / len(ms):>8.1f} | {percentile(ms, 50):>7.1f} | "
              f"{percentile(ms, 95):>7.1f} | {max(ms):>7.1f} |")
    print("\nResponse size of one search (bytes): " + ", ".join(f"{k}: {v:,}" for k, v in sizes.items()))


if __name__ == "__main__":
    main()
