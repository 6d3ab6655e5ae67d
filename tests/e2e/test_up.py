"""`bin/up`, the README's first command, started as a user starts it and stopped as a user stops it.

It runs on an embedded server of its own (a fresh data folder), so the test run's server is not
touched, with the fast test embedder for the demo content.
"""

import os
import queue
import signal
import subprocess
import threading
import time
import urllib.request

import psutil
import pytest
from django.conf import settings

from tests.conftest import stop_server_left_running
from tests.e2e.worker import ROOT
from tests.net import free_port


def lines_of(stream) -> queue.Queue:
    """The stream's lines, read by a thread, so that waiting for one can time out."""
    lines: queue.Queue = queue.Queue()

    def read():
        for line in stream:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return lines


def wait_for_line(lines: queue.Queue, start: str, seen: list[str], timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            continue
        if line is None:
            break
        seen.append(line)
        if line.startswith(start):
            return line
    raise AssertionError(f"bin/up never printed {start!r}:\n" + "".join(seen[:15] + ["…\n"] + seen[-25:]))


def get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except OSError:
        return 0


@pytest.mark.slow
@pytest.mark.skipif(bool(settings.DATABASE_URL), reason="bin/up starts the embedded server")
@pytest.mark.parametrize("sig, to_group", [(signal.SIGINT, True), (signal.SIGTERM, True), (signal.SIGTERM, False)],
                         ids=["ctrl-c", "sigterm-to-the-group", "sigterm-to-the-script"])
def test_up_serves_the_portal_and_stops_everything_on_a_signal(tmp_path, sig, to_group):
    port = free_port()
    env = {**os.environ, "PORTAL_VAR_DIR": str(tmp_path / "var"), "PORTAL_PGDATA": str(tmp_path / "pgdata"),
           "PORTAL_BIND": f"127.0.0.1:{port}", "PORTAL_DEFAULT_EMBEDDER": "hash", "PORTAL_WORKERS": "1",
           "PORTAL_DB_SHARED_BUFFERS": "128MB", "PORTAL_DB_MAINTENANCE_WORK_MEM": "64MB"}
    env.pop("DATABASE_URL", None)
    # Its own session, as a terminal gives a command; SIGINT not ignored, as in a terminal.
    up = subprocess.Popen(["bash", "bin/up"], cwd=ROOT, env=env, start_new_session=True, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    family = []
    try:
        lines, seen = lines_of(up.stdout), []
        login = wait_for_line(lines, "Admin login: admin / ", seen, timeout=300)
        assert len(login.split(" / ", 1)[1].strip()) >= 12
        wait_for_line(lines, "Portal: ", seen, timeout=120)
        deadline = time.monotonic() + 60
        while get(f"http://127.0.0.1:{port}/admin/login/") != 200:
            assert time.monotonic() < deadline, "the web server never answered:\n" + "".join(seen[-40:])
            time.sleep(0.5)
        assert get(f"http://127.0.0.1:{port}/api/docs") == 200
        # The worker cluster (it forks its workers a moment after it starts) and the web server.
        deadline = time.monotonic() + 60
        while len(family := psutil.Process(up.pid).children(recursive=True)) < 3:
            assert time.monotonic() < deadline, family
            time.sleep(0.5)

        # Ctrl-C in a terminal signals the whole foreground group, as `kill -- -PGID` does.
        if to_group:
            os.killpg(up.pid, sig)
        else:
            up.send_signal(sig)
        up.wait(timeout=90)
        _, alive = psutil.wait_procs(family, timeout=30)
        assert alive == [], f"left running: {[process.cmdline() for process in alive]}"
        assert not (tmp_path / "pgdata" / "postmaster.pid").exists(), "the embedded server was left running"
    finally:  # after a failure: nothing may outlive the test
        if up.poll() is None:
            up.kill()
        for process in family:
            try:
                process.kill()
            except psutil.NoSuchProcess:
                pass
        stop_server_left_running(tmp_path / "pgdata")
