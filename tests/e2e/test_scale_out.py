"""README's "Scaling out", run as it is written, with every part a process of its own on 127.0.0.1:

- PostgreSQL + pgvector as a separate server reached over TCP with a password (`DATABASE_URL`),
- Redis as the task broker (`REDIS_URL`),
- two web machines (`bin/serve`, gunicorn) and two worker machines (`manage.py qcluster`), each a
  checkout of its own (a copy of the code; the virtualenv is shared, as machines built from one image
  share their packages) with its own var folder and working directory.

The machines share nothing but `DATABASE_URL`, `REDIS_URL`, `PORTAL_SECRET_KEY` and the media volume
(`PORTAL_MEDIA_ROOT`, where the web side keeps uploads for the workers to read). The embedder is the
`openai` one pointed at the test's stub server, whose delay keeps a task running long enough to kill
its worker in the middle. deploy/compose.yaml describes the same set-up for containers.
"""

import hashlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import psutil
import psycopg
import pytest
from django.core.files import File

from knowledge import jobs
from knowledge.models import Chunk, Document
from tests import redis_server
from tests.conftest import DATA
from tests.e2e.worker import ROOT, wait_for
from tests.factories import make_kb
from tests.net import free_port
from tests.postgres_server import running_postgres
from tests.stubs.openai_stub import OpenAIStub

MARKDOWN = DATA / "documents/md/en"
FIRST_BATCH = ["react-learn-installation.md", "react-learn-editor-setup.md",
               "react-learn-importing-and-exporting-components.md", "react-learn-your-first-component.md",
               "react-learn-describing-the-ui.md", "react-learn-conditional-rendering.md"]
# Large enough that its job is still embedding when its worker is killed.
SECOND_BATCH = ["react-reference-react-useState.md", "react-learn-thinking-in-react.md"]
# Fetched by that worker before it is killed, never started.
THIRD_BATCH = ["react-learn-keeping-components-pure.md"]
CHUNKING = {"chunk_size": 300, "chunk_overlap": 30, "chunk_min_size": 50}
QUESTION = {"query": "How do I add state to a component?", "mode": "hybrid"}


class Machine:
    """A checkout of its own with its own var folder; runs one long process (web server or worker)."""

    def __init__(self, name: str, folder: Path, env: dict):
        self.name, self.folder, self.process = name, folder, None
        checkout(folder)
        self.env = {**env, "PORTAL_VAR_DIR": str(folder / "var")}
        self.log = folder / f"{name}.log"

    def start(self, *command: str, **env) -> None:
        with self.log.open("a") as log:
            self.process = subprocess.Popen(command, cwd=self.folder, env={**self.env, **env}, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True)

    def manage(self, *args: str) -> str:
        done = subprocess.run([".venv/bin/python", "manage.py", *args], cwd=self.folder, env=self.env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{self.name}: manage.py {args[0]} failed:\n{done.stdout}{done.stderr}"
        return done.stdout

    def owns(self, pid: int) -> bool:
        """Whether process `pid` is this machine's (its process or one of their descendants)."""
        try:
            return self.process.pid in [pid, *(parent.pid for parent in psutil.Process(pid).parents())]
        except psutil.NoSuchProcess:
            return False

    def pause(self) -> None:
        os.killpg(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.killpg(self.process.pid, signal.SIGCONT)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """The whole machine at once: its process and every child."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, sig)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=30)

    def output(self) -> str:
        return f"--- {self.name} ---\n" + (self.log.read_text()[-3000:] if self.log.exists() else "")


def checkout(folder: Path) -> None:
    """Copy the project's files (what git tracks, and new files not ignored) into `folder`; the
    virtualenv is shared through a link."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)
    (folder / ".venv").symlink_to(ROOT / ".venv")


def ensure_installed() -> None:
    """What bin/serve does first, in this checkout: the copies then find the virtualenv installed
    for this pyproject.toml (their .venv is a link to it) and never install into it from a copy."""
    subprocess.run(["bash", "-c", 'source bin/_venv.sh && ensure_venv ""'], cwd=ROOT, check=True, timeout=600)
    stamp = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:16]
    assert list((ROOT / ".venv").glob(f".installed-{stamp}-*")), "the virtualenv is not installed"


def request(method: str, url: str, token: str, body: dict | None = None, *, files: list[Path] = ()):
    headers = {"Authorization": f"Bearer {token}"}
    data = None
    if files:
        boundary = uuid.uuid4().hex
        parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{path.name}"\r\n'
                 f"Content-Type: text/markdown\r\n\r\n".encode() + path.read_bytes() + b"\r\n" for path in files]
        data = b"".join(parts) + f"--{boundary}--\r\n".encode()
        headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"
    elif body is not None:
        data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers, method=method),
                                    timeout=60) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


