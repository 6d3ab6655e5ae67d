"""Text read from PDF pages and scans, tidied into the portal's Markdown-flavoured text.

A text layer or an OCR'd page is plain text laid out on paper, not Markdown, so `tidy_pages()`:

* leaves out running headers and footers: lines among the first or last `EDGE_LINES` of a page that
  recur at that edge on at least half of the pages, compared without spaces and with numbers made
  equal ("ГОСТ 2 .1 0 5 -9 5" beside "ГОСТ 2.105-95", "Page 3" beside "Page 4"); short lines without
  letters (page numbers, printers' marks like "9- 1 -1 9 2 4 7") count as one line for this. When most
  of a recurring line's copies carry a page number ("Guide ii", "Guide 7 / 63"), a copy without one is
  the title they repeat, on its title page, and stays.
  A running head that names the current chapter or section changes with it ("4 1.1. TOPOLOGISCHE
  RÄUME", "26 2.1. TOPOLOGISCHE MANNIGFALTIGKEITEN"): the outermost line at an edge that starts or
  ends with the page's printed number — the PDF page number plus the offset most pages agree on, on
  at least half of them — goes too. So does a head without a page number that names the chapter and
  section ("ГЛАВА 3. ВЫБОР ДИСТРИБУТИВА DEBIAN 3.1. КАКОЙ …"): the line at an edge that is like the
  one on the page before or after (the same, or the same chapter first), when at least half of the pages
  have one, and a chapter's lone head that opens with the word (case kept) all of them open with; not on
  the first page, whose title the next page may repeat. A page number read off a line's key may be
  Roman ("Guide ii" in the front matter is the body's "Guide 1 / 63");
* rejoins words hyphenated across lines and pages: always after a soft hyphen; after a hyphen when
  the joined word occurs elsewhere in the document, when neither piece does, or when the only piece
  that does is a short word that is no compound's particle (so "необхо-" + "димости" and "со-" +
  "провождаемых" join, while "научно-" + "исследовательским", "какой-" + "то" or "по-" + "русски"
  keep their hyphen);
* spells out the Latin ligatures fonts set as one glyph ("ﬁ", "ﬀ", "ﬃ" in "Deﬁnition", "Begriﬀ"), so the
  words are found as typed, and leaves out a font's private glyphs (icons, flags: code points of the
  Private Use Areas, which mean nothing outside the font), its list bullets read as "•";
* neutralises Markdown: a line starting with `#` or a code fence gets a backslash, so a shell
  comment is not taken for a heading. The PDF reader emits no structure of its own, so every such
  line is the document's text.

`join_pages()` joins page texts with a blank line and maps offsets to page numbers.
"""

import os
import re
import unicodedata
from collections import Counter

EDGE_LINES = 2
RUNNING_SHARE = 0.5
MIN_RUNNING_PAGES = 3
MAX_RUNNING_CHARS = 120
MAX_NUMBERS_CHARS = 12
NUMBERS_ONLY = "\x00numbers"
MIN_SHARED_PREFIX = 12  # characters, without spaces, that a section's running heads share (its chapter)
FAMILY_SHARE = 0.8

