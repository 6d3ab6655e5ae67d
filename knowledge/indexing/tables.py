"""Tables as rows: the header, the column mapping, and one entry per row.

Spreadsheets and CSV files are kept as Markdown pipe tables in the document's text (the parsers
call `table_lines`), and so are the tables markdownify writes for HTML and DOCX pages; `read_tables`
finds them again in any document's text, so the header row, the column names and the mapping are
worked out in one place whatever the source.

A column mapping says what each column is for: `question`, `answer`, `title`, `text` (shown in the
entry as `Name: value`), `metadata` (kept on the chunk, filterable, never in answer text) or
`ignored`. `guess_mapping` reads the header names (Russian and English) and, failing that, the
content; a mapping stored on the document (`Document.column_mapping`) overrides the guess column
by column.
"""

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from knowledge.exceptions import KnowledgeError

ROLES = ("question", "answer", "title", "text", "metadata", "ignored")
# Rows read before the header is chosen: title lines and notes above a table are common.
HEADER_SCAN_ROWS = 30
MAX_LABEL_CHARS = 80

# Header names that name a role. A header names one only when, once the words that merely qualify it
# are set aside ("Пример вопроса", "Шаблонный ответ", "Customer question", "Ответ на вопрос"), what is
# left is that role's word. A header that just contains one ("Response time", "Срок решения", "Число
# вопросов", "Plan A", the generated "Column A") names something else: its column is content.
ROLE_NAMES = (
    ("question", r"вопрос[аыов]*|questions?|q|faq|запрос[аы]?|query|обращени[ея]"),
    ("answer", r"ответ[аы]?|answers?|a|responses?|reply|решени[ея]|solution|resolution"),
    ("title", r"тема|заголовок|название|title|subject|topic|heading|name"),
)
QUALIFIERS = frozenset(
    "пример примеры образец шаблон шаблонный типовой типичный стандартный эталонный готовый текст клиента "
    "клиентский краткий короткий полный основной частый часто задаваемый задаваемые sample example typical "
    "template canned standard suggested text customer client user short full main frequently asked the".split()
)
_ROLE_NAME_PATTERNS = [(role, re.compile(words)) for role, words in ROLE_NAMES]
# "Ответ на вопрос", "Answer to the question": the words after the preposition qualify the role.
_PREPOSITION = re.compile(r"(?<!\w)(?:на|к|для|to|for|on)(?!\w).*$")
_PARENTHESES = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_TABLE_ROW = re.compile(r"^ {0,3}\|.*\|[ \t]*$")
# A pipe table's delimiter row: a cell of one hyphen or more a column, with a colon at either end to align
# it (GitHub's "| :-- | :-: |"), and a pipe after the first cell at least.
DELIMITER_ROW = r"^ {0,3}\|?(?:[ \t]*:?-+:?[ \t]*\|)+(?:[ \t]*:?-+:?[ \t]*)?[ \t]*$"
_SEPARATOR = re.compile(DELIMITER_ROW)
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_NUMBER = re.compile(r"^[-+]?[\d\s.,%]+$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}|^\d{1,2}:\d{2}(:\d{2})?$")


class MappingError(KnowledgeError):
    """A column mapping names a column the document does not have, or a role that does not exist."""


@dataclass
class Table:
    """A table found in a document's text: named columns and rows of cell texts."""

    columns: list[str]
    rows: list[list[str]]
    start: int  # character offsets of the table in the text
    end: int
    section: str = ""  # the heading above it (a sheet name)
    row_lines: list[int] = field(default_factory=list)  # the offset of each row's line


@dataclass
class Entry:
    """One row as the index sees it: the unit that is retrieved and cited."""

    content: str
    question: str
    title: str
    metadata: dict
    start: int
    end: int
    section: str
    row: int


# --- writing tables (parsers) ----------------------------------------------------------------------

def escape_cell(value: str) -> str:
    """A cell's text made safe inside a pipe table (pipes escaped, line breaks as <br>)."""
    value = value.replace("\r\n", "\n").replace("\r", "\n").strip()
    value = "<br>".join(" ".join(line.split()) for line in value.split("\n"))
    return value.replace("\\", "\\\\").replace("|", "\\|")


