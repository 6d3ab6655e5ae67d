"""The audit trail: who did what, when.

Model changes (admin, API, commands, tasks; every model except high-volume derived rows) are
recorded by django-auditlog (`auditlog.LogEntry`, with the acting user when there is one). Every
request made with an API key is one `ApiRequest` row — key, route, status, knowledge base — written
by `ApiAuditMiddleware`; views add what they sent out with `note()` (an answer's cited chunks).
Replies and drafts are `tickets.Message` rows and their cited snapshots `tickets.TicketSource`
rows, so their creation is in the model log. Entries are append-only (the admin cannot change
them; a trigger refuses UPDATEs of `ApiRequest`) and deleted after `AUDIT_RETENTION_DAYS` by
`prune_audit`, a daily schedule.

Each row is committed without waiting for the WAL to reach the disk (`synchronous_commit` off for
that one statement): on this kind of machine a flushed commit costs 5–10 ms, as much as a keyword
search, against 0.2 ms. The price is that a crash of PostgreSQL itself (not of the web process)
can lose the last fraction of a second of entries; it never loses or corrupts anything else. The
statement is prepared once per connection (portal/postgresql/prepared.py).
"""

import ipaddress
import json
import logging
import re
from datetime import timedelta

from auditlog.middleware import AuditlogMiddleware
from auditlog.models import LogEntry
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone

from portal.models import ApiKey, ApiRequest
from portal.postgresql import prepared

logger = logging.getLogger(__name__)

PRUNE_SCHEDULE = "prune-audit"
UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")
COLUMNS = ("api_key_id", "key_prefix", "method", "route", "path", "status", "knowledge_base_id", "remote_addr",
           "detail", "created_at")
# One statement, its own transaction: set_config(…, true) lasts until that transaction's commit.
INSERT = (f"INSERT INTO {ApiRequest._meta.db_table} ({', '.join(COLUMNS)}) "
          f"VALUES ({', '.join(f'%({name})s' for name in COLUMNS)}) "
          "RETURNING set_config('synchronous_commit', 'off', true)")


def note(request: HttpRequest, **detail) -> None:
    """Add `detail` to the audit entry of this API request."""
    request.audit_detail = {**getattr(request, "audit_detail", {}), **detail}


class ApiAuditMiddleware:
    """One `ApiRequest` per request authenticated with an API key."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        key = getattr(request, "auth", None)
        if isinstance(key, ApiKey):
            try:
                # Every value is truncated or validated first (a name is not an address), so the
                # insert cannot fail on input; no savepoint, which would cost two round trips.
                record(request, key, response.status_code)
            except Exception:  # noqa: BLE001 - a failing audit write must not turn an answer into a 500
                logger.exception("Could not record the API request %s %s", request.method, request.path)
        return response


class ModelChangeAuditMiddleware(AuditlogMiddleware):
    """django-auditlog's middleware (the acting user and address on each model change), except around
    the operations named in `AUDIT_UNCHANGING_ROUTES` (search, answers), which change no audited model.

    auditlog connects and disconnects a `pre_save` receiver around every request, which with the
    user lookup cost ≈ 5 % of a keyword search request's CPU. What those requests do is in their
    `ApiRequest` row either way.
    """

    def __init__(self, get_response):
        super().__init__(get_response)
        self._unchanging: frozenset[str] | None = None

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if self._unchanging is None:  # reverse() needs the URLconf, which is not loaded yet in __init__
            self._unchanging = frozenset(reverse(name) for name in settings.AUDIT_UNCHANGING_ROUTES)
        if request.path in self._unchanging:
            return self.get_response(request)
        return super().__call__(request)


def record(request: HttpRequest, key: ApiKey, status: int) -> None:
    match = request.resolver_match
    kb_id = (match.kwargs.get("kb_id") if match else None) or None
    row = {"api_key_id": key.pk, "key_prefix": key.prefix, "method": request.method[:10], "status": status,
           "route": _storable(match.route if match else "")[:200], "path": _storable(request.path)[:500],
           "knowledge_base_id": _bigint(kb_id), "remote_addr": _address(request.META.get("REMOTE_ADDR", "")),
           "detail": json.dumps(getattr(request, "audit_detail", {}), cls=DjangoJSONEncoder),
           "created_at": timezone.now()}
    with connection.cursor() as cursor:
        prepared.execute(cursor, (INSERT, row))


def _bigint(value) -> int | None:
    """An id from the URL, if it is one a bigint column can hold (clients send any number)."""
    number = int(value) if str(value or "").isdigit() else None
    return number if number is not None and number < 2**63 else None


def _storable(text: str) -> str:
    """Without the NUL characters and lone surrogates a hostile path may carry (PostgreSQL refuses them)."""
    return UNSTORABLE.sub("\ufffd", text)


def _address(value: str) -> str | None:
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        return None  # test clients and some proxies pass names, not addresses


def prune_audit() -> int:
    """Delete audit entries older than the retention; how many were deleted."""
    before = timezone.now() - timedelta(days=settings.PORTAL["AUDIT_RETENTION_DAYS"])
    requests, _ = ApiRequest.objects.filter(created_at__lt=before).delete()
    changes, _ = LogEntry.objects.filter(timestamp__lt=before).delete()
    return requests + changes
