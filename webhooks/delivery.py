"""Sending one delivery: sign, POST through the SSRF guard, record the attempt, retry or give up.

Each attempt is claimed with a conditional UPDATE (pending → sending), so a task that is delivered
twice sends once. A failure waits `BACKOFF_SECONDS`, doubled per attempt, in `next_attempt_at`;
`send_due` queues the deliveries whose time has come, and those whose task was lost, every
`SWEEP_SECONDS` in each worker process (`tasks.start_sweeper`) and every minute by a django-q2
schedule in case no worker runs the thread.
(A one-off django-q2 schedule per retry would wait for its scheduler, which looks every 30 s: the
first retry came after 30 to 60 s instead of 30.) After `MAX_ATTEMPTS` the delivery fails; after
`DISABLE_AFTER` failed attempts in a row the endpoint is disabled and its waiting deliveries end.
Redirects are not followed (a receiver could point them at a private address): a 3xx is a failure.
"""

import json
import logging
import time
from datetime import timedelta
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from crawler.fetching import GuardedTransport
from crawler.guard import AllowList, resolve
from webhooks import signing
from webhooks.events import enqueue, queue
from webhooks.exceptions import WebhookError
from webhooks.models import Delivery, Endpoint

logger = logging.getLogger(__name__)


def conf(name: str):
    return settings.WEBHOOKS[name]


def allow_list() -> AllowList:
    return AllowList(conf("ALLOWED_HOSTS"), setting="PORTAL_WEBHOOK_ALLOWED_HOSTS")


