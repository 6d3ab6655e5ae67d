"""Tables whose cells do not line up with their columns as written: nested tables, headers of two rows,
cells spanning rows (parsing/html_tables.py `shape_tables`), in Word documents and web pages."""

import tempfile
from pathlib import Path

from django.test import SimpleTestCase, TestCase

from knowledge.exceptions import ParseError
from knowledge.indexing import ingestion, parsing, tables
from knowledge.indexing.parsing.html import html_to_markdown
from tests.conftest import DATA
from tests.factories import make_kb

DOCX = DATA / "documents" / "docx" / "en"
PRICES = (
    "<table><thead><tr><th rowspan=2>Plan</th><th colspan=2>Price</th></tr>"
    "<tr><th>Month</th><th>Year</th></tr></thead>"
    "<tbody><tr><td>Basic</td><td>$5</td><td>$50</td></tr><tr><td>Pro</td><td>$9</td><td>$90</td></tr></tbody>"
    "</table>"
)


def docx_tables(name: str) -> list[tables.Table]:
    return tables.read_tables(parsing.parse_file(DOCX / name).text)


def page_tables(body: str) -> list[tables.Table]:
    return tables.read_tables(html_to_markdown(f"<html><body>{body}</body></html>")[1])


def row_texts(table: tables.Table) -> list[str]:
    mapping = tables.guess_mapping(table.columns, table.rows)
    return [entry.content for entry in tables.table_entries(table, mapping)]


class NestedTableTests(SimpleTestCase):
    def test_a_table_of_one_cell_holding_another_is_layout_its_cells_blocks(self):
        found = docx_tables("python-docx-blk-paras-and-tables.docx")
        self.assertFalse(any("Text before" in cell for table in found for row in table.rows for cell in row))
        self.assertFalse(any("|" in cell for table in found for row in table.rows for cell in row))

    def test_a_data_table_inside_a_layout_table_keeps_its_rows_and_columns(self):
        [table] = page_tables(
            "<table><tr><td><h2>Prices</h2><table><tr><th>Plan</th><th>Price</th></tr>"
            "<tr><td>Basic</td><td>$5</td></tr><tr><td>Pro</td><td>$9</td></tr></table></td>"
            "<td><p>Call us</p></td></tr></table>"
        )
        self.assertEqual((table.columns, table.rows), (["Plan", "Price"], [["Basic", "$5"], ["Pro", "$9"]]))

    def test_a_table_in_a_web_page_cell_keeps_the_outer_rows(self):
        [table] = page_tables(
            "<table><tr><th>Name</th><th>Details</th></tr><tr><td>Bob</td><td><table>"
            "<tr><td>Age</td><td>42</td></tr><tr><td>City</td><td>Oslo</td></tr></table></td></tr>"
            "<tr><td>Ann</td><td>none</td></tr></table>"
        )
        self.assertEqual(table.columns, ["Name", "Details"])
        self.assertEqual(table.rows, [["Bob", "Age — 42; City — Oslo"], ["Ann", "none"]])


class MultiRowHeaderTests(SimpleTestCase):
    def test_a_word_header_of_two_rows_names_each_column_group_and_sub(self):
        [table] = docx_tables("pandoc-table_header_rowspan.docx")
        self.assertEqual(table.columns, ["A", "B", "C", "D", "E — G", "E — H", "E — I", "F"])
        self.assertEqual(len(table.rows), 9)
        self.assertEqual(table.rows[0], ["1", "2", "3", "4", "5", "6", "7", "8"])
        self.assertIn("E — H: 6", row_texts(table)[0].split("\n"))

    def test_a_thead_of_two_rows_is_one_header(self):
        [table] = page_tables(PRICES)
        self.assertEqual(table.columns, ["Plan", "Price — Month", "Price — Year"])
        self.assertEqual(
            row_texts(table),
            ["Plan: Basic\nPrice — Month: $5\nPrice — Year: $50", "Plan: Pro\nPrice — Month: $9\nPrice — Year: $90"],
        )

    def test_th_rows_dividing_a_merged_cell_are_one_header(self):
        [table] = page_tables(
            "<table><tr><th>Plan</th><th colspan=2>Price</th></tr><tr><th></th><th>Month</th>"
            "<th>Year</th></tr><tr><td>Basic</td><td>$5</td><td>$50</td></tr></table>"
        )
        self.assertEqual(table.columns, ["Plan", "Price — Month", "Price — Year"])
        self.assertEqual(table.rows, [["Basic", "$5", "$50"]])

    def test_a_section_row_under_the_header_stays_a_row(self):
        [table] = page_tables(
            "<table><tr><th>Plan</th><th>Price</th></tr><tr><th colspan=2>Europe</th></tr>"
            "<tr><td>Basic</td><td>$5</td></tr></table>"
        )
        self.assertEqual(table.columns, ["Plan", "Price"])
        self.assertEqual(table.rows, [["Europe", ""], ["Basic", "$5"]])


class SpannedRowTests(SimpleTestCase):
    def test_a_word_cell_merged_down_is_in_each_row_it_covers(self):
        found = docx_tables("python-docx-tbl-cell-access.docx")
        self.assertEqual(found[2].rows, [["1", "2", "3"], ["4", "5", "6"], ["7", "5", "9"]])
        # Merged across and down: in each column and row it covers, and the columns after it stay in place.
        self.assertEqual(found[3].rows, [["1", "2", "3"], ["4", "4", "6"], ["4", "4", "9"]])

    def test_a_group_cell_spanning_data_rows_is_no_header(self):
        [table] = page_tables(
            "<table><tr><td rowspan=3>Cards</td><td>Debit</td><td>5</td></tr>"
            "<tr><td>Credit</td><td>3</td></tr><tr><td>Gift</td><td>1</td></tr></table>"
        )
        self.assertEqual(table.rows, [["Cards", "Debit", "5"], ["Cards", "Credit", "3"], ["Cards", "Gift", "1"]])


