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
"""

import statistics
from collections import Counter

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
