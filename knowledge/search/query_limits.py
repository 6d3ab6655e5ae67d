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
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from knowledge.exceptions import QueryTooLargeError, SearchTimeoutError

MAX_FILTER_KEY_CHARS = 100
MAX_FILTER_VALUE_CHARS = 500


def check_scope(*, layers=None, filters: dict | None = None, document_ids=None) -> None:
    """Refuse a search scope over the configured limits, naming the limit."""
    limits = settings.PORTAL
    _at_most(len(layers or []), limits["SEARCH_MAX_LAYERS"],
             gettext_noop("Too many layers: %(count)s; the limit is %(limit)s"))
    _at_most(len(document_ids or []), limits["SEARCH_MAX_DOCUMENT_IDS"],
             gettext_noop("Too many document ids: %(count)s; the limit is %(limit)s"))
    filters = filters or {}
    _at_most(len(filters), limits["SEARCH_MAX_FILTER_KEYS"],
             gettext_noop("Too many filter keys: %(count)s; the limit is %(limit)s"))
    values = [value for option in filters.values()
              for value in (option if isinstance(option, list | tuple | set) else [option])]
    _at_most(len(values), limits["SEARCH_MAX_FILTER_VALUES"],
             gettext_noop("Too many filter values in all: %(count)s; the limit is %(limit)s"))
    if any(len(str(key)) > MAX_FILTER_KEY_CHARS for key in filters):
        raise QueryTooLargeError(_("A filter key is longer than %(limit)d characters")
                                 % {"limit": MAX_FILTER_KEY_CHARS})
    if any(isinstance(value, str) and len(value) > MAX_FILTER_VALUE_CHARS for value in values):
        raise QueryTooLargeError(_("A filter value is longer than %(limit)d characters")
                                 % {"limit": MAX_FILTER_VALUE_CHARS})


def _at_most(count: int, limit: int, message: str) -> None:
    """Refuse `count` over `limit` with `message` (a msgid with %(count)s and %(limit)s)."""
    if count > limit:
        raise QueryTooLargeError(_(message) % {"count": number_format(count, force_grouping=True),
                                               "limit": number_format(limit, force_grouping=True)})


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
        raise SearchTimeoutError(_(
            "The search took longer than %(ms)s ms and was stopped; narrow it (fewer bases, filters or documents) "
            "or try again") % {"ms": number_format(timeout_ms(), force_grouping=True)}) from exc