class SearchProbe:
    """Searches through the web servers, in turn, every quarter second, recording each answer's status."""

    def __init__(self, bases: list[str], token: str, kb_id: int):
        self.bases, self.token, self.kb_id = bases, token, kb_id
        self.answers: list[tuple[float, str, int]] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._probe, daemon=True)
        self.thread.start()

    def _probe(self) -> None:
        turn = 0
        while not self.stopped.wait(0.25):
            base = self.bases[turn % len(self.bases)]
            turn += 1
            try:
                status, _ = request("POST", f"{base}/api/v1/search", self.token,
                                    {**QUESTION, "knowledge_bases": [self.kb_id]})
            except (OSError, ValueError):
                status = 0  # refused, timed out or not an answer of ours: not served
            self.answers.append((time.monotonic(), base, status))

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=90)

    def between(self, start: float, end: float) -> list[int]:
        return [status for at, _, status in self.answers if start <= at <= end]


def upload(base: str, token: str, kb_id: int, names: list[str]) -> int:
    status, body = request("POST", f"{base}/api/v1/knowledge-bases/{kb_id}/documents", token,
                           files=[MARKDOWN / name for name in names])
    assert status == 202, body
    return body["job"]["id"]


def task_ids_in(redis_url: str, secret: str) -> set[str]:
    """The ids of the tasks waiting in the Redis queue (signed with the machines' secret)."""
    import redis
    from django.core import signing
    from django_q.signing import PickleSerializer

    return {signing.loads(package, key=secret, salt="portal", serializer=PickleSerializer)["id"]
            for package in redis.Redis.from_url(redis_url).lrange("django_q:portal:q", 0, -1)}


def cluster_count(redis_url: str) -> int:
    import redis

    return len(redis.Redis.from_url(redis_url).keys("django_q:portal:cluster:*"))


