"""Text formats: Markdown with YAML frontmatter, plain text and logs, CSV."""

import codecs
import csv
import datetime
import io
import math
import re
from pathlib import Path

import charset_normalizer
import yaml
from django.utils.formats import number_format
from django.utils.translation import gettext

from knowledge.documents import ParsedDocument
from knowledge.exceptions import FileTooLargeError, ParseError
from knowledge.indexing.markdown import (
    fenced_lines,
    first_heading,
    list_fences,
    outside_code_spans,
    scan,
    setext_headings,
    summary_headings,
)
from knowledge.indexing.myst import markdown_as_read
from knowledge.indexing.rst import rst_as_markdown

# UTF-32 before UTF-16: the UTF-32-LE mark starts with the UTF-16-LE one.
BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# Text in UTF-16 or UTF-32 is full of NUL bytes; its BOM tells it from a binary file.
WIDE_BOMS = tuple(bom for bom, encoding in BOMS if encoding in ("utf-16", "utf-32"))
# Also matched on raw text from other callers, hence the optional BOM and CR.
FRONTMATTER = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)^---[ \t]*\r?$\n?", re.S | re.M)
# MDX heading anchors as written on react.dev (`## Title {/*title*/}`) and Pandoc's `{#id}`.
HEADING_ANCHOR = re.compile(r"\s*\{(?:/\*.*?\*/|#[\w:-]+)\}\s*$")
# A line that is only an MDX component tag (`<Intro>`, `</Sandpack>`, `<Recipes titleText="…">`).
MDX_TAG_LINE = re.compile(r"^</?[A-Z][\w.]*(?:\s[^<>]*)?/?>\s*$")
# An MDX component wrapping words within a line (`<CodeStep step={1}>setup code</CodeStep>`, react.dev's
# `<Math><MathI>y</MathI> = 2</Math>`): its words are the text. Not in code spans (`<Suspense>a</Suspense>`).
MDX_INLINE = re.compile(r"<([A-Z][\w.]*)(?:\s[^<>]*)?>(.*?)</\1>")
# An RST/setext adornment line: one punctuation character repeated.
ADORNMENT = re.compile(r"^([=\-~^\"'`#*+_:.])\1{2,}\s*$")
# A numbered section heading's first line: "Глава 1.", "Chapter IV: Setup", "1. Title", "1.2. Title", "1.2 Title".
NUMBERED_HEADING = re.compile(
    r"^(?:(?i:глава|часть|раздел|приложение|chapter|part|section|appendix)\s+"
    r"(?P<chapter>\d{1,3}(?:\.\d{1,3})*|[IVXLC]{1,6}|[A-ZА-Я])\b\.?"
    r"|(?P<number>\d{1,3}(?:\.\d{1,3})*\.|\d{1,3}(?:\.\d{1,3})+)(?=\s))"
    r"(?:[\s:.—–-]+(?P<title>\S.*))?$"
)
MAX_HEADING_LINES = 3
MAX_HEADING_CHARS = 200
CSV_DELIMITERS = ",;\t|"
NON_ASCII = re.compile("[^\x00-\x7f\ufffd]")
MAX_FRONTMATTER_CHARS = 64 * 1024
# charset-normalizer reads this much of a file that is not UTF-8: enough to tell the encodings apart.
ENCODING_SAMPLE_BYTES = 1024 * 1024
# The 8-bit encodings Russian and Western European text files really come in; a free choice among
# all of them lets short files come out as Shift-JIS or cp1250 (where "à" reads "ŕ").
LEGACY_ENCODINGS = ["cp1251", "koi8_r", "cp866", "iso8859_5", "cp1252"]


def looks_binary(head: bytes) -> bool:
    """Whether the first bytes of a file look like binary data rather than text."""
    if any(head.startswith(bom) for bom, _ in BOMS):
        return False
    return b"\x00" in head


def decode_text(data: bytes) -> str:
    """Decode text bytes in the encoding `detect_encoding` finds."""
    return _newlines(data.decode(detect_encoding(data), errors="replace"))


