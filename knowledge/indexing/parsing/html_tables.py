"""Which HTML tables have a header row: `<thead>`/`<th>` say so; a plain first row must look like one.

markdownify either takes every table's first row as its header (`table_infer_header`) or none. Both
are wrong somewhere: Sphinx writes tables without a header as a bare `<tbody>` (Flask's URL converter
table starts with `string | accepts any text…`), while Word tables put their header in a plain first row
(mammoth writes `<th>` only for rows marked "repeat as header row"). So each table is judged here: a
first row the markup does not mark becomes a header (`<th>` cells) when it reads as one; the converter
then runs without inference and gives the other tables an empty header line (columns without names).

A first row reads as a header when its cells are short labels (not numbers, lists or code blocks) and
differ in kind from the rows below, column by column, as `csv.Sniffer.has_header` judges a CSV file: a
plain word over numbers, code, links or amounts votes for a header, code over code votes against, a
capitalised word over lower-case text or a label less than half as long as the values votes for.

Before that, `shape_tables` lines every table up with its columns, as markdownify does not: it counts a
nested table's cells as the outer row's and ignores `rowspan`. A table of one column, or of one row holding
another, lays the page out (a title page, a framed note, a site's frame): its cells become blocks of their
own, the tables in them tables. Any other
table inside a cell becomes that cell's
text (its rows joined by "; ", a row's cells by " — "), so the outer table keeps its rows; a header of
several rows (a `<thead>` of two rows, `<th>` rows, or a first row whose merged cells the next row divides,
as Word writes "Group" over "Sub") becomes one row named "Group — Sub"; and a cell that spans rows below
is repeated in each of them, as a merged cell in a spreadsheet is, so no later cell moves a column left.
Once the header is marked, `repeat_spanned_columns` copies a data cell that spans columns into each of
them, in a row with other values, as `spreadsheet.fill_merged` does.
"""

import copy
import statistics
from collections import Counter

from bs4 import Tag

from knowledge.indexing.tables import MAX_LABEL_CHARS

HEADER_SCAN_ROWS = 50
# Whole-cell formatting, from the strongest: a cell that is all code is code even inside a link.
FORMATS = (
    ("code", ("code", "kbd", "samp", "tt")),
    ("link", ("a",)),
    ("bold", ("strong", "b")),
    ("emphasis", ("em", "i", "cite")),
)
BLOCKS = ("ul", "ol", "dl", "pre", "table", "blockquote")
# A kind shared by this share of a column's values is the column's kind.
DOMINANT_SHARE = 0.8
MAX_SPAN = 100  # columns one cell may span, as `_cells` reads them (the rows it spans end with the table)
# A table of more positions than this (rows × columns, spans counted) is left as the converter writes it.
MAX_GRID_CELLS = 200_000
# Characters a table's repeated cells may add: a long cell spanning a thousand rows is not copied a thousand times.
MAX_COPIED_CHARS = 200_000
NESTED_ROW_SEPARATOR = "; "
NESTED_CELL_SEPARATOR = " — "
HEADER_SEPARATOR = " — "


def shape_tables(element) -> None:
    """Line each table's cells up with its columns: nested tables flattened, a multi-row header made one
    row, cells spanning rows repeated (see the module docstring). Inner tables first, so an outer one reads
    its cells' final text. A table without any text (Word's empty grid awaiting input) says nothing: it goes."""
    for table in element.find_all("table"):  # outermost first
        if table.decomposed:
            continue
        if not table.get_text(strip=True):
            table.decompose()
        elif _lays_out(table):
            _unwrap(table)
    for table in reversed(element.find_all("table")):
        _shape(table)
        if table.find_parent(["td", "th"]) is not None:
            _flatten(table)


def _lays_out(table) -> bool:
    """A table of one column lays a page out (a title page, a framed note, an old site's frame), and so
    does one of one row holding another table in a cell (a Word text box): its cells are the page's
    blocks, not data. A table of one column has no columns to name a row's values by."""
    rows = _own_rows(table)
    if not rows:
        return False
    if all(len(_own_cells(row)) <= 1 for row in rows):
        return True
    return len(rows) == 1 and any(cell.find("table") for cell in _own_cells(rows[0]))


