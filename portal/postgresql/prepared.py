"""Statements prepared once per database connection, then run with EXECUTE.

PostgreSQL parses and plans a statement sent as text every time. For the ANN search over many
bases that is about half a millisecond per UNION ALL branch (knowledge/search/sql.py); for the two
small statements every API request makes — its rate count and its audit row — it is a third of
what each costs the database (≈ 0.07 of 0.2 ms here). So they are prepared on first use on each
connection and sent as `EXECUTE name(values)`: the values are still bound on the client, as
Django's cursors do (batches need the simple query protocol), but the server skips the parsing
and planning.

A statement's name is a digest of its text, so one shape is prepared once per connection, and at
most `PER_CONNECTION` are kept (the least recently used is deallocated). Prepared statements are
per connection and not transactional (a rollback keeps them), so behind a pooler in transaction
mode (PgBouncer) `PORTAL_PREPARED_STATEMENTS=false` turns them off (`enabled()`).
"""

import functools
import hashlib
import re
import weakref
from collections import OrderedDict

from django.conf import settings
from django.db import DatabaseError
from psycopg import errors

PER_CONNECTION = 100
_PARAMETER = re.compile(r"%\((\w+)\)s")
# Names of the statements prepared on each connection (psycopg's), least recently used first.
_prepared: "weakref.WeakKeyDictionary[object, OrderedDict[str, None]]" = weakref.WeakKeyDictionary()


def enabled() -> bool:
    return bool(settings.PORTAL["PREPARED_STATEMENTS"])


def forms(statement: tuple[str, dict]) -> tuple[str, tuple[str, dict], tuple[str, dict]]:
    """`statement` (text with `%(name)s` parameters, values) as a prepared statement: its name, the
    PREPARE, and the EXECUTE with the same values."""
    text, params = statement
    name, prepare, execute = _shape(text)
    return name, (prepare, {}), (execute, params)


@functools.lru_cache(maxsize=1024)
def _shape(text: str) -> tuple[str, str, str]:
    """The name, PREPARE and EXECUTE of a statement's text (remembered: a request's own statements
    are the same few texts each time, and working them out costs as much as the planning saved)."""
    names = list(dict.fromkeys(_PARAMETER.findall(text)))
    positions = {name: f"${n}" for n, name in enumerate(names, start=1)}
    body = _PARAMETER.sub(lambda match: positions[match.group(1)], text)
    name = "portal_" + hashlib.sha256(body.encode()).hexdigest()[:24]
    arguments = ", ".join(f"%({parameter})s" for parameter in names)
    return name, f"PREPARE {name} AS {body}", f"EXECUTE {name}({arguments})"


def execute_form(cursor, statement: tuple[str, dict]) -> tuple[str, dict]:
    """The EXECUTE of `statement`, prepared on the cursor's connection first if it is not yet."""
    name, prepare, execute = forms(statement)
    names = _prepared.get(cursor.db.connection)
    if names is None:  # not setdefault: this runs on every request, the new dict only once per connection
        names = _prepared[cursor.db.connection] = OrderedDict()
    elif name in names:
        names.move_to_end(name)
        return execute
    cursor.execute(*prepare)  # prepared statements survive a rollback, so this is recorded for good
    names[name] = None
    if len(names) > PER_CONNECTION:
        cursor.execute(f"DEALLOCATE {names.popitem(last=False)[0]}")
    return execute


def execute(cursor, statement: tuple[str, dict], send=None):
    """Run `statement` on `cursor`: prepared when `enabled()`, else as it is. `send(cursor, runnable)`
    sends what is to run (the statement or its EXECUTE), when the caller wraps it (a batch with
    settings); its result is returned. By default, `cursor.execute(*runnable)`.

    Outside a transaction, a statement the server no longer has (`DEALLOCATE ALL`, `DISCARD ALL`,
    a pooler's reset) is prepared again and sent once more, so a search does not fail and a rate
    count or an audit row is not lost to it; inside one the error stands, as the transaction is
    aborted anyway."""
    send = send or (lambda cursor, runnable: cursor.execute(*runnable))
    if not enabled():
        return send(cursor, statement)
    try:
        return send(cursor, execute_form(cursor, statement))
    except DatabaseError as error:
        if not isinstance(error.__cause__, errors.InvalidSqlStatementName) or cursor.db.in_atomic_block:
            raise
        # Only this one: others it may still have would be refused as duplicates if prepared again.
        _prepared.get(cursor.db.connection, {}).pop(forms(statement)[0], None)
        return send(cursor, execute_form(cursor, statement))


def forget() -> None:
    """Forget what was prepared (after `DEALLOCATE ALL` in tests)."""
    _prepared.clear()
