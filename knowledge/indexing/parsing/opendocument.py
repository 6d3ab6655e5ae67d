"""OpenDocument files (LibreOffice, МойОфис, Р7-Офис): text (.odt), spreadsheets (.ods), presentations (.odp).

All three are zip archives whose `content.xml` holds the document; `parse_file` has already refused
bombs and mislabelled archives. A text document becomes Markdown like a Word one: headings as `#`
lines (their outline level), paragraphs, lists as `- ` items, tables as pipe tables, footnotes
after the text; tables of contents and other generated indexes, tracked deletions and comments
are left out. Its title is `dc:title` from meta.xml, else the first heading. A spreadsheet
becomes one `## Sheet: <name>` section per sheet like an Excel workbook (`spreadsheet.sheets_document`),
its rows read as a stream: numbers, dates and booleans from their typed values (a formula's
cached result, never the formula), currencies and percentages as displayed. A cell or row that
declares itself repeated (LibreOffice pads a sheet to its last column and row that way) is
repeated only when it holds a value, and at most to Excel's width, so padding costs nothing.
Merged cells are filled as in an Excel sheet (`spreadsheet.fill_numbered`).
A presentation becomes one `## Slide <n>` section per slide like a PowerPoint one
(`presentation.slides_document`): its title frame, then its other frames and shapes top to bottom and
left to right, each written like a text body, and its speaker notes.
"""

import datetime
import zipfile
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from knowledge.documents import ParsedDocument
from knowledge.exceptions import KnowledgeError, ParseError, UnsupportedFileError
from knowledge.indexing.markdown import first_heading
from knowledge.indexing.tables import table_lines

from . import presentation, spreadsheet
from .packages import check_body_text
from .text import password_protected, short_reason

OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
PRESENTATION = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}"
SVG = "{urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0}"
DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
CONTENT, META, MANIFEST, MIMETYPE = "content.xml", "meta.xml", "META-INF/manifest.xml", "mimetype"
MIME_TYPES = {".odt": "application/vnd.oasis.opendocument.text",
              ".ods": "application/vnd.oasis.opendocument.spreadsheet",
              ".odp": "application/vnd.oasis.opendocument.presentation"}
KINDS = {"application/vnd.oasis.opendocument.text": gettext_noop("an OpenDocument text"),
         "application/vnd.oasis.opendocument.spreadsheet": gettext_noop("an OpenDocument spreadsheet"),
         "application/vnd.oasis.opendocument.presentation": gettext_noop("an OpenDocument presentation")}

# Generated from the text (tables of contents, indexes) or not part of it (deletions, comments, declarations).
SKIPPED = frozenset({
    f"{TEXT}table-of-content", f"{TEXT}alphabetical-index", f"{TEXT}illustration-index", f"{TEXT}table-index",
    f"{TEXT}object-index", f"{TEXT}user-index", f"{TEXT}bibliography", f"{TEXT}tracked-changes",
    f"{TEXT}sequence-decls", f"{TEXT}variable-decls", f"{TEXT}user-field-decls", f"{OFFICE}annotation",
    f"{OFFICE}forms", f"{TEXT}note-citation",
})
HEADING, PARAGRAPH, LIST, TABLE_ELEMENT = f"{TEXT}h", f"{TEXT}p", f"{TEXT}list", f"{TABLE}table"
ROW, CELL, COVERED_CELL = f"{TABLE}table-row", f"{TABLE}table-cell", f"{TABLE}covered-table-cell"
MAX_COLUMNS = 16_384  # Excel's width: a cell repeated further is padding
MAX_META_BYTES = 1024 * 1024
# Frames a slide repeats from its master (footer, date, number), and notes pages' slide thumbnails.
FURNITURE = frozenset({"footer", "header", "date-time", "page-number", "page"})
CM_PER_UNIT = {"cm": 1.0, "mm": 0.1, "in": 2.54, "pt": 2.54 / 72, "pc": 2.54 / 6, "px": 2.54 / 96}


def parse_odt(path: Path, *, max_chars: int) -> ParsedDocument:
    """Markdown of an OpenDocument text; title from meta.xml or the first heading."""
    _root, body = _read_body(path, ".odt", "text", max_chars=max_chars)
    writer = _TextWriter()
    try:
        writer.blocks(body, depth=0)
    except RecursionError as exc:  # elements nested thousands deep: no editor writes that
        raise _damaged(path, exc) from None
    markdown = writer.markdown()
    if not markdown.strip():
        raise ParseError(_("%(name)s is empty: the document has no text") % {"name": path.name})
    return ParsedDocument(text=markdown, title=_meta_title(path) or first_heading(markdown) or path.stem, mime="")


