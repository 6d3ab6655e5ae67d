"""Triage results in plain words for the ticket page: confidence reason codes as phrases of the
reader's language, and trace details with long decimals rounded (0.16674593587952624 → 0.17)."""

import re

from django.utils.translation import gettext, gettext_noop

# Each code as a phrase that reads inside a trace sentence ("reasons: …"); msgids of the catalogue.
REASONS = {
    "no_hits": gettext_noop("nothing was found in the knowledge bases"),
    "low_top_score": gettext_noop("the best match is only loosely related"),
    "single_source": gettext_noop("only one source supports the answer"),
    "keyword_fallback_used": gettext_noop("only keyword matches were found, nothing close in meaning"),
    "no_vector_scores": gettext_noop("keyword search only, so closeness in meaning is unknown"),
    "below_threshold": gettext_noop("confidence is below the agent's threshold, so no answer was drafted"),
    "no_shared_words": gettext_noop("no word of the question is in the sources, so a quoted answer would be a guess"),
    "generator_failed": gettext_noop("the language model failed; the answer quotes the sources instead"),
    "dropped_markers": gettext_noop("the model cited sources that do not exist; those citations were removed"),
    "no_citations": gettext_noop("the answer cites no source"),
    "outgoing_flagged": gettext_noop("the answer or its sources hold text that must be read before it goes out"),
}
CODE = re.compile(r"\b(" + "|".join(REASONS) + r")\b")
LONG_DECIMAL = re.compile(r"(?<![\w.])(-?\d+\.\d{3,})(?![\w.])")


def reason_text(code: str) -> str:
    """A confidence reason code as words of the active language (an unknown code is shown with its
    underscores as spaces)."""
    return gettext(REASONS[code]) if code in REASONS else code.replace("_", " ")


def rounded(text: str, digits: int = 2) -> str:
    """`text` with every number of three or more decimals rounded to `digits`."""
    return LONG_DECIMAL.sub(lambda found: f"{float(found.group(1)):.{digits}f}", str(text))


def plain(text: str) -> str:
    """A trace line for people: reason codes as words, long decimals rounded."""
    return CODE.sub(lambda found: reason_text(found.group(1)), rounded(text))