def _unwrap(table) -> None:
    """Replace a layout table by its cells' contents, one block after another, so the tables inside
    keep their rows and columns."""
    blocks = []
    for row in _own_rows(table):
        for cell in _own_cells(row):
            block = Tag(name="div")
            for child in list(cell.contents):
                block.append(child.extract())
            blocks.append(block)
    for block in reversed(blocks):
        table.insert_after(block)
    table.decompose()


def _own_rows(table) -> list:
    return [row for row in table.find_all("tr") if row.find_parent("table") is table]


def _own_cells(row) -> list:
    return row.find_all(["td", "th"], recursive=False)


def _span(cell, name: str, limit: int) -> int:
    value = str(cell.get(name, "1")).strip()
    if not value.isdigit():
        return 1
    # rowspan="0" spans to the end of the table.
    return limit if int(value) == 0 and name == "rowspan" else max(1, min(int(value), limit))


def _flatten(table) -> None:
    """Replace a table inside a cell by a paragraph of its text: rows joined by "; ", cells by " — "."""
    lines = []
    for row in _own_rows(table):
        texts = [_text(cell) for cell in _own_cells(row)]
        line = NESTED_CELL_SEPARATOR.join(text for text in texts if text)
        if line:
            lines.append(line)
    paragraph = Tag(name="p")
    paragraph.string = NESTED_ROW_SEPARATOR.join(lines)
    table.replace_with(paragraph)


class _TooLarge(Exception):
    """A table of more than MAX_GRID_CELLS positions."""


class _Grid:
    """Which cell covers each (row, column) of a table, spans counted."""

    def __init__(self, rows: list):
        self.rows = rows
        self.at: dict[tuple[int, int], object] = {}
        self.origin: dict[int, tuple[int, int, int, int]] = {}  # id(cell) → row, column, rowspan, colspan
        self.width = 0
        for r, row in enumerate(rows):
            c = 0
            for cell in _own_cells(row):
                while (r, c) in self.at:
                    c += 1
                rowspan, colspan = _span(cell, "rowspan", len(rows) - r), _span(cell, "colspan", MAX_SPAN)
                if len(self.at) + rowspan * colspan > MAX_GRID_CELLS:
                    raise _TooLarge
                self.origin[id(cell)] = (r, c, rowspan, colspan)
                for dr in range(rowspan):
                    for dc in range(colspan):
                        self.at.setdefault((r + dr, c + dc), cell)
                c += colspan
                self.width = max(self.width, c)

    def divides(self, r: int) -> bool:
        """Row `r` only divides merged cells of the row above ("Sub" under "Group"), besides cells spanning it."""
        cells = _own_cells(self.rows[r])
        if not _labels(cells):
            return False
        for cell in cells:
            column = self.origin[id(cell)][1]
            above = self.at.get((r - 1, column))
            if above is None:
                return False
            top, _, rowspan, above_span = self.origin[id(above)]
            if above_span < 2 or top + rowspan != r:
                return False
        return True


def _shape(table) -> None:
    rows = _own_rows(table)
    if len(rows) < 2:
        return
    try:
        grid = _Grid(rows)
    except _TooLarge:
        return
    height = _header_height(table, grid)
    if height > 1:
        _combine_header(grid, height)
        rows = _own_rows(table)
        grid = _Grid(rows)
    _repeat_spanned_rows(grid)


