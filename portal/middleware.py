"""Keep the API's one error shape for the responses django-ninja builds outside our handlers, and
answer 503 (not 500) while the database is unreachable."""

import json
import logging
import sys

from django.db import DatabaseError, InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse
from django.views import defaults

logger = logging.getLogger(__name__)


class ApiMethodNotAllowedMiddleware:
    """A 405 under /api/ (ninja's plain "Method not allowed") becomes the API's JSON error."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code != 405 or not request.path.startswith("/api/"):
            return response
        if response.get("Content-Type", "").startswith("application/json"):
            return response
        allowed = response.get("Allow", "")
        body = {"error": {"code": "method_not_allowed",
                          "message": f"{request.method} is not allowed here; allowed: {allowed or 'none'}"}}
        replacement = HttpResponse(json.dumps(body), status=405, content_type="application/json; charset=utf-8")
        if allowed:
            replacement["Allow"] = allowed
        return replacement


def database_unavailable(request: HttpRequest, exc: Exception) -> HttpResponse:
    """503 with Retry-After for a request that failed because the database is unreachable."""
    logger.error("Database unavailable during %s %s: %s", request.method, request.path, exc)
    # Drop broken connections now, so the next request connects afresh instead of failing on them.
    for connection in connections.all(initialized_only=True):
        try:
            connection.close()
        except DatabaseError:
            pass  # it is broken either way; Django connects again on the next query
    message = "The database is unavailable; retry in a few seconds"
    if request.path.startswith("/api/"):
        body = json.dumps({"error": {"code": "database_unavailable", "message": message}})
        response = HttpResponse(body, status=503, content_type="application/json; charset=utf-8")
    else:
        response = HttpResponse(message, status=503, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = "5"
    return response


def is_outage(exc: BaseException) -> bool:
    """Whether `exc` means "cannot reach the database" rather than a bad query."""
    if isinstance(exc, InterfaceError):
        return True
    if not isinstance(exc, OperationalError):
        return False
    # Connection failures have no SQLSTATE (or class 08); cancelled statements, deadlocks and
    # the like are OperationalErrors too, but the database is up.
    state = getattr(exc.__cause__, "sqlstate", None)
    return state is None or state.startswith(("08", "57P"))


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's 500 handler: a database outage anywhere (a view, a middleware reading the session)
    is a 503 that says so; anything else keeps Django's plain 500."""
    exc = sys.exc_info()[1]
    if isinstance(exc, DatabaseError) and is_outage(exc):
        return database_unavailable(request, exc)
    return defaults.server_error(request)
