"""Shared helpers of the benchmark scripts: Django set-up, BEIR loading, an on-disk embedding cache.

Embedding a corpus with the default CPU embedder takes tens of minutes, so vectors are cached in
`bench/.cache/embeddings-<embedder>-<version>.sqlite3`, keyed by the SHA-256 of the exact input text
(passage or query, which embed differently). A killed run keeps every finished batch.
"""

import hashlib
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
CACHE_DIR = BENCH_DIR / ".cache"
DATA_DIR = ROOT.parent / "shared" / "data"


def setup_django(database: str | None = "portal_bench") -> None:
    """Django with its own database (created and migrated on first use), away from the dev data."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
    import django
    from django.conf import settings

    django.setup()
    if not database:
        return
    import psycopg

    conf = settings.DATABASES["default"]
    admin = {"dbname": "postgres", "user": conf["USER"], "host": conf["HOST"], "port": conf["PORT"] or None,
             "password": conf["PASSWORD"] or None}
    with psycopg.connect(**{k: v for k, v in admin.items() if v}, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone():
            conn.execute(f'CREATE DATABASE "{database}"')
    conf["NAME"] = database  # connections are opened lazily, so this takes effect
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from knowledge.indexing import term_statistics

    term_statistics.take_due()  # what the worker's minute sweep does: bases kept from before them


def database_url() -> str:
    """The DATABASE_URL of the database Django is set up with, for a server started by a benchmark."""
    from django.db import connection

    db = connection.settings_dict
    host = quote(db["HOST"], safe="") if db["HOST"].startswith("/") else db["HOST"]
    port = f":{db['PORT']}" if db["PORT"] else ""
    password = f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else ""
    return f"postgres://{quote(db['USER'])}{password}@{host}{port}/{db['NAME']}"


def machine_cpu_seconds() -> float:
    """CPU seconds the whole machine has spent busy so far, every core and process (/proc/stat)."""
    user, nice, system, _idle, _iowait, irq, softirq = map(int, Path("/proc/stat").read_text().split()[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def stop(process: subprocess.Popen) -> None:
    """SIGTERM, and SIGKILL to its process group if it has not stopped in 30 s (a worker mid-task)."""
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)


def timed_together(script: str, argv: list[str], processes: int, *, env: dict, stdin: str = "") -> float:
    """Run `script` (python -c) in `processes` bare processes, each in its own session, and start their
    measured work at the same moment: each reads `stdin`'s line, prints "ready", waits for "go" and
    prints the seconds its work took. Returns the slowest one's seconds."""
    children = [subprocess.Popen([sys.executable, "-c", script, *argv], cwd=ROOT, env=env, text=True,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True)
                for _ in range(processes)]
    for child in children:
        child.stdin.write(stdin + "\n")
        child.stdin.flush()
    for child in children:
        assert child.stdout.readline().strip() == "ready"
    for child in children:  # all start together
        child.stdin.write("go\n")
        child.stdin.flush()
    seconds = max(float(child.stdout.readline()) for child in children)
    for child in children:
        child.wait(timeout=60)
    return seconds


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def read_jsonl(path: Path) -> list[dict]:
    """The objects of a JSON Lines file (blank lines skipped)."""
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


