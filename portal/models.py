"""API keys: scoped, optionally limited to knowledge bases and networks, stored only as a hash."""

import hashlib
import ipaddress
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.functional import cached_property
from django.utils.translation import gettext_lazy as _

TOKEN_PREFIX = "kp"
# last_used_at is written at most this often, so a busy key does not cost a write per request.
LAST_USED_PRECISION = timedelta(minutes=1)


def hash_token(token: str) -> str:
    # The secret is 256 random bits, so a plain SHA-256 is enough; a slow password hash would only
    # add latency to every request.
    return hashlib.sha256(token.encode()).hexdigest()


def validate_networks(values: list[str]) -> None:
    for value in values:
        try:
            ipaddress.ip_network(value, strict=False)
        except ValueError:
            raise ValidationError(_("%(value)r is not an IP address or a CIDR network") % {"value": value},
                                  code="invalid") from None


class Scope(models.TextChoices):
    READ = "read", _("Read knowledge bases, documents and jobs")
    WRITE = "write", _("Create, change and delete knowledge bases, documents and crawls")
    SEARCH = "search", _("Search and ask for answers")
    TICKETS = "tickets", _("Create and read tickets")


class ApiKey(models.Model):
    name = models.CharField(_("name"), max_length=200)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("owner"), on_delete=models.CASCADE,
                              related_name="api_keys")
    # The public part of the token, to find the row; the whole token is only ever stored hashed.
    prefix = models.CharField(_("prefix"), max_length=16, unique=True, editable=False)
    hashed_secret = models.CharField(_("hashed secret"), max_length=64, editable=False)
    scopes = ArrayField(models.CharField(max_length=20, choices=Scope.choices), default=list,
                        verbose_name=_("scopes"))
    knowledge_bases = models.ManyToManyField(
        "knowledge.KnowledgeBase", verbose_name=_("knowledge bases"), blank=True, related_name="+",
        limit_choices_to={"shadow_of__isnull": True},  # knowledge.models.SERVED (portal does not import knowledge)
        help_text=_("Leave empty to reach every knowledge base; otherwise the key sees only these."),
    )
    allowed_ips = ArrayField(
        models.CharField(max_length=64), verbose_name=_("allowed IP addresses"), default=list, blank=True,
        validators=[validate_networks],
        help_text=_("IP addresses or CIDR networks the key may be used from; empty means anywhere."),
    )
    expires_at = models.DateTimeField(_("expires at"), null=True, blank=True)
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True, editable=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("API key")
        verbose_name_plural = _("API keys")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({TOKEN_PREFIX}_{self.prefix}_…)"

    def issue_token(self) -> str:
        """Give the (unsaved) key a new secret and return the full token, which is never stored."""
        self.prefix = secrets.token_hex(4)
        token = f"{TOKEN_PREFIX}_{self.prefix}_{secrets.token_urlsafe(32).replace('_', '-')}"
        self.hashed_secret = hash_token(token)
        return token

    @property
    def is_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and not self.is_expired

    def allows_ip(self, address: str) -> bool:
        if not self.allowed_ips:
            return True
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in ipaddress.ip_network(network, strict=False) for network in self.allowed_ips)

    @cached_property
    def knowledge_base_ids(self) -> set[int] | None:
        """The knowledge bases this key is limited to, or None when it reaches all of them."""
        return set(self.knowledge_bases.values_list("pk", flat=True)) or None

    def may_use(self, knowledge_base_id: int | None) -> bool:
        allowed = self.knowledge_base_ids
        return allowed is None or knowledge_base_id in allowed

    def revoke(self) -> None:
        if self.revoked_at is None:
            self.revoked_at = timezone.now()
            self.save(update_fields=["revoked_at"])

    def touch(self) -> bool:
        """Record use, at most once per LAST_USED_PRECISION; whether it was recorded now."""
        now = timezone.now()
        if self.last_used_at is not None and now - self.last_used_at < LAST_USED_PRECISION:
            return False
        self.last_used_at = now
        ApiKey.objects.filter(pk=self.pk).update(last_used_at=now)
        return True


class RateCounter(models.Model):
    """Requests of one API key in one clock minute, counted atomically (portal/rate_limit.py)."""

    api_key_id = models.BigIntegerField(_("API key id"), )  # no foreign key: counting must not lock the key's row
    window = models.BigIntegerField(_("window"), help_text=_("Minutes since the epoch."))
    count = models.PositiveIntegerField(_("count"), default=0)

    class Meta:
        verbose_name = _("rate counter")
        verbose_name_plural = _("rate counters")
        constraints = [
            models.UniqueConstraint(fields=["api_key_id", "window"], name="portal_ratecounter_key_window_uniq"),
        ]

    def __str__(self) -> str:
        return f"key {self.api_key_id} @ {self.window}: {self.count}"


class AccessVersion(models.Model):
    """One row: a number that changes with everything an API request's access depends on (portal/access.py).

    Set by database triggers (migration 0009 and knowledge's 0016), from a sequence, in the same
    transaction as any change to an API key other than its last use, to a key's base limits, or to a
    knowledge base; never written by Python.
    """

    value = models.BigIntegerField(_("value"))

    class Meta:
        verbose_name = _("access version")
        verbose_name_plural = _("access version")

    def __str__(self) -> str:
        return str(self.value)


class ApiRequest(models.Model):
    """One request made with an API key: who, which route, the answer, which base. Append-only."""

    api_key = models.ForeignKey(ApiKey, verbose_name=_("API key"), on_delete=models.SET_NULL, null=True,
                                related_name="+")
    key_prefix = models.CharField(_("key prefix"), max_length=16, help_text=_("Kept when the key itself is deleted."))
    method = models.CharField(_("method"), max_length=10)
    route = models.CharField(_("route"), max_length=200,
                             help_text=_("The operation's URL pattern, e.g. api/v1/knowledge-bases/<kb_id>."))
    path = models.CharField(_("path"), max_length=500)
    status = models.PositiveSmallIntegerField(_("status"))
    knowledge_base_id = models.BigIntegerField(_("knowledge base id"), null=True, blank=True)
    remote_addr = models.GenericIPAddressField(_("remote address"), null=True, blank=True)
    # What the request sent out, when that matters later (an answer's cited chunks and documents).
    detail = models.JSONField(_("detail"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("API request")
        verbose_name_plural = _("API requests")
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["api_key", "-created_at"], name="portal_apirequest_key_idx")]

    def __str__(self) -> str:
        return f"{self.method} {self.path} → {self.status}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("Audit entries are append-only")
        super().save(*args, **kwargs)
