"""Atomic per-key request counters for the API rate limit.

One statement per request, so simultaneous requests of one key are never under-counted: in
PostgreSQL `INSERT … ON CONFLICT … DO UPDATE … RETURNING` (the row lock serialises the increments;
prepared once per connection, portal/postgresql/prepared.py), in Redis `INCR` with an expiry.
The store follows the "api" cache: Redis when it is Redis, else the database. Windows older than
the current one are deleted by the first request of a window.

In the database the same statement can read one more value for the caller (`read_too`): the
access version (portal/access.py), so a remembered key costs no statement of its own.
When the store fails (Redis down), the request is let through and the failure logged — with its
traceback once a minute per process, the failures between counted in the next entry: formatting
a traceback costs more than a search, and an outage would otherwise fill the log with one per
request. The limit protects the API; it should not be what takes it down.
"""

import logging
import math
import threading
import time

from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.db import connection

from portal.models import RateCounter
from portal.postgresql import prepared

logger = logging.getLogger(__name__)

WINDOW = 60  # seconds: the limit is per clock minute
TABLE = RateCounter._meta.db_table
# Committed without waiting for the WAL flush (5–10 ms here, more than a keyword search): a
# PostgreSQL crash may lose the last fraction of a second of counts, which a rate limit can afford.
INCREMENT = (
    f"INSERT INTO {TABLE} (api_key_id, \"window\", count) VALUES (%(key)s, %(window)s, 1) "
    f"ON CONFLICT (api_key_id, \"window\") DO UPDATE SET count = {TABLE}.count + 1 "
    "RETURNING count, {read_too}, set_config('synchronous_commit', 'off', true)"
)
PRUNE = f"DELETE FROM {TABLE} WHERE api_key_id = %(key)s AND \"window\" < %(window)s"
FAILURE_LOG_INTERVAL = 60  # seconds between two logged failures of the store (per process)
_failures = {"logged_at": None, "since": 0}
_failures_lock = threading.Lock()


def count_request(key_id: int, *, read_too: str = "NULL") -> tuple[int | None, object]:
    """Count one request of `key_id` in the current window.

    Returns its number in the window (None when the store failed) and the value of the SQL
    expression `read_too` read by the same statement (None when counted in Redis)."""
    window = int(time.time() // WINDOW)
    try:
        return _count(key_id, window, read_too)
    except Exception:  # noqa: BLE001 - any failure of the store lets the request through
        _log_failure(key_id)
        return None, None


def _log_failure(key_id: int) -> None:
    """Log this failure of the store, unless one was logged less than `FAILURE_LOG_INTERVAL` ago."""
    now = time.monotonic()
    with _failures_lock:
        if _failures["logged_at"] is not None and now - _failures["logged_at"] < FAILURE_LOG_INTERVAL:
            _failures["since"] += 1
            return
        unlogged, _failures["since"], _failures["logged_at"] = _failures["since"], 0, now
    logger.exception("The API rate limit store failed; letting the request of key %s through (%s more failures "
                     "since the last entry, let through unlogged)", key_id, unlogged)


def retry_after() -> int:
    """Seconds to the next window."""
    return math.ceil(WINDOW - time.time() % WINDOW)


def _count(key_id: int, window: int, read_too: str) -> tuple[int, object]:
    cache = caches["api"]
    if isinstance(cache, RedisCache):
        name = cache.make_and_validate_key(f"rate:{key_id}:{window}")
        client = cache._cache.get_client(name, write=True)
        with client.pipeline() as pipe:
            count, _ = pipe.incr(name).expire(name, WINDOW + 5, nx=True).execute()
        return int(count), None
    with connection.cursor() as cursor:
        prepared.execute(cursor, (INCREMENT.replace("{read_too}", read_too), {"key": key_id, "window": window}))
        count, value, _ = cursor.fetchone()
        if count == 1:
            cursor.execute(PRUNE, {"key": key_id, "window": window})
    return count, value
