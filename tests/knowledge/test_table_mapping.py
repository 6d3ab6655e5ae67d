"""The column mapping guessed from header names: only real question/answer headers make an FAQ table."""

import csv
import json
import tempfile
from pathlib import Path

from django.test import SimpleTestCase, TestCase

from knowledge.indexing import entries, ingestion, tables
from knowledge.indexing.entries import split_document
from knowledge.indexing.parsing.html import html_to_markdown, parse_html, soup_to_markdown
from tests.conftest import DATA
from tests.factories import make_kb

DOCUMENTS = DATA / "documents"


def pipe_table(rows: list[list[str]]) -> str:
    return "\n".join(["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * len(rows[0])]
                     + ["| " + " | ".join(row) + " |" for row in rows[1:]]) + "\n"


class HeaderNameTests(TestCase):
    def test_headers_that_only_contain_a_role_word_are_content(self):
        names = ["Response time", "Срок решения", "Число вопросов", "Plan A", "Column A", "Дата ввода"]
        self.assertEqual({name: tables.guess_mapping(names, [["x"] * len(names)])[name] for name in names},
                         dict.fromkeys(names, "text"))

    def test_headers_that_name_the_role_map_as_question_and_answer(self):
        for question, answer in [("Question", "Answer"), ("Вопрос", "Ответ"), ("Q", "A"),
                                 ("Пример вопроса", "Шаблонный ответ"), ("Вопрос клиента", "Ответ на вопрос")]:
            mapping = tables.guess_mapping([question, answer, "Категория"], [["x", "y", "z"]])
            self.assertEqual(mapping, {question: "question", answer: "answer", "Категория": "metadata"})

    def test_a_header_naming_both_question_and_answer_is_no_question_column(self):
        for name in ("Q&A", "Вопрос-ответ", "Вопрос/ответ", "Questions & Answers"):
            mapping = tables.guess_mapping([name, "Category"], [["How do I pay? By card.", "Billing"]])
            self.assertEqual(mapping, {name: "text", "Category": "text"})

    def test_a_q_and_a_column_beside_an_answer_column_holds_the_questions(self):
        for name in ("Q&A", "Вопрос/ответ", "Questions & Answers"):
            mapping = tables.guess_mapping([name, "Answer", "Category"],
                                           [["How do I pay", "By card or by bank transfer.", "Billing"]])
            self.assertEqual(mapping, {name: "question", "Answer": "answer", "Category": "metadata"})
        text = pipe_table([["Q&A", "Ответ"], ["Как оплатить", "Картой или переводом."]])
        [piece], _ = entries.split_document(text)
        self.assertEqual((piece.question, piece.content), ("Как оплатить", "Картой или переводом."))

    def test_an_answer_column_finds_its_questions_by_their_question_marks(self):
        mapping = tables.guess_mapping(["Клиент пишет", "Ответ"], [["Как оплатить?", "Картой."]])
        self.assertEqual(mapping, {"Клиент пишет": "question", "Ответ": "answer"})

    def test_an_answer_column_without_questions_hides_nothing_as_metadata(self):
        mapping = tables.guess_mapping(["Product", "Answer"], [["Premium", "Four hours."]])
        self.assertEqual(mapping, {"Product": "text", "Answer": "answer"})

    def test_a_bare_a_answers_only_beside_a_q(self):
        self.assertEqual(tables.guess_mapping(["A", "B"], [["1", "2"]]), {"A": "text", "B": "text"})

    def test_a_data_table_keeps_every_column_in_the_row_text(self):
        text = pipe_table([["Plan", "Response time", "Price per month"], ["Basic", "48 hours", "$10"],
                           ["Premium", "4 hours", "$50"]])
        pieces, _ = entries.split_document(text)
        self.assertEqual([piece.content for piece in pieces],
                         ["Plan: Basic\nResponse time: 48 hours\nPrice per month: $10",
                          "Plan: Premium\nResponse time: 4 hours\nPrice per month: $50"])

    def test_dates_and_names_are_content_in_a_data_table(self):
        text = pipe_table([["Название", "Плата за месяц", "Дата ввода"], ["Максимальный", "990", "2024-03-01"]])
        pieces, described = entries.split_document(text)
        self.assertIn("Дата ввода: 2024-03-01", pieces[0].content)
        self.assertIn("Название: Максимальный", pieces[0].content)
        self.assertNotIn("metadata", described[0]["mapping"].values())


class RealFileTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()

    def chunks(self, path: Path) -> list:
        document = ingestion.ingest_file(self.kb, path).document
        self.assertEqual(document.status, "ready", document.error_message)
        return list(document.chunks.filter(metadata__entry__kind="row").order_by("position"))

    def test_the_summary_table_of_the_bank_faq_docx_keeps_its_categories_and_counts(self):
        rows = self.chunks(DOCUMENTS / "docx" / "ru" / "bank-faq-ru-generated.docx")
        self.assertIn("Категория: Новые клиенты\nПодкатегория: Регистрация и онбординг\nЧисло вопросов: 3",
                      [chunk.content for chunk in rows])

    def test_a_word_table_keeps_its_plain_text_header_row(self):
        rows = self.chunks(DOCUMENTS / "docx" / "en" / "pandoc-tables.docx")
        self.assertEqual(rows[0].content,
                         "Name: Lebron James\nGame: Basketball\nFame: Very High\nBlame: Leaving Cleveland")

    def test_the_dates_of_an_xls_sheet_without_a_header_are_in_its_rows(self):
        rows = self.chunks(DOCUMENTS / "xls" / "xlrd-Formate.xls")
        self.assertIn("Huber — 1907-07-03", [chunk.content for chunk in rows])  # no header: its cells, unlabelled

    def test_a_numeric_docx_table_keeps_every_number(self):
        rows = self.chunks(DOCUMENTS / "docx" / "en" / "pandoc-table_header_rowspan.docx")
        self.assertTrue(rows)
        for chunk in rows[1:]:
            self.assertEqual([line.split(": ")[-1] for line in chunk.content.split("\n")],
                             ["1", "2", "3", "4", "5", "6", "7", "8"])

    def test_the_bank_faq_tickets_as_a_csv_still_map_as_an_faq(self):
        lines = (DATA / "tickets" / "ru_bank_faq_vtb_by.jsonl").read_text(encoding="utf-8").splitlines()[:5]
        records = [json.loads(line) for line in lines]
        columns = ["category", "subcategory", "question", "priority", "audience", "answer"]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "faq.csv"
            with path.open("w", encoding="utf-8", newline="") as handle:
                writer = csv.writer(handle)
                writer.writerow(columns)
                writer.writerows([record[name] for name in columns] for record in records)
            document = ingestion.ingest_file(self.kb, path).document
        mapping = document.metadata["tables"][0]["mapping"]
        self.assertEqual(mapping, {"category": "metadata", "subcategory": "metadata", "question": "question",
                                   "priority": "metadata", "audience": "metadata", "answer": "answer"})
        chunk = document.chunks.order_by("position").first()
        self.assertEqual((chunk.metadata["entry"]["question"], chunk.content),
                         (records[0]["question"], records[0]["answer"]))


class HtmlTableHeaderTests(SimpleTestCase):
    def rows(self, html: str) -> list[str]:
        pieces, _ = split_document(soup_to_markdown(parse_html(html)))
        return [piece.content for piece in pieces if piece.kind == "row"]

    def test_a_header_in_bold_names_its_columns_without_the_marks(self):
        rows = self.rows("<table><tbody><tr><td><b>Plan</b></td><td><strong>Price</strong></td></tr>"
                         "<tr><td>Basic</td><td>5 EUR</td></tr></tbody></table>")
        self.assertEqual(rows, ["Plan: Basic\nPrice: 5 EUR"])

    def test_a_sphinx_table_without_a_header_row_keeps_its_first_row_as_a_row(self):
        # Flask's URL converter table is a bare <tbody>: its first row is a converter like the others.
        text = html_to_markdown((DATA / "site" / "flask-docs" / "quickstart.html").read_bytes())[1]
        rows = [piece.content for piece in split_document(text)[0] if piece.kind == "row"]
        self.assertEqual(rows[:2], ["`string` — (default) accepts any text without a slash",
                                    "`int` — accepts positive integers"])

    def test_a_plain_first_row_of_labels_over_code_is_the_header(self):
        text = html_to_markdown((DATA / "site" / "flask-docs" / "views.html").read_bytes())[1]
        rows = [piece.content for piece in split_document(text)[0] if piece.kind == "row"]
        self.assertEqual(rows[0], "URL: `/users/`\nMethod: `GET`\nDescription: List all users")

    def test_a_first_row_like_the_rows_below_is_no_header_in_a_web_page(self):
        html = ("<table><tbody><tr><td><em>rule</em></td><td>the URL rule as string</td></tr>"
                "<tr><td><em>endpoint</em></td><td>the endpoint for the registered URL rule</td></tr></tbody></table>")
        self.assertEqual(self.rows(html), ["*rule* — the URL rule as string",
                                           "*endpoint* — the endpoint for the registered URL rule"])
        self.assertEqual(self.rows("<table><tr><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td></tr></table>"),
                         ["1 — 2", "3 — 4"])

    def test_marked_headers_stay_headers_whatever_they_hold(self):
        for html in ("<table><thead><tr><td>string</td><td>any text</td></tr></thead>"
                     "<tbody><tr><td>int</td><td>integers</td></tr></tbody></table>",
                     "<table><tr><td></td><th>string</th><th>any text</th></tr>"
                     "<tr><td></td><td>int</td><td>integers</td></tr></table>"):
            self.assertEqual(self.rows(html)[-1].split("\n")[-2:], ["string: int", "any text: integers"])

    def test_a_plain_first_row_that_may_be_a_header_is_one_in_a_word_document_only(self):
        html = "<table><tr><td>City</td><td>Country</td></tr><tr><td>Minsk</td><td>Belarus</td></tr></table>"
        self.assertEqual(self.rows(html), ["City — Country", "Minsk — Belarus"])
        word = split_document(soup_to_markdown(parse_html(html), header_by_default=True))[0]
        self.assertEqual([piece.content for piece in word if piece.kind == "row"], ["City: Minsk\nCountry: Belarus"])

    def test_columns_without_a_header_are_read_as_their_cells_not_as_column_a_and_b(self):
        pieces, _ = split_document("# Contacts\n\n| | |\n| --- | --- |\n| Sales | +375 17 200 00 00 |\n")
        self.assertEqual([piece.content for piece in pieces if piece.kind == "row"], ["Sales — +375 17 200 00 00"])
