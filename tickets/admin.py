"""The support staff's admin: the ticket inbox and a conversation-like ticket page; agents.

The ticket page is not a model form: `change_view` renders the conversation (customer message,
risk, agent, draft with citation badges, source snapshots, trace; built in `admin_conversation`)
and its buttons post to the small views wired in `get_urls()`, which re-check permissions and call
`tickets.inbox`.
"""

from datetime import timedelta

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Case, Exists, IntegerField, OuterRef, Value, When
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.utils.formats import number_format
from django.utils.html import format_html
from django.utils.timesince import timesince
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from portal.admin_records import RecordAdminMixin
from tickets import inbox, reports, triage
from tickets.admin_conversation import conversation_context
from tickets.exceptions import TicketError
from tickets.models import Agent, KnowledgeGap, Message, ReplyTemplate, RiskLevel, Ticket

RISK_CSS = {RiskLevel.LOW: "ok", RiskLevel.MEDIUM: "warn", RiskLevel.HIGH: "error"}
# A reply of the ticket whose e-mail failed (and was not sent since).
UNDELIVERED = Exists(Message.objects.filter(ticket=OuterRef("pk"), kind=Message.Kind.REPLY,
                                            delivery=Message.Delivery.FAILED))
STATUS_CSS = {
    Ticket.Status.NEW: "muted", Ticket.Status.TRIAGING: "running", Ticket.Status.REVIEW: "warn",
    Ticket.Status.AUTO_REPLIED: "ok", Ticket.Status.ANSWERED: "ok", Ticket.Status.UNDELIVERED: "error",
    Ticket.Status.REJECTED: "muted", Ticket.Status.ERROR: "error",
}


