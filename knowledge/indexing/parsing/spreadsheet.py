"""Spreadsheets (.xlsx with openpyxl, .xls with xlrd): each sheet a Markdown pipe table.

Each sheet becomes a `## Sheet: <name>` section holding its rows as a pipe table under the detected
header row (`knowledge.indexing.tables.table_lines`); ingestion turns each row into one entry. Rows are
streamed: a sheet is never held as a grid, only as the text the document keeps anyway.
"""

import datetime
import io
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import openpyxl
import xlrd
from django.utils.translation import gettext as _

from knowledge.documents import ParsedDocument
from knowledge.exceptions import KnowledgeError, ParseError
from knowledge.indexing.tables import table_lines

from .text import password_protected, short_reason, text_too_long

# (name, hidden, rows): what the workbook readers hand to `sheets_document`.
Sheet = tuple[str, bool, Iterable[Sequence]]


def parse_xlsx(path: Path, *, max_chars: int) -> ParsedDocument:
    """Every worksheet of an .xlsx workbook, with cached formula values (never formulas)."""
    try:
        workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001 - openpyxl raises KeyError/ValueError/XML errors on bad parts
        raise _damaged(path, exc) from exc
    try:
        sheets = (
            (sheet.title, sheet.sheet_state != "visible", sheet.iter_rows(values_only=True))
            for sheet in workbook.worksheets
        )
        with warnings.catch_warnings():
            # openpyxl warns about every Excel extension it skips (data validation, slicers...).
            warnings.simplefilter("ignore", UserWarning)
            return sheets_document(path, sheets, max_chars)
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
        book = xlrd.open_workbook(path, on_demand=True, logfile=io.StringIO())
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


def _xls_sheet(book: xlrd.Book, index: int) -> Sheet:
    sheet = book.sheet_by_index(index)
    return sheet.name, sheet.visibility != 0, _xls_rows(book, sheet)


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