_SPACES = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+")
# A Roman page number opening or closing a line (front matter's "ii"), read as a number.
_ROMAN = re.compile(r"(?=[ivxlcdm])m{0,3}(?:c[md]|d?c{0,3})(?:x[cl]|l?x{0,3})(?:i[xv]|v?i{0,3})", re.IGNORECASE)
# A page number ("0", "0/0", "0of0" once spaces are gone and numbers made 0) at either end of a key.
_PAGE_NUMBER = re.compile(r"^0(?:/0|of0|из0)?|0(?:/0|of0|из0)?$")
_SOFT_HYPHEN = re.compile(r"\u00ad[^\S\n]*\n?[^\S\n]*(?=\w)")
_LETTERS = r"[^\W\d_]"
# A word cut at a line end: letters, a hyphen, the line break, and a word starting lower-case.
_HYPHENATED = re.compile(rf"(?<![\w-])({_LETTERS}+)-[^\S\n]*\n[^\S\n]*(?=[a-zа-яё])({_LETTERS}+)")
_WORD = re.compile(rf"{_LETTERS}+(?:-{_LETTERS}+)*")
_MARKDOWN_START = re.compile(r"^( {0,3})(#|`{3}|~{3})", re.M)
# The Russian particles that open or close hyphenated compounds ("кое-как", "какой-то"), and the
# prefixes that take a hyphen only before some endings: "по-русски", "по-новому", "по-волчьи",
# "во-первых" (but "подробно", "вовремя").
_COMPOUND_OPENERS = {"кое", "кой", "с"}
_COMPOUND_CLOSERS = {"то", "либо", "нибудь", "ка", "таки", "де"}
_HYPHENATED_PREFIXES = {"по": ("ски", "цки", "ому", "ему", "ьи"), "во": ("ых", "их")}
# U+FB00–U+FB06: ff, fi, fl, ffi, ffl, long s t, st.
LIGATURES = {code: unicodedata.normalize("NFKC", chr(code)) for code in range(0xFB00, 0xFB07)}
# A font's private glyphs (Private Use Areas) mean nothing outside the font: an icon, a flag. The list
# bullets of the Symbol and Wingdings fonts, which office PDFs keep there, read as a bullet.
_PRIVATE = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"
_PRIVATE_BULLETS = "\uf0b7\uf0a7\uf0d8\uf076\uf0fc\uf06c\uf0a8\uf0de"
_PRIVATE_GLYPH = re.compile(f"[{_PRIVATE}]")
# A line of nothing but private glyphs other than bullets goes whole, not left as a blank line.
_PRIVATE_LINE = re.compile(f"^[^\\S\\n]*(?:(?![{_PRIVATE_BULLETS}])[{_PRIVATE}][^\\S\\n]*)+(?:\\n|$)", re.M)


def tidy_pages(texts: dict[int, str]) -> dict[int, str]:
    """Page texts without running headers and footers, with hyphenated words rejoined and
    Markdown syntax escaped (see the module docstring)."""
    texts = {number: _SOFT_HYPHEN.sub("", _public_glyphs(text.translate(LIGATURES))) for number, text in texts.items()}
    texts = drop_running_lines(texts)
    words = _vocabulary(texts)
    texts = {number: _HYPHENATED.sub(lambda m: _rejoin(m, words), text) for number, text in texts.items()}
    texts = _join_across_pages(texts, words)
    return {number: escape_markdown(text.replace("\u00ad", "")).strip() for number, text in texts.items()}


def _public_glyphs(text: str) -> str:
    """The text without a font's private glyphs, its private list bullets read as "•"."""
    text = _PRIVATE_LINE.sub("", text)
    return _PRIVATE_GLYPH.sub(lambda m: "•" if m.group() in _PRIVATE_BULLETS else "", text)


def join_pages(texts: dict[int, str]) -> tuple[str, list[tuple[int, int]]]:
    """The non-empty page texts in page order joined by a blank line, and `(offset, page number)` pairs."""
    parts: list[str] = []
    pages: list[tuple[int, int]] = []
    offset = 0
    for number in sorted(texts):
        text = texts[number].strip()
        if not text:
            continue
        if parts:
            offset += 2  # the blank line that joins pages
        pages.append((offset, number))
        parts.append(text)
        offset += len(text)
    return "\n\n".join(parts), pages


def escape_markdown(text: str) -> str:
    """Backslash-escape a `#` or a code fence opening a line, so plain text reads as no heading or code block."""
    return _MARKDOWN_START.sub(lambda m: m.group(1) + "\\" + m.group(2), text)


def drop_running_lines(texts: dict[int, str]) -> dict[int, str]:
    """Page texts without the lines at their top or bottom that recur there on at least half of the pages."""
    with_text = [number for number, text in texts.items() if text.strip()]
    if len(with_text) < MIN_RUNNING_PAGES:
        return texts
    seen: Counter[tuple[str, str]] = Counter()
    numbered: Counter[tuple[str, str]] = Counter()  # of those, the lines that carry a page number
    for number in with_text:
        # A page number is the outermost line; a row of numbers further in is more likely a table's.
        found = {
            (_at(edge, key), _carries_number(texts[number], index))
            for edge, lines in _edges(texts[number]).items()
            for position, (index, key) in enumerate(lines)
            if key is not None and (key != NUMBERS_ONLY or position == 0)
        }
        seen.update(edge_key for edge_key, _ in found)
        numbered.update(edge_key for edge_key, carries in found if carries)
    least = max(MIN_RUNNING_PAGES, RUNNING_SHARE * len(with_text))
    running = {edge_key for edge_key, count in seen.items() if count >= least}
    # A head that numbers the pages it runs on ("Guide ii", "Guide 7 / 63") repeats a title: the line without
    # a number that it matches is that title, on its title page, and stays.
    titles = {edge_key for edge_key in running if numbered[edge_key] >= RUNNING_SHARE * seen[edge_key]}
    numbered = _numbered_heads(texts, with_text, least)
    sectioned = _section_heads(texts, with_text, least, running)
    if not running and not numbered and not sectioned:
        return texts
    kept = {}
    for number, text in texts.items():
        drop = set(numbered.get(number, ())) | set(sectioned.get(number, ()))
        for edge, lines in _edges(text).items():
            # Peeled from the edge inwards: a recurring line behind a line of the page's own stays.
            for index, key in lines:
                if _at(edge, key) not in running or (_at(edge, key) in titles and not _carries_number(text, index)):
                    break
                drop.add(index)
        kept[number] = "\n".join(line for index, line in enumerate(text.split("\n")) if index not in drop)
    return kept


