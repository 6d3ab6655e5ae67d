"""The parameters a docstring documents in a section of its own, each with what it says of it.

Google's style: a line "Args:" (or "Arguments:", "Parameters:", "Keyword Args:", "Attributes:" …) over entries
indented under it, "name (type): text", the text running on below, further indented::

    Args:
        processors: The processor chain.

        cache_logger_on_first_use:
            `wrap_logger` doesn't return an actual wrapped logger but a proxy …

NumPy's: a title ("Parameters", "Other Parameters", "Attributes") underlined with dashes over entries "name : type"
at the title's indentation, each described by the lines indented below it. (Sphinx's `:param name:` fields are
read where a paragraph says them, `layer_text.naming_paragraph`.) A source chunk may hold part of a docstring: its
sections are read as far as the chunk goes.
"""

import re
from collections.abc import Callable, Iterator

_GOOGLE_SECTION = re.compile(r"^(?P<indent>[ \t]*)(?:Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments"
                             r"|Kwargs|Other Parameters|Attributes):[ \t]*$")
_GOOGLE_ENTRY = re.compile(r"^\*{0,2}(?P<name>[A-Za-z_]\w*)[ \t]*(?:\([^)\n]*\))?[ \t]*:(?:[ \t]+(?P<text>\S.*))?$")
_NUMPY_TITLES = {"Parameters", "Other Parameters", "Attributes", "Keyword Arguments", "Keyword Args"}
_UNDERLINE = re.compile(r"^[ \t]*-{3,}[ \t]*$")
_NUMPY_ENTRY = re.compile(r"^\*{0,2}(?P<names>[A-Za-z_]\w*(?:[ \t]*,[ \t]*\*{0,2}[A-Za-z_]\w*)*)"
                          r"(?:[ \t]+:(?:[ \t]+.*)?)?$")
_CLOSING = ('"""', "'''")


def documented(code: str) -> dict[str, str]:
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


def described(code: str, names) -> tuple[str, str] | None:
    """The first of `names` a docstring section of `code` documents with a description, and the description; None
    when none is."""
    fields = documented(code)
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
