"""Source snapshots of drafted answers, citation badges, and "source changed since this answer".

A draft's sources are copied into `TicketSource` rows numbered like the `[n]` markers of the
draft, with the full text and its SHA-256. The live chunk may later change (re-index) or vanish
(document deleted); `compare_with_live` says so and shows a line diff, while the snapshot keeps
what the answer was written from.
"""

import difflib
import re
from dataclasses import dataclass, field

from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from knowledge.indexing.ingestion import text_sha256 as content_sha256
from knowledge.models import Chunk, KnowledgeBase
from knowledge.search.citations import MARKER, cited_numbers, marker_numbers
from tickets.models import Message, Ticket, TicketSource

PREVIEW_CHARS = 300

# One grammar and one hash for the whole project (re-exported: the admin and tests read them here).
__all__ = ["MARKER", "cited_numbers", "content_sha256", "marker_numbers"]


def snapshot_sources(ticket: Ticket, message: Message, sources: list, cited: set[int]) -> list[TicketSource]:
    """Store a snapshot of every source (SearchHits numbered 1..n) a draft was written from."""
    rows = []
    for position, hit in enumerate(sources, start=1):
        rows.append(TicketSource(
            ticket=ticket, message=message, position=position, cited=position in cited,
            document_id=hit.document_id, chunk_id=hit.chunk_id, knowledge_base_id=hit.knowledge_base_id,
            knowledge_base_name=(getattr(hit, "metadata", None) or {}).get("knowledge_base_name", "")[:200],
            document_title=(hit.document_title or "")[:500], source_uri=(hit.source_uri or "")[:2000],
            section_path=(hit.section_path or "")[:1000], page=hit.page, layer=hit.layer or "",
            content_preview=_preview(hit.content), content_full=hit.content,
            content_sha256=content_sha256(hit.content), chunk_position=_chunk_position(hit),
            distance=hit.distance, score=hit.score, retrievers=list(hit.retrievers or []),
        ))
    _fill_base_names(rows)
    return TicketSource.objects.bulk_create(rows)


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


def _chunk_position(hit) -> int | None:
    position = (getattr(hit, "metadata", None) or {}).get("position")
    if position is None:
        position = Chunk.objects.filter(pk=hit.chunk_id).values_list("position", flat=True).first()
    return position


def _fill_base_names(rows: list[TicketSource]) -> None:
    names = dict(KnowledgeBase.objects.filter(pk__in={r.knowledge_base_id for r in rows}).values_list("pk", "name"))
    for row in rows:
        row.knowledge_base_name = row.knowledge_base_name or names.get(row.knowledge_base_id, "")


def render_with_badges(text: str, sources: dict[int, TicketSource], *, anchor: str = "source-") -> SafeString:
    """The text HTML-escaped, each `[n]` marker a badge that opens snapshot n (if there is one)."""
    pieces, last = [], 0
    for found in MARKER.finditer(text):
        pieces.append(conditional_escape(text[last:found.start()]))
        numbers = marker_numbers(found.group(1))
        if not any(n in sources for n in numbers):
            pieces.append(conditional_escape(found.group(0)))
        for n in numbers:
            if n in sources:
                pieces.append(format_html(
                    '<a class="citation-badge" href="#{}{}" data-source="{}" title="{}">[{}]</a>',
                    anchor, n, n, sources[n].document_title, n))
        last = found.end()
    pieces.append(conditional_escape(text[last:]))
    return mark_safe("".join(str(piece) for piece in pieces))


@dataclass
class SourceChange:
    status: str  # "unchanged", "changed" or "gone"
    detail: str = ""
    diff: list[tuple[str, str]] = field(default_factory=list)  # (kind, line): kind is " ", "+" or "-"

    @property
    def changed(self) -> bool:
        return self.status != "unchanged"


def _live_chunk(source: TicketSource) -> Chunk | None:
    if source.chunk_id:
        return source.chunk
    if source.document_id and source.chunk_position is not None:
        # Re-indexing replaces chunk rows; the chunk at the same place in the document is its successor.
        return Chunk.objects.filter(document_id=source.document_id, layer=source.layer or "D0",
                                    position=source.chunk_position).first()
    return None


def compare_with_live(source: TicketSource) -> SourceChange:
    """Whether the live chunk still says what the snapshot says; a line diff when it does not."""
    if source.document_id is None:
        return SourceChange("gone", gettext("The document was deleted after this answer."))
    live = _live_chunk(source)
    if live is None:
        return SourceChange("gone", gettext("The document was re-indexed and this passage is no longer in it."))
    if content_sha256(live.content) == source.content_sha256:
        return SourceChange("unchanged")
    return SourceChange("changed", gettext("The source changed since this answer."),
                        line_diff(source.content_full, live.content))


def line_diff(old: str, new: str) -> list[tuple[str, str]]:
    """A line diff of the snapshot against the live text, unchanged lines included for context."""
    lines = []
    for line in difflib.ndiff(old.splitlines(), new.splitlines()):
        if line.startswith("? "):
            continue
        lines.append((line[:1], line[2:]))
    return lines


SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
WORD = re.compile(r"\w{3,}")
# A snapshot sentence is part of the cited passage when this share of its words is in the claim.
PASSAGE_SHARE = 0.6


def claims(text: str) -> dict[int, str]:
    """For each source number, the draft's words that cite it: the text between the previous marker
    (or the start) and the marker."""
    found: dict[int, str] = {}
    last = 0
    for match in MARKER.finditer(text):
        claim = text[last:match.start()].strip()
        for n in marker_numbers(match.group(1)):
            found[n] = f"{found.get(n, '')} {claim}".strip()
        last = match.end()
    return found


def _words(text: str) -> set[str]:
    return {word.lower() for word in WORD.findall(text)}


def cited_passage(claim: str, source_text: str) -> tuple[int, int] | None:
    """(start, end) of the passage of `source_text` the claim was drawn from: its sentences whose words
    are mostly in the claim, from the first to the last; else the one sentence sharing the most words
    (at least two). None when nothing matches."""
    wanted = _words(claim)
    spans, best, best_score, start = [], None, 1, 0
    for piece in SENTENCE_END.split(source_text):
        at = source_text.find(piece, start)
        start = at + len(piece)
        words = _words(piece)
        shared = len(wanted & words)
        if words and shared >= 2 and shared / len(words) >= PASSAGE_SHARE:
            spans.append((at, at + len(piece)))
        if shared > best_score:
            best, best_score = (at, at + len(piece)), shared
    return (spans[0][0], spans[-1][1]) if spans else best