def parse_ods(path: Path, *, max_chars: int) -> ParsedDocument:
    """Every sheet of an OpenDocument spreadsheet, as `spreadsheet.parse_xlsx` writes a workbook."""
    _check_package(path, ".ods")
    check_body_text(path, max_chars, members=(CONTENT,))
    try:
        with zipfile.ZipFile(path) as archive, archive.open(CONTENT) as stream:
            return spreadsheet.sheets_document(path, _sheets(ElementTree.iterparse(stream, ("start", "end"))),
                                               max_chars)
    except KnowledgeError:
        raise
    except Exception as exc:  # noqa: BLE001 - XML and zip errors surface while the rows are read
        raise _damaged(path, exc) from exc


def parse_odp(path: Path, *, max_chars: int) -> ParsedDocument:
    """Every slide of an OpenDocument presentation, as `presentation.parse_pptx` writes one."""
    root, body = _read_body(path, ".odp", "presentation", max_chars=max_chars)
    hidden = _hidden_page_styles(root)
    slides = (_slide(page, n, hidden) for n, page in enumerate(body.iter(f"{DRAW}page"), 1))
    try:
        document = presentation.slides_document(path, slides, max_chars)
    except RecursionError as exc:
        raise _damaged(path, exc) from None
    document.title = _meta_title(path) or document.title
    return document


def _read_body(path: Path, ext: str, kind: str, *, max_chars: int):
    """content.xml's root and its `office:<kind>` body, once the package and its text passed the checks."""
    _check_package(path, ext)
    check_body_text(path, max_chars, members=(CONTENT,))
    try:
        with zipfile.ZipFile(path) as archive:
            root = ElementTree.fromstring(archive.read(CONTENT))
    except (KeyError, ElementTree.ParseError, zipfile.BadZipFile, OSError) as exc:
        raise _damaged(path, exc) from exc
    body = root.find(f"{OFFICE}body/{OFFICE}{kind}")
    if body is None:
        raise _damaged(path, ValueError(f"no office:{kind} body"))
    return root, body