def _header_height(table, grid: _Grid) -> int:
    """How many leading rows make the header: those of the `<thead>`, rows of `<th>` cells only, or rows
    dividing the merged cells above; 1 when the header is one row, or when a header cell reaches the body."""
    rows = grid.rows
    head = table.find("thead")
    in_head = head is not None and head.find_parent("table") is table and rows[0].find_parent("thead") is head

    def marked(row) -> bool:
        # Not a `<th>` spanning the table ("Europe" over its rows): a header row has two labels or more.
        filled = [cell for cell in _own_cells(row) if _text(cell)]
        return len(filled) >= 2 and all(cell.name == "th" for cell in filled) and _labels(filled)

    height = 1
    while height < len(rows) - 1:
        row = rows[height]
        if in_head:
            if row.find_parent("thead") is not head:
                break
        elif not ((marked(rows[0]) and marked(row)) or grid.divides(height)):
            break
        height += 1
    header_cells = [cell for row in grid.rows[:height] for cell in _own_cells(row)]
    reach = max((grid.origin[id(cell)][0] + grid.origin[id(cell)][2] for cell in header_cells), default=1)
    return height if reach <= height else 1


def _labels(cells: list) -> bool:
    """Cells that can name columns: each has text, and none is a number, an amount or a block."""
    return bool(cells) and all(_text(cell) and _kind(cell) not in ("number", "amount", "block") for cell in cells)


def _combine_header(grid: _Grid, height: int) -> None:
    """Make the first `height` rows one row of `<th>` cells named "Group — Sub", a merged cell's text
    repeated over the columns it spans."""
    first = grid.rows[0]
    names = []
    for c in range(grid.width):
        texts = []
        for r in range(height):
            cell = grid.at.get((r, c))
            text = _text(cell) if cell is not None else ""
            if text and (not texts or texts[-1] != text):
                texts.append(text)
        names.append(HEADER_SEPARATOR.join(texts))
    for cell in _own_cells(first):
        cell.decompose()
    for name in names:
        th = Tag(name="th")
        th.string = name
        first.append(th)
    for row in grid.rows[1:height]:
        row.decompose()


def _repeat_spanned_rows(grid: _Grid) -> None:
    """Put a copy of each cell that spans rows in every row below it covers, at its column."""
    if not any(origin[2] > 1 for origin in grid.origin.values()):
        return
    cells = [cell for row in grid.rows for cell in _own_cells(row)]
    placed: dict[int, list] = {r: [] for r in range(len(grid.rows))}
    budget = MAX_COPIED_CHARS
    for cell in cells:
        top, c, rowspan, _ = grid.origin[id(cell)]
        placed[top].append((c, cell))
        if rowspan > 1:
            del cell["rowspan"]
        for below in range(top + 1, top + rowspan):
            budget -= len(cell.get_text())
            if budget >= 0:
                twin = copy.copy(cell)
            else:  # an empty cell still keeps the columns after it in place
                twin = Tag(name=cell.name)
                if cell.get("colspan"):
                    twin["colspan"] = cell["colspan"]
            placed[below].append((c, twin))
    for r, row in enumerate(grid.rows):
        for _, cell in sorted(placed[r], key=lambda item: item[0]):
            row.append(cell)


def repeat_spanned_columns(element) -> None:
    """Put a copy of each data cell that spans columns in every column it covers, in a row that has other
    values, as a merged cell in a spreadsheet is (`spreadsheet.fill_merged`): "Same for both" under Phone
    and Email is both one's and the other's. A header's cells, and a row's only value (a group label
    across the table), stay one cell. Call it once the header rows are marked (`mark_header_rows`)."""
    for table in element.find_all("table"):
        budget = MAX_COPIED_CHARS
        for row in _own_rows(table):
            cells = _own_cells(row)
            filled = [cell for cell in cells if _text(cell)]
            if len(filled) < 2 or all(cell.name == "th" for cell in filled):
                continue
            for cell in filled:
                span = _span(cell, "colspan", MAX_SPAN)
                if span < 2 or cell.name == "th":
                    continue
                budget -= (span - 1) * len(cell.get_text())
                if budget < 0:
                    break
                del cell["colspan"]
                for _ in range(span - 1):
                    cell.insert_after(copy.copy(cell))


