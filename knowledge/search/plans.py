"""The plans of the intent router (`knowledge.search.intent`): steps of filtered searches, and the
plan they make with what was recognised; `plan_and_search` (`knowledge.search.planned`) runs them."""

from dataclasses import asdict, dataclass, field
from typing import Protocol


@dataclass
class Step:
    layers: list[str]
    query: str
    filters: dict = field(default_factory=dict)
    top_k: int = 6
    mode: str = "hybrid"
    # When nothing matches: filter keys dropped in this order ("a->b" renames key a to b instead; a
    # dict sets its keys, dropping those set to None: {"dst_ref": None, "dst_name": "load"}).
    relax: list = field(default_factory=list)
    # The filter keys that name what was asked: the hits are a precise match while one of them holds.
    # By default the first key of `relax` among the filters (and what it is renamed to).
    precise: list[str] = field(default_factory=list)
    # "source": C0 chunks of the symbols the hits name; "section": the opening chunks of the section the query
    # names first (`planned.release_first`)
    expand: str = ""
    order: str = ""  # "imported": the base's modules, the most imported first (instead of the most similar)
    prefer: dict = field(default_factory=dict)  # hits whose metadata has these values first (ranks kept within)
    why: str = ""


@dataclass
class Plan:
    question: str
    intent: str
    language: str
    steps: list[Step]
    subject: str = ""  # the id or code name the question is about, when one was recognised
    planner: str = "rules"
    trace: list[dict] = field(default_factory=list)  # filled by plan_and_search

    def to_dict(self) -> dict:
        return asdict(self)


def precise_keys(step: Step) -> list[str]:
    """The keys of a step's filters that must hold for its hits to be a precise match."""
    if step.precise:
        return step.precise
    for entry in step.relax:
        if isinstance(entry, str) and entry.partition("->")[0] in step.filters:
            old, _, new = entry.partition("->")
            return [old, new] if new else [old]
    return list(step.filters)


class Planner(Protocol):
    def plan(self, question: str, vocabulary: dict[str, str] | None = None) -> Plan: ...