class SpannedColumnTests(SimpleTestCase):
    def test_a_data_cell_merged_across_columns_is_in_each_column_it_covers(self):
        [table] = page_tables(
            "<table><tr><th>Name</th><th>Phone</th><th>Email</th><th>Note</th></tr>"
            "<tr><td>Ann</td><td>111</td><td>a@x.org</td><td>new</td></tr>"
            "<tr><td>Bob</td><td colspan=2>Same for both</td><td>old</td></tr></table>"
        )
        self.assertEqual(table.rows[1], ["Bob", "Same for both", "Same for both", "old"])
        self.assertEqual(row_texts(table)[1], "Name: Bob\nPhone: Same for both\nEmail: Same for both\nNote: old")

    def test_a_row_of_one_value_across_the_table_stays_one_cell(self):
        [table] = page_tables(
            "<table><tr><th>Plan</th><th>Price</th></tr><tr><td colspan=2>Europe</td></tr>"
            "<tr><td>Basic</td><td>$5</td></tr></table>"
        )
        self.assertEqual(table.rows, [["Europe", ""], ["Basic", "$5"]])


class CellParagraphTests(SimpleTestCase):
    def test_paragraphs_in_a_word_cell_are_lines_of_the_cell(self):
        table = docx_tables("pandoc-tables.docx")[-1]
        self.assertEqual(table.columns, ["Simple Multiparagraph", "Table Full"])
        self.assertEqual(table.rows, [["Of\nParagraphs", "In each\nCell."]])

    def test_a_web_cells_paragraphs_and_list_items_read_as_lines_under_the_column_name(self):
        [table] = page_tables(
            "<table><tr><th>Plan</th><th>Terms</th></tr><tr><td>Basic</td><td><p>Paid monthly.\nNo refunds.</p>"
            "<p>Cancel any time</p><ul><li>one seat</li><li>email support</li></ul></td></tr></table>"
        )
        self.assertEqual(table.rows[0][1], "Paid monthly. No refunds.\nCancel any time\n- one seat\n- email support")
        self.assertEqual(
            row_texts(table),
            ["Plan: Basic\nTerms: Paid monthly. No refunds.\nCancel any time\n- one seat\n- email support"],
        )

    def test_a_code_block_in_a_cell_reads_as_its_lines_without_fences(self):
        [table] = page_tables(
            "<table><tr><th>Step</th><th>Command</th></tr><tr><td>Build</td><td><p>Run:</p>"
            "<pre><code class='language-python'>if ready:\n    build()</code></pre></td></tr></table>"
        )
        self.assertEqual(table.rows, [["Build", "Run:\nif ready:\n    build()"]])

    def test_a_nested_list_in_a_cell_keeps_its_indent(self):
        [table] = page_tables(
            "<table><tr><th>Plan</th><th>Includes</th></tr><tr><td>Pro</td><td><ul><li>Support<ul><li>email</li>"
            "<li>phone</li></ul></li><li>Backups</li></ul></td></tr></table>"
        )
        self.assertEqual(row_texts(table), ["Plan: Pro\nIncludes: - Support\n  - email\n  - phone\n- Backups"])


class OneColumnTableTests(SimpleTestCase):
    def test_a_word_title_page_set_in_a_one_column_table_reads_as_paragraphs(self):
        text = parsing.parse_file(DOCX / "pandoc-0_level_headers.docx").text
        self.assertTrue(text.startswith("User’s Guide\n\n11 August 2017\n\n"), text[:80])
        self.assertNotIn("| User’s Guide |", text)

    def test_a_one_column_table_without_a_nested_table_is_layout(self):
        markdown = html_to_markdown(
            "<html><body><table><tr><td><p>ACME Corporation</p></td></tr><tr><td><h1>Service Manual</h1></td></tr>"
            "<tr><td><p>Version 2.1</p><p>March 2024</p></td></tr></table><p>Body.</p></body></html>"
        )[1]
        self.assertEqual(markdown, "ACME Corporation\n\n# Service Manual\n\nVersion 2.1\n\nMarch 2024\n\nBody.")


class EmptyTableTests(SimpleTestCase):
    def test_a_word_table_without_text_is_left_out(self):
        text = parsing.parse_file(DOCX / "python-docx-blk-paras-and-tables.docx").text
        self.assertTrue(text.startswith("Lorem ipsum"), text[:80])
        self.assertNotIn("|", text)

    def test_a_word_document_of_empty_tables_only_is_empty(self):
        with self.assertRaisesMessage(ParseError, "is empty"):
            parsing.parse_file(DOCX / "python-docx-tbl-having-tables.docx")

    def test_an_empty_table_inside_a_cell_leaves_the_outer_table_alone(self):
        [table] = page_tables(
            "<table><tr><th>Plan</th><th>Notes</th></tr><tr><td>Basic</td><td>Monthly<table><tr><td> </td>"
            "<td>&nbsp;</td></tr></table></td></tr></table>"
        )
        self.assertEqual(table.rows, [["Basic", "Monthly"]])


class IngestedHeaderTests(TestCase):
    def test_rows_under_a_two_row_header_read_group_and_sub(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "prices.html"
            path.write_text(f"<html><head><title>Prices</title></head><body>{PRICES}</body></html>", encoding="utf-8")
            document = ingestion.ingest_file(make_kb(), path).document
        self.assertEqual(document.metadata["tables"][0]["columns"], ["Plan", "Price — Month", "Price — Year"])
        self.assertTrue(document.chunks.filter(content__contains="Price — Year: $90").exists())
