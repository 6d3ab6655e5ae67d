"""Outbound webhooks: endpoints integrators register, and one delivery row per event and endpoint."""

import secrets
import uuid

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.utils import timezone


class Event(models.TextChoices):
    TICKET_CREATED = "ticket.created", "A ticket arrived"
    TICKET_TRIAGED = "ticket.triaged", "A ticket was triaged"
    TICKET_NEEDS_REVIEW = "ticket.needs_review", "A ticket waits for review"
    TICKET_REPLIED = "ticket.replied", "A ticket was answered (by staff or automatically)"
    TICKET_REJECTED = "ticket.rejected", "A ticket was rejected"
    JOB_FINISHED = "job.finished", "A background job finished (succeeded, failed or cancelled)"


def new_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


class Endpoint(models.Model):
    name = models.CharField(max_length=200)
    url = models.URLField(max_length=2000, help_text="Public https:// or http:// address; private addresses "
                                                      "are refused unless allowed in PORTAL_WEBHOOK_ALLOWED_HOSTS.")
    events = ArrayField(models.CharField(max_length=40, choices=Event.choices), default=list,
                        help_text="The events sent to this endpoint.")
    # The receiver needs the same secret to check signatures, so it is kept (not hashed) and shown
    # to the endpoint's owner; rotating it is a new secret.
    secret = models.CharField(max_length=100, default=new_secret, editable=False)
    is_active = models.BooleanField(default=True)
    consecutive_failures = models.PositiveIntegerField(default=0, editable=False)
    disabled_at = models.DateTimeField(null=True, blank=True, editable=False)
    disabled_reason = models.CharField(max_length=500, blank=True, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+")
    api_key = models.ForeignKey("portal.ApiKey", null=True, blank=True, on_delete=models.CASCADE,
                                related_name="+", help_text="The API key that registered it, if any.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.url})"

    def rotate_secret(self) -> None:
        self.secret = new_secret()
        self.save(update_fields=["secret", "updated_at"])

    def enable(self) -> None:
        self.is_active, self.consecutive_failures, self.disabled_at, self.disabled_reason = True, 0, None, ""
        self.save(update_fields=["is_active", "consecutive_failures", "disabled_at", "disabled_reason",
                                 "updated_at"])


class Delivery(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        SENDING = "sending", "Sending"
        RETRYING = "retrying", "Waiting to retry"
        SUCCEEDED = "succeeded", "Delivered"
        FAILED = "failed", "Failed (gave up)"

    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=40, choices=Event.choices)
    # Also the X-Portal-Delivery header: receivers drop a delivery id they have seen (replays, retries).
    event_id = models.UUIDField(default=uuid.uuid4, editable=False)
    payload = models.JSONField()
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    response_status = models.PositiveIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)
    # [{"at": iso, "status": 500 | None, "error": "...", "ms": 12}] — one entry per attempt.
    log = models.JSONField(default=list, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "deliveries"
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "event_id"], name="webhooks_delivery_endpoint_event_uniq"),
        ]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="webhooks_delivery_due_idx")]

    def __str__(self) -> str:
        return f"{self.event} → {self.endpoint.name} ({self.get_status_display()})"

    @property
    def is_finished(self) -> bool:
        return self.status in (self.Status.SUCCEEDED, self.Status.FAILED)


def now_iso() -> str:
    return timezone.now().isoformat()