def reference_chunk_counts(names: list[str]) -> dict[str, int]:
    """Chunks per file when one process ingests the files alone (the test's own database, in-process)."""
    kb = make_kb(**CHUNKING)
    handles = [open(MARKDOWN / name, "rb") for name in names]  # noqa: SIM115 - closed below
    try:
        jobs.add_uploads(kb, [File(handle, name=Path(handle.name).name) for handle in handles])
    finally:
        for handle in handles:
            handle.close()
    counts = {document.path: Chunk.objects.filter(document=document).count()
              for document in Document.objects.filter(knowledge_base=kb, status=Document.Status.READY)}
    assert set(counts) == set(names), counts
    return counts


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not redis_server.AVAILABLE, reason=redis_server.WHY_NOT)
def test_two_web_servers_and_two_workers_on_one_database_and_one_broker(tmp_path):
    expected_chunks = reference_chunk_counts(FIRST_BATCH + SECOND_BATCH + THIRD_BATCH)
    ensure_installed()
    stub = OpenAIStub().start()
    machines: list[Machine] = []
    probe = None
    with running_postgres() as database_url, redis_server.running_redis() as redis_url:
        shared = {
            "PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8",
            "DATABASE_URL": database_url, "REDIS_URL": redis_url, "PORTAL_SECRET_KEY": secrets.token_urlsafe(50),
            "PORTAL_MEDIA_ROOT": str(tmp_path / "media"),
            "OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": "k", "PORTAL_OPENAI_EMBEDDING_DIM": "256",
            "PORTAL_EMBED_BATCH_SIZE": "8", "PORTAL_LOG_LEVEL": "INFO", "PORTAL_API_RATE_LIMIT_PER_MINUTE": "100000",
            # A dead worker's job is seen in seconds: beat every second, stale after 8 (a busy machine may
            # hold a beat back a few seconds), looked for every second.
            "PORTAL_JOB_HEARTBEAT_SECONDS": "1", "PORTAL_JOB_STALE_SECONDS": "8", "PORTAL_JOB_REAP_SECONDS": "1",
        }
        try:
            for name in ("web-1", "web-2", "worker-1", "worker-2"):
                (tmp_path / name).mkdir()
                machines.append(Machine(name, tmp_path / name, shared))
            web1, web2, worker1, worker2 = machines
            for machine in machines:
                loaded = subprocess.run([".venv/bin/python", "-c", "import portal; print(portal.__file__)"],
                                        cwd=machine.folder, env=machine.env, capture_output=True, text=True)
                assert loaded.stdout.strip() == str(machine.folder / "portal/__init__.py"), loaded

            # Two web servers start together on the empty database: one migrates, the other waits for it.
            bases = []
            for web in (web1, web2):
                port = free_port()
                web.start("bash", "bin/serve", PORTAL_BIND=f"127.0.0.1:{port}", PORTAL_WEB_WORKERS="1",
                          PORTAL_WEB_THREADS="4")
                bases.append(f"http://127.0.0.1:{port}")
            for web, base in zip((web1, web2), bases, strict=True):
                wait_for(lambda web=web, base=base: answers(f"{base}/healthz") or web.process.poll() is not None,
                         timeout=600, interval=1, what=f"{web.name} to serve")
                assert web.process.poll() is None, web.output()
            logs = [web.log.read_text() for web in (web1, web2)]
            assert sum("Applying knowledge.0001_initial" in log for log in logs) == 1, web1.output() + web2.output()
            assert sum("No migrations to apply" in log for log in logs) == 1, web1.output() + web2.output()
            with psycopg.connect(database_url) as connection:
                twice = connection.execute("SELECT app, name FROM django_migrations GROUP BY app, name "
                                           "HAVING count(*) > 1").fetchall()
            assert twice == []

            web1.manage("shell", "-c", "from django.contrib.auth.models import User; "
                        "User.objects.create_superuser('admin', 'admin@example.com', 'unused-password-1')")
            token = web1.manage("create_api_key", "scale-out", "--owner", "admin", "--scope", "read",
                                "--scope", "write", "--scope", "search").strip().splitlines()[-1]
            status, kb = request("POST", f"{bases[0]}/api/v1/knowledge-bases", token,
                                 {"name": "Scale out", "embedder": "openai", **CHUNKING})
            assert status == 201, kb

            for worker in (worker1, worker2):
                worker.start(".venv/bin/python", "manage.py", "qcluster", PORTAL_WORKERS="1")
            wait_for(lambda: cluster_count(redis_url) == 2, timeout=180, interval=1, what="both worker clusters")
            probe = SearchProbe(bases, token, kb["id"])

            # A batch uploaded as three requests: three jobs for the two workers, each run once.
            stub.behaviour, stub.delay = "slow", 0.1
            first = [FIRST_BATCH[i:i + 2] for i in range(0, len(FIRST_BATCH), 2)]
            job_ids = [upload(base, token, kb["id"], names) for names, base in zip(first, bases * 2, strict=False)]
            finished = [finished_job(bases[0], token, job_id, machines) for job_id in job_ids]
            assert [(job["status"], job["attempts"]) for job in finished] == [("succeeded", 1)] * 3, finished

            # Two more uploads while worker-2 is paused: worker-1 runs the first and has already fetched
            # the second from Redis when it is killed, machine and all, in the middle of embedding.
            victim, survivor = worker1, worker2
            survivor.pause()
            time.sleep(2)  # its pusher's pending fetch from Redis (1 s) runs out
            stub.delay = 0.4
            job_id, waiting_id = (upload(bases[1], token, kb["id"], names) for names in (SECOND_BATCH, THIRD_BATCH))
            running = wait_for(lambda: embedding(bases[0], token, job_id), timeout=300, interval=0.2,
                               what="the second upload's first embedded batch")
            assert victim.owns(int(running["worker"].rsplit(":", 1)[1])), running["worker"]
            waiting_task = request("GET", f"{bases[0]}/api/v1/jobs/{waiting_id}", token)[1]
            assert waiting_task["status"] == "queued", waiting_task
            wait_for(lambda: task_ids_in(redis_url, shared["PORTAL_SECRET_KEY"]) == set(), timeout=60,
                     what="worker-1 to fetch the third upload's task")
            victim.kill()
            killed_at = time.monotonic()
            survivor.resume()
            done, waited = (finished_job(bases[0], token, pk, machines) for pk in (job_id, waiting_id))
            finished_at = time.monotonic()
            assert (done["status"], done["attempts"]) == ("succeeded", 2), done
            assert (waited["status"], waited["attempts"]) == ("succeeded", 1), waited
            for job in (done, waited):
                assert survivor.owns(int(job["worker"].rsplit(":", 1)[1])), (job["worker"], survivor.name)
            probe.stop()

            # Searches were answered all along, while the worker lay dead too.
            statuses = [status for _, _, status in probe.answers]
            assert statuses and set(statuses) == {200}, {code: statuses.count(code) for code in set(statuses)}
            assert len(probe.between(killed_at, finished_at)) >= 3, "no search ran while the job was redone"
            assert {base for _, base, _ in probe.answers} == set(bases)
            status, body = request("POST", f"{bases[1]}/api/v1/search", token,
                                   {**QUESTION, "knowledge_bases": [kb["id"]]})
            assert status == 200 and body["hits"][0]["document_title"], body

            # Each document once, with the chunks one process alone makes of it, none twice.
            with psycopg.connect(database_url) as connection:
                rows = connection.execute(
                    "SELECT d.path, d.status, d.chunk_count, count(c.id) "
                    "FROM knowledge_document d LEFT JOIN knowledge_chunk c ON c.document_id = d.id "
                    "WHERE d.knowledge_base_id = %s GROUP BY d.id ORDER BY d.path", [kb["id"]]).fetchall()
            assert sorted(path for path, *_ in rows) == sorted(FIRST_BATCH + SECOND_BATCH + THIRD_BATCH)
            for path, state, chunk_count, chunks in rows:
                assert (state, chunk_count, chunks) == ("ready", expected_chunks[path], expected_chunks[path]), path
            print(f"\n{len(rows)} documents, {sum(row[3] for row in rows)} chunks; the killed job was finished "
                  f"by {survivor.name} {finished_at - killed_at:.0f} s after {victim.name} was killed; "
                  f"{len(statuses)} searches, all 200")
        finally:
            if probe:
                probe.stop()
            for machine in machines:
                machine.kill()
            stub.stop()


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


def embedding(base: str, token: str, job_id: int) -> dict | None:
    status, job = request("GET", f"{base}/api/v1/jobs/{job_id}", token)
    assert status == 200, job
    return job if job["status"] == "running" and job["counters"].get("chunks_embedded", 0) > 0 else None


def finished_job(base: str, token: str, job_id: int, machines: list[Machine]) -> dict:
    def finished():
        status, job = request("GET", f"{base}/api/v1/jobs/{job_id}", token)
        assert status == 200, job
        return job if job["status"] not in ("queued", "running") else None

    try:
        return wait_for(finished, timeout=600, interval=0.5, what=f"job {job_id}")
    except AssertionError:
        raise AssertionError("\n".join(machine.output() for machine in machines)) from None
