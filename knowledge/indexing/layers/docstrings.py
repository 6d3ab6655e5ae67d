"""What a docstring or a JSDoc comment says first, as a sentence an answer may quote.

A symbol's row (C1) carries it as its `docstring`, and `layer_text` quotes it: the first sentence of its first
paragraph, reST roles and literals as their text; a docstring opening with its fields says what it returns; a
NumPy-style section's title ends the paragraph.

And the parameters a docstring documents in a section of its own, each with what it says of it
(`documented_parameters`), which `layer_text` quotes for a parameter asked about by name. Google's style: a line
"Args:" (or "Arguments:", "Parameters:", "Keyword Args:", "Attributes:" …) over entries indented under it, "name
(type): text", the text running on below, further indented::

    Args:
        processors: The processor chain.

        cache_logger_on_first_use:
            `wrap_logger` doesn't return an actual wrapped logger but a proxy …

NumPy's: a title ("Parameters", "Other Parameters", "Attributes") underlined with dashes over entries "name : type"
at the title's indentation, each described by the lines indented below it. (Sphinx's `:param name:` fields are read
where a paragraph says them, `layer_text.naming_paragraph`.) A source chunk may hold part of a docstring: its
sections are read as far as the chunk goes.
"""

import re
import textwrap
from collections.abc import Callable, Iterator

from knowledge.indexing.rst import role_text

_ROLE = re.compile(r":[\w:.-]+:`(~?[^`<]+?)(?:\s*<[^`]*>)?`")  # reST's :attr:`response_class`, :class:`~a.B`
# Not the stop of "e.g." or "i.e." ("Returns data directory tied to the user, e.g. ``~/.local/share/…``").
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\bcf)[.!?](?=\s|$)", re.I)
# A first sentence ending in ":" of as many words at least, not about the example itself, says what the code does.
_INTRODUCING_WORDS = 5
# A first paragraph of fewer words is a title ("Natural list."), as `layer_text.first_sentence` reads it.
_TITLE_WORDS = 3
_EXAMPLE_INTRO = re.compile(r"\b(?:examples?|usage|follows|following|for instance|like (?:this|so)|e\.g)\b", re.I)
# reST's strong emphasis and emphasis: "**not**", "*min_level*" (not "*args", "**kwargs", a glob's "*").
EMPHASIS = re.compile(r"(?<![\w*])\*{1,2}(?=[^\s*])([^*\n]*?[^\s*])\*{1,2}(?![\w*])")
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
    kept, rest = [], ""
    for at, line in enumerate(lines):
        if (not line.strip() or line.rstrip().endswith(":") or (kept and len(line) - len(line.lstrip()) > 0
                                                                and not lines[0][:1].isspace())
                or at + 1 < len(lines) and _UNDERLINE.match(lines[at + 1])):  # NumPy's "Parameters" over "------"
            # A first sentence introducing its example says what the function does all the same: more-itertools'
            # "Break *iterable* into lists of length *n*:" over its doctest ("Example:" says nothing).
            opening = " ".join([*kept, line])
            if line.rstrip().endswith(":") and len(opening.split()) >= _INTRODUCING_WORDS and not (
                    _SENTENCE_END.search(" ".join(kept)) or _EXAMPLE_INTRO.search(opening)):
                kept.append(line.rstrip().rstrip(":") + ".")
            rest = "\n".join(lines[at + 1:]) if not line.strip() else ""
            break
        kept.append(line)
    paragraph = EMPHASIS.sub(r"\1", as_text(" ".join(" ".join(kept).split())))  # "*iterable*" read as "iterable"
    if len(paragraph.split()) < _TITLE_WORDS and rest.strip() and rest.lstrip()[:1] not in (">", ".", ":"):
        # A title over the paragraph that says it: humanize's natural_list, "Natural list." over "Convert an iterable
        # of items into a human-readable string with commas and 'and'."
        return doc_summary(textwrap.dedent(rest)) or paragraph
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


