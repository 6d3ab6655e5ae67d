"""Sources as text a customer can read: Markdown and HTML as plain text, code told apart from prose,
sentences.

`clean_text`: no heading marks, link text without its target, emphasis markers dropped (not the
underscores of snake_case), code spans as written, list items on lines of their own, citation-like
"[3]" dropped, HTML comments left out — a reader of the page never sees them, so neither does a
customer or the model (an author's "<!-- TODO -->", or instructions hidden there for a model to follow);
one that opens a line and is not closed (the chunk's end cut it off) runs to that end, as in Markdown,
while an unclosed `<!--` inside a line, or in a code span, is text; a documentation generator's own
lines (admonition markers, "::: directives", included files) left out, an admonition's title kept.
`prose_without_code`: fenced code blocks left out, since a JSON reply or a shell session reads as
nothing a customer should be sent; short commands and short blocks of code may be kept, marked, for an
extract to show after the sentence that introduces them (a block with its lines and indentation as
written), and a longer block left out is marked where it was. `sentences`:
clean text cut into sentences and list items, not after initials or abbreviations, nor inside brackets.
"""

import html
import re

from knowledge.indexing.markdown import IMAGE, LINK_TEXT, outside_code_spans, unescaped, without_emphasis
from knowledge.indexing.tables import DELIMITER_ROW, read_tables, split_cells
from knowledge.search import option_tables
from knowledge.search.citations import MARKER
from knowledge.search.code_blocks import (
    COMMAND,
    GENERATOR_LINE,
    code_likeness,
    documented_members,
    introduced_commands,
    quoted_block,
)

