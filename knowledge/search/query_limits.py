"""Bounds on what one search may ask of the database.

A search's cost grows with its filters (each value is a JSON containment test on the chunk and its
document), its layers and document ids; a request that asks too much is refused before any SQL runs,
with the limit in the message. What does run is cut off by a statement timeout (set with each search
statement, see `sql.with_search_settings`), so one expensive search cannot hold a database connection
for minutes. `retrieval.retrieve` applies both,
so the REST search, `/answer`, planned search and every other caller share them.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import OperationalError

from knowledge.exceptions import QueryTooLargeError, SearchTimeoutError

MAX_FILTER_KEY_CHARS = 100
MAX_FILTER_VALUE_CHARS = 500


def check_scope(*, layers=None, filters: dict | None = None, document_ids=None) -> None:
    """Refuse a search scope over the configured limits, naming the limit."""
    limits = settings.PORTAL
    _at_most(len(layers or []), limits["SEARCH_MAX_LAYERS"], "layers")
    _at_most(len(document_ids or []), limits["SEARCH_MAX_DOCUMENT_IDS"], "document ids")
    filters = filters or {}
    _at_most(len(filters), limits["SEARCH_MAX_FILTER_KEYS"], "filter keys")
    values = [value for option in filters.values()
              for value in (option if isinstance(option, list | tuple | set) else [option])]
    _at_most(len(values), limits["SEARCH_MAX_FILTER_VALUES"], "filter values in all")
    if any(len(str(key)) > MAX_FILTER_KEY_CHARS for key in filters):
        raise QueryTooLargeError(f"A filter key is longer than {MAX_FILTER_KEY_CHARS} characters")
    if any(isinstance(value, str) and len(value) > MAX_FILTER_VALUE_CHARS for value in values):
        raise QueryTooLargeError(f"A filter value is longer than {MAX_FILTER_VALUE_CHARS} characters")


def _at_most(count: int, limit: int, what: str) -> None:
    if count > limit:
        raise QueryTooLargeError(f"Too many {what}: {count:,}; the limit is {limit:,}")


def timeout_ms() -> int:
    """The search statement timeout; `sql.with_search_settings` sets it for each search statement."""
    return settings.PORTAL["SEARCH_STATEMENT_TIMEOUT_MS"]


@contextmanager
def timeout_as_error() -> Iterator[None]:
    """Turn a search statement cancelled by its timeout into a `SearchTimeoutError`."""
    try:
        yield
    except OperationalError as exc:
        if getattr(exc.__cause__, "sqlstate", None) != "57014":  # query_canceled
            raise
        raise SearchTimeoutError(
            f"The search took longer than {timeout_ms():,} ms and was stopped; narrow it (fewer bases, "
            "filters or documents) or try again"
        ) from exc
