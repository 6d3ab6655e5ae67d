"""The embedded PostgreSQL starts with memory sizes fit for a vector index (portal/embedded_db.py)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from portal.embedded_db import MB, TUNING_FILE, postmaster_status, server_settings, write_server_settings
from tests.conftest import stop_server_left_running

GB = 1024 * MB
ROOT = Path(__file__).resolve().parents[1]


def test_sizes_follow_the_machine_within_bounds():
    assert server_settings(24 * GB) == {"shared_buffers": "6144MB", "maintenance_work_mem": "2048MB",
                                        "effective_cache_size": "12288MB"}
    small = server_settings(256 * MB)
    assert small["shared_buffers"] == "128MB" and small["maintenance_work_mem"] == "64MB"
    assert server_settings(256 * GB)["shared_buffers"] == "8192MB"


def test_given_sizes_win_and_bad_ones_are_refused():
    chosen = server_settings(24 * GB, shared_buffers="512MB", maintenance_work_mem="1GB")
    assert chosen["shared_buffers"] == "512MB" and chosen["maintenance_work_mem"] == "1GB"
    with pytest.raises(ValueError, match="shared_buffers = 'lots'"):
        server_settings(24 * GB, shared_buffers="lots")
    with pytest.raises(ValueError, match="maintenance_work_mem"):
        server_settings(24 * GB, maintenance_work_mem="1GB; shared_preload_libraries = 'x'")


def test_the_settings_file_is_included_once_and_rewritten(tmp_path):
    conf = tmp_path / "postgresql.conf"
    conf.write_text("max_connections = 100\n")
    write_server_settings(tmp_path, {"shared_buffers": "256MB"})
    write_server_settings(tmp_path, {"shared_buffers": "512MB"})
    assert conf.read_text().count(f"include_if_exists = '{TUNING_FILE}'") == 1
    assert (tmp_path / TUNING_FILE).read_text() == "shared_buffers = '512MB'\n"


@pytest.mark.django_db
@pytest.mark.skipif(bool(settings.DATABASE_URL), reason="an external server is tuned by its operator")
def test_the_running_server_reads_the_portal_settings_file():
    with connection.cursor() as cursor:
        cursor.execute("SELECT name, setting, error FROM pg_file_settings WHERE sourcefile LIKE %s",
                       [f"%/{TUNING_FILE}"])
        read = {name: (setting, error) for name, setting, error in cursor.fetchall()}
    assert read == {name: (value, None) for name, value in settings.EMBEDDED_DB_TUNING.items()}


HOLD_THE_DATABASE = ("import django, sys, time; django.setup(); from django.db import connection; "
                     "connection.ensure_connection(); print('ready', flush=True); time.sleep(120)")


def start_database_user(tmp_path) -> subprocess.Popen:
    """A process that uses an embedded server of its own (a fresh data folder under tmp_path, so the
    test run's server is not touched) and holds it until it is stopped."""
    env = {**os.environ, "PORTAL_PGDATA": str(tmp_path / "pgdata"), "PORTAL_VAR_DIR": str(tmp_path / "var"),
           "PORTAL_DB_SHARED_BUFFERS": "128MB", "PORTAL_DB_MAINTENANCE_WORK_MEM": "64MB",
           "DJANGO_SETTINGS_MODULE": "portal.settings"}
    env.pop("DATABASE_URL", None)
    process = subprocess.Popen([sys.executable, "-c", HOLD_THE_DATABASE], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready", process.stderr.read()[-2000:]
    return process


def assert_sigterm_stops_it_all(process: subprocess.Popen, pgdata: Path, left_running: str) -> None:
    """SIGTERM to the server's last user ends it cleanly and stops the server."""
    try:
        assert (pgdata / "postmaster.pid").exists()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
        # The postmaster removes its pid file as it ends, which on a busy machine may come a moment after
        # the process that asked it to stop has exited: a server left running keeps it for good.
        deadline = time.monotonic() + 90
        while (pgdata / "postmaster.pid").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not (pgdata / "postmaster.pid").exists(), left_running
    finally:
        if process.poll() is None:
            process.kill()
        stop_server_left_running(pgdata)


@pytest.mark.slow
@pytest.mark.skipif(bool(settings.DATABASE_URL), reason="about the embedded server")
def test_a_process_stopped_with_sigterm_stops_the_server_it_started(tmp_path):
    assert_sigterm_stops_it_all(start_database_user(tmp_path), tmp_path / "pgdata",
                                "the embedded server was left running")


@pytest.mark.slow
@pytest.mark.skipif(bool(settings.DATABASE_URL), reason="about the embedded server")
def test_a_killed_user_does_not_keep_the_server_running_for_ever(tmp_path):
    # A process killed outright (SIGKILL, the OOM killer) cannot take itself off the server's list
    # of users; the next start must not count it, or the server would never stop again.
    killed = start_database_user(tmp_path)
    killed.kill()
    killed.wait(timeout=30)
    assert_sigterm_stops_it_all(start_database_user(tmp_path), tmp_path / "pgdata",
                                "the killed process still counts as a user")


@pytest.mark.slow
@pytest.mark.skipif(bool(settings.DATABASE_URL), reason="about the embedded server")
def test_a_server_shutting_down_is_named_in_the_error_not_a_bare_assertion(tmp_path):
    # The postmaster itself got SIGTERM (PostgreSQL's smart shutdown) while a process still uses it:
    # it stops only when that process leaves, and a process starting meanwhile must say so.
    holder = start_database_user(tmp_path)
    pgdata = tmp_path / "pgdata"
    try:
        os.kill(int((pgdata / "postmaster.pid").read_text().split()[0]), signal.SIGTERM)
        for _ in range(100):
            if postmaster_status(pgdata) == "stopping":
                break
            time.sleep(0.1)
        assert postmaster_status(pgdata) == "stopping"
        env = {**os.environ, "PORTAL_PGDATA": str(pgdata), "PORTAL_VAR_DIR": str(tmp_path / "var"),
               "DJANGO_SETTINGS_MODULE": "portal.settings"}
        env.pop("DATABASE_URL", None)
        late = subprocess.run([sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=120)
        assert late.returncode != 0
        assert "EmbeddedServerError" in late.stderr and "is shutting down" in late.stderr, late.stderr[-2000:]
        assert str(pgdata.resolve()) in late.stderr
    finally:
        holder.kill()
        holder.wait(timeout=30)
        stop_server_left_running(pgdata)