def detect_encoding(data: bytes) -> str:
    """A BOM wins, then UTF-8 (a few mangled bytes allowed), then charset-normalizer's guess
    (cp1251, KOI8-R, cp866, Western encodings), then cp1251 for Cyrillic-looking bytes or cp1252."""
    for bom, encoding in BOMS:
        if data.startswith(bom):
            return encoding
    try:
        data.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    lenient = data.decode("utf-8", errors="replace")
    # A long UTF-8 file with a few mangled bytes (a log with one bad line) is still UTF-8.
    errors = lenient.count("\ufffd")
    if errors <= max(1, len(data) // 10_000) and NON_ASCII.search(lenient):
        return "utf-8"
    best = charset_normalizer.from_bytes(data[:ENCODING_SAMPLE_BYTES], cp_isolation=LEGACY_ENCODINGS).best()
    if best is not None:
        return codecs.lookup(best.encoding).name
    if _looks_cyrillic(data):
        return "cp1251"
    try:
        data.decode("cp1252")
        return "cp1252"
    except UnicodeDecodeError:
        return "latin-1"


def parse_markdown(path: Path) -> ParsedDocument:
    """Markdown: frontmatter split off into metadata, MyST's markup and reference links read as plain
    CommonMark (`knowledge.indexing.myst`), MDX noise dropped, title found."""
    raw = decode_text(path.read_bytes())
    body, frontmatter = split_frontmatter(raw)
    body = clean_markdown(markdown_as_read(summary_headings(setext_headings(list_fences(body)))))
    title = frontmatter.get("title") if frontmatter else None
    if not isinstance(title, str) or not title.strip():
        title = first_heading(body) or path.stem
    metadata = {"frontmatter": frontmatter} if frontmatter else {}
    return ParsedDocument(text=body.strip(), title=title.strip(), mime="", metadata=metadata)


def parse_rst(path: Path) -> ParsedDocument:
    """reStructuredText, read as Markdown (`knowledge.indexing.rst`): sections, code blocks, links."""
    body = clean_markdown(rst_as_markdown(decode_text(path.read_bytes())))
    return ParsedDocument(text=body.strip(), title=first_heading(body) or path.stem, mime="")


def split_frontmatter(text: str) -> tuple[str, dict]:
    """Split a leading `---` YAML block off; a block that is not a YAML mapping stays as text."""
    match = FRONTMATTER.match(text)
    if not match or len(match.group(1)) > MAX_FRONTMATTER_CHARS:
        return text, {}
    try:
        # Aliases let a few lines expand into millions of nodes once copied into JSON (or refer
        # to themselves); real frontmatter never needs them.
        if any(isinstance(event, yaml.AliasEvent) for event in yaml.parse(match.group(1), yaml.SafeLoader)):
            return text, {}
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError:
        return text, {}
    if data is None:
        return text[match.end():], {}
    if not isinstance(data, dict):
        # e.g. a document that opens with a `---` rule and prose: not frontmatter.
        return text, {}
    return text[match.end():], _json_safe(data)


def clean_markdown(text: str) -> str:
    """Drop MDX component tag lines, heading anchors and repeated blank lines outside code fences."""
    lines: list[str] = []
    fenced = fenced_lines(text)
    for number, line in enumerate(text.split("\n")):
        if number not in fenced:
            if MDX_TAG_LINE.match(line):
                continue
            if "</" in line:
                line = outside_code_spans(line, _without_inline_mdx)
            if line.startswith("#"):
                line = HEADING_ANCHOR.sub("", line)
            if not line.strip():
                if lines and not lines[-1]:
                    continue
                line = ""
        lines.append(line)
    return "\n".join(lines)


def _without_inline_mdx(text: str) -> str:
    """`text` with its inline MDX components replaced by their content, nested ones too (see MDX_INLINE)."""
    while (unwrapped := MDX_INLINE.sub(r"\2", text)) != text:
        text = unwrapped
    return text


def parse_plain(path: Path, *, headings: bool) -> ParsedDocument:
    """Plain text or a log; with `headings`, RST/setext underlined titles become `#` lines, or else
    numbered section headings ("1.2. Title", "Глава 3") do."""
    text = decode_text(path.read_bytes())
    title = ""
    if headings:
        text = underline_headings(text)
        title = first_heading(text)
        if not scan(text)[0]:
            # A chapter's title is not the document's: the title is taken before these headings.
            text = numbered_headings(text)
    return ParsedDocument(text=text.strip(), title=title or path.stem, mime="")


def numbered_headings(text: str) -> str:
    """Turn numbered section headings into Markdown `#` headings, one level per number part.

    A heading is a paragraph of its own (blank lines around it) of at most `MAX_HEADING_LINES`
    unindented lines and `MAX_HEADING_CHARS` characters, opening with "1.", "1.2." or "1.2" and a
    title that starts with no lower-case letter and does not end like a sentence or a list item
    (`.` `,` `;` `:`), or with "Глава", "Chapter", "Section", "Part", … and a number. So a numbered
    list inside a paragraph, or one of sentences, stays text.
    """
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        end = i
        while end < len(lines) and lines[end].strip() and end - i < MAX_HEADING_LINES + 1:
            end += 1
        level = _heading_level(lines[i:end]) if (i == 0 or not lines[i - 1].strip()) else 0
        if level and (end == len(lines) or not lines[end].strip()):
            out.append("#" * min(level, 6) + " " + " ".join(line.strip() for line in lines[i:end]))
            i = end
        else:
            out.append(lines[i])
            i += 1
    return "\n".join(out)


def _heading_level(paragraph: list[str]) -> int:
    """The level of the numbered heading `paragraph` is, or 0 when it is not one."""
    if not paragraph or len(paragraph) > MAX_HEADING_LINES or sum(map(len, paragraph)) > MAX_HEADING_CHARS:
        return 0
    if any(line[:1].isspace() for line in paragraph):
        return 0
    match = NUMBERED_HEADING.match(paragraph[0].rstrip())
    if not match or any(NUMBERED_HEADING.match(line) for line in paragraph[1:]):
        return 0
    number = match.group("chapter") or match.group("number")
    title = " ".join([match.group("title") or "", *paragraph[1:]]).strip()
    if not title and match.group("chapter") is None:
        return 0
    if title and (title[0].islower() or title[-1] in ".,;:"):  # "Section 2 describes the setup."
        return 0
    return number.rstrip(".").count(".") + 1 if number[0].isdigit() else 1


def underline_headings(text: str) -> str:
    """Turn RST/setext headings (`Title` over `=====`) into Markdown `#` headings."""
    lines = text.split("\n")
    # As in RST, levels follow the order in which adornment styles first appear.
    styles: list[str] = []
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        following = lines[i + 1] if i + 1 < len(lines) else ""
        after = lines[i + 2] if i + 2 < len(lines) else ""
        if (ADORNMENT.match(line) and following.strip() and not ADORNMENT.match(following)
                and after.rstrip() == line.rstrip() and len(following.strip()) <= len(line.strip())):
            style, title, i = "over" + line.strip()[0], following.strip(), i + 3
        elif (line.strip() and not ADORNMENT.match(line) and ADORNMENT.match(following)
                and (i == 0 or not lines[i - 1].strip()) and len(line.strip()) <= 120):
            style, title, i = following.strip()[0], line.strip(), i + 2
        else:
            out.append(line)
            i += 1
            continue
        if style not in styles:
            styles.append(style)
        out.append("#" * min(styles.index(style) + 1, 6) + " " + title)
    return "\n".join(out)


def parse_csv(path: Path, *, max_chars: int) -> ParsedDocument:
    """CSV (any of `,;\t|`, any encoding `decode_text` knows): a Markdown pipe table under the
    detected header row (`knowledge.indexing.tables.table_lines`)."""
    from knowledge.indexing.tables import table_lines

    text = decode_text(path.read_bytes())
    try:
        dialect = csv.Sniffer().sniff(text[:65536], delimiters=CSV_DELIMITERS)
    except csv.Error:
        dialect = csv.excel
    lines: list[str] = []
    size = 0
    reader = csv.reader(io.StringIO(text), dialect)
    try:
        for line in table_lines(reader):
            lines.append(line)
            size += len(line) + 1
            if size > max_chars:
                raise text_too_long(path.name, max_chars)
    except csv.Error as exc:
        raise ParseError(gettext("%(name)s: malformed CSV near line %(line)d (%(error)s)")
                         % {"name": path.name, "line": reader.line_num, "error": exc}) from exc
    return ParsedDocument(text="\n".join(lines), title=path.stem, mime="")


def text_too_long(name: str, max_chars: int) -> FileTooLargeError:
    """The error for a file whose extracted text is over the character limit."""
    return FileTooLargeError(
        gettext("%(name)s holds more than %(count)s characters of text; split it into smaller files")
        % {"name": name, "count": number_format(max_chars, force_grouping=True)}
    )


def password_protected(name: str) -> ParseError:
    """The error for an encrypted file, whatever its format."""
    return ParseError(gettext("%(name)s is password-protected; remove the password and upload it again")
                      % {"name": name})


def short_reason(exc: Exception) -> str:
    """A third-party exception as a short phrase to append to a user-facing message."""
    reason = str(exc).strip() or type(exc).__name__
    return reason if len(reason) <= 120 else reason[:117] + "..."


def _looks_cyrillic(data: bytes) -> bool:
    # In cp1251, 0xC0–0xFF are Cyrillic letters and Russian words are runs of them; in Western
    # encodings the same bytes are accented letters that sit alone between ASCII letters.
    high = sum(1 for byte in data if byte >= 0xC0)
    in_runs = sum(len(run) for run in re.findall(rb"[\xc0-\xff]{2,}", data))
    return high > 0 and in_runs / high > 0.5


def _newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _json_safe(value):
    """Frontmatter as JSON-storable values: YAML dates become ISO strings."""
    if isinstance(value, dict):
        return {str(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_json_safe(item) for item in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