class ReplyTemplateInline(admin.StackedInline):
    """The agent's refusal and e-mail texts per language; a missing one falls back to the default."""

    model = ReplyTemplate
    extra = 0
    fields = [("kind", "language"), "text"]


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    list_display = ["name", "is_active", "is_default", "auto_reply", "confidence_threshold", "bases"]
    list_filter = ["is_active", "auto_reply"]
    search_fields = ["name", "description", "routing_hints"]
    filter_horizontal = ["knowledge_bases"]
    inlines = [ReplyTemplateInline]
    fieldsets = [
        (None, {"fields": ["name", "description", "is_active", "is_default"]}),
        (_("Answers"), {"fields": ["instructions", "knowledge_bases", "confidence_threshold", "refusal_text"]}),
        (_("Routing and sending"), {"fields": ["routing_hints", "auto_reply", "auto_reply_confidence",
                                                 "reply_links"]}),
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("knowledge_bases")

    def save_related(self, request, form, formset, change):
        super().save_related(request, form, formset, change)
        if not form.instance.knowledge_bases.exists():
            self.message_user(request, _("%(agent)s has no knowledge base: its tickets get no drafted "
                                        "answer until you add one.") % {"agent": form.instance}, messages.WARNING)

    @admin.display(description=_("Knowledge bases"))
    def bases(self, agent):
        return ", ".join(kb.name for kb in agent.knowledge_bases.all()) or "—"


class AgeFilter(admin.SimpleListFilter):
    title = _("age")
    parameter_name = "age"
    SPANS = {"hour": (_("Under an hour"), timedelta(hours=1), True),
             "day": (_("Under a day"), timedelta(days=1), True),
             "older": (_("Over a day"), timedelta(days=1), False),
             "week": (_("Over a week"), timedelta(weeks=1), False)}

    def lookups(self, request, model_admin):
        return [(key, label) for key, (label, _span, _newer) in self.SPANS.items()]

    def queryset(self, request, queryset):
        if self.value() not in self.SPANS:
            return queryset
        _label, span, newer = self.SPANS[self.value()]
        since = timezone.now() - span
        return queryset.filter(created_at__gte=since) if newer else queryset.filter(created_at__lt=since)


class DeliveryFilter(admin.SimpleListFilter):
    title = _("e-mail")
    parameter_name = "email"

    def lookups(self, request, model_admin):
        return [("failed", _("A reply was not delivered"))]

    def queryset(self, request, queryset):
        return queryset.filter(undelivered=True) if self.value() == "failed" else queryset


@admin.register(Ticket)
class TicketAdmin(admin.ModelAdmin):
    list_display = ["number", "subject", "status_badge", "risk_badge", "agent", "confidence_display",
                    "refused", "waiting"]
    list_display_links = ["number", "subject"]
    list_filter = ["status", "risk_level", AgeFilter, "agent", "refused", "channel", DeliveryFilter, "language"]
    list_select_related = ["agent"]
    search_fields = ["subject", "customer", "external_id"]
    date_hierarchy = "created_at"
    actions = ["retriage_tickets"]
    list_per_page = 50

    class Media:
        css = {"all": ["tickets/tickets.css"]}

    def has_add_permission(self, request):
        return False  # tickets arrive through the API, e-mail or the import command

    def changelist_view(self, request, extra_context=None):
        return super().changelist_view(request, {"title": _("Inbox"), **(extra_context or {})})

    def get_queryset(self, request):
        # The inbox never shows the trace or metadata; the ticket page loads its own copy.
        return (super().get_queryset(request).defer("trace", "metadata", "routing_reason", "risk_reasons")
                .annotate(risk_rank=inbox.RISK_RANK, undelivered=UNDELIVERED,
                          open_rank=Case(When(status__in=inbox.WAITING, then=Value(0)), default=Value(1),
                                         output_field=IntegerField()))
                # Tickets waiting for staff first, high risk first among them, then the newest.
                .order_by("open_rank", "risk_rank", "-created_at", "-pk"))

    @admin.display(description=_("#"), ordering="pk")
    def number(self, ticket):
        return ticket.pk

    @admin.display(description=_("Status"), ordering="status")
    def status_badge(self, ticket):
        badge = format_html('<span class="tk-badge tk-{}">{}</span>', STATUS_CSS.get(ticket.status, "muted"),
                            ticket.get_status_display())
        # Waiting for review (the customer wrote again), but a reply's e-mail failed: the status alone hides it.
        # A closed ticket was dealt with (another reply, answered by phone, rejected): nothing to flag.
        if ticket.undelivered and ticket.is_open and ticket.status != Ticket.Status.UNDELIVERED:
            badge += format_html(' <span class="tk-badge tk-error">{}</span>', _("E-mail failed"))
        return badge

    @admin.display(description=_("Age"), ordering="created_at")
    def waiting(self, ticket):
        return format_html('<span title="{}">{}</span>', ticket.created_at, timesince(ticket.created_at))

    @admin.display(description=_("Risk"), ordering="risk_rank")
    def risk_badge(self, ticket):
        if not ticket.risk_level:
            return "—"
        return format_html('<span class="tk-badge tk-{}">{}</span>', RISK_CSS[ticket.risk_level],
                           ticket.get_risk_level_display())

    @admin.display(description=_("Confidence"), ordering="confidence")
    def confidence_display(self, ticket):
        return "—" if ticket.confidence is None else number_format(ticket.confidence, 2)

    @admin.action(description=_("Re-triage selected open tickets"), permissions=["change"])
    def retriage_tickets(self, request, queryset):
        queued, skipped = triage.retriage_each(queryset.order_by("pk"))
        self.message_user(request, ngettext("%(count)d ticket queued for triage.", "%(count)d tickets queued for "
                                            "triage.", len(queued)) % {"count": len(queued)},
                          messages.SUCCESS if queued else messages.WARNING)
        if skipped:
            self.message_user(request, skipped_message(skipped), messages.WARNING)

    # --- the ticket page -------------------------------------------------------------------------

    def get_urls(self):
        def wrap(view, route, name):
            return path(route, self.admin_site.admin_view(view), name=f"tickets_ticket_{name}")

        return [
            wrap(self.send_view, "<int:ticket_id>/send/", "send"),
            wrap(self.reject_view, "<int:ticket_id>/reject/", "reject"),
            wrap(self.note_view, "<int:ticket_id>/note/", "note"),
            wrap(self.answered_elsewhere_view, "<int:ticket_id>/answered-elsewhere/", "answered_elsewhere"),
            wrap(self.retriage_view, "<int:ticket_id>/retriage/", "retriage"),
            wrap(self.resend_view, "<int:ticket_id>/replies/<int:reply_id>/resend/", "resend"),
            wrap(self.report_view, "report/", "report"),
        ] + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        ticket = self.get_object(request, unquote(object_id))
        if ticket is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        if not self.has_view_or_change_permission(request, ticket):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            **conversation_context(ticket),
            "opts": self.opts,
            "title": str(ticket),
            "can_change": self.has_change_permission(request, ticket),
            "can_view_report": request.user.has_perm("tickets.view_gap_report"),
            "next_ticket": inbox.next_ticket(after=ticket),
            **(extra_context or {}),
        }
        return TemplateResponse(request, "admin/tickets/ticket/conversation.html", context)

    def _ticket_for_change(self, request, ticket_id) -> Ticket:
        ticket = get_object_or_404(Ticket, pk=ticket_id)
        if not self.has_change_permission(request, ticket):
            raise PermissionDenied
        return ticket

    def _back(self, ticket):
        return HttpResponseRedirect(reverse("admin:tickets_ticket_change", args=[ticket.pk]))

    def _next(self, request, ticket, done: str):
        """After a ticket is dealt with: straight on to the next one waiting, or back to the inbox."""
        following = inbox.next_ticket(after=ticket)
        if following is None:
            self.message_user(request, f"{done} " + gettext("No more tickets wait for review."))
            return HttpResponseRedirect(reverse("admin:tickets_ticket_changelist"))
        if following.risk_level:
            upcoming = gettext("Next: ticket #%(id)s, %(risk)s risk.") % {
                "id": following.pk, "risk": following.get_risk_level_display().lower()}
        else:
            upcoming = gettext("Next: ticket #%(id)s.") % {"id": following.pk}
        self.message_user(request, f"{done} {upcoming}")
        return HttpResponseRedirect(reverse("admin:tickets_ticket_change", args=[following.pk]))

    @method_decorator(require_POST)
    def send_view(self, request, ticket_id):
        ticket = self._ticket_for_change(request, ticket_id)
        text = request.POST.get("text") if "text" in request.POST else None
        try:
            reply = inbox.send_reply(ticket, user=request.user, text=text)
        except TicketError as exc:
            self.message_user(request, str(exc), messages.ERROR)
            if text is not None:  # the page again with what they wrote, to correct it
                return self.change_view(request, str(ticket.pk), extra_context={"reply_text": text})
        else:
            if reply.edit_distance:
                message = ngettext("Reply to #%(id)s sent (edited: %(count)d character changed).",
                                   "Reply to #%(id)s sent (edited: %(count)d characters changed).",
                                   reply.edit_distance) % {"id": ticket.pk, "count": reply.edit_distance}
            else:
                message = _("Reply to #%(id)s sent.") % {"id": ticket.pk}
            return self._next(request, ticket, message)
        return self._back(ticket)

    @method_decorator(require_POST)
    def reject_view(self, request, ticket_id):
        ticket = self._ticket_for_change(request, ticket_id)
        try:
            inbox.reject(ticket, user=request.user, reason=request.POST.get("reason", ""))
        except TicketError as exc:
            self.message_user(request, str(exc), messages.ERROR)
        else:
            return self._next(request, ticket, _("Ticket #%(id)s rejected; no reply was sent.") % {"id": ticket.pk})
        return self._back(ticket)

    @method_decorator(require_POST)
    def answered_elsewhere_view(self, request, ticket_id):
        ticket = self._ticket_for_change(request, ticket_id)
        try:
            inbox.close_answered_elsewhere(ticket, user=request.user, how=request.POST.get("how", ""))
        except TicketError as exc:
            self.message_user(request, str(exc), messages.ERROR)
        else:
            done = _("Ticket #%(id)s closed as answered outside e-mail.") % {"id": ticket.pk}
            return self._next(request, ticket, done)
        return self._back(ticket)

    @method_decorator(require_POST)
    def note_view(self, request, ticket_id):
        ticket = self._ticket_for_change(request, ticket_id)
        try:
            inbox.add_note(ticket, user=request.user, text=request.POST.get("text", ""))
        except TicketError as exc:
            self.message_user(request, str(exc), messages.ERROR)
        return self._back(ticket)

    @method_decorator(require_POST)
    def retriage_view(self, request, ticket_id):
        ticket = self._ticket_for_change(request, ticket_id)
        try:
            triage.retriage(ticket)
        except TicketError as exc:
            self.message_user(request, str(exc), messages.ERROR)
        else:
            self.message_user(request, _("Ticket queued for triage."))
        return self._back(ticket)

    @method_decorator(require_POST)
    def resend_view(self, request, ticket_id, reply_id):
        ticket = self._ticket_for_change(request, ticket_id)
        try:
            inbox.resend_email(ticket, reply_id=reply_id)
        except TicketError as exc:
            self.message_user(request, str(exc), messages.ERROR)
        else:
            self.message_user(request, _("The reply to #%(id)s is queued to be e-mailed again.") % {"id": ticket.pk})
        return self._back(ticket)

    def report_view(self, request):
        if not request.user.has_perm("tickets.view_gap_report"):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Knowledge gaps: refused and low-confidence tickets"),
            "groups": reports.gap_report(),
            "nothing_found": reports.NOTHING_FOUND,
            "edits": reports.edit_stats(),
            # Content managers see the questions, not the tickets.
            "can_open_tickets": self.has_view_or_change_permission(request),
            # Those who may add documents answer a question right there, as an FAQ entry.
            "write_entry_url": reverse("admin:knowledge_knowledgebase_write_entry")
            if request.user.has_perm("knowledge.add_document") else "",
        }
        return TemplateResponse(request, "admin/tickets/ticket/report.html", context)


@admin.register(KnowledgeGap)
class KnowledgeGapAdmin(RecordAdminMixin, admin.ModelAdmin):
    """Lists the gap report in the admin index for everyone allowed to read it (content managers too)."""

    def has_module_permission(self, request):
        return request.user.has_perm("tickets.view_gap_report")

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm("tickets.view_gap_report")


    def changelist_view(self, request, extra_context=None):
        return HttpResponseRedirect(reverse("admin:tickets_ticket_report"))


SKIPPED_SHOWN = 10  # reasons the message lists; the rest are counted


def skipped_message(skipped: list[tuple[Ticket, str]]) -> str:
    """Which tickets a bulk action left alone and why, in one message."""
    reasons = " ".join(reason for _ticket, reason in skipped[:SKIPPED_SHOWN])
    if len(skipped) > SKIPPED_SHOWN:
        more = len(skipped) - SKIPPED_SHOWN
        reasons += " " + ngettext("And %(count)d more.", "And %(count)d more.", more) % {"count": more}
    return ngettext("%(count)d ticket skipped: %(reasons)s", "%(count)d tickets skipped: %(reasons)s",
                    len(skipped)) % {"count": len(skipped), "reasons": reasons}
