"""A grounded answer as it is written: the model's text sentence by sentence, then the checked answer.

`stream_answer` yields `("token", str)` events while the chat model writes, then one
`("answer", Answer)` with the citations parsed from the whole text, the confidence and the reasons.
The final answer's text is authoritative: markers that point nowhere are removed there, and when
the model fails mid-way the extractive answer replaces what was streamed (reason
`generator_failed`). A refusal is a single `answer` event, with no tokens.

Nothing leaves before the outgoing-text check (`knowledge.outgoing`) has read it. The model's text
is passed on one finished sentence at a time (the unit the checks read), each checked with all
the text before it; from the first flagged sentence on, nothing more is streamed and the final
answer is withheld. When a source itself holds instruction-like text, or the answer is composed
without a model, the text is checked whole first and streamed only if it passes.
"""

import logging
import re
from collections.abc import Iterator

from django.utils.translation import gettext as _

from knowledge import outgoing
from knowledge.search import project_sites
from knowledge.search.answers import Answer, Grounding, complete, compose_extractive
from knowledge.search.generation import ExtractiveGenerator, GenerationError, get_generator

logger = logging.getLogger(__name__)

# The end of a sentence: its punctuation (and any closing quote, bracket or citation marker) and
# the space after it, or a line break.
SENTENCE_END = re.compile(r"[.!?…]+[\"»”')\]]*(?:\s*\[\d+\])*\s+|\n")


def stream_answer(grounding: Grounding, question: str, *, instructions: str = "") -> Iterator[tuple[str, object]]:
    if grounding.refusal is not None:
        yield "answer", grounding.refusal
        return
    generator = get_generator()
    if isinstance(generator, ExtractiveGenerator):
        # No model: the composed answer (an entry's verbatim answer or a cited extract), checked whole.
        composition = compose_extractive(grounding)
        answer = complete(grounding, composition.text, generator=generator.name, entry_match=composition.entry_match)
        yield from _checked_whole(answer)
        return
    sources_flagged = any(outgoing.injection_flags(source.content) for source in grounding.sources)
    released, pending, error, held = "", "", "", sources_flagged
    own = project_sites.project_urls(grounding.sources)
    try:
        for piece in generator.stream(question=question, sources=grounding.sources, instructions=instructions):
            pending += piece
            if held:
                continue
            sentences, pending = _finished_sentences(pending)
            if sentences and _clean(question, released + sentences, grounding, own):
                released += sentences
                yield "token", sentences
            elif sentences:
                held, pending = True, sentences + pending  # it and all after it wait for the final answer
        text = (released + pending).strip()
        if not text:
            raise GenerationError(_("The language model sent an empty reply"))
        if not held and pending.strip() and _clean(question, text, grounding, own):
            yield "token", pending
    except GenerationError as exc:
        logger.warning("Streaming with %s failed, answering extractively: %s", generator.name, exc)
        grounding.reasons.append("generator_failed")
        error, generator = str(exc), ExtractiveGenerator()
        text = compose_extractive(grounding).text
        answer = complete(grounding, text, generator=generator.name, error=error)
        yield from (_checked_whole(answer) if not released else [("answer", answer)])
        return
    yield "answer", complete(grounding, text, generator=generator.name, error=error)


def _finished_sentences(text: str) -> tuple[str, str]:
    """`text` cut after its last finished sentence: (the finished sentences, the rest)."""
    ends = list(SENTENCE_END.finditer(text))
    if not ends:
        return "", text
    cut = ends[-1].end()
    return text[:cut], text[cut:]


def _clean(question: str, text: str, grounding: Grounding, project_urls: list[str]) -> bool:
    """Whether the text written so far passes the outgoing checks on a draft (the sources are checked apart)."""
    return not outgoing.check_answer(question=question, text=text, sources=grounding.sources, read=set(),
                                     project_urls=project_urls)


def _checked_whole(answer: Answer) -> Iterator[tuple[str, object]]:
    """A finished answer: its text as one token when it passes the checks, then the answer itself."""
    if not answer.flags:
        yield "token", answer.text
    yield "answer", answer