class EmbeddingCache:
    """Vectors of one embedder by text hash, stored in SQLite; misses are embedded in batches."""

    def __init__(self, embedder, cache_dir: Path = CACHE_DIR):
        cache_dir.mkdir(parents=True, exist_ok=True)
        self.embedder = embedder
        safe_version = "".join(ch if ch.isalnum() or ch in "-._" else "_" for ch in str(embedder.version))
        self.path = cache_dir / f"embeddings-{embedder.name}-{safe_version}.sqlite3"
        self.db = sqlite3.connect(self.path)
        self.db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB)")
        self.embed_seconds = 0.0
        self.embedded = 0

    @staticmethod
    def key(text: str, kind: str) -> str:
        return hashlib.sha256(f"{kind}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()

    def _lookup(self, keys: list[str]) -> dict[str, np.ndarray]:
        found = {}
        for start in range(0, len(keys), 500):
            part = keys[start:start + 500]
            rows = self.db.execute(
                f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(part))})", part
            ).fetchall()
            found.update({key: np.frombuffer(blob, dtype=np.float32) for key, blob in rows})
        return found

    def passages(self, texts: list[str], *, batch_size: int = 16, progress: bool = False) -> np.ndarray:
        """Passage vectors for `texts`, embedding only the ones not cached yet."""
        keys = [self.key(text, "passage") for text in texts]
        found = self._lookup(keys)
        missing = sorted({k: t for k, t in zip(keys, texts) if k not in found}.items())
        started = time.perf_counter()
        for start in range(0, len(missing), batch_size):
            batch = missing[start:start + batch_size]
            t0 = time.perf_counter()
            vectors = self.embedder.embed_passages([text for _, text in batch])
            self.embed_seconds += time.perf_counter() - t0
            self.embedded += len(batch)
            self.db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                                [(k, v.astype(np.float32).tobytes()) for (k, _), v in zip(batch, vectors)])
            self.db.commit()
            found.update({k: v for (k, _), v in zip(batch, vectors)})
            if progress:
                done = start + len(batch)
                rate = done / (time.perf_counter() - started)
                print(f"  embedded {done}/{len(missing)} ({rate:.1f}/s)", file=sys.stderr, flush=True)
        return np.stack([found[k] for k in keys]) if keys else np.zeros((0, self.embedder.dim), np.float32)

    def query(self, text: str) -> np.ndarray:
        key = self.key(text, "query")
        found = self._lookup([key])
        if key in found:
            return found[key]
        t0 = time.perf_counter()
        vector = self.embedder.embed_query(text)
        self.embed_seconds += time.perf_counter() - t0
        self.db.execute("INSERT OR REPLACE INTO vectors VALUES (?, ?)", (key, vector.astype(np.float32).tobytes()))
        self.db.commit()
        return vector


@dataclass
class BeirSet:
    name: str
    corpus: list[dict]           # {"_id", "title", "text"}
    queries: dict[str, str]      # query id -> text
    qrels: dict[str, dict[str, int]]  # query id -> {doc id: relevance}


def load_beir(path: Path, *, max_docs: int | None = None, max_queries: int | None = None,
              seed: int = 13) -> BeirSet:
    """A BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv), optionally subsampled.

    With `max_queries` a random sample of the judged queries is kept; with `max_docs` the corpus
    keeps every document judged for the kept queries plus random others up to the limit, so the
    task stays meaningful (distractors included) while being small.
    """
    qrels: dict[str, dict[str, int]] = {}
    with open(path / "qrels" / "test.tsv", encoding="utf-8") as handle:
        for line in handle:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3 or parts[0] == "query-id":
                continue
            if int(parts[2]) > 0:
                qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    queries = {}
    with open(path / "queries.jsonl", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if str(row["_id"]) in qrels:
                queries[str(row["_id"])] = row["text"]
    qrels = {qid: rel for qid, rel in qrels.items() if qid in queries}
    rng = random.Random(seed)
    if max_queries and len(queries) > max_queries:
        keep = sorted(rng.sample(sorted(queries), max_queries))
        queries = {qid: queries[qid] for qid in keep}
        qrels = {qid: qrels[qid] for qid in keep}
    corpus = []
    with open(path / "corpus.jsonl", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            corpus.append({"_id": str(row["_id"]), "title": row.get("title") or "", "text": row.get("text") or ""})
    if max_docs and len(corpus) > max_docs:
        judged = {doc for rel in qrels.values() for doc in rel}
        others = [doc for doc in corpus if doc["_id"] not in judged]
        rng.shuffle(others)
        room = max(0, max_docs - len(judged))
        keep_ids = judged | {doc["_id"] for doc in others[:room]}
        corpus = [doc for doc in corpus if doc["_id"] in keep_ids]
    return BeirSet(path.name, corpus, queries, qrels)
