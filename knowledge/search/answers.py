"""Grounded answers: retrieval → numbered sources → prompt → generator → parsed citations.

`answer()` refuses (returns the refusal text, calls no generator) when the retrieval does not
support an answer: confidence, as in seed 003, is
`min(1, best relevance + 0.1 if more than one relevant chunk + 0.2)`, where relevance is the
best vector similarity calibrated per embedder (`retrieval.relevance`). The reason codes say why:

- `no_hits`: nothing was found; `low_top_score`: the best hit is not relevant;
  `single_source`: at most one relevant chunk; `keyword_fallback_used`: the vector side found
  nothing close and keyword matches lead; `no_vector_scores`: keyword mode, no similarity known;
  `below_threshold`: confidence under the threshold, so the answer was refused;
- after generation: `generator_failed` (the model timed out, failed or replied nonsense, and the
  extractive answer was given instead), `dropped_markers`, `no_citations`.

Generator errors fall back to the extractive answer with `generator_failed` and the message in
`Answer.error`; `strict=True` raises `GenerationError` instead.
"""

import logging
from dataclasses import dataclass, field

from django.conf import settings

from knowledge.search import generation, retrieval
from knowledge.search.citations import parse_citations, rewrite_markers
from knowledge.search.generation import GenerationError, build_prompt, get_generator
from knowledge.search.retrieval import SearchHit

__all__ = ["Answer", "Citation", "GenerationError", "Grounding", "answer", "assess_confidence", "build_prompt",
           "complete", "ground", "parse_citations"]

logger = logging.getLogger(__name__)


@dataclass
class Citation:
    number: int
    hit: SearchHit


@dataclass
class Answer:
    text: str
    citations: list[Citation]
    sources: list[SearchHit]
    confidence: float
    reasons: list[str]
    refused: bool
    dropped_markers: list[int] = field(default_factory=list)
    generator: str = ""
    error: str = ""
    timings: dict[str, float] = field(default_factory=dict)


def assess_confidence(result: retrieval.Retrieval) -> tuple[float, list[str]]:
    """Seed 003's confidence for a retrieval, with the reason codes that lowered it."""
    if not result.hits:
        return 0.0, ["no_hits"]
    reasons = []
    low = retrieval.setting("KEYWORD_FALLBACK_RELEVANCE")
    best = result.best_relevance
    if best is None:
        reasons.append("no_vector_scores")
        best = 0.0
    elif best < low:
        reasons.append("low_top_score")
    if result.relevant_count <= 1:
        reasons.append("single_source")
    if result.keyword_fallback_used:
        reasons.append("keyword_fallback_used")
    confidence = min(1.0, best + (0.1 if result.relevant_count > 1 else 0.0) + 0.2)
    return round(confidence, 4), reasons


@dataclass
class Grounding:
    """What an answer stands on: the retrieval, its confidence, or the refusal it leads to."""

    sources: list[SearchHit]
    confidence: float
    reasons: list[str]
    timings: dict[str, float]
    refusal: Answer | None = None


def ground(question: str, kb_ids, *, top_k: int = 6, threshold: float | None = None, refusal_text: str | None = None,
           mode: str = "hybrid", layers=None, filters: dict | None = None,
           query_embeddings: dict | None = None) -> Grounding:
    """Retrieve the sources for `question` and decide whether they support an answer at all.

    `query_embeddings` as for `retrieval.retrieve`: the question's vectors, reused and filled in.
    """
    result = retrieval.retrieve(question, kb_ids, top_k=top_k, mode=mode, layers=layers, filters=filters,
                                query_embeddings=query_embeddings)
    sources = result.hits
    confidence, reasons = assess_confidence(result)
    threshold = settings.PORTAL.get("ANSWER_THRESHOLD", 0.5) if threshold is None else threshold
    grounding = Grounding(sources, confidence, reasons, result.timings)
    if not sources or confidence < threshold:
        if sources:
            reasons.append("below_threshold")
        refusal = refusal_text or settings.PORTAL.get("REFUSAL_TEXT", "")
        grounding.refusal = Answer(refusal, [], sources, confidence, reasons, refused=True, timings=result.timings)
    return grounding


def complete(grounding: Grounding, text: str, *, generator: str, error: str = "") -> Answer:
    """The answer from a generated `text`: markers checked against the sources, citations listed."""
    sources, reasons = grounding.sources, list(grounding.reasons)
    used, dropped = parse_citations(text, len(sources))
    text = rewrite_markers(text, len(sources))
    if dropped:
        reasons.append("dropped_markers")
    if not used:
        reasons.append("no_citations")
    citations = [Citation(number, sources[number - 1]) for number in used]
    return Answer(text, citations, sources, grounding.confidence, reasons, refused=False, dropped_markers=dropped,
                  generator=generator, error=error, timings=grounding.timings)


def answer(question: str, kb_ids, *, top_k: int = 6, threshold: float | None = None, refusal_text: str | None = None,
           instructions: str = "", mode: str = "hybrid", layers=None, filters: dict | None = None,
           strict: bool = False, query_embeddings: dict | None = None) -> Answer:
    """A grounded answer to `question` from the given knowledge bases, or a refusal."""
    grounding = ground(question, kb_ids, top_k=top_k, threshold=threshold, refusal_text=refusal_text, mode=mode,
                       layers=layers, filters=filters, query_embeddings=query_embeddings)
    if grounding.refusal is not None:
        return grounding.refusal
    sources = grounding.sources
    generator, error = get_generator(), ""
    try:
        text = generator.generate(question=question, sources=sources, instructions=instructions)
    except GenerationError as exc:
        if strict:
            raise
        logger.warning("Generation with %s failed, answering extractively: %s", generator.name, exc)
        grounding.reasons.append("generator_failed")
        error, generator = str(exc), generation.ExtractiveGenerator()
        text = generator.generate(question=question, sources=sources, instructions=instructions)
    return complete(grounding, text, generator=generator.name, error=error)
