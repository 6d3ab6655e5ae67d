"""Atomic per-key request counters for the API rate limit.

One statement per request, so simultaneous requests of one key are never under-counted: in
PostgreSQL `INSERT … ON CONFLICT … DO UPDATE … RETURNING` (the row lock serialises the increments),
in Redis `INCR` with an expiry. The store follows the "api" cache: Redis when it is Redis, else
the database. Windows older than the current one are deleted by the first request of a window.
"""

from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.db import connection

from portal.models import RateCounter

TABLE = RateCounter._meta.db_table
# Committed without waiting for the WAL flush (5–10 ms here, more than a keyword search): a
# PostgreSQL crash may lose the last fraction of a second of counts, which a rate limit can afford.
INCREMENT = (
    f"INSERT INTO {TABLE} (api_key_id, \"window\", count) VALUES (%(key)s, %(window)s, 1) "
    f"ON CONFLICT (api_key_id, \"window\") DO UPDATE SET count = {TABLE}.count + 1 "
    "RETURNING count, set_config('synchronous_commit', 'off', true)"
)
PRUNE = f"DELETE FROM {TABLE} WHERE api_key_id = %(key)s AND \"window\" < %(window)s"


def count_request(key_id: int, window: int, *, seconds: int) -> int:
    """Count one request of `key_id` in `window`; its number in that window."""
    cache = caches["api"]
    if isinstance(cache, RedisCache):
        name = cache.make_and_validate_key(f"rate:{key_id}:{window}")
        client = cache._cache.get_client(name, write=True)
        with client.pipeline() as pipe:
            count, _ = pipe.incr(name).expire(name, seconds + 5, nx=True).execute()
        return int(count)
    with connection.cursor() as cursor:
        cursor.execute(INCREMENT, {"key": key_id, "window": window})
        count = cursor.fetchone()[0]
        if count == 1:
            cursor.execute(PRUNE, {"key": key_id, "window": window})
    return count
