"""Triage results in plain words for the ticket page: confidence reason codes as sentences, and
trace details with long decimals rounded (0.16674593587952624 → 0.17)."""

import re

REASONS = {
    "no_hits": "nothing was found in the knowledge bases",
    "low_top_score": "the best match is only loosely related",
    "single_source": "only one source supports the answer",
    "keyword_fallback_used": "only keyword matches were found, nothing close in meaning",
    "no_vector_scores": "keyword search only, so closeness in meaning is unknown",
    "below_threshold": "confidence is below the agent's threshold, so no answer was drafted",
    "no_shared_words": "no word of the question is in the sources, so a quoted answer would be a guess",
    "generator_failed": "the language model failed; the answer quotes the sources instead",
    "dropped_markers": "the model cited sources that do not exist; those citations were removed",
    "no_citations": "the answer cites no source",
}
CODE = re.compile(r"\b(" + "|".join(REASONS) + r")\b")
LONG_DECIMAL = re.compile(r"(?<![\w.])(-?\d+\.\d{3,})(?![\w.])")


def reason_text(code: str) -> str:
    """A confidence reason code as words (an unknown code is shown with its underscores as spaces)."""
    return REASONS.get(code, code.replace("_", " "))


def rounded(text: str, digits: int = 2) -> str:
    """`text` with every number of three or more decimals rounded to `digits`."""
    return LONG_DECIMAL.sub(lambda found: f"{float(found.group(1)):.{digits}f}", str(text))


def plain(text: str) -> str:
    """A trace line for people: reason codes as words, long decimals rounded."""
    return CODE.sub(lambda found: reason_text(found.group(1)), rounded(text))