def table_lines(rows: Iterable[Sequence[str]], *, is_label: Callable | None = None) -> Iterator[str]:
    """Markdown lines for raw rows of cell texts: notes above the header, then a pipe table.

    The header is the first of the leading rows that looks like one (`find_header`); rows before
    it (a title, a note) are written as paragraphs. Empty rows are skipped, trailing empty cells
    dropped, so a sheet that declares 16 384 columns costs nothing.
    """
    iterator = iter(rows)
    head: list[list[str]] = []
    for row in iterator:
        row = _trim(row)
        if row:
            head.append(row)
        if len(head) >= HEADER_SCAN_ROWS:
            break
    if not head:
        return
    index = find_header(head, is_label=is_label)
    if index is None:
        if max(len(row) for row in head) < 2:
            # A one-column list is text, not a table.
            yield from (escape_cell(row[0]) for row in head)
            yield from (escape_cell(row[0]) for row in map(_trim, iterator) if row)
            return
        index, header = -1, [""] * max(len(row) for row in head)
    else:
        header = head[index]
    for row in head[:max(index, 0)]:
        yield escape_cell(" ".join(cell for cell in row if cell))
    width = max(len(header), 1)
    yield "| " + " | ".join(escape_cell(cell) for cell in header + [""] * (width - len(header))) + " |"
    yield "|" + " --- |" * width
    for row in head[index + 1:]:
        yield _row_line(row)
    for row in iterator:
        row = _trim(row)
        if row:
            yield _row_line(row)


def _row_line(row: list[str]) -> str:
    return "| " + " | ".join(escape_cell(cell) for cell in row) + " |"


def _trim(row: Sequence) -> list[str]:
    cells = ["" if cell is None else str(cell) for cell in row]
    while cells and not cells[-1].strip():
        cells.pop()
    return cells


def find_header(rows: list[list[str]], *, is_label: Callable | None = None) -> int | None:
    """The index of the header among the first rows, or None when no row looks like one.

    A header has at least two labels (short text, not numbers, dates or times; mostly distinct), is
    at least 60 % as wide as the widest row near it, and is followed by at least one data row.
    """
    is_label = is_label or looks_like_label
    widest = max(_width(row) for row in rows)
    for index, row in enumerate(rows[:-1]):
        cells = [cell for cell in row if cell.strip()]
        if len(cells) < 2 or _width(row) < 0.6 * widest:
            continue
        labels = [" ".join(cell.lower().split()) for cell in cells]
        if not all(is_label(cell) for cell in cells) or len(set(labels)) < 0.8 * len(labels):
            continue
        # At least one row below it (formulas without cached values can leave them one cell wide).
        if any(_width(other) for other in rows[index + 1:]):
            return index
    return None


def looks_like_label(cell: str) -> bool:
    """Short text that is not a number or a date."""
    cell = cell.strip()
    return (0 < len(cell) <= MAX_LABEL_CHARS and not _NUMBER.match(cell) and not _DATE.match(cell)
            and "\n" not in cell)


def _width(row: list[str]) -> int:
    return sum(1 for cell in row if cell.strip())


# --- reading tables (ingestion) ----------------------------------------------------------------------

def read_tables(text: str) -> list[Table]:
    """Every pipe table in `text` (a header line, a separator line, then rows)."""
    tables, lines, offset = [], text.split("\n"), 0
    starts = []
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    section = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            section = line.lstrip("#").strip()
        if _TABLE_ROW.match(line) and i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1]):
            header = split_cells(line)
            rows, row_lines, j = [], [], i + 2
            while j < len(lines) and _TABLE_ROW.match(lines[j]):
                rows.append(split_cells(lines[j]))
                row_lines.append(starts[j])
                j += 1
            end = starts[j - 1] + len(lines[j - 1])
            tables.append(Table(column_names(header, rows), rows, starts[i], end, section, row_lines))
            i = j
            continue
        i += 1
    return tables


