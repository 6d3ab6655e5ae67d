"""Health endpoints for load balancers and orchestrators, outside the API (no key needed).

`/healthz` (liveness, `LivenessMiddleware`, ahead of every other middleware) says the process
answers; it touches nothing else, so a database outage never gets a healthy web process
restarted. `/readyz` (readiness) checks what a request needs — the database, the task broker, and
the embedders the knowledge bases use — and answers 503 while any is down, naming which (never
the error text, which may carry addresses or names).
"""

import logging
import time

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

logger = logging.getLogger(__name__)

# Embedding a test query can cost a remote call; readiness probes come every few seconds.
EMBEDDER_CHECK_SECONDS = 30
# Never checked is "at" minus infinity, not 0: the monotonic clock counts from the machine's boot, and a
# server started in its first half minute would have answered "ok" unchecked.
_UNCHECKED = {"at": float("-inf"), "result": "ok"}
_embedders_checked: dict = dict(_UNCHECKED)


def forget_embedder_check() -> None:
    """Check the embedders again on the next readiness probe, as a new process does."""
    _embedders_checked.update(_UNCHECKED)


class LivenessMiddleware:
    """`GET /healthz` answered first, before any middleware that might read the session or the database."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        if request.path == "/healthz":
            response = JsonResponse({"status": "ok"})
            response["Cache-Control"] = "no-store"
            # Stated, as CommonMiddleware would: without it gunicorn sends the body chunked.
            response["Content-Length"] = str(len(response.content))
            return response
        return self.get_response(request)


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    checks = {"database": _check(_database), "broker": _check(_broker)}
    checks["embedder"] = _check(_embedders) if checks["database"] == "ok" else "unknown"
    ready = all(value == "ok" for value in checks.values())
    return JsonResponse({"status": "ok" if ready else "unavailable", "checks": checks}, status=200 if ready else 503)


def _check(probe) -> str:
    try:
        probe()
    except Exception:  # noqa: BLE001 - any failure means "not ready"; the log has the details
        logger.warning("Readiness check %s failed", probe.__name__, exc_info=True)
        return "failed"
    return "ok"


def _database() -> None:
    connection.close_if_unusable_or_obsolete()
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def _broker() -> None:
    if settings.Q_CLUSTER.get("redis"):
        import redis

        redis.Redis.from_url(settings.Q_CLUSTER["redis"], socket_timeout=2).ping()
    else:
        from django_q.models import OrmQ

        OrmQ.objects.exists()


def _embedders() -> None:
    from knowledge.indexing.embedding import get_embedder
    from knowledge.models import KnowledgeBase

    if time.monotonic() - _embedders_checked["at"] < EMBEDDER_CHECK_SECONDS:
        if _embedders_checked["result"] != "ok":
            raise RuntimeError("the last embedder check failed")
        return
    names = set(KnowledgeBase.objects.values_list("embedder", flat=True).distinct()) or {
        settings.PORTAL["DEFAULT_EMBEDDER"]}
    try:
        for name in sorted(names):
            get_embedder(name).embed_query("ready")
    except Exception:
        _embedders_checked.update(at=time.monotonic(), result="failed")
        raise
    _embedders_checked.update(at=time.monotonic(), result="ok")
