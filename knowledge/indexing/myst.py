"""Markdown as it reads: MyST's roles and directives (Sphinx's Markdown) and reference links as plain
CommonMark, line for line, so a citation's line is the file's.

`markdown_as_read(text)`:

* a role, `` {func}`structlog.configure` ``, `` {class}`~structlog.processors.JSONRenderer` ``,
  `` {doc}`configure <configuration>` ``, reads as its text in a code span, as a reStructuredText
  role does (`knowledge.indexing.rst`): `structlog.configure`, `JSONRenderer`,
  `configure`;
* a directive, fenced with backticks (```` ```{note} ````) or colons (`:::{warning}`), is what the same
  directive is in reStructuredText (`rst.directive_kind`): a code block (`code-block`, `doctest`, …)
  fenced as code with its language; one holding no prose (`toctree`, `image`, `include`, diagrams)
  left out; any other (an admonition, a container) its text, under the line saying what it is
  ("Note:", "Version changed: 24.1.0"), its options (`:class: tip`) left out; `eval-rst`'s body is
  read as reStructuredText. A backtick fence with another name in braces (Quarto's ```` ```{python} ````)
  stays code;
* a definition list's term and definition ("`{func}`send``", then ": Sends the data.") read as one line
  where the definition was, "`send`: Sends the data.";
* a `` {ref}`label` `` or `` {doc}`path` `` without a title reads as the title Sphinx shows: the heading a
  `(label)=` target stands over, the first heading of the file named (in a repository, of its other
  files too: `targets`, from `myst_targets` and `rst.sphinx_targets`);
* a target (`(label)=`) and a comment line (`% …`) are left out;
* a reference link, `[text][label]`, `[text][]` or `[label]` with its definition `[label]: url` in the
  file, is an inline link `[text](url)`, its definition's line left blank: read from a chunk, the
  definition would be quoted as a sentence ("[python-json-logger]: https://…").
"""

import re

from knowledge.indexing import rst
from knowledge.indexing.markdown import fence_end, fence_opener, fenced_lines, outside_code_spans

_DIRECTIVE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]+)\}[ \t]*"
                        r"(?P<argument>.*?)[ \t]*$")
# A code span, or a role: a name in braces right before one. Spans are read first, left to right, so a
# brace inside one (`/knowledge-bases/{id}`, `{reply}`) opens no role.
_SPAN_OR_ROLE = re.compile(r"(?P<role>\{[A-Za-z][\w:+-]*\})?(?P<ticks>`+)(?!`)(?P<code>.+?)(?<!`)(?P=ticks)(?!`)")
_TITLED = re.compile(r"(?P<title>.+?)\s*<[^<>]+>$")  # "configure <configuration>": the title
_TARGET = re.compile(r"^ {0,3}\(([^()\s]+)\)=[ \t]*$")
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_BARE_REFERENCE = re.compile(r"\{(ref|doc)\}`([^`<\n]+)`")
_COMMENT = re.compile(r"^ {0,3}%(?:[ \t]|$)")
_DEFINITION_ITEM = re.compile(r"^: {1,3}(\S.*)$")
_NOT_A_TERM = re.compile(r"^(?: {4}|\t| {0,3}(?:[-*+:][ \t]|\d{1,9}[.)][ \t]|[>|<]|#{1,6}(?:[ \t]|$)|`{3}|~{3}|:{3}))")
_OPTION = re.compile(r"^[ \t]*:[\w-]+:")  # ":class: tip", ":caption: Example" at the top of a directive
# The prose directives a backtick fence holds; any other name in braces there is a code cell, as it read
# before (Quarto's and R Markdown's ```{python}, ```{r setup}).
_PROSE = rst.ADMONITIONS | rst.DESCRIPTIONS | {
    "envvar", "eval-rst", "glossary", "only", "topic", "sidebar", "rubric", "epigraph", "list-table", "csv-table",
    "table", "tab-set", "tab-item", "tabs", "tab", "dropdown", "card", "grid", "grid-item", "grid-item-card",
    "container", "div", "margin"}
# A reference definition: `[label]: url` or `[label]: <url> "title"`, at most three spaces in.
_DEFINITION = re.compile(r"^ {0,3}\[(?!\^)([^\]]+)\]:[ \t]*<?([^\s>]+)>?"
                         r"(?:[ \t]+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?[ \t]*$")
# `[text][label]`, `[text][]`, `[label]` — not an inline link, an image, a footnote or a checkbox.
_REFERENCE = re.compile(r"(?<![!\]\\])\[([^\[\]]+)\](?:\[([^\[\]]*)\])?(?![(\[:])")


