"""Agents, tickets, their messages, and the source snapshots that drafted answers cite."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from knowledge.models import SERVED, Chunk, Document, KnowledgeBase
from knowledge.search.salutations import strip_salutations


class RiskLevel(models.TextChoices):
    LOW = "low", _("Low")
    MEDIUM = "medium", _("Medium")
    HIGH = "high", _("High")

    @classmethod
    def rank(cls, level: str) -> int:
        return [cls.LOW, cls.MEDIUM, cls.HIGH].index(level)


class Agent(models.Model):
    """A support persona: its instructions, the knowledge it answers from, and when it may auto-reply."""

    name = models.CharField(_("name"), max_length=200, unique=True)
    description = models.TextField(_("description"), blank=True)
    instructions = models.TextField(_("instructions"), blank=True, help_text=_("System prompt for drafted answers."))
    knowledge_bases = models.ManyToManyField(KnowledgeBase, verbose_name=_("knowledge bases"), blank=True,
                                             related_name="agents", limit_choices_to=SERVED)
    routing_hints = models.TextField(
        _("routing hints"),
        blank=True,
        help_text=_("Words or phrases (one per line or comma-separated) that send a ticket to this agent."),
    )
    is_default = models.BooleanField(_("is default"), default=False,
                                     help_text=_("Takes tickets no other agent matches."))
    auto_reply = models.BooleanField(
        _("auto-reply allowed"), default=False,
        help_text=_("Send confident answers to low-risk tickets without review."),
    )
    confidence_threshold = models.FloatField(
        _("confidence threshold"),
        default=0.6, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text=_("Below this confidence the answer is the refusal text."),
    )
    auto_reply_confidence = models.FloatField(
        _("auto reply confidence"),
        null=True, blank=True, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text=_("Auto-reply only at or above this confidence (stricter than the threshold, which only "
                    "decides between a draft and a refusal). Empty: the confidence threshold."),
    )
    reply_links = models.BooleanField(
        _("link sources in e-mail replies"), default=False,
        help_text=_("List the web pages an e-mailed reply cites under it, with their addresses, numbered as its "
                    "[n] markers. Only for agents whose knowledge bases hold public pages: customers see the "
                    "addresses. Off: the markers are left out of the e-mail."),
    )
    refusal_text = models.TextField(
        _("refusal text"),
        blank=True,
        help_text=_("Sent instead of a guess when the knowledge bases cannot answer, for tickets in a language "
                    "without its own refusal template below. Empty: the default text in the ticket's language."),
    )
    is_active = models.BooleanField(_("is active"), default=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("agent")
        verbose_name_plural = _("agents")
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["is_default"], condition=Q(is_default=True),
                                    name="tickets_agent_one_default_uniq",
                                    violation_error_message=_("Another agent is the default already: make that one "
                                                              "not the default first.")),
            models.CheckConstraint(condition=Q(confidence_threshold__gte=0) & Q(confidence_threshold__lte=1),
                                   name="tickets_agent_threshold_range"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def auto_reply_threshold(self) -> float:
        if self.auto_reply_confidence is None:
            return self.confidence_threshold
        return max(self.auto_reply_confidence, self.confidence_threshold)

    @property
    def hints(self) -> list[str]:
        raw = self.routing_hints.replace(",", "\n").replace(";", "\n")
        return [hint.strip().lower() for hint in raw.splitlines() if hint.strip()]


class Ticket(models.Model):
    class Status(models.TextChoices):
        NEW = "new", _("New")
        TRIAGING = "triaging", _("Triaging")
        REVIEW = "review", _("Waiting for review")
        AUTO_REPLIED = "auto_replied", _("Auto-replied")
        ANSWERED = "answered", _("Answered by staff")
        UNDELIVERED = "undelivered", _("Reply not delivered")
        REJECTED = "rejected", _("Rejected")
        ERROR = "error", _("Triage failed")

    class Channel(models.TextChoices):
        EMAIL = "email", _("E-mail")
        WEB = "web", _("Web form")
        CHAT = "chat", _("Chat")
        API = "api", _("API")
        IMPORT = "import", _("Import")

    OPEN = (Status.NEW, Status.TRIAGING, Status.REVIEW, Status.UNDELIVERED, Status.ERROR)

    subject = models.CharField(_("subject"), max_length=300, blank=True)
    customer = models.CharField(_("customer"), max_length=300, blank=True,
                                help_text=_("Name or address of the customer."))
    channel = models.CharField(_("channel"), max_length=20, choices=Channel.choices, default=Channel.WEB)
    # The language the customer wrote in (detected when the ticket arrives): refusals and e-mails
    # go out in it, whatever language the staff's admin speaks.
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES, blank=True)
    external_id = models.CharField(_("external id"), max_length=200, blank=True,
                                   help_text=_("Id in the system it came from."))
    # The owner of the API key that submitted it: external ids are unique per owner, so one
    # integration can neither learn nor take another's ids.
    submitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("submitted by"),
                                     on_delete=models.SET_NULL, null=True, blank=True,
                                     related_name="+")
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.NEW)
    risk_level = models.CharField(_("risk level"), max_length=10, choices=RiskLevel.choices, blank=True)
    risk_reasons = models.JSONField(_("risk reasons"), default=list, blank=True)
    agent = models.ForeignKey(Agent, verbose_name=_("agent"), on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="tickets")
    routing_reason = models.TextField(_("routing reason"), blank=True)
    confidence = models.FloatField(_("confidence"), null=True, blank=True)
    confidence_reasons = models.JSONField(_("confidence reasons"), default=list, blank=True)
    refused = models.BooleanField(_("refused"), default=False, help_text=_("The knowledge bases could not answer it."))
    # Every triage step with its outcome, so staff can read why the ticket is where it is.
    trace = models.JSONField(_("trace"), default=list, blank=True)
    triage_count = models.PositiveIntegerField(_("triage count"), default=0)
    metadata = models.JSONField(_("metadata"), default=dict, blank=True)
    triaged_at = models.DateTimeField(_("triaged at"), null=True, blank=True)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("ticket")
        verbose_name_plural = _("tickets")
        ordering = ["-created_at", "-pk"]
        permissions = [("view_gap_report", "Can view the knowledge gap report")]
        constraints = [
            models.UniqueConstraint(fields=["channel", "submitted_by", "external_id"], condition=~Q(external_id=""),
                                    nulls_distinct=False, name="tickets_ticket_channel_owner_external_id_uniq"),
        ]
        indexes = [
            models.Index(fields=["status", "-created_at"], name="tickets_ticket_status_idx"),
            models.Index(fields=["risk_level", "-created_at"], name="tickets_ticket_risk_idx"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.subject}" if self.subject else gettext("Ticket #%(id)s") % {"id": self.pk}

    @property
    def is_open(self) -> bool:
        return self.status in self.OPEN

    def customer_text(self, *, as_written: bool = False) -> str:
        """What the customer asks, oldest message first, as one text (what triage reads): each message
        without its greeting, sign-off and signature (`knowledge/search/salutations.py`), unless `as_written`."""
        bodies = self.messages.filter(kind=Message.Kind.CUSTOMER).order_by("created_at", "pk")
        read = (lambda body: body) if as_written else strip_salutations
        return "\n\n".join(read(body) for body in bodies.values_list("body", flat=True))

    def mark_triaging(self) -> None:
        self.status, self.trace = self.Status.TRIAGING, []
        self.confidence, self.confidence_reasons, self.refused = None, [], False
        self.triage_count += 1
        self.save(update_fields=["status", "trace", "confidence", "confidence_reasons", "refused",
                                 "triage_count", "updated_at"])

    # What a triage run decides: saved together when it ends (`finish_triage`).
    TRIAGE_FIELDS = ["risk_level", "risk_reasons", "agent", "routing_reason", "confidence", "confidence_reasons",
                     "refused", "trace", "triaged_at", "status", "closed_at", "updated_at"]

    def finish_triage(self, status: str) -> None:
        """End a triage run in `status` (review, or auto_replied which closes the ticket)."""
        self.status, self.triaged_at = status, timezone.now()
        if status not in self.OPEN:
            self.closed_at = self.triaged_at
        self.save(update_fields=self.TRIAGE_FIELDS)

    def mark_new(self) -> None:
        """Back to `new`, to be triaged again."""
        self.status = self.Status.NEW
        self.save(update_fields=["status", "updated_at"])

    def mark_error(self, message: str) -> None:
        self.status = self.Status.ERROR
        self.trace = [*self.trace, {"step": "error", "outcome": "failed", "detail": message}]
        self.save(update_fields=["status", "trace", "updated_at"])

    def close(self, status: str) -> None:
        self.status, self.closed_at = status, timezone.now()
        self.save(update_fields=["status", "closed_at", "updated_at"])

    def reply_undelivered(self) -> None:
        """A reply's e-mail failed for good: closed by it, the ticket waits for staff again."""
        self._move([self.Status.AUTO_REPLIED, self.Status.ANSWERED], self.Status.UNDELIVERED, closed_at=None)

    def reply_delivered(self, reply: "Message") -> None:
        """A reply's e-mail went out after all: closed again as the reply closed it, unless another failed."""
        if not self.messages.filter(delivery=Message.Delivery.FAILED).exclude(pk=reply.pk).exists():
            status = self.Status.AUTO_REPLIED if reply.auto_sent else self.Status.ANSWERED
            self._move([self.Status.UNDELIVERED], status, closed_at=timezone.now())

    def _move(self, current, status: str, *, closed_at) -> None:
        """To `status` unless it moved on meanwhile (a follow-up, another reply): a conditional UPDATE."""
        now, moving = timezone.now(), Ticket.objects.filter(pk=self.pk, status__in=current)
        if moving.update(status=status, closed_at=closed_at, updated_at=now):
            self.status, self.closed_at, self.updated_at = status, closed_at, now