def _numbered_heads(texts: dict[int, str], with_text: list[int], least: float) -> dict[int, list[int]]:
    """{page: [line index]} of the outermost top or bottom lines that start or end with the page's
    printed number, when at least `least` pages agree on how it follows the PDF page numbers."""
    found: dict[tuple[str, int], dict[int, int]] = {}  # (edge, printed − PDF page) → {page: line index}
    for number in with_text:
        lines = [(index, line) for index, line in enumerate(texts[number].split("\n")) if line.strip()]
        for edge, (index, line) in (("top", lines[0]), ("bottom", lines[-1])):
            words = line.split()
            if len(line) > MAX_RUNNING_CHARS or len(words) < 2:
                continue  # a bare page number is a running line already
            for word in (words[0], words[-1]):
                if word.isdigit() and len(word) <= 4:
                    found.setdefault((edge, int(word) - number), {})[number] = index
    heads: dict[int, list[int]] = {}
    for pages in found.values():
        if len(pages) >= least:
            for number, index in pages.items():
                heads.setdefault(number, []).append(index)
    return heads


def _section_heads(texts: dict[int, str], with_text: list[int], least: float,
                   running: set) -> dict[int, list[int]]:
    """{page: [line index]} of the top or bottom lines, past the running ones, that repeat the current
    chapter or section title without a page number ("ГЛАВА 3. ВЫБОР ДИСТРИБУТИВА DEBIAN 3.1. КАКОЙ …").

    Such a line is like the one at the same edge of the page before or after it: the same, or the same
    for its first `MIN_SHARED_PREFIX` characters (the chapter, then another section). When at least
    `least` pages have one, those lines go, and so does the line at that edge of a chapter's only page
    of heads when it opens with the word (case kept) that opens nearly all of them and no other line."""
    heads: dict[int, list[int]] = {}
    for edge in ("top", "bottom"):
        found = {}  # page → (line index, key, first word)
        for number in sorted(with_text)[1:]:  # a title page's title is no head, even when the next page repeats it
            inner = [(index, key) for index, key in _edges(texts[number])[edge] if _at(edge, key) not in running]
            if inner and inner[0][1] not in (None, NUMBERS_ONLY):
                index, line = inner[0][0], texts[number].split("\n")[inner[0][0]]
                # Case and page number kept: a chapter's title on its first page ("Inhaltsverzeichnis") is
                # set apart from the heads after it ("2 Inhaltsverzeichnis", "iv INHALTSVERZEICHNIS").
                key = _DIGITS.sub("0", _SPACES.sub("", line))
                found[number] = (index, key, _DIGITS.sub("0", line.split()[0]))
        alike = [number for number, (_, key, _) in found.items()
                 if any(_alike(key, found[other][1]) for other in (number - 1, number + 1) if other in found)]
        if len(alike) < least:
            continue
        words = Counter(found[number][2] for number in alike)
        word, count = words.most_common(1)[0]
        if count < FAMILY_SHARE * len(alike) or _opens_other_lines(texts, found, word):
            word = None
        for number, (index, _, first) in found.items():
            if number in alike or first == word:
                heads.setdefault(number, []).append(index)
    return heads


def _alike(key: str, other: str) -> bool:
    shared = len(os.path.commonprefix([key, other]))
    return key == other or shared >= MIN_SHARED_PREFIX


def _opens_other_lines(texts: dict[int, str], found: dict, word: str) -> bool:
    """Whether `word` opens a line of the text other than the heads found."""
    return any(
        line.split()[0] == word or _DIGITS.sub("0", line.split()[0]) == word
        for number, text in texts.items()
        for index, line in enumerate(text.split("\n"))
        if line.strip() and (number not in found or found[number][0] != index)
    )


