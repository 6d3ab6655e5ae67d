"""PostgreSQL session advisory locks: work that two processes must not do at once takes turns.

The lock is the database's, so it holds across worker processes and machines, and a process that
dies releases it with its connection.
"""

import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import connections


def lock_key(*parts: object) -> int:
    """A signed 64-bit key for a named thing ("index_repo", base, repository): the same in every process."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


@contextmanager
def held(key: int, *, waiting: Callable[[], None] | None = None, using: str = "default") -> Iterator[None]:
    """Hold the advisory lock `key` for the block; `waiting()` is called first when another holds it."""
    connection = connections[using]
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        if not cursor.fetchone()[0]:
            if waiting is not None:
                waiting()
            cursor.execute("SELECT pg_advisory_lock(%s)", [key])
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