def mark_header_rows(element, *, header_by_default: bool = False) -> None:
    """Turn each table's unmarked first row into `<th>` cells when it reads as a header.

    `header_by_default` settles a tie (a first row no more or less like a header than the rows below):
    Word documents put the header in the first row by convention, web pages mark theirs.
    """
    for table in element.find_all("table"):
        rows = [row for row in table.find_all("tr") if row.find_parent("table") is table]
        if not rows:
            continue
        first = _cells(rows[0])
        filled = [cell for cell in first if cell.get_text(strip=True)]
        if rows[0].find_parent("thead") is not None or (filled and all(cell.name == "th" for cell in filled)):
            header = True  # an empty corner cell beside <th> cells leaves the row a header
        else:
            votes = _header_votes(first, [_cells(row) for row in rows[1:HEADER_SCAN_ROWS]])
            header = votes is not None and (votes > 0 or (votes == 0 and header_by_default))
        if header:
            for cell in first:
                cell.name = "th"


def _cells(row) -> list:
    """The row's cells, each repeated over the columns it spans, so columns line up with the rows below."""
    cells = []
    for cell in row.find_all(["td", "th"], recursive=False):
        span = cell.get("colspan", "1")
        cells.extend([cell] * (min(int(span), 100) if span.isdigit() and int(span) > 0 else 1))
    return cells


def _header_votes(first: list, below: list[list]) -> int | None:
    """For a header minus against, over the columns; None when the first row cannot be a header."""
    if not _labels_only(first) or not any(_text(cell) for row in below for cell in row):
        return None
    votes = 0
    for column, cell in enumerate(first):
        values = [row[column] for row in below if column < len(row) and _text(row[column])]
        if _text(cell) and values:
            votes += _column_vote(cell, _text(cell), values)
    return votes


def _labels_only(first: list) -> bool:
    """At least two short, mostly distinct labels, none a number, a list or a code block."""
    # A cell spanning three columns is one label, not three equal ones.
    cells = [cell for cell in {id(cell): cell for cell in first}.values() if _text(cell)]
    labels = [_text(cell).lower() for cell in cells]
    return (
        len(labels) >= 2
        and len(set(labels)) >= 0.8 * len(labels)
        and all(
            len(label) <= MAX_LABEL_CHARS and _kind(cell) not in ("number", "block")
            for cell, label in zip(cells, labels, strict=True)
        )
    )


def _column_vote(cell, text: str, values: list) -> int:
    kind = _kind(cell)
    kinds = Counter(_kind(value) for value in values)
    common, count = kinds.most_common(1)[0]
    if count < DOMINANT_SHARE * len(values):
        return 0
    if common != kind:
        return 1  # "Price" over amounts, "URL" over code, a bold label over plain cells
    if kind != "text":
        return -1  # code over code: the first row is one of the rows
    texts = [_text(value) for value in values]
    lowercase = sum(value[0].islower() for value in texts)
    if text[0].isupper() and lowercase >= DOMINANT_SHARE * len(texts):
        return 1
    return 1 if 2 * len(text) <= statistics.median(len(value) for value in texts) else 0


def _text(cell) -> str:
    return " ".join(cell.get_text(" ").split())


def _kind(cell) -> str:
    """What a cell holds: a block, whole-cell formatting, a number, an amount (has digits) or text."""
    if cell.find(BLOCKS) is not None:
        return "block"
    text = "".join(cell.get_text().split())
    for kind, tags in FORMATS:
        if text and "".join("".join(tag.get_text() for tag in _outermost(cell, tags)).split()) == text:
            return kind
    if any(char.isdigit() for char in text):
        return "number" if not any(char.isalpha() for char in text) else "amount"
    return "text"


def _outermost(cell, tags: tuple[str, ...]) -> list:
    """The cell's `tags` elements not inside another of them, so `<b><b>x</b></b>` is read once."""
    outer = []
    for tag in cell.find_all(tags):
        parent = tag.find_parent(tags)
        if parent is None or not any(ancestor is cell for ancestor in parent.parents):
            outer.append(tag)
    return outer
