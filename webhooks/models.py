"""Outbound webhooks: endpoints integrators register, and one delivery row per event and endpoint."""

import secrets
import uuid

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Event(models.TextChoices):
    TICKET_CREATED = "ticket.created", _("A ticket arrived")
    TICKET_TRIAGED = "ticket.triaged", _("A ticket was triaged")
    TICKET_NEEDS_REVIEW = "ticket.needs_review", _("A ticket waits for review")
    TICKET_REPLIED = "ticket.replied", _("A ticket was answered (by staff or automatically)")
    TICKET_REJECTED = "ticket.rejected", _("A ticket was rejected")
    TICKET_REPLY_UNDELIVERED = "ticket.reply_undelivered", _("A reply's e-mail failed for good")
    TICKET_ANSWERED_ELSEWHERE = "ticket.answered_elsewhere", _("A ticket whose reply was not delivered was "
                                                               "closed as answered another way")
    JOB_FINISHED = "job.finished", _("A background job finished (succeeded, failed or cancelled)")


def new_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


class Endpoint(models.Model):
    name = models.CharField(_("name"), max_length=200)
    url = models.URLField(_("URL"), max_length=2000,
                          help_text=_("Public https:// or http:// address; private addresses "
                                      "are refused unless allowed in PORTAL_WEBHOOK_ALLOWED_HOSTS."))
    events = ArrayField(models.CharField(max_length=40, choices=Event.choices), default=list,
                        verbose_name=_("events"),
                        help_text=_("The events sent to this endpoint."))
    # The receiver needs the same secret to check signatures, so it is kept (not hashed) and shown
    # to the endpoint's owner; rotating it is a new secret.
    secret = models.CharField(_("secret"), max_length=100, default=new_secret, editable=False)
    is_active = models.BooleanField(_("is active"), default=True)
    consecutive_failures = models.PositiveIntegerField(_("consecutive failures"), default=0, editable=False)
    disabled_at = models.DateTimeField(_("disabled at"), null=True, blank=True, editable=False)
    disabled_reason = models.CharField(_("disabled reason"), max_length=500, blank=True, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("owner"), null=True, blank=True,
                              on_delete=models.SET_NULL,
                              related_name="+")
    api_key = models.ForeignKey("portal.ApiKey", verbose_name=_("API key"), null=True, blank=True,
                                on_delete=models.CASCADE,
                                related_name="+", help_text=_("The API key that registered it, if any."))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("webhook endpoint")
        verbose_name_plural = _("webhook endpoints")
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.url})"

    # What switching an endpoint on again resets: its failures in a row count from 0, no reason to be off.
    CLEARED_FAILURES = {"consecutive_failures": 0, "disabled_at": None, "disabled_reason": ""}

    def rotate_secret(self) -> None:
        self.secret = new_secret()
        self.save(update_fields=["secret", "updated_at"])


class Delivery(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        SENDING = "sending", _("Sending")
        RETRYING = "retrying", _("Waiting to retry")
        SUCCEEDED = "succeeded", _("Delivered")
        FAILED = "failed", _("Failed (gave up)")

    endpoint = models.ForeignKey(Endpoint, verbose_name=_("endpoint"), on_delete=models.CASCADE,
                                 related_name="deliveries")
    event = models.CharField(_("event"), max_length=40, choices=Event.choices)
    # Also the X-Portal-Delivery header: receivers drop a delivery id they have seen (replays, retries).
    event_id = models.UUIDField(_("event id"), default=uuid.uuid4, editable=False)
    payload = models.JSONField(_("payload"))
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    # "Send again" starts a fresh round of retries without forgetting the attempts before it: the
    # back-off and the give-up count from here.
    resent_after = models.PositiveIntegerField(_("attempts before the last resend"), default=0, editable=False)
    response_status = models.PositiveIntegerField(_("response status"), null=True, blank=True)
    error = models.TextField(_("error"), blank=True)
    # [{"at": iso, "status": 500 | None, "error": "...", "ms": 12}] — one entry per attempt.
    log = models.JSONField(_("log"), default=list, blank=True)
    next_attempt_at = models.DateTimeField(_("next attempt at"), null=True, blank=True)
    delivered_at = models.DateTimeField(_("delivered at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("delivery")
        verbose_name_plural = _("deliveries")
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

    @property
    def round_attempts(self) -> int:
        """Attempts since the delivery was first queued or last sent again."""
        return self.attempts - self.resent_after


def now_iso() -> str:
    return timezone.now().isoformat()
