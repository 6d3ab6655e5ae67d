"""OpenDocument text (.odt) and spreadsheets (.ods): what LibreOffice writes, read as Word and Excel files are.

The packages are written as LibreOffice lays them out (tests/knowledge/odf_files.py); the
spreadsheet test holds the cells of the real bank FAQ workbook in ../shared/data/documents (see SOURCES.md there).
"""

import datetime
import tempfile
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import openpyxl
import pytest
from django.test import TestCase

from knowledge.exceptions import FileTooLargeError, ParseError, UnsupportedFileError
from knowledge.indexing import ingestion, parsing, tables
from knowledge.models import Document
from tests.factories import make_kb
from tests.knowledge.odf_files import SHEET_TYPE, TEXT_TYPE, write_package

DOCS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "documents"
FAQ = DOCS / "xlsx" / "ru" / "smart_support_vtb_belarus_faq_final.xlsx"
def cell(value) -> str:
    """A table:table-cell as LibreOffice writes one for `value`."""
    if value is None:
        return "<table:table-cell/>"
    if isinstance(value, bool):
        return (f'<table:table-cell office:value-type="boolean" office:boolean-value="{str(value).lower()}">'
                f"<text:p>{str(value).upper()}</text:p></table:table-cell>")
    if isinstance(value, int | float):
        return (f'<table:table-cell office:value-type="float" office:value="{value}">'
                f"<text:p>{str(value).replace('.', ',')}</text:p></table:table-cell>")
    if isinstance(value, datetime.datetime | datetime.date):
        return (f'<table:table-cell office:value-type="date" office:date-value="{value.isoformat()}">'
                f"<text:p>{value.strftime('%d.%m.%Y')}</text:p></table:table-cell>")
    paragraphs = "".join(f"<text:p>{escape(line)}</text:p>" for line in str(value).split("\n"))
    return f'<table:table-cell office:value-type="string">{paragraphs}</table:table-cell>'


def sheet(name: str, rows, *, style: str = "ta1", padded: bool = True) -> str:
    """A table:table with `rows`, padded to the sheet's edge as LibreOffice pads it."""
    pad = '<table:table-cell table:number-columns-repeated="16370"/>' if padded else ""
    lines = "".join(f"<table:table-row>{''.join(cell(v) for v in row)}{pad}</table:table-row>" for row in rows)
    if padded:
        lines += ('<table:table-row table:number-rows-repeated="1048000">'
                  '<table:table-cell table:number-columns-repeated="16384"/></table:table-row>')
    return f"<table:table table:name={quoteattr(name)} table:style-name={quoteattr(style)}>{lines}</table:table>"


HIDDEN_STYLE = ('<style:style style:name="ta2" style:family="table">'
                '<style:table-properties table:display="false"/></style:style>')


def faq_as_ods(path: Path) -> Path:
    """The bank FAQ workbook's cells, saved as LibreOffice saves a spreadsheet."""
    workbook = openpyxl.load_workbook(FAQ, read_only=True, data_only=True)
    body = "".join(sheet(ws.title, ws.iter_rows(values_only=True)) for ws in workbook.worksheets)
    workbook.close()
    return write_package(path, SHEET_TYPE, body)


def test_a_spreadsheet_reads_as_the_same_workbook_saved_as_xlsx_does(tmp_path):
    path = faq_as_ods(tmp_path / "faq.ods")
    ods, xlsx = parsing.parse_file(path), parsing.parse_file(FAQ)
    assert ods.text == xlsx.text
    assert ods.metadata["sheets"] == xlsx.metadata["sheets"]
    assert ods.mime == SHEET_TYPE
    found = tables.read_tables(ods.text)
    assert found and len(found[0].rows) > 10
    assert {"question", "answer"} <= set(tables.guess_mapping(found[0].columns, found[0].rows).values())


def test_spreadsheet_values_hidden_sheets_and_repeated_rows(tmp_path):
    rows = [("Товар", "Цена", "Дата", "Есть"), ("Чай", 12.5, datetime.date(2026, 12, 3), True),
            ("Кофе", 3, None, False)]
    repeated = ('<table:table-row table:number-rows-repeated="3">' + cell("same") + cell(1) + "</table:table-row>")
    shown = ('<table:table-row>' + cell("Скидка")
             + '<table:table-cell office:value-type="percentage" office:value="0.15"><text:p>15 %</text:p>'
             "</table:table-cell></table:table-row>")
    hidden = sheet("Архив", [("Ключ", "Значение"), ("a", "b")], style="ta2", padded=False)
    body = sheet("Цены", rows).replace("</table:table>", repeated + shown + "</table:table>", 1) + hidden
    parsed = parsing.parse_file(write_package(tmp_path / "prices.ods", SHEET_TYPE, body, styles=HIDDEN_STYLE))
    assert "## Sheet: Цены\n\n| Товар | Цена | Дата | Есть |" in parsed.text
    assert "| Чай | 12.5 | 2026-12-03 | TRUE |" in parsed.text
    assert "| Кофе | 3 |  | FALSE |" in parsed.text
    assert parsed.text.count("| same | 1 |") == 3
    assert "| Скидка | 15 % |" in parsed.text  # a percentage as shown, not 0.15
    assert "## Sheet: Архив (hidden)" in parsed.text
    assert parsed.metadata["sheets"] == ["Цены", "Архив"]


