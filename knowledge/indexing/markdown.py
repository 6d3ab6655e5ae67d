"""Markdown structure, read one way for the whole project: ATX headings and fenced code blocks.

CommonMark's rules as far as we need them. A heading is one to six `#` after at most three
spaces, then a blank or the end of the line; its title loses the optional closing `#`s (only
after a blank, so `# C#` is "C#") and a trailing `{#id}` or MDX `{/*id*/}` anchor. A fence is a
line of at least three backticks or tildes and closes at a line of at least as many of the same
character and nothing else; a backtick fence's info string has no backticks; an unclosed fence
runs to the end. Nothing inside a fence is a heading.

Code spans are literal (no markup inside): `outside_code_spans` applies a change to the rest.
Inline markup is read one way too: `without_emphasis` and `unescaped`, for a heading's title
(`inline_text`) and for the text an extract quotes (`knowledge.search.source_text.clean_text`).

The chunker cuts sections with `scan`, the parsers take titles with `first_heading`, and the
layered index reads heading sections with `read_sections`. A Markdown file's setext headings (a
title underlined with `===` or `---`, as older READMEs and changelogs write them) are made ATX
headings first, by `setext_headings`, and so are its collapsible sections' summaries (`<details><summary>`,
a README's FAQ), by `summary_headings`.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

_MARKDOWN_LINE = re.compile(r"^ {0,3}(?:(`{3,}|~{3,})|(#{1,6})(?=[^\S\n]|$))([^\n]*)", re.M)
_CLOSING_HASHES = re.compile(r"(?:^|[ \t])#+$")
_ANCHOR = re.compile(r"\s*\{(?:#[^{}]*|/\*[^{}]*\*/)\}$")
# A link's text in its brackets, not at an escaped bracket ("createError\[code\](\[msg]\)" is text), running over
# escaped ones: a pattern, also of `source_text`'s links.
LINK_TEXT = r"(?<!\\)\[((?:[^\]\\]|\\.)+)\]"
_LINK = re.compile(r"(?<!!)" + LINK_TEXT + r"(?:\([^)\s]*(?:\s+\"[^\"]*\")?\)|\[[^\]]*\])")
# A code span (CommonMark): a run of backticks closed by a run of as many, neither next to another backtick —
# "``import *``" and "`` `x` ``" as much as "`dict`".
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
# A collapsible section's summary alone on its line (`summary_headings`), its `<details>` and a `<br>` around it.
_SUMMARY = re.compile(r"^[ \t]*(?:<details[^<>]*>[ \t]*)?<summary[^<>]*>(.+?)</summary>[ \t]*(?:<br\s*/?>[ \t]*)*$",
                      re.I)
_HTML_TAG = re.compile(r"</?[a-zA-Z][^<>]*>")
# An image, inline or by reference, and the link around it if any (a README's badge): a pattern, also of
# `source_text`'s line of images alone.
_TARGET = r"(?:\([^)\n]*\)|\[[^\]\n]*\])"
IMAGE = rf"\[!\[[^\]\n]*\]{_TARGET}\]{_TARGET}|!\[[^\]\n]*\]{_TARGET}"
# An image in a heading — a README title's badges, an icon — is decoration.
_HEADING_IMAGE = re.compile(IMAGE)
# The inline HTML a heading is written with reads as its text: qs' "# qs <sup>[![Version Badge][…]][…]</sup>" was
# titled "qs <sup></sup>" (not a tag in a code span, nor one no heading is formatted with: "The <head> element").
_HEADING_HTML = re.compile(r"</?(?:a|abbr|b|big|code|del|em|i|img|ins|kbd|mark|picture|s|small|source|span|strong|sub"
                           r"|sup|u)(?:\s[^<>]*)?/?>", re.I)
# Emphasis and strikethrough; underscores only at word edges (CommonMark): snake_case and ENV_VARS are words.
# An escaped mark ("\\*") is a character, not a mark.
_EMPHASIS = re.compile(r"(?<!\\)(\*\*|\*|~~)(?=\S)(.+?)(?<=[^\s\\])\1"
                       r"|(?<![\w\\])(__|_)(?=\S)(.+?)(?<=[^\s\\])\3(?!\w)")
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")  # CommonMark's escapable punctuation
_SET_ASIDE = re.compile("\x00(\\d+)\x00")  # NUL never occurs in stored text
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\S")  # a list item's first line (`list_fences`)
_DEEP_FENCE = re.compile(r"^( {4,})(`{3,}|~{3,})(.*)$")  # a fence too far in for the margin's (`list_fences`)
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-{2,})[ \t]*$")
# Lines that are no paragraph, so no setext title: indented code, a list item, a quote, a table row,
# HTML, an ATX heading, a fence.
_NOT_A_PARAGRAPH = re.compile(r"^(?: {4}|\t| {0,3}(?:[-*+][ \t]|\d{1,9}[.)][ \t]|[>|<]|#{1,6}(?:[ \t]|$)|`{3}|~{3}))")
# A level-1 heading of two words or more in capitals: a banner over the title ("# CONTRIBUTIONS ONLY"), not one.
_BANNER = re.compile(r"[^a-zа-яё]*[A-ZА-ЯЁ]{2,}[^a-zа-яё]*\s[^a-zа-яё]*[A-ZА-ЯЁ]{2,}[^a-zа-яё]*")
# What a document's sections are called, not a document: parse's README.rst opens with "Installation" and "Usage"
# at its top level, and every source of it was titled "Installation" (`document_title`).
SECTION_NAME = re.compile(
    r"(?:\d+[.)]?\s*)?(?:installation|installing|install|setup|set-?up|usage|how to use|introduction|intro|overview"
    r"|getting started|get started|quick ?start|examples?|features|requirements|prerequisites|dependencies"
    r"|description|about|contents|table of contents|background|motivation|documentation|docs|licen[cs]e|contributing"
    r"|changelog|changes|api|api reference|reference|faq|synopsis|status|configuration|testing|tests|development"
    r"|developers|credits|authors|установка|использование|введение|обзор|описание|начало работы|быстрый старт"
    r"|примеры|пример|возможности|требования|зависимости|содержание|оглавление|лицензия|документация|настройка"
    r"|разработка)\s*:?", re.IGNORECASE)


class Heading(NamedTuple):
    start: int  # offset of the first `#`
    level: int
    title: str


@dataclass
class Section:
    """A heading and the lines up to the next heading (of any level). Lines are 1-based in the file."""

    level: int
    title: str
    path: list[str]
    line: int
    body: list[str] = field(default_factory=list)

    @property
    def section_path(self) -> str:
        return " > ".join(self.path)

    @property
    def text(self) -> str:
        return "\n".join(self.body).strip()

    @property
    def end_line(self) -> int:
        last = max((i for i, line in enumerate(self.body) if line.strip()), default=-1)
        return self.line + last + 1


def scan(text: str) -> tuple[list[Heading], list[tuple[int, int]]]:
    """ATX headings and fenced code blocks (as `(start, end of the closing line's text)`), in one pass."""
    headings: list[Heading] = []
    fences: list[tuple[int, int]] = []
    open_fence: tuple[int, str] | None = None
    for m in _MARKDOWN_LINE.finditer(text):
        marker, hashes, rest = m.groups()
        if open_fence is not None:
            start, opener = open_fence
            if marker and marker[0] == opener[0] and len(marker) >= len(opener) and not rest.strip():
                fences.append((start, m.start() + len(m.group(0).rstrip())))
                open_fence = None
        elif marker:
            if _opens_fence(marker, rest):
                open_fence = (m.start(), marker)
        else:
            headings.append(Heading(m.start(2), len(hashes), heading_title(rest)))
    if open_fence is not None:
        fences.append((open_fence[0], len(text)))
    return headings, fences


def _opens_fence(marker: str, rest: str) -> bool:
    return marker[0] == "~" or "`" not in rest  # a backtick fence's info string has no backticks


def fence_opener(line: str) -> str | None:
    """The marker (three or more backticks or tildes) of a line that opens a fenced code block, else None."""
    match = _MARKDOWN_LINE.match(line)
    marker = match.group(1) if match else None
    return marker if marker and _opens_fence(marker, match.group(3)) else None


def fence_end(lines: list[str], start: int, marker: str, indent: int = 3) -> int:
    """The index of the line closing the fence `marker` opened at line `start` — at most `indent` spaces in, as
    many of its character or more and nothing else (MyST's `:::` fences close so too) — or `len(lines)`."""
    closing = re.compile(rf" {{0,{indent}}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*")
    return next((at for at in range(start + 1, len(lines)) if closing.fullmatch(lines[at])), len(lines))


def heading_title(raw: str) -> str:
    """Heading text without the optional closing `#`s and a trailing `{#id}` or `{/*id*/}` anchor, nor the inline
    HTML it is formatted with, read as it reads (`inline_text`)."""
    title = raw.strip()
    if title.endswith("#"):
        title = _CLOSING_HASHES.sub("", title).strip()
    if title.endswith("}"):
        title = _ANCHOR.sub("", title).strip()
    if "<" in title:
        title = outside_code_spans(title, lambda plain: _HEADING_HTML.sub("", plain))
    return inline_text(title)


def inline_text(text: str) -> str:
    """A line of Markdown as it reads: a link as its text (a changelog's "## [v1.11.1](https://…/tree/v1.11.1)
    (2026-08-26)"), emphasis, code spans' backticks and backslash escapes as what they mark ("6.3. Команда
    **debuild**", "2.7. Настройка **dh\\_make**", "Файл `rules`", as an HTML page's headings become); its images
    gone ("# dotenv [![NPM version](…)](…)" is "dotenv")."""
    if "](" in text or "][" in text:
        text = _LINK.sub(r"\1", _HEADING_IMAGE.sub("", text))
    if any(mark in text for mark in "*_~`\\"):
        text = outside_code_spans(text, lambda plain: unescaped(without_emphasis(plain)), span=lambda code: code)
    return text.strip()


def without_emphasis(text: str) -> str:
    """Text (outside code spans) without its emphasis and strikethrough marks, nested ones too (***bold
    italic***)."""
    for _ in range(2):
        text = _EMPHASIS.sub(lambda match: match.group(2) or match.group(4), text)
    return text


def unescaped(text: str) -> str:
    """Text (outside code spans) with its backslash escapes read as the characters they escape."""
    return _ESCAPED.sub(r"\1", text)


def outside_code_spans(text: str, change: Callable[[str], str], *,
                       span: Callable[[str], str] = lambda code: f"`{code}`") -> str:
    """`change(text)` with the code spans set aside, so that nothing in them (`<h1>`, `*args`, `a_b_c`)
    is read as markup; each comes back as `span(its code)`, as written unless `span` says otherwise."""
    spans: list[str] = []

    def set_aside(match: re.Match) -> str:
        code = match.group(2)
        if code.startswith(" ") and code.endswith(" ") and code.strip(" "):
            code = code[1:-1]  # "`` `x` ``": the spaces that keep its backticks apart from the span's
        spans.append(span(code))
        return f"\x00{len(spans) - 1}\x00"

    changed = change(_CODE_SPAN.sub(set_aside, text))
    return _SET_ASIDE.sub(lambda match: spans[int(match.group(1))], changed)


def first_heading(text: str) -> str:
    """The document's title from its level-1 headings outside code fences (`document_title`), or ''."""
    return document_title([heading.title for heading in scan(text)[0] if heading.level == 1])


def document_title(titles: list[str]) -> str:
    """The first of a document's level-1 heading titles — unless it names a section (SECTION_NAME: "Installation",
    "Usage") and another level-1 heading follows it: the top-level headings are then the document's sections,
    and none of them its title (''). "# Installation" over "## pip" and "## conda" titles an installation guide."""
    # A banner in capitals over the title ("# CONTRIBUTIONS ONLY" over voluptuous' "# Voluptuous is a Python data
    # validation library") is a notice, not what the document is.
    while len(titles) > 1 and _BANNER.fullmatch(titles[0].strip()):
        titles = titles[1:]
    if not titles or (len(titles) > 1 and SECTION_NAME.fullmatch(titles[0].strip())):
        return ""
    return titles[0]


def setext_headings(text: str) -> str:
    """`text` with its setext headings as ATX ones (`Title` over `===` → `# Title`, over `---` →
    `## Title`), the underline left as a blank line so that line numbers stay. As CommonMark reads
    them, but only a one-line paragraph's (a blank line or the start above the title): a `---` under
    the last line of a longer paragraph is more likely meant as a rule. Nothing inside a fence."""
    lines = text.split("\n")
    fenced = fenced_lines(text)
    for number in range(1, len(lines)):
        match = _SETEXT_UNDERLINE.match(lines[number])
        title = lines[number - 1]
        if (match is None or number in fenced or number - 1 in fenced or not title.strip()
                or _NOT_A_PARAGRAPH.match(title) or (number >= 2 and lines[number - 2].strip())):
            continue
        lines[number - 1] = ("# " if match.group(1)[0] == "=" else "## ") + title.strip()
        lines[number] = ""
    return "\n".join(lines)


def list_fences(text: str) -> str:
    """`text` with each fenced code block nested in a list item — its fence four spaces in or more, under the item's
    text, as CommonMark reads an item's code — moved to the margin, line for line: the fence and its lines were read
    as an indented paragraph ("console $ export RAISE_VALIDATION_ERROR=True $ python -c …" of validators' "1. Either
    set the environment variable …" over its ```` ```console ```` block). Not a block at the margin's lines, nor an
    indented block outside a list (code that writes a fence)."""
    if "```" not in text and "~~~" not in text:
        return text
    lines, fenced, in_list, number = text.split("\n"), fenced_lines(text), False, 0
    while number < len(lines):
        line = lines[number]
        if number not in fenced and _LIST_ITEM.match(line):
            in_list = True
        elif line.strip() and not line[:1].isspace() or number in fenced:
            in_list = False  # a paragraph or a block at the margin ends the list
        deep = _DEEP_FENCE.match(line) if in_list else None
        if deep and _opens_fence(deep.group(2), deep.group(3)):
            indent = len(deep.group(1))
            end = fence_end(lines, number, deep.group(2), indent=indent + 3)
            if end < len(lines):
                for at in range(number, end + 1):
                    lines[at] = lines[at][min(indent, len(lines[at]) - len(lines[at].lstrip(" "))):]
                number = end
        number += 1
    return "\n".join(lines)


def summary_headings(text: str) -> str:
    """`text` with each collapsible section's summary on a line of its own as a heading one level under the
    heading above it: `<details><summary>Should I commit my .env file?</summary><br/>` under "## FAQ" is
    "### Should I commit my .env file?" — how READMEs write their FAQs and optional sections, whose
    questions would otherwise be nobody's heading (and their answers part of one long section). Line for
    line; nothing inside a fence; a summary with text after it on its line stays as it is."""
    if "<summary" not in text.lower():
        return text
    headings, _ = scan(text)
    levels = {text.count("\n", 0, heading.start): heading.level for heading in headings}  # by line
    lines, level = text.split("\n"), 1
    fenced = fenced_lines(text)
    for number, line in enumerate(lines):
        level = levels.get(number, level)
        if number in fenced or number in levels:
            continue
        if (summary := _SUMMARY.match(line)) and (title := inline_text(_HTML_TAG.sub("", summary.group(1)))):
            lines[number] = f"{'#' * min(level + 1, 6)} {title}"
    return "\n".join(lines)


def fenced_lines(text: str) -> set[int]:
    """Indexes (0-based) of the lines inside fenced code blocks, fence lines included."""
    lines, line, position = set(), 0, 0
    for start, end in scan(text)[1]:
        line, position = line + text.count("\n", position, start), start
        lines.update(range(line, line + text.count("\n", start, end) + 1))
    return lines


def read_sections(body: str, first_line: int = 1) -> list[Section]:
    """Heading sections of a Markdown body; text before the first heading is a level-0 section."""
    by_line, line, position = {}, 0, 0
    for heading in scan(body)[0]:
        line, position = line + body.count("\n", position, heading.start), heading.start
        by_line[line] = heading
    sections = [Section(level=0, title="", path=[], line=first_line)]
    stack: list[Section] = []
    for offset, line in enumerate(body.split("\n")):
        heading = by_line.get(offset)
        if heading is None:
            sections[-1].body.append(line)
            continue
        while stack and stack[-1].level >= heading.level:
            stack.pop()
        section = Section(level=heading.level, title=heading.title,
                          path=[s.title for s in stack] + [heading.title], line=first_line + offset)
        stack.append(section)
        sections.append(section)
    if not sections[0].text:
        sections.pop(0)
    return sections