def _check_package(path: Path, ext: str) -> None:
    """Refuse an encrypted package, or one of another OpenDocument kind than its extension says."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            declared = archive.read(MIMETYPE)[:200].decode("ascii", "replace").strip() if MIMETYPE in names else ""
            encrypted = MANIFEST in names and b"encryption-data" in archive.read(MANIFEST)
    except (zipfile.BadZipFile, OSError, KeyError) as exc:
        raise _damaged(path, exc) from exc
    if encrypted:
        raise password_protected(path.name)
    if declared and not declared.startswith(MIME_TYPES[ext]):  # "…text-template" is a text too
        kind = KINDS.get(declared, gettext_noop("another kind of file"))
        raise UnsupportedFileError(_("%(name)s is named %(ext)s but its content is %(actual)s; upload the original "
                                     "file") % {"name": path.name, "ext": ext, "actual": _(kind)})
    if CONTENT not in names:
        raise _damaged(path, KeyError(CONTENT))


def _damaged(path: Path, exc: Exception) -> ParseError:
    return ParseError(_("%(name)s is damaged or not an OpenDocument file that we can read (%(reason)s)")
                      % {"name": path.name, "reason": short_reason(exc)})


def _meta_title(path: Path) -> str:
    try:
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo(META)
            if info.file_size > MAX_META_BYTES:
                return ""
            element = ElementTree.fromstring(archive.read(info)).find(f"{OFFICE}meta/{DC_TITLE}")
    except (KeyError, zipfile.BadZipFile, ElementTree.ParseError, OSError):
        return ""
    return " ".join((element.text or "").split()) if element is not None else ""


def _hidden_page_styles(root) -> set[str]:
    """Names of the slide styles that hide a slide in the show."""
    return {style.get(f"{STYLE}name", "") for style in root.iter(f"{STYLE}style")
            if style.get(f"{STYLE}family") == "drawing-page"
            and any(properties.get(f"{PRESENTATION}visibility") == "hidden"
                    for properties in style.iter(f"{STYLE}drawing-page-properties"))}


def _slide(page, number: int, hidden_styles: set[str]) -> presentation.Slide:
    slide = presentation.Slide(number=number, hidden=page.get(f"{DRAW}style-name") in hidden_styles)
    for shape in _reading_order(child for child in page if child.tag != f"{PRESENTATION}notes"):
        kind = shape.get(f"{PRESENTATION}class")
        if kind in FURNITURE or shape.get(f"{PRESENTATION}placeholder") == "true":
            continue  # an empty placeholder shows its layout's prompt, not the slide's text
        writer = _TextWriter()
        writer.blocks([shape], depth=0)
        text = writer.markdown()
        if kind == "title" and not slide.title:
            slide.title = " ".join(text.split())
        elif text:
            slide.blocks.append(text)
    writer = _TextWriter()
    for notes in page.iter(f"{PRESENTATION}notes"):
        writer.blocks([frame for frame in notes.iter(f"{DRAW}frame") if frame.get(f"{PRESENTATION}class") == "notes"],
                      depth=0)
    slide.notes = writer.markdown()
    return slide


def _reading_order(shapes) -> list:
    """`shapes` top to bottom, then left to right, groups (`draw:g`) opened where their first shape stands."""
    placed = sorted(enumerate(shapes), key=lambda item: (*_position(item[1]), item[0]))
    ordered = []
    for _index, shape in placed:
        ordered.extend(_reading_order(shape) if shape.tag == f"{DRAW}g" else [shape])
    return ordered


def _position(shape) -> tuple[float, float]:
    """(top, left) in centimetres; a group's is its highest shape's (a group has no position of its own)."""
    if shape.tag == f"{DRAW}g":
        return min((_position(child) for child in shape), default=(0.0, 0.0))
    return _cm(shape.get(f"{SVG}y")), _cm(shape.get(f"{SVG}x"))


def _cm(length: str | None) -> float:
    """An ODF length ("2.5cm", "1in") in centimetres; 0 when absent or unreadable."""
    for unit, factor in CM_PER_UNIT.items():
        if length and length.endswith(unit):
            try:
                return float(length[: -len(unit)]) * factor
            except ValueError:
                return 0.0
    return 0.0


class _TextWriter:
    """Markdown blocks of an OpenDocument text body, and its footnotes."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.notes: list[str] = []

    def markdown(self) -> str:
        notes = [f"[{n}] {note}" for n, note in enumerate(self.notes, 1)]
        return "\n\n".join(self.lines + notes)

    def blocks(self, element, *, depth: int) -> None:
        for child in element:
            if child.tag in SKIPPED:
                continue
            if child.tag == HEADING:
                text = " ".join(self.inline(child).split())
                level = min(max(_int(child.get(f"{TEXT}outline-level"), 1), 1), 6)
                if text:
                    self.lines.append("#" * level + " " + text)
            elif child.tag == PARAGRAPH:
                if text := self.inline(child):
                    self.lines.append(text)
            elif child.tag == LIST:
                self.list_items(child, depth=depth)
            elif child.tag == TABLE_ELEMENT:
                # A cell merged across or down fills the cells it covers, as in a spreadsheet (and in Word).
                merges: list[spreadsheet.Merge] = []
                numbered = ((number, _row_values(row, self, merges=merges, number=number))
                            for number, row in enumerate(child.iter(ROW), 1))
                rows = ([spreadsheet.format_cell(value) for value in values]
                        for values in spreadsheet.fill_numbered(numbered, merges))
                if table := "\n".join(table_lines(rows)):
                    self.lines.append(table)
            else:  # sections, soft page breaks, frames: what they hold
                self.blocks(child, depth=depth)

    def list_items(self, element, *, depth: int) -> None:
        indent = "  " * depth
        for item in element:
            nested = _TextWriter()
            nested.notes = self.notes
            nested.blocks(item, depth=depth + 1)
            for n, line in enumerate(nested.lines):
                # A nested list's lines come indented to their own depth (a paragraph's never start with spaces).
                placed = line.startswith(indent + "  ")
                self.lines.append(line if placed else indent + ("- " if n == 0 else "  ") + line)

    def cell_text(self, cell) -> str:
        """A cell's paragraphs, one per line (empty ones too: a blank line between two of an answer's)."""
        return "\n".join(self.inline(child) for child in cell if child.tag in (PARAGRAPH, HEADING)).strip()

    def inline(self, element) -> str:
        """The element's text, lines kept, spaces collapsed as OpenDocument collapses them."""
        parts: list[str] = []
        self._inline(element, parts)
        return "\n".join(" ".join(line.split()) for line in "".join(parts).split("\n")).strip()

    def _inline(self, element, parts: list[str]) -> None:
        parts.append(element.text or "")
        for child in element:
            if child.tag == f"{TEXT}s":
                parts.append(" " * min(_int(child.get(f"{TEXT}c"), 1), 100))
            elif child.tag == f"{TEXT}tab":
                parts.append(" ")
            elif child.tag == f"{TEXT}line-break":
                parts.append("\n")
            elif child.tag == f"{TEXT}note":
                body = child.find(f"{TEXT}note-body")
                if body is not None:
                    note = _TextWriter()
                    note.blocks(body, depth=0)
                    self.notes.append(" ".join(" ".join(note.lines).split()))
                    parts.append(f"[{len(self.notes)}]")
            elif child.tag not in SKIPPED:
                if child.tag in (PARAGRAPH, HEADING):  # a text box's paragraphs, inside a frame
                    parts.append(" ")
                self._inline(child, parts)
            parts.append(child.tail or "")