def check_url(url: str) -> None:
    """Raise `WebhookError` unless `url` is http(s) on a host the portal may send to."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebhookError(_("The URL must be an absolute http:// or https:// address"))
    try:
        resolve(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80), allow_list())
    except Exception as exc:  # BlockedAddressError, or the name does not resolve
        raise WebhookError(str(exc)) from None


def deliver(delivery_id: int) -> Delivery | None:
    """Make the next attempt of a delivery; None when another worker has it or it is finished."""
    # A delivery left "sending" by a worker that died is taken over once it is clearly abandoned.
    claimed = Delivery.objects.filter(
        Q(status=Delivery.Status.PENDING) | Q(status=Delivery.Status.SENDING, updated_at__lt=_abandoned_before()),
        pk=delivery_id,
    ).update(status=Delivery.Status.SENDING, updated_at=timezone.now())
    if not claimed:
        return None
    delivery = Delivery.objects.select_related("endpoint").get(pk=delivery_id)
    endpoint = delivery.endpoint
    if not endpoint.is_active:
        return _finish(delivery, Delivery.Status.FAILED, error=_("The endpoint is disabled"))
    status, error, ms = send(endpoint, delivery)
    delivery.attempts += 1
    delivery.response_status, delivery.error = status, error
    delivery.log = [*delivery.log, {"at": timezone.now().isoformat(), "status": status, "error": error, "ms": ms}]
    if not error:
        Endpoint.objects.filter(pk=endpoint.pk).update(consecutive_failures=0)
        delivery.delivered_at = timezone.now()
        return _finish(delivery, Delivery.Status.SUCCEEDED)
    logger.warning("Webhook delivery %s to %s failed (attempt %s): %s", delivery.pk, endpoint.url,
                   delivery.attempts, error)
    if _count_failure(endpoint):
        return _finish(delivery, Delivery.Status.FAILED)
    if delivery.round_attempts >= conf("MAX_ATTEMPTS"):
        return _finish(delivery, Delivery.Status.FAILED)
    delay = conf("BACKOFF_SECONDS") * 2 ** (delivery.round_attempts - 1)
    delivery.next_attempt_at = timezone.now() + timedelta(seconds=delay)
    return _finish(delivery, Delivery.Status.RETRYING)  # send_due queues it when next_attempt_at comes


def send_due(limit: int = 500) -> int:
    """Queue the retries whose time has come, and the deliveries whose task was lost; returns how many.

    A delivery still pending `PENDING_GRACE_SECONDS` after it was queued never reached a worker: the
    broker refused the task after the commit, or the worker died before running it; one "sending"
    long past any attempt's time lost its worker mid-attempt. Either is queued again; should the first
    task turn up after all, `deliver` claims the delivery once and the later copy does nothing. Any
    number of workers may sweep at once: each delivery is queued by one of them (a conditional UPDATE,
    which also restarts its grace period, in the transaction that queues it, so a broker that refuses
    leaves it for the next sweep)."""
    now, queued = timezone.now(), 0
    lost_since = now - timedelta(seconds=conf("PENDING_GRACE_SECONDS"))
    waiting = [(Q(status=Delivery.Status.RETRYING, next_attempt_at__lte=now), "next_attempt_at"),
               (Q(status=Delivery.Status.PENDING, updated_at__lt=lost_since), "updated_at"),
               (Q(status=Delivery.Status.SENDING, updated_at__lt=_abandoned_before()), "updated_at")]
    for which, order in waiting:
        for delivery_id in Delivery.objects.filter(which).order_by(order).values_list("pk", flat=True)[:limit]:
            with transaction.atomic():
                if Delivery.objects.filter(which, pk=delivery_id).update(status=Delivery.Status.PENDING,
                                                                         updated_at=now):
                    enqueue(delivery_id)
                    queued += 1
    return queued


def _abandoned_before():
    """A delivery "sending" since before this was left by a worker that died mid-attempt (an attempt
    takes at most the timeout, thrice over for connecting, sending and reading)."""
    return timezone.now() - timedelta(seconds=conf("TIMEOUT_SECONDS") * 3 + 60)


def send(endpoint: Endpoint, delivery: Delivery) -> tuple[int | None, str, int]:
    """POST the signed payload; (HTTP status or None, error or "", milliseconds)."""
    body = json.dumps(delivery.payload, ensure_ascii=False, separators=(",", ":")).encode()
    headers = {
        "Content-Type": "application/json", "User-Agent": "knowledge-portal-webhooks",
        "X-Portal-Event": delivery.event, "X-Portal-Delivery": str(delivery.event_id),
        signing.HEADER: signing.sign(endpoint.secret, int(time.time()), body),
    }
    started = time.monotonic()
    status, error = None, ""
    try:
        # The answer's body is not read: only its status matters, and a receiver cannot make the
        # worker wait by trickling it.
        with (httpx.Client(transport=GuardedTransport(allow_list()), timeout=conf("TIMEOUT_SECONDS"),
                           follow_redirects=False) as client,
              client.stream("POST", endpoint.url, content=body, headers=headers) as response):
            status = response.status_code
        if 300 <= status < 400:
            error = (_("HTTP %(status)d: redirects are not followed (to %(location)s)")
                     % {"status": status, "location": response.headers.get("location", "?")[:200]})
        elif not 200 <= status < 300:
            error = f"HTTP {status}"
    except httpx.TimeoutException:
        error = _("No answer within %(seconds)s s") % {"seconds": conf("TIMEOUT_SECONDS")}
    except httpx.HTTPError as exc:
        error = f"{type(exc).__name__}: {exc}"[:500]
    except Exception as exc:  # the SSRF guard's refusal, raised where the socket opens
        error = f"{type(exc).__name__}: {exc}"[:500]
    return status, error, round((time.monotonic() - started) * 1000)


def _count_failure(endpoint: Endpoint) -> bool:
    """Count a failed attempt; True when that disabled the endpoint."""
    Endpoint.objects.filter(pk=endpoint.pk).update(consecutive_failures=F("consecutive_failures") + 1)
    limit = conf("DISABLE_AFTER")
    disabled = Endpoint.objects.filter(pk=endpoint.pk, is_active=True, consecutive_failures__gte=limit).update(
        is_active=False, disabled_at=timezone.now(), updated_at=timezone.now(),
        disabled_reason=_("Disabled after %(count)d failed deliveries in a row") % {"count": limit})
    if disabled:
        logger.warning("Webhook endpoint %s (%s) disabled after %s failures", endpoint.pk, endpoint.url, limit)
        Delivery.objects.filter(endpoint=endpoint, status__in=[Delivery.Status.PENDING, Delivery.Status.RETRYING]
                                ).update(status=Delivery.Status.FAILED, error=_("The endpoint was disabled"),
                                         updated_at=timezone.now())
    return bool(disabled)


def _finish(delivery: Delivery, status: str, *, error: str | None = None) -> Delivery:
    delivery.status = status
    if error is not None:
        delivery.error = error
    if status != Delivery.Status.RETRYING:
        delivery.next_attempt_at = None
    delivery.save(update_fields=["status", "attempts", "response_status", "error", "log", "next_attempt_at",
                                 "delivered_at", "updated_at"])
    return delivery


def retry_now(delivery: Delivery) -> None:
    """Send a failed or waiting delivery again (an admin action): now, then with a fresh round of
    retries; its attempts keep counting."""
    updated = Delivery.objects.filter(pk=delivery.pk, status__in=[Delivery.Status.FAILED, Delivery.Status.RETRYING]
                                      ).update(status=Delivery.Status.PENDING, resent_after=F("attempts"),
                                               next_attempt_at=None, updated_at=timezone.now())
    if updated:
        queue(delivery)


def create_endpoint(*, name: str, url: str, events: list[str], owner=None, api_key=None) -> Endpoint:
    check_url(url)
    endpoint = Endpoint(name=name, url=url, events=list(dict.fromkeys(events)), owner=owner, api_key=api_key)
    endpoint.full_clean()
    endpoint.save()
    return endpoint


EDITABLE_FIELDS = ("name", "url", "events", "is_active")


def update_endpoint(endpoint: Endpoint, **changes) -> Endpoint:
    """Change an endpoint's name, URL (checked as on creation), events or active flag; switched on, its
    URL is checked again (the allow list or the address it resolves to may have changed since) and its
    failures in a row count from 0 again, as the admin's "Enable" does."""
    unknown = set(changes) - set(EDITABLE_FIELDS)
    if unknown:
        raise ValueError(f"Not editable here: {', '.join(sorted(unknown))}")
    if "url" in changes or changes.get("is_active"):
        check_url(changes.get("url", endpoint.url))
    if "events" in changes:
        changes["events"] = list(dict.fromkeys(changes["events"]))
    if changes.get("is_active"):
        changes.update(Endpoint.CLEARED_FAILURES)
    for field, value in changes.items():
        setattr(endpoint, field, value)
    endpoint.full_clean()
    endpoint.save(update_fields=[*changes, "updated_at"])
    return endpoint