_FENCE = re.compile(r"^ {0,3}(```|~~~).*$", re.M)
_COMMENT = re.compile(r"[ \t]*<!--.*?-->|^ {0,3}<!--.*\Z", re.S | re.M)
# Marks a heading kept over the short command it introduces ("Installation:"), as a sentence ending with ":"
# would: a README's "## Installation" and its `pip install …` hold no sentence at all.
HEADING_INTRO = "\x03"
_FENCE_INFO = re.compile(r"^ {0,3}(?:```|~~~)[ \t]*(\S*)")
_HEADING_LINE = re.compile(r"^ {0,3}#{1,6}(?:[ \t].*)?$", re.M)
HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$", re.M)
_HEADING_OVER_COMMAND = re.compile(rf"^ {{0,3}}#{{1,6}}[ \t]+(.*?)[ \t#:]*\n(?=(?:[ \t]*\n)*{COMMAND})", re.M)
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(LINK_TEXT + r"\((?:[^()]|\([^)]*\))*\)")
# (Not "[3][4]": two reference markers in a row, see MARKER below.)
_LINK_TAIL = re.compile(r"^[^\[\]\n]*\]\([^()\s]*(?:\([^()\s]*\))?[^()\s]*\)[)\]\"'»”’]*[ \t]*")
_FOOTNOTE_REF = re.compile(r"(?<=\S)\[\^[^\]\s]+\](?!:)")
_REF_LINK = re.compile(r"(?!\[\s*\d{1,6}\s*\])" + LINK_TEXT + r"\[[^\]]*\]")
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
# A list item that is only a link to a section of the same page: a table of contents' line ("- [Parse a TOML
# string](#parse-a-toml-string)"), navigation, never an answer (tomli's "• Construct decimal.Decimals from TOML
# floats").
_CONTENTS_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+\[[^\]\n]+\]\(#[^)\s]*\)[ \t]*(?:\n|$)", re.M)
# A link reference definition ("[npm-url]: https://npmjs.org/package/x", its address on the next line too): where a
# link goes, no text of the page (express-rate-limit's "[`windowMs`]:" and its address read as a sentence).
_LINK_DEFINITION = re.compile(r"^ {0,3}\[(?!\^)[^\]\n]+\]:[ \t]*(?:\n[ \t]*)?<?[^\s>]+>?"
                              r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$\n?", re.M)
_HEADERLESS_ROWS = re.compile(r"^(?:[ \t]*\|.*\|[ \t]*(?:\n|$)){2,}", re.M)
_BR = re.compile(r"<br\s*/?>", re.I)
# Markdown's hard line break, a backslash ending a line (not an escaped one): a line a reader sees end, as the field
# lines of a reference do ("Type: `number`\" over "Default: `Infinity`\" over "Minimum: `1`"), each its own paragraph.
_HARD_BREAK = re.compile(r"(?<!\\)\\\n")
# HTML elements left in Markdown (inline formatting, layout); other tags are text, not markup.
_TAG = re.compile(r"</?(?:a|abbr|b|blockquote|code|del|details|div|em|font|h[1-6]|hr|i|img|ins|kbd|li|mark|ol|p|pre"
                  r"|s|small|span|strong|sub|summary|sup|table|tbody|td|th|thead|tr|u|ul)\b[^<>]*>", re.I)
_BULLET = re.compile(r"^[ \t]*(?:[-*+•]|#\.)[ \t]+", re.M)  # "#." is reStructuredText's numbered item
# A list item of clean text, as `sentences` gives it: a bullet, or a numbered step ("1." or "2)").
# (Three digits at most: a line of a PDF may start with a year, "2010. The next release…".)
ITEM = re.compile(r"(?:• |\d{1,3}[.)] )")
_NUMBER = re.compile(r"\d{1,3}[.)]")
# With the space before it, and the line break: a page converted from HTML may wrap right before it.
_SOURCE_MARKER = re.compile(rf"[ \t]*(?:(?<!\n)\n[ \t]*)?(?:{MARKER.pattern})", MARKER.flags)
# GitHub's alert, a blockquote opening with "[!NOTE]" on a line of its own: "Note: " and its text.
_ALERT = re.compile(r"\[!(note|tip|important|warning|caution)\][ \t]*(?:\n[ \t]*>?[ \t]*)?", re.I)
_QUOTE = re.compile(r"^[ \t]*>[ \t]?", re.M)
# Documentation generators' own lines, which a reader of the page never sees as written: an admonition's
# marker ("!!! note", '??? tip "Title"': its title stays), and those of GENERATOR_LINE.
_ADMONITION = re.compile(r'^[ \t]*(?:!!!|\?\?\?\+?)[ \t]*[\w-]*(?:[ \t]+"([^"\n]*)")?[ \t]*$', re.M)
# A line of images alone, linked or not, inline or by reference: a README's badges, whose alt texts would run
# together into a sentence ("PyPI version Tests MIT License").
_IMAGES_LINE = re.compile(rf"^[ \t]*(?:(?:{IMAGE})[ \t]*)+$\n?", re.M)
# A table's delimiter row (its rows read as their cells), or a thematic break of three hyphens or more.
_TABLE_SEPARATOR = re.compile(rf"{DELIMITER_ROW}|^[ \t]*\|?[ \t:|-]*-{{3,}}[ \t:|-]*$", re.M)
# A sentence starts with a capital, a digit or a bullet, or with a name of code in lower case that reads as
# one: a path or a snake_case name ("…Python 3.11 or newer. bin/test first runs ruff", "…defaults. max_size
# caps the cache.").
_SENTENCE = re.compile(r"(?<=[.!?…])[\"'»”)]*\s+(?=[\"'«“(]?[A-ZА-ЯЁ0-9•-]|[a-z][\w.-]*[/_][\w./-]*[a-z0-9]\s)")
# Abbreviations a full stop follows without ending the sentence (lower case, without their last stop).
_ABBREVIATIONS = frozenset("""e.g i.e etc vs cf approx dr mr mrs ms jr sr fig
г гг род ум см ср т.е т.д т.п т.к др пр напр им ул стр рис тыс млн млрд руб коп""".split())
# A paragraph's last line, in a PDF's text without blank lines: at most this share of a full line of its
# block, not ending as a sentence does (it would be cut there anyway) nor with a hyphen or comma. A full
# line is the longest a sentence wraps at (followed by a line in lower case), not the longest line: a
# PDF's text may run a few lines of a page into one (a GOST standard's 267 characters among lines of
# 85-98), and against that one every wrapped line would look like a paragraph's last.
LAST_LINE_SHARE = 0.6
_QUOTED = 200  # characters within which the « » a full stop stands in must close for it to end no sentence
_ENDS = re.compile(r"[.!?…:;,\-–—(]$")
_STARTS = re.compile(r"[\"«“(]?[A-ZА-ЯЁ0-9]")
# A line opening with a clause's number, as a standard's or a contract's do: "2 ВНЕСЕН …", "3.1 Текст …", "б) …".
_CLAUSE = re.compile(r"(\d{1,2}(?:\.\d{1,2}){0,3})\.?[ \t]+[\"«“(]?[A-ZА-ЯЁ]|([а-яa-z])\)[ \t]")
_SENTENCE_END = re.compile(r"[.!?…:;][\"'»”)]*$")


def clean_text(text: str) -> str:
    """Markdown/HTML as plain text a customer can read (see the module docstring)."""
    text = _FENCE.sub("", text)
    text = _ADMONITION.sub(lambda match: f"{match.group(1)}\n" if match.group(1) else "", text)
    text = GENERATOR_LINE.sub("", text)
    text = _IMAGES_LINE.sub("", text)
    text = _tables_as_items(text) if "|" in text else text
    text = option_tables.as_items(text)
    text = _TABLE_SEPARATOR.sub("", text)
    text = HEADING.sub(r"\1", text)
    text = _CONTENTS_ITEM.sub("", text)
    text = _LINK_DEFINITION.sub("", text)
    # Code spans are literal: no tags, emphasis or escapes inside (`<h1>`, `*args`, `a_b_c`). (A tag dropped
    # from "`<h1>` и `<li>`" unpaired the backticks that came after it.)
    text = outside_code_spans(text, _markup_as_text, span=html.unescape)
    # "[3]" in a source, code or not, would read as our citation; gone with the space (or line break)
    # before it, so "Debian [3]." reads "Debian.", not "Debian .".
    text = _SOURCE_MARKER.sub("", text)
    # Table rows read as their cells; runs of spaces (and indentation) collapse.
    lines = [" ".join((line.replace("|", " ") if line.strip().startswith("|") else line).split())
             for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _tables_as_items(text: str) -> str:
    """Each pipe table (`tables.read_tables`: a header, its delimiter row, rows) as a list of its rows, one
    item a row, its cells joined by " — ": the rows of a table are what a sentence introducing it
    introduces ("The supported events are:"), and cells run together read as one long sentence. The
    header's names go: a row reads without them ("• preSubcommand — before parsing direct subcommand —
    (thisCommand, subcommand)")."""
    for table in reversed(read_tables(text)):
        text = text[:table.start] + "\n".join(_items(table.rows)) + text[table.end:]
    # The rows of a table a chunk holds without its header (the chunker cut the table at a row's end): as its items
    # too, not one "sentence" of every row's cells (express-rate-limit's options after the first chunk's).
    return _HEADERLESS_ROWS.sub(lambda match: "\n".join(_items(
        [split_cells(line) for line in match.group().strip("\n").split("\n")])) + "\n", text)


def _items(rows: list[list[str]]) -> list[str]:
    cells = [[" ".join(cell.split()) for cell in row] for row in rows]
    return ["• " + " — ".join(cell for cell in row if cell) for row in cells if any(row)]


def _markup_as_text(text: str) -> str:
    """Images and links as their text, HTML tags and comments, emphasis, quote marks and escapes gone,
    bullets as "• ", GitHub's alerts as "Note: …" (code spans are set aside)."""
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _REF_LINK.sub(r"\1", text)
    text = _FOOTNOTE_REF.sub("", text)  # "very easily[^stdlib], however": the note is elsewhere
    text = _AUTOLINK.sub(r"\1", text)
    text = _BR.sub("\n", text)
    text = _HARD_BREAK.sub("\n\n", text)
    text = _TAG.sub("", text)
    text = html.unescape(text)
    text = _COMMENT.sub("", text)
    text = without_emphasis(text)
    text = _ALERT.sub(lambda match: f"{match.group(1).capitalize()}: ", text)
    text = _QUOTE.sub("", text)
    text = _BULLET.sub("• ", text)
    return unescaped(text)


# A line a source wraps mid-sentence (a word or a comma, then a word in lower case: Markdown written at 80
# columns) is one line to a reader; a break after a colon or a full stop, or before a list item, stays.
_WRAPPED = re.compile(r"(?<=[\w,])\n(?=[a-zа-яё])")


def unwrapped(text: str) -> str:
    """Clean text with the lines its source wrapped mid-sentence joined (see `_WRAPPED`)."""
    return _WRAPPED.sub(" ", text)


def prose_without_code(text: str, *, commands: bool = False) -> str:
    """`text` without its fenced code blocks, which read as nothing a customer should be sent (JSON, shell).

    With `commands`, a block whole in `text` stays when it is short (`code_blocks.quoted_block`): the extract may
    show it after the sentence that introduces it ("…on the command line:"); a longer one is a
    CODE_LEFT_OUT paragraph, so the sentence leading into it ("Thus, the following text") is known to be
    cut short.

    A chunk may start or end inside a block. A fence with an info string (```json) opens one; a
    bare fence closes one, or opens one when nothing is open. With an odd number of fences, one end
    of the chunk is inside a block: the end an opening fence points to, else the end that looks
    more like code.
    """
    if commands:
        text = introduced_commands(text)
    fences = list(_FENCE.finditer(text))
    if not fences:
        return text
    opens = [bool(_FENCE_INFO.match(fence.group(0)).group(1)) for fence in fences]
    if len(fences) % 2 == 0:
        inside = not opens[0] and opens[1]  # a bare fence and then an opening one: the first closed a block
    elif opens[0] or opens[-1]:
        inside = False
    else:
        inside = code_likeness(text[:fences[0].start()]) > code_likeness(text[fences[-1].end():])
    kept, start = [], 0
    for fence in fences:
        if not inside:
            kept.append(text[start:fence.start()])
        elif start > 0:  # a block opened and closed by fences in this text
            code = text[start:fence.start()]
            if commands:
                kept.append(quoted_block(code))
            if members := _members_as_items(code) or option_tables.items(code):
                kept.append(members)
        inside, start = not inside, fence.end()
    if not inside:
        kept.append(text[start:])
    return "\n".join(kept)


def _members_as_items(code: str) -> str:
    """The members a block of code documents (`documented_members`: an options object written as code, each option
    under its comment) as a Markdown list read after it, "" when it documents none: what ini's `stringify` options
    do is said only in their comments, and a question asking what one does was refused."""
    members = documented_members(code)
    # Written as the code has it: "converts html entities to unicode (foo &amp; bar -> foo-bar)" is no entity to read.
    return "\n\n" + "\n".join(f"- `{name}`: {said.replace('&', '&amp;')}" for name, said in members) + "\n\n" \
        if members else ""


def sentences(text: str) -> list[str]:
    """Sentences and list items of clean text, each on one line: a bullet ("• ") or a numbered step
    ("1.", "2)") starts an item of its own, its number kept with it.

    A full stop does not end a sentence after an initial ("J. R. R. Tolkien", "А. С. Пушкин") or a
    common abbreviation ("e.g.", "род.", "см."), nor inside brackets that close later on
    ("Голикова (род. 9 февраля 1966)"), nor inside « » that close soon after.

    A line of a paragraph much shorter than a full line of it, followed by one that starts a sentence, ends
    it (`_LAST_LINE`): a PDF's text has no blank lines, and its headings ("7.3 Оформление текста") and
    paragraphs ending without a full stop would otherwise run on into the next sentence. So does a
    line followed by a clause's number ("2 ВНЕСЕН …", "3.1 …", "б) …") when it ends a sentence or
    the clause before it has the number before ("1 РАЗРАБОТАН …", each a full line of front matter)."""
    out = []
    blocks = re.split(r"\n\s*\n|\n(?=• |\d{1,3}[.)] )", text)
    for paragraph in (paragraph for lines in blocks for paragraph in _paragraphs(lines)):
        block = " ".join(paragraph.split())
        start = 0
        for match in _SENTENCE.finditer(block):
            if _ends_sentence(block[start:match.start()], block[match.end():]):
                out.append(block[start:match.start()].strip())
                start = match.end()
        out.append(block[start:].strip())
    return [sentence for sentence in out if len(sentence) > 1]


def _paragraphs(block: str) -> list[str]:
    """A block of lines cut after each line that ends a paragraph: one of at most LAST_LINE_SHARE of
    a full line of the block (of three lines or more, `_full_line`), without a sentence's end,
    followed by a line that starts a sentence; or a line followed by a clause of its own (`_opens_clause`)."""
    lines = block.split("\n")
    if len(lines) < 2:
        return [block]
    full = _full_line([line.strip() for line in lines])
    clauses = [_clause_number(line) for line in lines]
    paragraphs, start, last = [], 0, None  # last: the number of the clause the lines so far are in
    for at in range(len(lines) - 1):
        line, last = lines[at].strip(), clauses[at] or last
        ends = (len(lines) > 2 and line and len(line) <= LAST_LINE_SHARE * full and not _ENDS.search(line)
                and _STARTS.match(lines[at + 1].strip()))
        if ends or _opens_clause(line, clauses[at + 1], last):
            paragraphs.append("\n".join(lines[start:at + 1]))
            start = at + 1
    return [*paragraphs, "\n".join(lines[start:])]


def _full_line(lines: list[str]) -> int:
    """The length of a full line of the block (see LAST_LINE_SHARE): the longest a sentence wraps at, else
    the longest line."""
    wrapped = [len(line) for line, after in zip(lines, lines[1:])
               if after[:1].islower() and line and not _ENDS.search(line)]
    return max(wrapped or [len(line) for line in lines])


def _clause_number(line: str) -> tuple | None:
    """The number a line opens with as a clause does: (2,), (3, 1), ("б",); None for other lines."""
    match = _CLAUSE.match(line.strip())
    if not match:
        return None
    return (match[2],) if match[2] else tuple(int(part) for part in match[1].split("."))


def _opens_clause(line: str, number: tuple | None, last: tuple | None) -> bool:
    """Whether the line after `line`, opening with clause `number`, starts a clause of its own: `line`
    ends a sentence ("…включает:" and "а) …"), or `number` comes next after `last`, the clause before
    ("2 ВНЕСЕН …" after "1 РАЗРАБОТАН … «Российская государственная библиотека»", lines of a standard's
    front matter that end without a full stop). A wrapped line of a sentence that starts with a number is
    neither ("…по ГОСТ Р\n7.0.5 Библиографическая ссылка…")."""
    if number is None:
        return False
    if _SENTENCE_END.search(line):
        return True
    if last is None or isinstance(number[0], str) != isinstance(last[0], str):
        return False
    if isinstance(number[0], str):
        return 0 < ord(number[0]) - ord(last[0]) <= 2  # the letters a list skips (ё, з, й, о …)
    depth = len(number) - 1
    return number == (*last, 1) or (depth < len(last) and number[:depth] == last[:depth]
                                      and number[depth] == last[depth] + 1)


def _ends_sentence(before: str, after: str) -> bool:
    """Whether the full stop (or ! ? …) at the end of `before` ends a sentence, `after` following it."""
    if _NUMBER.fullmatch(before.strip()):
        return False  # the number of a step ("1. Unplug the router.")
    if before.count("(") > before.count(")") and ")" in after:
        return False
    if before.count("«") > before.count("»") and "»" in after[:_QUOTED]:
        return False  # a title quoted: «Стандартизация в Российской Федерации. Основные положения»
    if before.rstrip().endswith(("...", "…")) and after.lstrip()[:1].isdigit():
        return False  # a sequence elided: "00, 01, 02 ... 23, 24"
    last = before.split()[-1] if before.split() else ""
    if not last.rstrip("\"'»”)").endswith("."):
        return True
    word = last.rstrip("\"'»”)")[:-1].lstrip("(«\"'“").lower()
    previous = before.split()[-2] if len(before.split()) > 1 else ""
    if word in ("г", "гг") and any(character.isdigit() for character in previous):
        return True  # a year's "г." ("с 1 июля 1996 г. Ссылки …", "в 1990-х гг."), not a town's ("в г. Москва")
    return not ((len(word) == 1 and word.isalpha()) or word in _ABBREVIATIONS)


def quotable_text(content: str) -> str:
    """A chunk's text as an extract quotes from it: clean, without headings or code, short commands marked
    (a heading right over one kept, marked HEADING_INTRO, as the line introducing it)."""
    text = prose_without_code(content, commands=True)
    text = _HEADING_OVER_COMMAND.sub(lambda match: f"{HEADING_INTRO}{match.group(1)}:\n", text)
    # A chunk that opens inside a link ("FastAPI](https://…)) where …": the link's tail is no text of its
    # own, and what follows it is the rest of a sentence the chunk's start cut.
    return clean_text(_LINK_TAIL.sub("", _HEADING_LINE.sub("", text).lstrip(), count=1))