def markdown_as_read(text: str, targets: dict[str, str] | None = None, path: str = "") -> str:
    """`text` (Markdown, MyST or CommonMark) with MyST's markup and reference links as plain CommonMark
    (see the module docstring); every line where it was. `targets`: the titles of the other files' labels
    and files (`myst_targets`, `rst.sphinx_targets`), for references to them from this file, at `path`."""
    text = rst.titled_references(text, {**(targets or {}), **_labels(text)}, path, _BARE_REFERENCE,
                                 "{{{role}}}`{title} <{target}>`")
    lines = text.split("\n")
    out = list(lines)
    number = 0
    while number < len(lines):
        line = lines[number]
        directive = _DIRECTIVE.match(line)
        if directive is not None:
            number = _directive(lines, out, number, directive)
        elif (marker := fence_opener(line)) is not None:
            number = fence_end(lines, number, marker) + 1  # code, as written
        elif (item := _DEFINITION_ITEM.match(line)) is not None and (term := _term(out, number)) is not None:
            # A definition list's "term", then ": definition": one line, "term: definition", where it was.
            out[number] = f"{out[term].strip()}: {_roles(item.group(1))}"
            out[term] = ""
            number += 1
        elif _TARGET.match(line) or _COMMENT.match(line):
            out[number] = ""
            number += 1
        else:
            out[number] = _roles(line)
            number += 1
    return _inline_references("\n".join(out))


def _directive(lines: list[str], out: list[str], number: int, directive: re.Match) -> int:
    """Read the directive opening at line `number` into `out`; the next line to read."""
    name, argument, fence = directive.group("name").lower(), directive.group("argument"), directive.group("fence")
    end = fence_end(lines, number, fence)
    kind = rst.directive_kind(name)
    if kind == "prose" and fence[0] == "`" and name not in _PROSE and ":" not in name:
        kind = "code"
    body = _after_options(lines, number + 1, end)
    closed = end < len(lines)
    if kind == "left out":
        out[number:end + closed] = [""] * (end + closed - number)
        return end + 1
    out[number + 1:body] = [""] * (body - number - 1)
    if kind == "code":
        out[number] = f"{directive.group('indent')}```{rst.directive_language(name, argument) or name}"
        if closed:
            out[end] = "```"
        return end + 1
    out[number] = directive.group("indent") + rst.described(name, rst.directive_label(name, _roles(argument)), out,
                                                            number, directive.group("indent"))
    if closed:
        out[end] = lines[end] = ""  # the fence is no code's: read on inside it (its own directives and code)
    if name == "eval-rst":
        out[body:end] = rst.rst_as_markdown("\n".join(lines[body:end])).split("\n")
        return end + 1
    return body


def _roles(text: str) -> str:
    """`text` with its roles as their titles or names in code spans; code spans as written."""
    def read(match: re.Match) -> str:
        if match.group("role") is None:
            return match.group(0)
        titled = _TITLED.match(match.group("code").strip())
        return rst.role_text_as_code(titled.group("title") if titled else match.group("code"))

    return _SPAN_OR_ROLE.sub(read, text)


def myst_targets(texts: dict[str, str]) -> dict[str, str]:
    """What the Markdown files of a repository ({path: text}) give references a title by: each
    `(label)=` target's section title, and each file's title (its first heading) under "doc:" and its
    path without the suffix."""
    targets = {}
    for path, text in texts.items():
        if path.lower().endswith((".md", ".markdown")):
            targets.update(_labels(text))
            lines, fenced = text.split("\n"), fenced_lines(text)
            title = next((heading.group(1) for number, line in enumerate(lines)
                          if number not in fenced and (heading := _HEADING.match(line))), "")
            if title := rst.title_free(title):
                targets[rst.document_key(path)] = title
    return targets


def _labels(text: str) -> dict[str, str]:
    """{label: the title of the heading it stands over} of a file's `(label)=` targets, in lower case."""
    labels, pending = {}, []
    for line in text.split("\n"):
        if target := _TARGET.match(line):
            pending.append(target.group(1).lower())
        elif line.strip():
            if pending and (heading := _HEADING.match(line)) and (title := rst.title_free(heading.group(1))):
                labels.update(dict.fromkeys(pending, title))
            pending = []
    return labels


def _term(out: list[str], number: int) -> int | None:
    """The line of the term a definition at line `number` defines: the line before it, or the one before a
    blank line; not another definition, a heading, a fence or a list item."""
    for at in (number - 1, number - 2):
        if at >= 0 and out[at].strip():
            return None if _NOT_A_TERM.match(out[at]) else at
    return None


def _after_options(lines: list[str], start: int, end: int) -> int:
    """The first line of a directive's body after its options: `:name: value` lines, or a `---` block."""
    if start < end and lines[start].strip() == "---":
        closing = next((at for at in range(start + 1, end) if lines[at].strip() == "---"), None)
        return start if closing is None else closing + 1
    while start < end and _OPTION.match(lines[start]):
        start += 1
    return start


def _inline_references(text: str) -> str:
    """Reference links as inline links, their definitions' lines blank (outside code)."""
    lines = text.split("\n")
    fenced = fenced_lines(text)
    targets = {}
    for number, line in enumerate(lines):
        if number not in fenced and (definition := _DEFINITION.match(line)):
            targets.setdefault(_label(definition.group(1)), definition.group(2))
            lines[number] = ""
    if not targets:
        return text

    def inline(match: re.Match) -> str:
        words, label = match.group(1), match.group(2)
        url = targets.get(_label(label or words))
        return match.group(0) if url is None else f"[{words}]({url})"

    return "\n".join(line if number in fenced else outside_code_spans(line, lambda text: _REFERENCE.sub(inline, text))
                     for number, line in enumerate(lines))


def _label(label: str) -> str:
    return " ".join(label.split()).casefold()  # CommonMark matches labels so
