"""Spreadsheets as their author sees them: sheet headings, merged cells and formulas."""

from pathlib import Path

import openpyxl
from django.test import TestCase

from knowledge.indexing import entries, ingestion, parsing
from knowledge.indexing.parsing import quality
from tests.conftest import DATA
from tests.factories import make_kb
from tests.knowledge.test_tables import TempDirMixin

DOCUMENTS = DATA / "documents"


def save(book: openpyxl.Workbook, path: Path) -> Path:
    book.save(path)
    return path


def rows(path: Path) -> list[str]:
    return [piece.content for piece in entries.split_document(parsing.parse_file(path).text)[0] if piece.kind]


def prose(path: Path) -> list[entries.Piece]:
    return [piece for piece in entries.split_document(parsing.parse_file(path).text)[0] if not piece.kind]


class SheetHeadingTests(TempDirMixin, TestCase):
    def test_a_sheet_holding_only_a_table_leaves_no_heading_in_the_next_sheets_text(self):
        book = openpyxl.Workbook()
        tariffs = book.active
        tariffs.title = "Tariffs"
        for row in [["Тариф", "Плата за месяц"], ["Базовый", 0], ["Максимальный", 990]]:
            tariffs.append(row)
        contacts = book.create_sheet("Contacts")
        for row in [["Отдел поддержки"], ["Отдел", "Телефон", "Почта"], ["Продажи", "100", "sales@example.com"]]:
            contacts.append(row)
        contacts.merge_cells("A1:C1")
        pieces = prose(save(book, self.tmp / "contacts.xlsx"))
        self.assertEqual([(piece.heading_path, piece.content) for piece in pieces],
                         [(["Sheet: Contacts"], "## Sheet: Contacts\n\nОтдел поддержки")])

    def test_a_list_sheet_is_labelled_with_its_own_sheet(self):
        pieces = prose(DOCUMENTS / "xls" / "xlrd-Formate.xls")
        self.assertEqual([piece.heading_path for piece in pieces], [["Sheet: Blätt3"]])
        self.assertEqual(pieces[0].content.count("## Sheet:"), 1)
        self.assertIn("1200", pieces[0].content)

    def test_a_heading_above_prose_is_kept(self):
        text = "# Guide\n\n## Prices\n\n| A | B |\n| --- | --- |\n| 1 | 2 |\n\n## Notes\n\nCall us any time."
        pieces = [piece for piece in entries.split_document(text)[0] if not piece.kind]
        self.assertEqual([(piece.heading_path, piece.content) for piece in pieces],
                         [(["Guide", "Notes"], "# Guide\n\n## Notes\n\nCall us any time.")])


class MergedCellTests(TempDirMixin, TestCase):
    def test_a_vertically_merged_cell_belongs_to_every_row_it_spans(self):
        book = openpyxl.Workbook()
        sheet = book.active
        for row in [["Отдел", "Сотрудник", "Телефон"], ["Поддержка", "Анна", "101"], ["Продажи", "Борис", "102"],
                    [None, "Вера", "103"]]:
            sheet.append(row)
        sheet.merge_cells("A3:A4")
        self.assertEqual(rows(save(book, self.tmp / "staff.xlsx"))[1:],
                         ["Отдел: Продажи\nСотрудник: Борис\nТелефон: 102",
                          "Отдел: Продажи\nСотрудник: Вера\nТелефон: 103"])

    def test_a_cell_merged_across_a_row_fills_its_columns_but_a_title_stays_one_note(self):
        book = openpyxl.Workbook()
        sheet = book.active
        for row in [["Часы работы"], ["Отдел", "Пн", "Вт"], ["Продажи", "9–18"], ["Склад", "8–17", "8–15"]]:
            sheet.append(row)
        sheet.merge_cells("A1:C1")
        sheet.merge_cells("B3:C3")
        path = save(book, self.tmp / "hours.xlsx")
        self.assertEqual(rows(path), ["Отдел: Продажи\nПн: 9–18\nВт: 9–18", "Отдел: Склад\nПн: 8–17\nВт: 8–15"])
        self.assertEqual(parsing.parse_file(path).text.count("Часы работы"), 1)


class FormulaTests(TempDirMixin, TestCase):
    def test_formulas_without_saved_results_are_flagged_in_the_parse_quality(self):
        book = openpyxl.Workbook()
        sheet = book.active
        sheet.title = "Тарифы"
        for row in [["Тариф", "Плата за месяц", "Плата за год"], ["Базовый", 100, "=B2*12"],
                    ["Максимальный", 990, "=B3*12"]]:
            sheet.append(row)
        document = ingestion.ingest_file(make_kb(), save(book, self.tmp / "tariffs.xlsx")).document
        self.assertIn("formulas_without_values", document.quality["flags"])
        self.assertEqual(document.quality["formulas_without_values"], {"Тарифы": 2})
        self.assertTrue(document.needs_attention)

    def test_the_summary_sheet_of_a_generated_workbook_says_its_formulas_are_empty(self):
        parsed = parsing.parse_file(DOCUMENTS / "xlsx" / "ru" / "russian-cities-by-district-generated.xlsx")
        self.assertEqual(list(parsed.metadata["formulas_without_values"]), ["Сводка"])
        self.assertIn("formulas_without_values", quality.assess(parsed)["flags"])

    def test_saved_formula_results_raise_no_flag(self):
        parsed = parsing.parse_file(DOCUMENTS / "xlsx" / "en" / "roo-formula_cell_types.xlsx")
        self.assertNotIn("formulas_without_values", parsed.metadata)
        self.assertNotIn("formulas_without_values", quality.assess(parsed)["flags"])
