"""Citation markers in answers: `[1]`, `[1, 2]`, `[1-3]`, `[Source 1]`, `[Источник 2]`.

The one grammar of the project: answers, ticket drafts and the admin's badges all read markers
with `MARKER` and `marker_numbers`. `parse_citations` maps the markers to source numbers; numbers
outside 1..n point nowhere and are reported as dropped. `rewrite_markers` normalises the text to
`[1]` / `[1, 2]` badges and removes the numbers (or whole markers) that point nowhere, so a reader
never sees a dangling badge.
"""

import re
from collections.abc import Callable

MARKER = re.compile(
    r"\[\s*(?:(?:sources?|источник(?:и|а|ов)?)\s*)?"
    r"(\d{1,6}(?:\s*[-–]\s*\d{1,6})?(?:\s*[,;]\s*(?:(?:sources?|источник(?:и|а|ов)?)\s*)?\d{1,6}(?:\s*[-–]\s*\d{1,6})?)*)"
    r"\s*\]",
    re.IGNORECASE,
)
_NUMBER_OR_RANGE = re.compile(r"(\d+)(?:\s*[-–]\s*(\d+))?")
MAX_RANGE = 50  # "[1-100000]" is not a citation worth expanding


def marker_numbers(group: str) -> list[int]:
    """The numbers of a marker's inside (`MARKER` group 1): `"1, 3-4"` → `[1, 3, 4]`."""
    numbers = []
    for match in _NUMBER_OR_RANGE.finditer(group):
        first, last = int(match[1]), int(match[2] or match[1])
        if last < first or last - first > MAX_RANGE:
            numbers.extend([first, last] if last != first else [first])
        else:
            numbers.extend(range(first, last + 1))
    return numbers


def cited_numbers(text: str) -> set[int]:
    """Every number the markers of `text` cite, whether or not a source has it."""
    return {n for match in MARKER.finditer(text or "") for n in marker_numbers(match[1])}


def parse_citations(text: str, n_sources: int) -> tuple[list[int], list[int]]:
    """(source numbers cited, in order of first use; numbers that point nowhere, in order)."""
    used, dropped = [], []
    for match in MARKER.finditer(text or ""):
        for number in marker_numbers(match[1]):
            bucket = used if 1 <= number <= n_sources else dropped
            if number not in bucket:
                bucket.append(number)
    return used, dropped


_MARKER_WITH_SPACE = re.compile(r"([ \t]*)" + MARKER.pattern, re.IGNORECASE)


def rewrite_markers(text: str, n_sources: int) -> str:
    """The text with every marker as `[n]` / `[n, m]` and numbers that point nowhere removed."""
    return renumber_markers(text, lambda number: number if 1 <= number <= n_sources else None)


def renumber_markers(text: str, renumber: Callable[[int], int | None]) -> str:
    """The text with each marker's numbers replaced by `renumber(n)` (None drops the number), written
    as `[n]` / `[n, m]`; a marker left with no number goes with the space before it: "as shown [9]."
    → "as shown."."""
    def replace(match: re.Match) -> str:
        kept = list(dict.fromkeys(new for new in map(renumber, marker_numbers(match[2])) if new is not None))
        return match[1] + "[" + ", ".join(map(str, kept)) + "]" if kept else ""

    return _MARKER_WITH_SPACE.sub(replace, text or "").strip()