_GOOGLE_SECTION = re.compile(r"^(?P<indent>[ \t]*)(?:Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments"
                             r"|Kwargs|Other Parameters|Attributes):[ \t]*$")
_GOOGLE_ENTRY = re.compile(r"^\*{0,2}(?P<name>[A-Za-z_]\w*)[ \t]*(?:\([^)\n]*\))?[ \t]*:(?:[ \t]+(?P<text>\S.*))?$")
_NUMPY_TITLES = {"Parameters", "Other Parameters", "Attributes", "Keyword Arguments", "Keyword Args"}
_NUMPY_ENTRY = re.compile(r"^\*{0,2}(?P<names>[A-Za-z_]\w*(?:[ \t]*,[ \t]*\*{0,2}[A-Za-z_]\w*)*)"
                          r"(?:[ \t]+:(?:[ \t]+.*)?)?$")
_CLOSING = ('"""', "'''")


def documented_parameters(code: str) -> dict[str, str]:
    """The parameters `code`'s docstring sections document, by name, each with its description in one line ("" when
    it has none)."""
    lines = (code or "").split("\n")
    fields: dict[str, str] = {}
    for at, line in enumerate(lines):
        if _GOOGLE_SECTION.match(line):
            fields.update(_google_entries(lines, at + 1, _indent(line)))
        elif (line.strip() in _NUMPY_TITLES and at + 1 < len(lines) and _UNDERLINE.match(lines[at + 1])
              and _indent(lines[at + 1]) == _indent(line)):
            fields.update(_numpy_entries(lines, at + 2, _indent(line)))
    return fields


def described_parameter(code: str, names) -> tuple[str, str] | None:
    """The first of `names` a docstring section of `code` documents with a description, and the description; None
    when none is."""
    fields = documented_parameters(code)
    return next(((name, fields[name]) for name in names if fields.get(name)), None)


def _google_entries(lines: list[str], start: int, section_indent: int) -> dict[str, str]:
    entries: dict[str, list[str]] = {}
    entry_indent, name = None, None
    for indent, text in _section_lines(lines, start, lambda at, indent: indent <= section_indent):
        entry_indent = indent if entry_indent is None else entry_indent
        if indent == entry_indent and (match := _GOOGLE_ENTRY.match(text)):
            name = match.group("name")
            entries[name] = [match.group("text") or ""]
        elif indent > entry_indent and name is not None:
            entries[name].append(text)
        else:
            break
    return _joined(entries)


def _numpy_entries(lines: list[str], start: int, title_indent: int) -> dict[str, str]:
    entries: dict[str, list[str]] = {}
    names: list[str] = []

    def ends(at: int, indent: int) -> bool:  # a line less indented, or the next section's title over its dashes
        return indent < title_indent or at + 1 < len(lines) and bool(_UNDERLINE.match(lines[at + 1]))

    for indent, text in _section_lines(lines, start, ends):
        if indent == title_indent and (match := _NUMPY_ENTRY.match(text)):
            names = [part.strip().lstrip("*") for part in match.group("names").split(",")]
            entries.update({name: [] for name in names})
        elif indent > title_indent and names:
            for name in names:
                entries[name].append(text)
        else:
            break
    return _joined(entries)


def _section_lines(lines: list[str], start: int, ends: Callable[[int, int], bool]) -> Iterator[tuple[int, str]]:
    """A docstring section's lines from `start` that are not blank, as (indentation, text without closing quotes), up
    to the one `ends(at, indentation)` says ends it or the one closing the docstring (which is its last when it holds
    text)."""
    for at in range(start, len(lines)):
        if not lines[at].strip():
            continue
        indent, text = _indent(lines[at]), lines[at].strip()
        if text.startswith(_CLOSING) or ends(at, indent):
            return
        yield indent, text.removesuffix('"""').removesuffix("'''").strip()
        if text.endswith(_CLOSING):
            return


def _joined(entries: dict[str, list[str]]) -> dict[str, str]:
    return {name: " ".join(" ".join(parts).split()) for name, parts in entries.items()}


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())