def _int(value, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _sheets(events) -> Iterator[spreadsheet.Sheet]:
    """(name, hidden, rows) for each sheet, from `iterparse` events of content.xml, read once."""
    hidden_styles: set[str] = set()
    for event, element in events:
        if event == "end" and element.tag == f"{STYLE}style" and element.get(f"{STYLE}family") == "table":
            properties = element.find(f"{STYLE}table-properties")
            if properties is not None and properties.get(f"{TABLE}display") == "false":
                hidden_styles.add(element.get(f"{STYLE}name", ""))
        elif event == "start" and element.tag == TABLE_ELEMENT:
            merges: list[spreadsheet.Merge] = []
            yield (element.get(f"{TABLE}name", ""), element.get(f"{TABLE}style-name") in hidden_styles,
                   spreadsheet.fill_numbered(_rows(events, element, merges), merges))


def _rows(events, table, merges: list) -> Iterator[tuple[int, list]]:
    """(row number, values) of each row of `table` with values (a repeated row as often as declared),
    until its end; the merged ranges met are appended to `merges` before their first row is yielded.

    Each row is dropped from the tree once read, so a sheet costs the memory of one row."""
    open_elements = [table]
    writer = _TextWriter()
    number = 0
    for event, element in events:
        if event == "start":
            open_elements.append(element)
            continue
        open_elements.pop()
        if not open_elements:  # the sheet's own end
            table.clear()
            return
        if element.tag != ROW or any(e.tag == TABLE_ELEMENT for e in open_elements[1:]):
            continue  # a cell's part, or a row of a table inside a cell (its text is the cell's)
        values = _row_values(element, writer, merges=merges, number=number + 1)
        repeat = max(_int(element.get(f"{TABLE}number-rows-repeated"), 1), 1)
        open_elements[-1].remove(element)
        if any(value not in (None, "") for value in values):
            for copy in range(repeat):  # the document's character limit bounds this
                yield number + 1 + copy, values
        number += repeat


def _row_values(row, writer: _TextWriter, *, merges: list | None = None, number: int = 0) -> list:
    """The row's cell values; with `merges`, the ranges its merged cells start (row `number`) are added."""
    values: list = []
    empty = 0  # empty cells not written yet: only cells before a value are
    for cell in row:
        if cell.tag not in (CELL, COVERED_CELL):
            continue
        repeat = max(_int(cell.get(f"{TABLE}number-columns-repeated"), 1), 1)
        if merges is not None:
            _add_merge(cell, merges, number, len(values) + empty + 1)
        value = _cell_value(cell, writer)
        if value in (None, ""):
            empty += repeat
            continue
        values.extend([None] * min(empty, MAX_COLUMNS - len(values)))
        values.extend([value] * min(repeat, MAX_COLUMNS - len(values)))
        empty = 0
        if len(values) >= MAX_COLUMNS:
            break
    return values


def _add_merge(cell, merges: list, number: int, column: int) -> None:
    """The range a merged cell (`table:number-rows/columns-spanned`) covers, from row `number`, `column`."""
    rows = max(_int(cell.get(f"{TABLE}number-rows-spanned"), 1), 1)
    columns = max(_int(cell.get(f"{TABLE}number-columns-spanned"), 1), 1)
    if (rows > 1 or columns > 1) and column <= MAX_COLUMNS:
        merges.append((number, column, number + rows - 1, column + columns - 1))


def _cell_value(cell, writer: _TextWriter):
    kind = cell.get(f"{OFFICE}value-type")
    try:
        if kind == "float":
            return float(cell.get(f"{OFFICE}value"))
        if kind == "date":
            return datetime.datetime.fromisoformat(cell.get(f"{OFFICE}date-value"))
        if kind == "boolean":
            return cell.get(f"{OFFICE}boolean-value") == "true"
    except (TypeError, ValueError):
        pass
    # Text, or what a currency or percentage shows ("15 %", "1 200,00 ₽"), its typed value failing that.
    return writer.cell_text(cell) or cell.get(f"{OFFICE}string-value") or cell.get(f"{OFFICE}value") or None
