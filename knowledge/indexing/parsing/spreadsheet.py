"""Spreadsheets (.xlsx with openpyxl, .xls with xlrd; .ods in `opendocument`): each sheet a Markdown pipe table.

Each sheet becomes a `## Sheet: <name>` section holding its rows as a pipe table under the detected
header row (`knowledge.indexing.tables.table_lines`); ingestion turns each row into one entry. Rows are
streamed: a sheet is never held as a grid, only as the text the document keeps anyway.

A merged cell's value is copied to every cell it covers in a row that has other values (a department
merged over two rows belongs to both); a title or group label merged across an otherwise empty row
stays one note. An .xlsx formula whose result was never saved (a file written by a library and not
opened in Excel since) has no value to read: such cells are counted per sheet in the document's
metadata (`formulas_without_values`), which the parse-quality report flags.
"""

import datetime
import io
import re
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from xml.etree import ElementTree

import openpyxl
import xlrd
from django.utils.translation import gettext as _

from knowledge.documents import ParsedDocument
from knowledge.exceptions import KnowledgeError, ParseError
from knowledge.indexing.tables import table_lines

from .text import password_protected, short_reason, text_too_long

# (name, hidden, rows): what the workbook readers hand to `sheets_document`.
Sheet = tuple[str, bool, Iterable[Sequence]]
# A merged range, 1-based and inclusive: (first row, first column, last row, last column).
Merge = tuple[int, int, int, int]

_CELL_REF = re.compile(r"^([A-Z]{1,3})(\d+)$")
# Merged ranges filled per sheet, and the columns a fill may reach: a crafted sheet declaring millions
# of ranges, or one over all 16,384 columns, is read as if those cells were not merged.
MAX_MERGES = 10_000
MAX_MERGE_COLUMNS = 1_000


def parse_xlsx(path: Path, *, max_chars: int) -> ParsedDocument:
    """Every worksheet of an .xlsx workbook, with cached formula values (never formulas)."""
    try:
        workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001 - openpyxl raises KeyError/ValueError/XML errors on bad parts
        raise _damaged(path, exc) from exc
    try:
        formulas: dict[str, int] = {}
        sheets = (_xlsx_sheet(workbook, sheet, formulas) for sheet in workbook.worksheets)
        with warnings.catch_warnings():
            # openpyxl warns about every Excel extension it skips (data validation, slicers...).
            warnings.simplefilter("ignore", UserWarning)
            parsed = sheets_document(path, sheets, max_chars)
        if formulas:
            parsed.metadata["formulas_without_values"] = formulas
        return parsed
    except KnowledgeError:
        raise
    except Exception as exc:  # noqa: BLE001 - sheets are opened lazily, while we iterate
        raise _damaged(path, exc) from exc
    finally:
        # Read-only workbooks keep the zip file open until closed.
        workbook.close()


def parse_xls(path: Path, *, max_chars: int) -> ParsedDocument:
    """Every sheet of an old BIFF .xls workbook."""
    try:
        # xlrd prints warnings (missing codepage, BIFF version) to stdout unless given a log file.
        # Formatting info holds the merged ranges.
        book = xlrd.open_workbook(path, on_demand=True, formatting_info=True, logfile=io.StringIO())
    except Exception as exc:  # noqa: BLE001 - xlrd raises XLRDError, CompDocError, struct.error, ...
        if "encrypted" in str(exc).lower():
            raise password_protected(path.name) from exc
        raise _damaged(path, exc) from exc
    try:
        # A generator, so that with on_demand only one sheet is loaded at a time.
        sheets = (_xls_sheet(book, index) for index in range(book.nsheets))
        return sheets_document(path, sheets, max_chars)
    except KnowledgeError:
        raise
    except Exception as exc:  # noqa: BLE001 - sheets are loaded lazily, while we iterate
        raise _damaged(path, exc) from exc
    finally:
        book.release_resources()


def sheet_lines(rows: Iterable[Sequence]) -> Iterator[str]:
    """A sheet as Markdown: notes above the header row, then a pipe table (see `knowledge.indexing.tables`)."""
    return table_lines([format_cell(value) for value in row] for row in rows)