class Message(models.Model):
    class Kind(models.TextChoices):
        CUSTOMER = "customer", _("Customer")
        DRAFT = "draft", _("Draft")
        REPLY = "reply", _("Reply")
        NOTE = "note", _("Internal note")

    class Delivery(models.TextChoices):
        NONE = "", _("Not e-mailed")
        PENDING = "pending", _("E-mail waiting to be sent")
        SENT = "sent", _("E-mailed")
        FAILED = "failed", _("E-mail failed")

    ticket = models.ForeignKey(Ticket, verbose_name=_("ticket"), on_delete=models.CASCADE, related_name="messages")
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    body = models.TextField(_("body"))
    author = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("author"), on_delete=models.SET_NULL,
                               null=True, blank=True,
                               related_name="+", help_text=_("Staff member; empty for the customer and the system."))
    # For replies: the draft they were sent from, and how far staff edited it (Levenshtein, characters).
    draft = models.ForeignKey("self", verbose_name=_("draft"), on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="replies")
    edit_distance = models.PositiveIntegerField(_("edit distance"), null=True, blank=True)
    auto_sent = models.BooleanField(_("auto sent"), default=False)
    generator = models.CharField(_("generator"), max_length=100, blank=True,
                                 help_text=_("What wrote a draft (model or extractive)."))
    # A draft that was superseded by a re-triage, sent or rejected stays for the record.
    is_current = models.BooleanField(_("is current"), default=True)
    sent_at = models.DateTimeField(_("sent at"), null=True, blank=True)
    # For replies to e-mailed tickets: what became of the e-mail (written by the mail app's worker),
    # so the ticket never says "sent" about a reply the customer did not get.
    delivery = models.CharField(_("delivery"), max_length=10, choices=Delivery.choices, blank=True)
    delivery_error = models.CharField(_("delivery error"), max_length=500, blank=True,
                                      help_text=_("Why the e-mail could not be sent."))
    # When the e-mail's task was last queued: a reply still pending long after it lost its task
    # (the broker refused it, the worker died), and the mail app's sweep queues it again.
    delivery_queued_at = models.DateTimeField(_("e-mail queued at"), null=True, blank=True, editable=False)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("message")
        verbose_name_plural = _("messages")
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["ticket", "kind"], name="tickets_msg_ticket_kind_idx"),
                   # The mail sweep's look for replies whose task was lost, each minute (mail/outbound.py).
                   models.Index(fields=["delivery_queued_at"], condition=models.Q(delivery="pending"),
                                name="tickets_msg_mail_pending_idx")]

    def __str__(self) -> str:
        return gettext("%(kind)s on ticket #%(id)s") % {"kind": self.get_kind_display(), "id": self.ticket_id}

    def mark_delivery(self, delivery: str, error: str = "") -> None:
        self.delivery, self.delivery_error = delivery, error[:500]
        self.save(update_fields=["delivery", "delivery_error"])  # the ticket's status follows:
        if delivery == self.Delivery.FAILED:
            self.ticket.reply_undelivered()
        elif delivery == self.Delivery.SENT:
            self.ticket.reply_delivered(self)

    def queue_delivery(self) -> None:
        """The reply's e-mail is queued: it waits until the mail app's worker records what became of it."""
        self.delivery, self.delivery_error, self.delivery_queued_at = self.Delivery.PENDING, "", timezone.now()
        self.save(update_fields=["delivery", "delivery_error", "delivery_queued_at"])

    def get_additional_data(self) -> dict | None:
        """Kept with a reply's audit entry (django-auditlog): the snapshots of the sources it cited."""
        if self.kind != self.Kind.REPLY or not self.draft_id:
            return None
        cited = TicketSource.objects.filter(message_id=self.draft_id, cited=True).order_by("position")
        return {"auto_sent": self.auto_sent, "cited_snapshots": [
            {"position": s.position, "document": s.document_id, "chunk": s.chunk_id, "sha256": s.content_sha256}
            for s in cited]}