def merged(value: str, *, rows: int = 1, columns: int = 1) -> str:
    """A merged cell as LibreOffice writes it: the first cell says what it spans, covered cells follow."""
    spans = f'table:number-rows-spanned="{rows}" table:number-columns-spanned="{columns}"'
    return cell(value).replace("<table:table-cell ", f"<table:table-cell {spans} ", 1)


COVERED = "<table:covered-table-cell/>"


def test_merged_cells_fill_the_cells_they_cover_as_in_an_excel_sheet(tmp_path):
    rows = ["<table:table-row>" + merged("Часы работы", columns=3) + COVERED * 2 + "</table:table-row>",
            "<table:table-row>" + cell("Отдел") + cell("Пн") + cell("Вт") + "</table:table-row>",
            '<table:table-row table:number-rows-repeated="2"><table:table-cell/></table:table-row>',
            "<table:table-row>" + merged("Продажи", rows=2) + merged("9–18", columns=2) + COVERED
            + "</table:table-row>",
            "<table:table-row>" + COVERED + cell("10–19") + cell("10–17") + "</table:table-row>",
            "<table:table-row>" + cell("Склад") + cell("8–17") + cell("8–15") + "</table:table-row>"]
    body = f'<table:table table:name="Часы">{"".join(rows)}</table:table>'
    text = parsing.parse_file(write_package(tmp_path / "hours.ods", SHEET_TYPE, body)).text
    assert text.count("Часы работы") == 1  # a title merged across an otherwise empty row stays one note
    assert "| Отдел | Пн | Вт |" in text
    assert "| Продажи | 9–18 | 9–18 |\n| Продажи | 10–19 | 10–17 |\n| Склад | 8–17 | 8–15 |" in text


def test_a_text_documents_table_fills_its_merged_cells_as_a_word_table_does(tmp_path):
    rows = ["<table:table-row>" + cell("Name") + cell("Phone") + cell("Email") + "</table:table-row>",
            "<table:table-row>" + cell("Ann") + cell("111") + cell("a@x.org") + "</table:table-row>",
            "<table:table-row>" + cell("Bob") + merged("Ask reception", columns=2) + COVERED + "</table:table-row>"]
    body = f'<table:table table:name="Staff">{"".join(rows)}</table:table>'
    [table] = tables.read_tables(parsing.parse_file(write_package(tmp_path / "staff.odt", TEXT_TYPE, body)).text)
    assert table.rows[1] == ["Bob", "Ask reception", "Ask reception"]


TEXT_BODY = """
<text:table-of-content><text:index-body><text:p>Contents 1</text:p></text:index-body></text:table-of-content>
<text:h text:outline-level="1">Returns policy</text:h>
<text:p>Items can be returned<text:s text:c="3"/>within <text:span>30 days</text:span>.<text:note text:id="n1">
<text:note-citation>1</text:note-citation><text:note-body><text:p>Calendar days.</text:p></text:note-body></text:note>
<office:annotation><text:p>Check with legal</text:p></office:annotation></text:p>
<text:tracked-changes><text:changed-region><text:deletion><text:p>Old wording</text:p></text:deletion>
</text:changed-region></text:tracked-changes>
<text:h text:outline-level="2">How to return</text:h>
<text:list><text:list-item><text:p>Pack the item</text:p></text:list-item>
<text:list-item><text:p>Print the label</text:p><text:list><text:list-item><text:p>A4 paper</text:p>
<text:list><text:list-item><text:p>80 g/m²</text:p></text:list-item></text:list></text:list-item>
</text:list><text:p>then tape it</text:p></text:list-item></text:list>
<text:p>First line<text:line-break/>second line<text:tab/>after a tab</text:p>
<table:table table:name="Fees"><table:table-column table:number-columns-repeated="2"/>
<table:table-row><table:table-cell><text:p>Country</text:p></table:table-cell>
<table:table-cell><text:p>Fee</text:p></table:table-cell></table:table-row>
<table:table-row><table:table-cell><text:p>Belarus</text:p></table:table-cell>
<table:table-cell office:value-type="float" office:value="5"><text:p>5</text:p></table:table-cell></table:table-row>
</table:table>
<text:section><text:p>Inside a section</text:p></text:section>
"""