def format_cell(value) -> str:
    """A cell value as text: whole numbers without `.0`, dates in ISO form, spaces collapsed per line."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else format(value, ".12g")
    if isinstance(value, datetime.datetime):
        return value.date().isoformat() if value.time() == datetime.time() else value.isoformat(sep=" ")
    # Line breaks inside a cell (paragraphs, list items of an answer) are kept; the table writer encodes them.
    return "\n".join(" ".join(line.split()) for line in str(value).strip().splitlines())


def sheets_document(path: Path, sheets: Iterable[Sheet], max_chars: int) -> ParsedDocument:
    """One `## Sheet: <name>` section per sheet with values, each its rows as a table (`sheet_lines`)."""
    sections: list[str] = []
    names: list[str] = []
    size = 0
    for name, hidden, rows in sheets:
        name = " ".join(str(name).split())
        names.append(name)
        try:
            lines = []
            for line in sheet_lines(rows):
                lines.append(line)
                size += len(line) + 1
                if size > max_chars:
                    raise text_too_long(path.name, max_chars)
        except KnowledgeError:
            raise
        except Exception as exc:  # noqa: BLE001 - cell data is parsed lazily, while we iterate
            raise ParseError(_("%(name)s: sheet %(sheet)s is damaged (%(reason)s)")
                             % {"name": path.name, "sheet": repr(name), "reason": short_reason(exc)}) from exc
        if lines:
            heading = f"## Sheet: {name}" + (" (hidden)" if hidden else "")
            sections.append(heading + "\n\n" + _join(lines))
    if not sections:
        raise ParseError(_("%(name)s is empty: no sheet has any cell with a value") % {"name": path.name})
    return ParsedDocument(text="\n\n".join(sections), title=path.stem, mime="", metadata={"sheets": names})


def _join(lines: list[str]) -> str:
    # Table lines sit on consecutive lines; notes above a table are paragraphs of their own.
    out = []
    for line in lines:
        if out and not (line.startswith("|") and out[-1].startswith("|")):
            out.append("")
        out.append(line)
    return "\n".join(out)


def _damaged(path: Path, exc: Exception) -> ParseError:
    return ParseError(
        _("%(name)s is damaged or not an Excel workbook that we can read (%(reason)s)")
        % {"name": path.name, "reason": short_reason(exc)}
    )


def fill_merged(rows: Iterable[Sequence], merges: list[Merge]) -> Iterator[list]:
    """The rows (numbered from 1) with each merged range's value copied to the cells it covers, in the
    rows that have a value outside the range (see the module docstring)."""
    return fill_numbered(enumerate(rows, start=1), sorted(merges))


def fill_numbered(rows: Iterable[tuple[int, Sequence]], merges: list[Merge]) -> Iterator[list]:
    """`fill_merged` for rows that carry their sheet row number (a reader that skips empty rows).

    `merges` is read in order of first row as the rows go, so a streaming reader may append a range
    when it meets the range's first cell, before it yields that row (OpenDocument marks merges there).
    """
    active: list[tuple[Merge, object]] = []
    taken = 0
    for number, row in rows:
        row = list(row)
        while taken < min(len(merges), MAX_MERGES) and merges[taken][0] <= number:
            merge = merges[taken]
            taken += 1
            if merge[3] <= MAX_MERGE_COLUMNS:
                value = row[merge[1] - 1] if merge[0] == number and merge[1] <= len(row) else None
                active.append((merge, value))
        active = [(merge, value) for merge, value in active if merge[2] >= number]
        for (_top, first, _bottom, last), value in active:
            outside = any(cell not in (None, "") for i, cell in enumerate(row, start=1) if not first <= i <= last)
            if value in (None, "") or not outside:
                continue
            row.extend([None] * (last - len(row)))
            row[first - 1:last] = [value if cell in (None, "") else cell for cell in row[first - 1:last]]
        yield row


def _xlsx_sheet(workbook, sheet, formulas: dict[str, int]) -> Sheet:
    merges, missing = _xlsx_cells(workbook, sheet)
    if missing:
        formulas[" ".join(sheet.title.split())] = missing
    rows = sheet.iter_rows(min_row=1, min_col=1, values_only=True)
    return sheet.title, sheet.sheet_state != "visible", fill_merged(rows, merges) if merges else rows


def _xlsx_cells(workbook, sheet) -> tuple[list[Merge], int]:
    """The merged ranges of a sheet, and how many of its formulas have no saved value.

    Read-only worksheets expose neither, so the sheet's XML is streamed once more for them."""
    merges, missing, rows = [], 0, None
    # openpyxl keeps the package open in read-only mode; the sheet's part name is not public.
    with workbook._archive.open(sheet._worksheet_path) as stream:
        for event, element in ElementTree.iterparse(stream, ("start", "end")):
            tag = element.tag.rpartition("}")[2]
            if event == "start":
                rows = element if tag == "sheetData" else rows
            elif tag == "c":
                formula, value = _child(element, "f"), _child(element, "v")
                missing += formula is not None and not (value is not None and value.text)
            elif tag == "row" and rows is not None:
                rows.remove(element)  # one row at a time in memory, as openpyxl reads them
            elif tag == "mergeCell":
                merge = _range(element.get("ref", ""))
                if merge:
                    merges.append(merge)
    return merges, missing


def _child(element, tag: str):
    return next((child for child in element if child.tag.rpartition("}")[2] == tag), None)


def _range(ref: str) -> Merge | None:
    corners = [_CELL_REF.match(part) for part in ref.upper().split(":")]
    if len(corners) != 2 or not all(corners):
        return None
    (col1, row1), (col2, row2) = (match.groups() for match in corners)
    return int(row1), _column(col1), int(row2), _column(col2)


def _column(letters: str) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - 64
    return number


def _xls_sheet(book: xlrd.Book, index: int) -> Sheet:
    sheet = book.sheet_by_index(index)
    rows = _xls_rows(book, sheet)
    # xlrd's ranges are 0-based and half-open: (first row, row after, first column, column after).
    merges = [(rlo + 1, clo + 1, rhi, chi) for rlo, rhi, clo, chi in sheet.merged_cells]
    return sheet.name, sheet.visibility != 0, fill_merged(rows, merges) if merges else rows


def _xls_rows(book: xlrd.Book, sheet: xlrd.sheet.Sheet) -> Iterator[list]:
    for row in range(sheet.nrows):
        yield [_xls_value(book, cell) for cell in sheet.row(row)]
    book.unload_sheet(sheet.name)


def _xls_value(book: xlrd.Book, cell: xlrd.sheet.Cell):
    if cell.ctype == xlrd.XL_CELL_DATE:
        try:
            moment = xlrd.xldate.xldate_as_datetime(cell.value, book.datemode)
            # Excel stores a time of day as a fraction of a day with no date part.
            return moment.time() if 0 <= cell.value < 1 else moment
        except (xlrd.xldate.XLDateError, ValueError, OverflowError):
            return cell.value
    if cell.ctype == xlrd.XL_CELL_BOOLEAN:
        return bool(cell.value)
    if cell.ctype == xlrd.XL_CELL_ERROR:
        return xlrd.error_text_from_code.get(cell.value, "")
    if cell.ctype in (xlrd.XL_CELL_EMPTY, xlrd.XL_CELL_BLANK):
        return None
    return cell.value
