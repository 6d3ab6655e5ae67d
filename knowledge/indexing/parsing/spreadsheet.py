"""Spreadsheets (.xlsx with openpyxl, .xls with xlrd): one text line per non-empty row.

Each sheet becomes a `## Sheet: <name>` section. When the first row looks like a header, rows read
`Header1: v | Header2: v`, so a chunk cut from the middle of a sheet still says what each value is.
Rows are separated by blank lines so the chunker, which splits on paragraphs, never cuts a row.
"""

import datetime
import io
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import openpyxl
import xlrd

from knowledge.documents import ParsedDocument
from knowledge.exceptions import KnowledgeError, ParseError

from .text import format_row, short_reason, text_too_long

PASSWORD_PROTECTED = "{name} is password-protected; remove the password and upload it again"
# (name, hidden, rows): what both workbook readers hand to `_document`.
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
            return _document(path, sheets, max_chars)
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
            raise ParseError(PASSWORD_PROTECTED.format(name=path.name)) from exc
        raise _damaged(path, exc) from exc
    try:
        # A generator, so that with on_demand only one sheet is loaded at a time.
        sheets = (_xls_sheet(book, index) for index in range(book.nsheets))
        return _document(path, sheets, max_chars)
    except KnowledgeError:
        raise
    except Exception as exc:  # noqa: BLE001 - sheets are loaded lazily, while we iterate
        raise _damaged(path, exc) from exc
    finally:
        book.release_resources()


def sheet_lines(rows: Iterable[Sequence]) -> Iterator[str]:
    """One line per non-empty row, labelled by the header row when the first row looks like one."""
    header: list[str] | None = None
    pending: list[str] | None = None  # a header candidate, emitted as data if no row follows
    first = True
    for row in rows:
        cells = [format_cell(value) for value in row]
        if not any(cells):
            continue
        if first:
            first = False
            if _looks_like_header(row):
                pending = cells
                continue
        if pending is not None:
            header, pending = pending, None
        yield format_row(header or [], cells)
    if pending is not None:
        yield format_row([], pending)


def format_cell(value) -> str:
    """A cell value as text: whole numbers without `.0`, dates in ISO form, no line breaks."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else format(value, ".12g")
    if isinstance(value, datetime.datetime):
        return value.date().isoformat() if value.time() == datetime.time() else value.isoformat(sep=" ")
    return " ".join(str(value).split())


def _document(path: Path, sheets: Iterable[Sheet], max_chars: int) -> ParsedDocument:
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
                size += len(line) + 2
                if size > max_chars:
                    raise text_too_long(path.name, max_chars)
        except KnowledgeError:
            raise
        except Exception as exc:  # noqa: BLE001 - cell data is parsed lazily, while we iterate
            raise ParseError(f"{path.name}: sheet {name!r} is damaged ({short_reason(exc)})") from exc
        if lines:
            heading = f"## Sheet: {name}" + (" (hidden)" if hidden else "")
            sections.append(heading + "\n\n" + "\n\n".join(lines))
    if not sections:
        raise ParseError(f"{path.name} is empty: no sheet has any cell with a value")
    return ParsedDocument(text="\n\n".join(sections), title=path.stem, mime="", metadata={"sheets": names})


def _damaged(path: Path, exc: Exception) -> ParseError:
    return ParseError(
        f"{path.name} is damaged or not an Excel workbook that we can read ({short_reason(exc)})"
    )


def _looks_like_header(row: Sequence) -> bool:
    # A header is text labels, distinct, and more than one of them (a lone cell is usually a title).
    values = [value for value in row if value is not None and str(value).strip()]
    labels = [" ".join(str(value).split()).lower() for value in values]
    return (
        len(values) >= 2
        and all(isinstance(value, str) for value in values)
        and len(set(labels)) == len(labels)
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