def split_cells(line: str) -> list[str]:
    """The cells of one pipe-table line, unescaped, with <br> back to line breaks; a line's indent of two spaces
    or more (a nested list's item, a line of code) stays."""
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    cells = [cell.strip().replace("\\|", "|").replace("\\\\", "\\") for cell in _CELL_SPLIT.split(inner)]
    return [re.sub(r"\s*<br\s*/?>(?: (?=\S))?", "\n", cell, flags=re.I) for cell in cells]


_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")
# The name `column_names` gives a column whose header is blank (repeats get "(2)").
GENERATED_NAME = re.compile(r"Column [A-Z]{1,3}( \(\d+\))?")


def column_names(header: list[str], rows: list[list[str]]) -> list[str]:
    """Unique, non-empty column names: blanks become `Column C`, repeats get `(2)`, `(3)`…"""
    width = max([len(header)] + [len(row) for row in rows])
    names, seen = [], {}
    for index in range(width):
        cell = header[index] if index < len(header) else ""
        # A header written in bold ("**Plan**", as word processors and CMSs make one) is named without the marks.
        name = " ".join(_EMPHASIS.sub(r"\2", cell).split()) or f"Column {_letter(index)}"
        key = name.lower()
        seen[key] = seen.get(key, 0) + 1
        names.append(name if seen[key] == 1 else f"{name} ({seen[key]})")
    return names


