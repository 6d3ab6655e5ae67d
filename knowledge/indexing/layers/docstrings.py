"""What a docstring or a JSDoc comment says first, as a sentence an answer may quote.

A symbol's row (C1) carries it as its `docstring`, and `layer_text` quotes it: the first sentence of its first
paragraph, reST roles and literals as their text; a docstring opening with its fields says what it returns; a
NumPy-style section's title ends the paragraph.
"""

import re

from knowledge.indexing.rst import role_text

_ROLE = re.compile(r":[\w:.-]+:`(~?[^`<]+?)(?:\s*<[^`]*>)?`")  # reST's :attr:`response_class`, :class:`~a.B`
# Not the stop of "e.g." or "i.e." ("Returns data directory tied to the user, e.g. ``~/.local/share/…``").
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\bcf)[.!?](?=\s|$)", re.I)
_LITERAL = re.compile(r"``([^`]+)``")  # reST's inline literal, ``None``
_LINK = re.compile(r"`([^`<]+?)\s*<[^`<>]+>`__?")  # reST's hyperlink, `the guidance <https://…>`_: its text


def jsdoc_description(comment: str) -> str:
    """A JSDoc comment's description: its lines without the comment's marks, up to its first @tag."""
    lines = [line.strip().lstrip("/*").rstrip("*/").strip() for line in comment.split("\n")]
    tags = next((at for at, line in enumerate(lines) if line.startswith("@")), len(lines))
    return "\n".join(lines[:tags])


def doc_summary(docstring: str) -> str:
    """What a docstring says first: its first paragraph on one line, to the end of its first sentence
    ("The flask object implements a WSGI application and acts as the central object."; its first line
    alone stops at "…acts as the central"), reST roles and literals as their text, at most 300
    characters. The paragraph ends before a line introducing an example ("for example:") or indented
    deeper than its first (the example itself), or at a NumPy-style section's title (a line over dashes: a
    docstring opening with "Parameters" has no summary). A docstring opening with its fields says what it
    returns."""
    lines = (docstring or "").strip().split("\n")
    if _FIELD.match(lines[0]):
        return _returned(lines)
    kept = []
    for at, line in enumerate(lines):
        if (not line.strip() or line.rstrip().endswith(":") or (kept and len(line) - len(line.lstrip()) > 0
                                                                and not lines[0][:1].isspace())
                or at + 1 < len(lines) and _UNDERLINE.match(lines[at + 1])):  # NumPy's "Parameters" over "------"
            break
        kept.append(line)
    paragraph = as_text(" ".join(" ".join(kept).split()))
    end = _SENTENCE_END.search(paragraph)
    return paragraph[: end.end()] if end else paragraph[:300]


def as_text(text: str) -> str:
    """A docstring's reST as its reader sees it: literals, hyperlinks' and roles' text (``None``, `the guidance
    <https://…>`_, :attr:`default_key_derivation`, :class:`~a.B` as `None`, `the guidance`,
    `default_key_derivation`, `B`)."""
    return _ROLE.sub(lambda match: role_text(match.group(1)), _LINK.sub(r"\1", _LITERAL.sub(r"\1", text)))


_FIELD = re.compile(r"^\s*(?::[\w ]+:(?!`)|(?:Args|Arguments|Parameters|Returns?|Yields?|Raises)\s*:\s*$)")
_RETURNS = re.compile(r"^\s*(?::returns?:|Returns?\s*:)\s*(.*)$")
_UNDERLINE = re.compile(r"^\s*(?:-{3,}|={3,}|~{3,})\s*$")


def _returned(lines: list[str]) -> str:
    """The summary of a docstring that opens with its fields (":return: Number of seconds until …", ":param x:"
    then ":returns:", Google's "Returns:" and its indented lines): what it returns, as a sentence ("Returns
    number of seconds until next_run or None if no jobs are scheduled."); "" without a returns field."""
    at = next((at for at, line in enumerate(lines) if _RETURNS.match(line)), None)
    if at is None:
        return ""
    said = [_RETURNS.match(lines[at]).group(1)]
    for line in lines[at + 1:]:
        if not line.strip() or _FIELD.match(line):
            break
        said.append(line)
    text = as_text(" ".join(" ".join(said).split()))
    if not text:
        return ""
    if text[1:2].islower() and not said[0].lstrip().startswith(("``", ":")):  # a literal, a role: as written
        text = text[0].lower() + text[1:]
    end = _SENTENCE_END.search(text)
    return f"Returns {text[: end.end()] if end else text.rstrip('.') + '.'}"[:300]
