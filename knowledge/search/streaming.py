"""A grounded answer as it is written: the model's text piece by piece, then the checked answer.

`stream_answer` yields `("token", str)` events while the chat model writes, then one
`("answer", Answer)` with the citations parsed from the whole text, the confidence and the reasons.
The final answer's text is authoritative: markers that point nowhere are removed there, and when
the model fails mid-way the extractive answer replaces what was streamed (reason
`generator_failed`). A refusal is a single `answer` event, with no tokens.
"""

import logging
from collections.abc import Iterator

from knowledge.search.answers import Answer, Grounding, complete, compose_extractive
from knowledge.search.generation import ExtractiveGenerator, GenerationError, get_generator

logger = logging.getLogger(__name__)


def stream_answer(grounding: Grounding, question: str, *, instructions: str = "") -> Iterator[tuple[str, object]]:
    if grounding.refusal is not None:
        yield "answer", grounding.refusal
        return
    generator, pieces, error = get_generator(), [], ""
    if isinstance(generator, ExtractiveGenerator):
        # No model: the composed answer (an entry's verbatim answer or a cited extract) in one piece.
        composition = compose_extractive(grounding, question)
        yield "token", composition.text
        yield "answer", complete(grounding, composition.text, generator=generator.name,
                                 entry_match=composition.entry_match)
        return
    try:
        for piece in generator.stream(question=question, sources=grounding.sources, instructions=instructions):
            pieces.append(piece)
            yield "token", piece
        text = "".join(pieces).strip()
        if not text:
            raise GenerationError("The language model sent an empty reply")
    except GenerationError as exc:
        logger.warning("Streaming with %s failed, answering extractively: %s", generator.name, exc)
        grounding.reasons.append("generator_failed")
        error, generator = str(exc), ExtractiveGenerator()
        text = generator.generate(question=question, sources=grounding.sources, instructions=instructions)
        if not pieces:
            yield "token", text
    answer: Answer = complete(grounding, text, generator=generator.name, error=error)
    yield "answer", answer
