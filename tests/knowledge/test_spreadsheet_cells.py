"""Spreadsheets as their author sees them: sheet headings, merged cells and formulas."""

import tempfile
from pathlib import Path

import openpyxl
from django.test import TestCase

from knowledge.indexing import entries, parsing
from tests.conftest import DATA

DOCUMENTS = DATA / "documents"


class TempDirMixin:
    def setUp(self):
        super().setUp()
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = Path(self._tmp.name)
        self.addCleanup(self._tmp.cleanup)


def save(book: openpyxl.Workbook, path: Path) -> Path:
    book.save(path)
    return path


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
                         [(["Guide"], "# Guide\n\n## Notes\n\nCall us any time.")])
