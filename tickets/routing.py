"""Choosing the agent for a ticket: routing hints first, then knowledge-base relevance, then the default.

Each active agent gets a score: `HINT_WEIGHT` per word of the routing hints found in the ticket
(at most `MAX_HINTS` words count) plus the relevance of the closest chunk of the agent's knowledge bases (cosine
similarity calibrated per embedder by `retrieval.relevance`, 0..1). One vector search over all
agents' bases gives every agent's relevance at once.
The best score wins when it reaches `MIN_SCORE`; otherwise the default agent takes the ticket, and
without one the ticket waits in the inbox unassigned.
"""

import re
from dataclasses import dataclass, field

from knowledge.search import retrieval
from tickets.models import Agent

HINT_WEIGHT = 0.4
MAX_HINTS = 3
MIN_SCORE = 0.35
# Enough candidates that every base of every agent is likely represented among them.
CANDIDATES_PER_BASE = 4


@dataclass
class AgentScore:
    agent: Agent
    hints: list[str] = field(default_factory=list)
    similarity: float = 0.0
    closest: str = ""

    @property
    def hint_words(self) -> int:
        # A two-word hint ("shipping address") is more specific than a one-word one ("shipping").
        return min(sum(len(hint.split()) for hint in self.hints), MAX_HINTS)

    @property
    def total(self) -> float:
        return HINT_WEIGHT * self.hint_words + self.similarity

    def as_dict(self) -> dict:
        return {"agent": self.agent.name, "agent_id": self.agent.pk, "hints": self.hints,
                "similarity": round(self.similarity, 4), "closest": self.closest, "score": round(self.total, 4)}


@dataclass
class RoutingDecision:
    agent: Agent | None
    reason: str
    scores: list[AgentScore] = field(default_factory=list)


def _hint_pattern(hint: str) -> re.Pattern:
    # A hint matches at a word start; its last word may carry an ending ("refund" → "refunds",
    # "карт" → "карты"), which suits both English and Russian.
    return re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, hint.split())), re.IGNORECASE)


def match_hints(agent: Agent, text: str) -> list[str]:
    """The agent's routing hints that occur in `text`, leaving out those inside a longer match.

    "ship" inside "shipping", or "address" inside "shipping address", is one finding, not two.
    """
    spans = []
    for hint in agent.hints:
        found = _hint_pattern(hint).search(text)
        if found:
            spans.append((found.start(), found.end(), hint))
    return [hint for start, end, hint in spans
            if not any(s <= start and end <= e and (e - s) > (end - start) for s, e, _ in spans)]


def _relevance(text: str, agents: list[Agent], query_embeddings: dict | None) -> dict[int, tuple[float, str]]:
    """Best similarity (and the chunk's title) per knowledge base, for the bases of `agents`."""
    embedders = {kb.pk: kb for agent in agents for kb in agent.knowledge_bases.all()}
    if not embedders or not text.strip():
        return {}
    hits = retrieval.search(text, sorted(embedders), top_k=CANDIDATES_PER_BASE * len(embedders), mode="vector",
                            query_embeddings=query_embeddings)
    best: dict[int, tuple[float, str]] = {}
    for hit in hits:
        if hit.distance is None:
            continue
        # Calibrated per embedder (raw cosine means different things for e5 and USE).
        similarity = retrieval.relevance(1.0 - hit.distance, embedders[hit.knowledge_base_id])
        if similarity > best.get(hit.knowledge_base_id, (-1.0, ""))[0]:
            best[hit.knowledge_base_id] = (similarity, hit.document_title)
    return best


def score_agents(text: str, agents: list[Agent], *, query_embeddings: dict | None = None) -> list[AgentScore]:
    """Every agent's hint matches and knowledge-base similarity, best first."""
    relevance = _relevance(text, agents, query_embeddings)
    scores = []
    for agent in agents:
        score = AgentScore(agent, hints=match_hints(agent, text))
        for kb in agent.knowledge_bases.all():
            similarity, title = relevance.get(kb.pk, (0.0, ""))
            if similarity > score.similarity:
                score.similarity, score.closest = similarity, f"{kb.name}: {title}"
        scores.append(score)
    return sorted(scores, key=lambda s: (-s.total, s.agent.name))


def route(text: str, agents: list[Agent] | None = None, *, query_embeddings: dict | None = None) -> RoutingDecision:
    """Pick the agent for a ticket's text, with the reason staff will read.

    `query_embeddings` as for `retrieval.retrieve`: the text's vectors, reused and filled in.
    """
    if agents is None:
        agents = list(Agent.objects.filter(is_active=True).prefetch_related("knowledge_bases"))
    if not agents:
        return RoutingDecision(None, "No active agent is configured.")
    scores = score_agents(text, agents, query_embeddings=query_embeddings)
    best = scores[0]
    if best.total >= MIN_SCORE:
        parts = []
        if best.hints:
            parts.append(f"routing hints {', '.join(repr(h) for h in best.hints)}")
        if best.similarity > 0:
            parts.append(f"closest knowledge {best.closest!r} (similarity {best.similarity:.2f})")
        return RoutingDecision(best.agent, f"Matched {' and '.join(parts)}; score {best.total:.2f}.", scores)
    default = next((agent for agent in agents if agent.is_default), None)
    if default is not None:
        return RoutingDecision(default, f"No agent scored {MIN_SCORE} or more (best: {best.agent.name}, "
                                        f"{best.total:.2f}); the default agent takes it.", scores)
    return RoutingDecision(None, f"No agent scored {MIN_SCORE} or more (best: {best.agent.name}, {best.total:.2f}) "
                                 f"and there is no default agent; the ticket waits unassigned.", scores)
