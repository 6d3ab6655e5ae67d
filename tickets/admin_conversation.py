"""The ticket page of the admin: the conversation, its badges and snapshots, and the trace in words.

`conversation_context` builds everything `admin/tickets/ticket/conversation.html` shows (text
escaped, badges built here); `TicketAdmin.change_view` renders it.
"""

import re

from django.db.models import Prefetch
from django.utils.formats import number_format
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from portal.stored_text import translated
from tickets import autoreply, citations, replies, wording
from tickets.models import Message, RiskLevel, Ticket, TicketSource

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
            # A worker wrote it in the portal's language (or it is the mail server's own words).
            "delivery_error": translated(message.delivery_error),
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
