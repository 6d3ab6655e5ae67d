"""Start a real `manage.py qcluster` process against the test database."""

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def test_database_url() -> str:
    db = connection.settings_dict
    host = quote(db["HOST"], safe="") if db["HOST"].startswith("/") else db["HOST"]
    port = f":{db['PORT']}" if db["PORT"] else ""
    password = f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else ""
    return f"postgres://{quote(db['USER'])}{password}@{host}{port}/{db['NAME']}"


def _environment(env: dict) -> dict:
    """This process's environment pointed at the test database and media folder, plus `env`."""
    return {**os.environ, "DATABASE_URL": test_database_url(), "PORTAL_MEDIA_ROOT": str(settings.MEDIA_ROOT),
            "PORTAL_WORKERS": "1", "PORTAL_LOG_LEVEL": "WARNING", **env}


def run_manage(*args: str, **env) -> str:
    """Run a manage.py command in another process on the test database; its output."""
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=_environment(env),
                          capture_output=True, text=True, timeout=120)
    if done.returncode:
        raise AssertionError(f"manage.py {args[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


@contextmanager
def running_worker(**env):
    """A qcluster subprocess on the test database; killed (whole process group) on exit."""
    process = subprocess.Popen([sys.executable, "manage.py", "qcluster"], cwd=ROOT, env=_environment(env),
                               start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        yield process
    finally:
        kill(process)


def kill(process: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    if process.poll() is None:
        os.killpg(process.pid, sig)
        process.wait(timeout=30)


def wait_for(predicate, *, timeout: float = 120, interval: float = 0.2, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"Timed out after {timeout}s waiting for {what}")
