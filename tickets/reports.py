"""Quality signals of triage: what the knowledge bases could not answer, and how much staff edit drafts.

The gap report takes refused and low-confidence tickets and groups them by the closest topic
the knowledge bases have — the section (or document) of the best source the draft was given —
so content managers see where documentation is missing. Tickets that found nothing at all form
their own group. It shows the customers' questions but never who asked.

Other apps add questions of their own through `GAP_SOURCES` (the evaluation app registers the
thumbs-down answers there in its `AppConfig.ready()`), so this module never imports them.
"""

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from statistics import mean, median

from django.db.models import F, Q
from django.utils.translation import gettext

from tickets.models import Message, Ticket, TicketSource

NOTHING_FOUND = "Nothing related in any knowledge base"
EXAMPLES_PER_GROUP = 5


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance in characters (insertions, deletions, substitutions)."""
    # Drafts and replies usually share long heads and tails; trimming them keeps this fast.
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    a, b = a[start:len(a) - end], b[start:len(b) - end]
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b)))
        previous = current
    return previous[-1]


@dataclass
class GapQuestion:
    """A question from outside the tickets (a thumbs-down answer) and the topic of its closest source."""

    topic: str
    knowledge_base: str
    question: str


# Callables `(since) -> Iterable[GapQuestion]`, registered by the apps that have such questions.
GAP_SOURCES: list[Callable[[datetime | None], Iterable[GapQuestion]]] = []


@dataclass
class GapGroup:
    topic: str
    knowledge_base: str
    tickets: int = 0
    refused: int = 0
    thumbs_down: int = 0
    confidences: list[float] = field(default_factory=list)
    examples: list[tuple[int | None, str]] = field(default_factory=list)  # (ticket id or None, question)

    @property
    def mean_confidence(self) -> float | None:
        return round(mean(self.confidences), 3) if self.confidences else None


def gap_tickets(*, since: datetime | None = None):
    """Tickets whose answer was refused or under their agent's confidence threshold."""
    tickets = Ticket.objects.filter(
        Q(refused=True) | Q(confidence__lt=F("agent__confidence_threshold"))
    ).select_related("agent").order_by("-created_at")
    return tickets.filter(created_at__gte=since) if since else tickets


def gap_report(*, since: datetime | None = None, limit: int = 2000) -> list[GapGroup]:
    """Refused and low-confidence tickets grouped by their closest knowledge-base topic, biggest first."""
    tickets = list(gap_tickets(since=since)[:limit])
    closest = _closest_sources([ticket.pk for ticket in tickets])
    groups: dict[tuple[str, str], GapGroup] = {}
    for ticket in tickets:
        source = closest.get(ticket.pk)
        key = (_topic(source), source.knowledge_base_name if source else "")
        group = groups.setdefault(key, GapGroup(*key))
        group.tickets += 1
        group.refused += ticket.refused
        if ticket.confidence is not None:
            group.confidences.append(ticket.confidence)
        if len(group.examples) < EXAMPLES_PER_GROUP:
            group.examples.append((ticket.pk, ticket.subject))
    for source in GAP_SOURCES:
        for item in source(since):
            group = groups.setdefault((item.topic, item.knowledge_base), GapGroup(item.topic, item.knowledge_base))
            group.thumbs_down += 1
            if len(group.examples) < EXAMPLES_PER_GROUP:
                group.examples.append((None, item.question))
    return sorted(groups.values(), key=lambda g: (-(g.tickets + g.thumbs_down), g.topic))


def _closest_sources(ticket_ids: list[int]) -> dict[int, TicketSource]:
    """The first source of each ticket's latest draft (sources are numbered best first)."""
    rows = (TicketSource.objects.filter(ticket_id__in=ticket_ids, position=1)
            .order_by("ticket_id", "-message__created_at", "-message_id").distinct("ticket_id"))
    return {row.ticket_id: row for row in rows}


def _topic(source: TicketSource | None) -> str:
    if source is None:
        return NOTHING_FOUND
    return topic_of(source.section_path, source.document_title, source.source_uri)


def topic_of(section_path: str, title: str, source_uri: str) -> str:
    """A source's topic as the report names it: the document and its innermost section."""
    section = section_path.split(" > ")[-1] if section_path else ""
    title = title or source_uri or gettext("Untitled document")
    return f"{title} › {section}" if section and section != title else title


@dataclass
class EditStats:
    replies_from_drafts: int
    sent_unchanged: int
    mean_distance: float | None
    median_distance: float | None
    mean_relative: float | None  # distance / length of the longer text


def edit_stats(*, since: datetime | None = None) -> EditStats:
    """How much staff changed drafts before sending them (auto-replies excluded)."""
    replies = Message.objects.filter(kind=Message.Kind.REPLY, auto_sent=False, edit_distance__isnull=False,
                                     draft__isnull=False).select_related("draft")
    if since:
        replies = replies.filter(created_at__gte=since)
    distances, relative = [], []
    for reply in replies:
        distances.append(reply.edit_distance)
        relative.append(reply.edit_distance / max(len(reply.body), len(reply.draft.body), 1))
    return EditStats(
        replies_from_drafts=len(distances),
        sent_unchanged=sum(1 for d in distances if d == 0),
        mean_distance=round(mean(distances), 1) if distances else None,
        median_distance=median(distances) if distances else None,
        mean_relative=round(mean(relative), 3) if relative else None,
    )


def summary_counts(tickets) -> dict[str, dict[str, int]]:
    """Counts by outcome and by risk level, for the import command and the inbox header."""
    by_outcome: dict[str, int] = defaultdict(int)
    by_risk: dict[str, int] = defaultdict(int)
    for status, refused, level in tickets.values_list("status", "refused", "risk_level"):
        outcome = {"auto_replied": "auto-replied", "error": "failed"}.get(status, "sent to review")
        by_outcome[outcome] += 1
        if refused:
            by_outcome["refused"] += 1
        by_risk[level or "unassessed"] += 1
    return {"outcome": dict(by_outcome), "risk": dict(by_risk)}
