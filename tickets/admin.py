"""The support staff's admin: the ticket inbox and a conversation-like ticket page; agents.

The ticket page is not a model form: `change_view` renders the conversation (customer message,
risk, agent, draft with citation badges, source snapshots, trace) and its buttons post to the
small views wired in `get_urls()`, which re-check permissions and call `tickets.inbox`.
"""

import re
from datetime import timedelta

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Case, IntegerField, Prefetch, Value, When
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
from tickets import autoreply, citations, inbox, replies, reports, triage, wording
from tickets.exceptions import TicketError
from tickets.models import Agent, KnowledgeGap, Message, ReplyTemplate, RiskLevel, Ticket, TicketSource

# Triage trace steps and outcomes (codes written by tickets.triage) in the reader's language.
TRACE_STEPS = {
    "question": _("Question"), "risk": _("Risk"), "routing": _("Routing"), "retrieval": _("Retrieval"),
    "confidence": _("Confidence"),
    "generation": _("Drafting"), "decision": _("Decision"), "error": _("Error"),
}
TRACE_OUTCOMES = {
    **dict(RiskLevel.choices), "trimmed": _("greeting and signature left out"),
    "none": _("none"), "skipped": _("skipped"), "refused": _("refused"),
    "drafted": _("drafted"), "review": _("review"), "auto_reply": _("auto-reply"), "failed": _("failed"),
}
SOURCES_OUTCOME = re.compile(r"^(\d+) sources$")
RISK_CSS = {RiskLevel.LOW: "ok", RiskLevel.MEDIUM: "warn", RiskLevel.HIGH: "error"}
STATUS_CSS = {
    Ticket.Status.NEW: "muted", Ticket.Status.TRIAGING: "running", Ticket.Status.REVIEW: "warn",
    Ticket.Status.AUTO_REPLIED: "ok", Ticket.Status.ANSWERED: "ok", Ticket.Status.REJECTED: "muted",
    Ticket.Status.ERROR: "error",
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


@admin.register(Ticket)
class TicketAdmin(admin.ModelAdmin):
    list_display = ["number", "subject", "status_badge", "risk_badge", "agent", "confidence_display",
                    "refused", "waiting"]
    list_display_links = ["number", "subject"]
    list_filter = ["status", "risk_level", AgeFilter, "agent", "refused", "channel", "language"]
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
                .annotate(risk_rank=inbox.RISK_RANK,
                          open_rank=Case(When(status=Ticket.Status.REVIEW, then=Value(0)), default=Value(1),
                                         output_field=IntegerField()))
                # Tickets waiting for review first, high risk first among them, then the newest.
                .order_by("open_rank", "risk_rank", "-created_at", "-pk"))

    @admin.display(description=_("#"), ordering="pk")
    def number(self, ticket):
        return ticket.pk

    @admin.display(description=_("Status"), ordering="status")
    def status_badge(self, ticket):
        return format_html('<span class="tk-badge tk-{}">{}</span>', STATUS_CSS.get(ticket.status, "muted"),
                           ticket.get_status_display())

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
            wrap(self.retriage_view, "<int:ticket_id>/retriage/", "retriage"),
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


def conversation_context(ticket: Ticket) -> dict:
    """Everything the ticket page shows, with text escaped and badges built here."""
    ticket = (Ticket.objects.select_related("agent")
              .prefetch_related(Prefetch("messages", queryset=Message.objects.select_related("author", "draft")),
                                Prefetch("sources", queryset=TicketSource.objects.select_related("chunk")))
              .get(pk=ticket.pk))
    sources_by_message: dict[int, dict[int, TicketSource]] = {}
    for source in ticket.sources.all():
        source.change = citations.compare_with_live(source)
        sources_by_message.setdefault(source.message_id, {})[source.position] = source
    entries = []
    sent = {m.draft_id: m for m in ticket.messages.all() if m.kind == Message.Kind.REPLY and m.draft_id}
    for message in ticket.messages.all():
        # A reply carries the markers of the draft it came from, so its badges open that draft's sources.
        owner = message.draft_id if message.kind == Message.Kind.REPLY and message.draft_id else message.pk
        sources = sources_by_message.get(owner, {})
        if message.kind == Message.Kind.DRAFT:
            mark_passages(message.body, sources)
        entries.append({
            "message": message,
            "html": citations.render_with_badges(message.body, sources, anchor=f"m{owner}-source-"),
            "sources": list(sources.values()) if message.kind == Message.Kind.DRAFT else [],
            "sent_as": sent.get(message.pk),
        })
    draft = next((e["message"] for e in reversed(entries)
                  if e["message"].kind == Message.Kind.DRAFT and e["message"].is_current), None)
    return {"ticket": ticket, "entries": entries, "draft": draft,
            **translated_reasons(ticket),
            "changed_sources": sum(1 for s in ticket.sources.all() if s.change.changed)}


def translated_reasons(ticket: Ticket) -> dict:
    """Risk reasons and trace labels in the reader's language (stored as English msgids and codes)."""
    levels = dict(RiskLevel.choices)
    risk_reasons = [{**reason, "reason": gettext(reason.get("reason", "")),
                     "level_label": levels.get(reason.get("level"), reason.get("level"))}
                    for reason in ticket.risk_reasons]
    # The answer's reason codes as sentences in the customer's language, like the rest of the triage.
    confidence_reasons = autoreply.explain(ticket.confidence_reasons, replies.ticket_language(ticket))
    return {"risk_reasons": risk_reasons, "confidence_reasons": confidence_reasons,
            "routing_reason": ticket.routing_reason,
            "trace": [translated_step({**step, "detail": wording.plain(step.get("detail", ""))})
                      for step in ticket.trace or []]}


def translated_step(step: dict) -> dict:
    """One trace step with its step name and outcome as labels; the detail is the sentence triage wrote."""
    outcome = str(step.get("outcome", ""))
    if match := SOURCES_OUTCOME.match(outcome):
        count = int(match.group(1))
        label = ngettext("%(count)d source", "%(count)d sources", count) % {"count": count}
    elif step.get("step") == "confidence":
        try:
            label = number_format(float(outcome), 2)
        except ValueError:
            label = outcome
    else:
        label = str(TRACE_OUTCOMES.get(outcome, outcome))  # the routing step's outcome is the agent's name
    return {**step, "step": str(TRACE_STEPS.get(step.get("step"), step.get("step", ""))), "outcome": label}


def mark_passages(draft: str, sources: dict[int, TicketSource]) -> None:
    """Split each snapshot into before / the passage the draft used / after, for the page to highlight."""
    claims = citations.claims(draft)
    for number, source in sources.items():
        span = citations.cited_passage(claims.get(number, ""), source.content_full)
        text = source.content_full
        source.before, source.passage, source.after = (
            (text[:span[0]], text[span[0]:span[1]], text[span[1]:]) if span else (text, "", ""))