class TicketSource(models.Model):
    """A snapshot of one source a draft was written from, numbered as the draft's `[n]` marker.

    The links to the live document, chunk and knowledge base are nullable: the snapshot fields
    keep the ticket reproducible after the document is deleted or re-indexed.
    """

    ticket = models.ForeignKey(Ticket, verbose_name=_("ticket"), on_delete=models.CASCADE, related_name="sources")
    message = models.ForeignKey(Message, verbose_name=_("message"), on_delete=models.CASCADE, related_name="sources")
    position = models.PositiveIntegerField(_("position"), help_text=_("The n of the [n] marker."))
    cited = models.BooleanField(_("cited"), default=False,
                                help_text=_("The draft's text carries this source's marker."))
    document = models.ForeignKey(Document, verbose_name=_("document"), on_delete=models.SET_NULL, null=True,
                                 blank=True, related_name="+")
    chunk = models.ForeignKey(Chunk, verbose_name=_("chunk"), on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="+")
    knowledge_base = models.ForeignKey(KnowledgeBase, verbose_name=_("knowledge base"), on_delete=models.SET_NULL,
                                       null=True, blank=True,
                                       related_name="+")
    knowledge_base_name = models.CharField(_("knowledge base name"), max_length=200, blank=True)
    document_title = models.CharField(_("document title"), max_length=500, blank=True)
    source_uri = models.CharField(_("source URI"), max_length=2000, blank=True)
    section_path = models.CharField(_("section path"), max_length=1000, blank=True)
    page = models.PositiveIntegerField(_("page"), null=True, blank=True)
    layer = models.CharField(_("layer"), max_length=8, blank=True)
    content_preview = models.CharField(_("content preview"), max_length=500, blank=True)
    content_full = models.TextField(_("content full"))
    content_sha256 = models.CharField(_("content SHA-256"), max_length=64,
                                      help_text=_("SHA-256 of content_full, to detect changes."))
    chunk_position = models.PositiveIntegerField(_("chunk position"), null=True, blank=True)
    distance = models.FloatField(_("distance"), null=True, blank=True)
    score = models.FloatField(_("score"), null=True, blank=True)
    retrievers = models.JSONField(_("retrievers"), default=list, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("ticket source")
        verbose_name_plural = _("ticket sources")
        ordering = ["message_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["message", "position"], name="tickets_source_message_position_uniq"),
        ]

    def __str__(self) -> str:
        return f"[{self.position}] {self.document_title}"

    @property
    def location(self) -> str:
        """Section and page as staff would quote them."""
        parts = [self.section_path] if self.section_path else []
        if self.page:
            parts.append(gettext("p. %(page)s") % {"page": self.page})
        return ", ".join(parts)


class KnowledgeGap(Ticket):
    """The gap report's entry in the admin index (a proxy: no table, no permissions of its own)."""

    class Meta:
        proxy = True
        default_permissions = ()
        verbose_name = verbose_name_plural = _("knowledge gaps")


class ReplyTemplate(models.Model):
    """An agent's own text for the customer, in one language; without one the portal's default is used.

    `refusal` replaces a draft the knowledge bases cannot support; `email` and `auto_reply` wrap the
    reply sent by e-mail (by staff, or automatically) and must contain `{reply}`. Every kind may use
    `{agent}`, `{customer}` and `{ticket}`.
    """

    class Kind(models.TextChoices):
        REFUSAL = "refusal", _("Refusal")
        EMAIL = "email", _("E-mail reply")
        AUTO_REPLY = "auto_reply", _("Automatic e-mail reply")

    agent = models.ForeignKey(Agent, verbose_name=_("agent"), on_delete=models.CASCADE, related_name="templates")
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES)
    text = models.TextField(_("text"), help_text=_("Placeholders: {reply} (e-mail kinds, required), {agent}, "
                                                   "{customer}, {ticket}."))

    class Meta:
        verbose_name = _("reply template")
        verbose_name_plural = _("reply templates")
        ordering = ["agent", "kind", "language"]
        constraints = [
            models.UniqueConstraint(fields=["agent", "kind", "language"],
                                    name="tickets_replytemplate_agent_kind_language_uniq"),
        ]

    def __str__(self) -> str:
        return f"{self.agent} · {self.get_kind_display()} · {self.get_language_display()}"

    def clean(self) -> None:
        if self.kind != self.Kind.REFUSAL and "{reply}" not in self.text:
            raise ValidationError({"text": _("An e-mail template must contain {reply}, where the answer goes.")})