def _letter(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


# --- the column mapping -------------------------------------------------------------------------------

def guess_mapping(columns: list[str], rows: list[list[str]]) -> dict[str, str]:
    """A role for every column, from its name, else from its content (see the module docstring).

    Only a table with a question and an answer is an FAQ: its other columns are metadata until mapped
    otherwise. In any other table every column with values is text, so nothing uploaded is left out
    of the rows' text (a date, a price, a category are what people ask about).
    """
    mapping = {name: _role_from_name(name) for name in columns}
    if "question" not in mapping.values():
        # A bare "A" answers only beside a "Q"; alone it is a plan, a grade, a column letter.
        mapping.update({name: None for name in columns if _words(name) == ["a"]})
    values = {name: [row[i] for row in rows[:200] if i < len(row) and row[i].strip()]
              for i, name in enumerate(columns)}
    for name in columns:
        if not values[name]:
            mapping[name] = "ignored"
    for role in ("question", "answer"):
        named = [name for name in columns if mapping[name] == role]
        for extra in named[1:]:
            # A second "question" column (an English version, a paraphrase) stays searchable text.
            mapping[extra] = "text" if role == "answer" else "metadata"
    open_columns = [name for name in columns if mapping[name] is None]
    if "answer" not in mapping.values():
        # By content: the column with the longest texts answers; one whose cells end in "?" asks.
        asks = [name for name in open_columns if _question_share(values[name]) >= 0.5]
        if asks and "question" not in mapping.values():
            mapping[asks[0]] = "question"
            open_columns.remove(asks[0])
        longest = max(open_columns, key=lambda name: _mean_length(values[name]), default=None)
        if longest and "question" in mapping.values() and _mean_length(values[longest]) >= 40:
            mapping[longest] = "answer"
            open_columns.remove(longest)
    elif "question" not in mapping.values():
        # An answer column without a question column: the questions are beside it, in the column named
        # for both ("Q&A" beside "Answer") or else the one whose cells ask, never hidden as metadata.
        asks = ([name for name in open_columns if {"question", "answer"} <= set(_name_roles(name))]
                or [name for name in open_columns if _question_share(values[name]) >= 0.5])
        if asks:
            mapping[asks[0]] = "question"
            open_columns.remove(asks[0])
    if not {"question", "answer"} <= set(mapping.values()):
        # Not an FAQ: a title column is content like the others (shown as `Name: value`).
        return {name: "text" if role in (None, "title") else role for name, role in mapping.items()}
    for name in open_columns:
        # Beside a question and an answer, other columns are internal until someone says otherwise.
        mapping[name] = "metadata"
    return mapping


def _role_from_name(name: str) -> str | None:
    roles = _name_roles(name)
    if {"question", "answer"} <= set(roles):
        return None  # "Q&A", "Вопрос/ответ": a column holding both, or a title, asks nothing by its name
    # Every word left must name a role ("Тема вопроса" is a title); the first one is the column's.
    return roles[0] if roles and all(roles) else None


def _name_roles(name: str) -> list[str | None]:
    """The role each word of a header names (None for a word that names none), qualifiers set aside."""
    words = _words(_PREPOSITION.sub("", _PARENTHESES.sub(" ", name.lower())))
    words = [word for word in words if word not in QUALIFIERS and not word.isdigit()]
    return [next((role for role, pattern in _ROLE_NAME_PATTERNS if pattern.fullmatch(word)), None)
            for word in words]


def _words(name: str) -> list[str]:
    return re.findall(r"[^\W_]+", name.lower().replace("ё", "е"))


def _question_share(values: list[str]) -> float:
    return sum(value.rstrip().endswith("?") for value in values) / len(values) if values else 0.0


def _mean_length(values: list[str]) -> float:
    return sum(len(value) for value in values) / len(values) if values else 0.0


def check_mapping(mapping: dict, columns: Iterable[str]) -> dict[str, str]:
    """The mapping itself when every column it names exists and every role is known; else MappingError."""
    if not isinstance(mapping, dict):
        raise MappingError(_("The column mapping must be an object of column name → role"))
    known = list(columns)
    missing = [name for name in mapping if name not in known]
    if missing:
        raise MappingError(_("The column mapping names column(s) the document does not have: %(missing)s; "
                             "its columns are: %(columns)s")
                           % {"missing": ", ".join(map(repr, missing)), "columns": ", ".join(map(repr, known))})
    bad = {name: role for name, role in mapping.items() if role not in ROLES}
    if bad:
        raise MappingError(_("Unknown role(s) %(roles)s in the column mapping; use one of %(known)s")
                           % {"roles": ", ".join(map(repr, bad.values())), "known": ", ".join(ROLES)})
    return {str(name): str(role) for name, role in mapping.items()}


def table_entries(table: Table, mapping: dict[str, str]) -> Iterator[Entry]:
    """One entry per row. Metadata and title cells left empty in a row carry the row above's value
    (merged cells and grouped rows leave them empty), and never reach the entry's text."""
    roles = [mapping.get(name) or "text" for name in table.columns]
    carried: dict[int, str] = {}
    for number, row in enumerate(table.rows):
        cells = [row[i] if i < len(row) else "" for i in range(len(roles))]
        if not any(cell.strip() for cell, role in zip(cells, roles, strict=True) if role != "ignored"):
            continue
        for i, role in enumerate(roles):
            if role in ("metadata", "title"):
                if cells[i].strip():
                    carried[i] = cells[i]
                else:
                    cells[i] = carried.get(i, "")
        entry = _entry(table, roles, cells, number)
        if entry is not None:
            yield entry


def _entry(table: Table, roles: list[str], cells: list[str], number: int) -> Entry | None:
    def of(role: str) -> list[str]:
        return [cell.strip() for cell, r in zip(cells, roles, strict=True) if r == role and cell.strip()]

    question, title = " ".join(of("question")), " ".join(of("title"))
    named = [(name, cell.strip()) for name, cell, role in zip(table.columns, cells, roles, strict=True)
             if role == "text" and cell.strip()]
    if named and all(GENERATED_NAME.fullmatch(name) for name, _ in named):
        texts = [" — ".join(cell for _, cell in named)]  # a table without a header: its cells, one line
    else:  # a column the header left blank is no label ("Column C: …")
        texts = [cell if GENERATED_NAME.fullmatch(name) else f"{name}: {cell}" for name, cell in named]
    content = "\n\n".join(of("answer") + (["\n".join(texts)] if texts else []))
    if not content:
        content = question or title
    if not content:
        return None
    metadata = {name: cell.strip() for name, cell, role in zip(table.columns, cells, roles, strict=True)
                if role == "metadata" and cell.strip()}
    start = table.row_lines[number] if number < len(table.row_lines) else table.start
    line_end = table.row_lines[number + 1] - 1 if number + 1 < len(table.row_lines) else table.end
    return Entry(content, question if of("answer") or texts else "", title, metadata, start, line_end,
                 table.section, number + 1)

