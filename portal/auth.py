"""API key authentication: bearer tokens, scopes, IP allow-lists and a per-key rate limit.

Every failure is raised as an `ApiError`, which `portal/api.py` renders in the one error shape.
"""

from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja.errors import HttpError
from ninja.security import HttpBearer
from ninja.throttling import BaseThrottle

from portal import access, rate_limit
from portal.models import ApiKey, Scope


class ApiError(HttpError):
    """An HTTP error with a machine-readable code, e.g. `ApiError(403, "missing_scope", "...")`."""

    def __init__(self, status_code: int, code: str, message: str, fields: list[dict] | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(status_code, message)
        self.code, self.fields, self.retry_after = code, fields, retry_after


class ApiKeyAuth(HttpBearer):
    """`Authorization: Bearer <key>`; the key must be active, used from an allowed IP, and hold `scope`."""

    def __init__(self, scope: str) -> None:
        super().__init__()
        self.scope = scope

    def __call__(self, request: HttpRequest):
        if not request.headers.get(self.header):
            raise ApiError(401, "unauthorized", _("Send an API key as 'Authorization: Bearer <key>'"))
        return super().__call__(request)

    def authenticate(self, request: HttpRequest, token: str) -> ApiKey:
        key = authenticate(token, request.META.get("REMOTE_ADDR", ""))
        require_scope(key, self.scope)
        return key


def authenticate(token: str, address: str) -> ApiKey:
    """The active key of a bearer token used from `address`; the one check behind REST and MCP.

    Raises `ApiError` (401 for a bad, revoked or expired key, 403 for a refused address).
    """
    token = token.strip()
    key = access.key_for_token(token)
    if key is None:
        raise ApiError(401, "invalid_key", _("The API key is not valid"))
    if key.revoked_at is not None:
        raise ApiError(401, "key_revoked", _("The API key was revoked"))
    if key.is_expired:
        raise ApiError(401, "key_expired", _("The API key has expired"))
    if not key.allows_ip(address):
        raise ApiError(403, "ip_not_allowed", _("The API key may not be used from this address"))
    if key.touch():
        access.remember_use(token, key)
    return key


def require_scope(key: ApiKey, scope: str) -> None:
    if scope not in key.scopes:
        raise ApiError(403, "missing_scope", _("The API key lacks the '%(scope)s' scope") % {"scope": scope})


def check_rate(request: HttpRequest) -> None:
    """Count one request of `request.auth` against the per-key rate limit; `ApiError(429)` beyond it."""
    throttle = ApiKeyThrottle()
    if not throttle.allow_request(request):
        raise ApiError(429, "rate_limited", _("Too many requests for this API key; retry later"),
                       retry_after=throttle.wait())


READ = ApiKeyAuth(Scope.READ)
WRITE = ApiKeyAuth(Scope.WRITE)
SEARCH = ApiKeyAuth(Scope.SEARCH)
TICKETS = ApiKeyAuth(Scope.TICKETS)


class ApiKeyThrottle(BaseThrottle):
    """At most API["RATE_LIMIT_PER_MINUTE"] requests per key per clock minute (a fixed window).

    Counters (portal/rate_limit.py) live in Redis when the "api" cache is Redis, else in a database
    table, which every web process shares; either counts with one atomic statement, so
    simultaneous requests of one key are never under-counted. A key remembered by this process
    (portal/access.py) was counted while it was authenticated, in the statement that checked it
    is still current; any other is counted here.
    """

    def allow_request(self, request: HttpRequest) -> bool:
        key = getattr(request, "auth", None)
        if not isinstance(key, ApiKey):
            return True
        number = getattr(key, "request_number", None)
        if not getattr(key, "rate_counted", False):
            number, _ = rate_limit.count_request(key.pk)
        return number is None or number <= settings.API["RATE_LIMIT_PER_MINUTE"]

    def wait(self) -> float:
        return rate_limit.retry_after()
