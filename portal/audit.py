"""The audit trail: who did what, when.

Model changes (admin, API, commands, tasks; every model except high-volume derived rows) are
recorded by django-auditlog (`auditlog.LogEntry`, with the acting user when there is one). Every
request made with an API key is one `ApiRequest` row — key, route, status, knowledge base — written
by `ApiAuditMiddleware`; views add what they sent out with `note()` (an answer's cited chunks).
Replies and drafts are `tickets.Message` rows and their cited snapshots `tickets.TicketSource`
rows, so their creation is in the model log. Entries are append-only (the admin cannot change
them; a trigger refuses UPDATEs of `ApiRequest`) and deleted after `AUDIT_RETENTION_DAYS` by
`prune_audit`, a daily schedule.
"""

import ipaddress
import logging
from datetime import timedelta

from auditlog.models import LogEntry
from django.conf import settings
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from portal.models import ApiKey, ApiRequest

logger = logging.getLogger(__name__)

PRUNE_SCHEDULE = "prune-audit"


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
                with transaction.atomic():  # a failed write must not spoil the connection's transaction
                    record(request, key, response.status_code)
            except Exception:  # noqa: BLE001 - a failing audit write must not turn an answer into a 500
                logger.exception("Could not record the API request %s %s", request.method, request.path)
        return response


def record(request: HttpRequest, key: ApiKey, status: int) -> ApiRequest:
    match = request.resolver_match
    kb_id = (match.kwargs.get("kb_id") if match else None) or None
    return ApiRequest.objects.create(
        api_key=key, key_prefix=key.prefix, method=request.method[:10], status=status,
        route=(match.route if match else "")[:200], path=request.path[:500],
        knowledge_base_id=int(kb_id) if str(kb_id or "").isdigit() else None,
        remote_addr=_address(request.META.get("REMOTE_ADDR", "")), detail=getattr(request, "audit_detail", {}),
    )


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