def test_a_text_document_becomes_markdown_with_its_structure(tmp_path):
    parsed = parsing.parse_file(write_package(tmp_path / "policy.odt", TEXT_TYPE, TEXT_BODY, title="Returns"))
    assert parsed.title == "Returns" and parsed.mime == TEXT_TYPE
    assert parsed.text.startswith("# Returns policy\n\nItems can be returned within 30 days.[1]\n\n## How to return")
    assert "- Pack the item\n\n- Print the label\n\n  - A4 paper\n\n    - 80 g/m²\n\n  then tape it" in parsed.text
    assert "First line\nsecond line after a tab" in parsed.text
    assert "| Country | Fee |\n| --- | --- |\n| Belarus | 5 |" in parsed.text
    assert "Inside a section" in parsed.text
    assert parsed.text.endswith("[1] Calendar days.")
    for left_out in ("Contents 1", "Check with legal", "Old wording"):
        assert left_out not in parsed.text


def test_a_text_documents_title_falls_back_to_its_first_heading(tmp_path):
    parsed = parsing.parse_file(write_package(tmp_path / "untitled.odt", TEXT_TYPE, TEXT_BODY))
    assert parsed.title == "Returns policy"


def test_password_protected_packages_are_refused_with_the_reason(tmp_path):
    path = write_package(tmp_path / "secret.odt", TEXT_TYPE, "<text:p>x</text:p>", encrypted=True)
    with pytest.raises(ParseError, match="secret.odt is password-protected"):
        parsing.parse_file(path)


def test_a_spreadsheet_named_odt_is_refused_as_what_it_is(tmp_path):
    path = write_package(tmp_path / "prices.odt", SHEET_TYPE, sheet("a", [("x", "y")], padded=False))
    with pytest.raises(UnsupportedFileError, match="prices.odt is named .odt but its content is an OpenDocument spr"):
        parsing.parse_file(path)


def test_damaged_and_empty_packages_end_as_clear_errors(tmp_path):
    path = write_package(tmp_path / "broken.odt", TEXT_TYPE, "<text:p>unclosed")
    with pytest.raises(ParseError, match="broken.odt is damaged: its text is not well-formed XML"):
        parsing.parse_file(path)
    path = write_package(tmp_path / "broken.ods", SHEET_TYPE, "<table:table>")
    with pytest.raises(ParseError, match="broken.ods is damaged: its text is not well-formed XML"):
        parsing.parse_file(path)
    nested = "<text:span>" * 50_000 + "deep" + "</text:span>" * 50_000
    path = write_package(tmp_path / "deep.odt", TEXT_TYPE, f"<text:p>{nested}</text:p>")
    with pytest.raises(ParseError, match="deep.odt is damaged or not an OpenDocument file"):
        parsing.parse_file(path)
    path = write_package(tmp_path / "empty.odt", TEXT_TYPE, "<text:p> </text:p>")
    with pytest.raises(ParseError, match="empty.odt is empty"):
        parsing.parse_file(path)
    path = write_package(tmp_path / "empty.ods", SHEET_TYPE, sheet("a", []))
    with pytest.raises(ParseError, match="empty.ods is empty"):
        parsing.parse_file(path)
    with zipfile.ZipFile(tmp_path / "other.odt", "w") as package:
        package.writestr("word/document.xml", "<w/>")
    with pytest.raises(UnsupportedFileError, match="other.odt is named .odt but is not an OpenDocument text"):
        parsing.parse_file(tmp_path / "other.odt")


def test_a_row_or_cell_repeated_beyond_reason_costs_no_more_than_the_limits(tmp_path):
    row = ('<table:table-row table:number-rows-repeated="1000000000">'
           '<table:table-cell table:number-columns-repeated="1000000000" office:value-type="string">'
           "<text:p>x</text:p></table:table-cell></table:table-row>")
    path = write_package(tmp_path / "bomb.ods", SHEET_TYPE, f'<table:table table:name="a">{row}</table:table>')
    with pytest.raises(FileTooLargeError, match="bomb.ods holds more than 100,000 characters"):
        parsing.parse_file(path, max_chars=100_000)


class SpreadsheetIngestionTests(TestCase):
    def test_each_faq_row_of_an_ods_upload_is_one_entry(self):
        with tempfile.TemporaryDirectory() as folder:
            document = ingestion.ingest_file(make_kb(), faq_as_ods(Path(folder) / "faq.ods")).document
        self.assertEqual(document.status, Document.Status.READY, document.error_message)
        faq = [chunk for chunk in document.chunks.order_by("position")
               if chunk.metadata.get("entry", {}).get("kind") == "faq"]
        self.assertEqual(len(faq), 201)
        self.assertEqual(faq[0].metadata["entry"]["question"], "Как стать клиентом банка онлайн?")
        self.assertEqual(document.metadata["tables"][0]["mapping"]["Шаблонный ответ"], "answer")