def _edges(text: str) -> dict[str, list[tuple[int, str | None]]]:
    """The first and the last `EDGE_LINES` non-blank lines of a page, outermost first, as
    `(line index, key)`."""
    lines = [(index, _line_key(line)) for index, line in enumerate(text.split("\n")) if line.strip()]
    return {"top": lines[:EDGE_LINES], "bottom": lines[::-1][:EDGE_LINES]}


def _at(edge: str, key: str | None) -> tuple[str, str | None]:
    """A line's key as counted: numbers at the top and at the bottom apart, as a header may turn footer."""
    return (edge if key == NUMBERS_ONLY else "", key)


def _carries_number(text: str, index: int) -> bool:
    """Whether line `index` of `text` opens or closes with a number its key leaves out (a page number)."""
    line = text.split("\n")[index]
    return _line_key(line) != _DIGITS.sub("0", _SPACES.sub("", line).lower())


def _line_key(line: str) -> str | None:
    """What a line is compared by: without spaces, lower-cased, numbers made equal, a page number at its
    start or end left out (Roman or Arabic, "3 / 63" too, so front matter's "Guide ii" is the body's
    "Guide 1 / 63"); None when too long."""
    words = line.split()
    if words and _ROMAN.fullmatch(words[0]):
        line = line.replace(words[0], "0", 1)
    if len(words) > 1 and _ROMAN.fullmatch(words[-1]):
        line = line[:line.rindex(words[-1])] + "0"
    squeezed = _SPACES.sub("", line).lower()
    if not any(char.isalpha() for char in squeezed):
        # Page numbers and printers' marks differ on every page; a longer row of numbers is a table's.
        return NUMBERS_ONLY if len(squeezed) <= MAX_NUMBERS_CHARS else None
    return _PAGE_NUMBER.sub("", _DIGITS.sub("0", squeezed)) if len(squeezed) <= MAX_RUNNING_CHARS else None


def _vocabulary(texts: dict[int, str]) -> set[str]:
    """The lower-cased words of the document, leaving out the pieces of words cut at line and page ends."""
    words: set[str] = set()
    for word in _WORD.findall(_HYPHENATED.sub(" ", "\n".join(texts[number] for number in sorted(texts)))):
        # The parts of a compound count as words too: "научно-технические" makes "научно-" a word end.
        words.update([word.lower(), *word.lower().split("-")])
    return words


def _rejoin(match: re.Match, words: set[str]) -> str:
    left, right = match.group(1), match.group(2)
    if _one_word(left, right, words):
        return left + right
    return match.group(0)


def _one_word(left: str, right: str, words: set[str]) -> bool:
    """Whether `left-` at a line end and `right` after it are one word split by hyphenation."""
    joined = (left + right).lower()
    if joined in words:
        return True
    if f"{left}-{right}".lower() in words:
        return False
    if _compound(left.lower(), right.lower()):
        return False  # "по-" + "русски", "кое-" + "где", "какой-" + "то"
    left_is_word, right_is_word = left.lower() in words, right.lower() in words
    if left_is_word != right_is_word:
        # A short word on one side only ("со-" + "провождаемых", "зарезервирова-" + "но") is more
        # likely a prefix or an ending cut off than half of a compound.
        return len(left if left_is_word else right) <= 3
    return not left_is_word


def _compound(left: str, right: str) -> bool:
    """Whether lower-cased `left` and `right` are the parts of a compound Russian spells with a hyphen."""
    if left in _COMPOUND_OPENERS or right in _COMPOUND_CLOSERS:
        return True
    endings = _HYPHENATED_PREFIXES.get(left)
    return endings is not None and right.endswith(endings)


def _join_across_pages(texts: dict[int, str], words: set[str]) -> dict[int, str]:
    """Move the rest of a word hyphenated at the end of a page back to that page."""
    numbers = sorted(texts)
    for before, after in zip(numbers, numbers[1:]):
        end = re.search(rf"({_LETTERS}+)(\u00ad|-)\s*\Z", texts[before])
        start = re.match(r"\s*([a-zа-яё][^\W\d_]*)", texts[after])
        if not end or not start or after != before + 1:
            continue
        if end.group(2) == "\u00ad" or _one_word(end.group(1), start.group(1), words):
            texts[before] = texts[before][:end.start(2)] + start.group(1)
            texts[after] = texts[after][start.end():].lstrip()
    return texts
