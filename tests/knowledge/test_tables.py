"""Tables as rows: header detection, column mapping, one entry per row, and bad spreadsheets."""

import datetime
import tempfile
import tracemalloc
from pathlib import Path

import openpyxl
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import TestCase
from django.urls import reverse

from knowledge import jobs
from knowledge.indexing import entries, ingestion, parsing, tables
from knowledge.models import Chunk, Document
from knowledge.search import retrieval
from tests.api.base import ApiTestCase, make_key
from tests.conftest import DATA
from tests.factories import make_kb

VTB = DATA / "documents" / "xlsx" / "ru" / "smart_support_vtb_belarus_faq_final.xlsx"


def workbook(path: Path, rows: list[list], merge: str = "") -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "FAQ"
    for row in rows:
        sheet.append(row)
    if merge:
        sheet.merge_cells(merge)
    book.save(path)
    return path


class TempDirMixin:
    def setUp(self):
        super().setUp()
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = Path(self._tmp.name)
        self.addCleanup(self._tmp.cleanup)


class RealSpreadsheetTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        cls.result = ingestion.ingest_file(cls.kb, VTB)

    def test_each_row_of_the_faq_sheet_is_one_entry_with_question_answer_and_metadata(self):
        document = self.result.document
        self.assertEqual(document.status, Document.Status.READY, document.error_message)
        chunks = list(document.chunks.order_by("position"))
        faq = [chunk for chunk in chunks if chunk.metadata.get("entry", {}).get("kind") == "faq"]
        self.assertEqual(len(faq), 201)
        first = faq[0]
        self.assertEqual(first.metadata["entry"]["question"], "Как стать клиентом банка онлайн?")
        self.assertTrue(first.content.startswith("Стать клиентом ВТБ (Беларусь) можно онлайн"))
        self.assertEqual(first.metadata["Приоритет"], "высокий")
        for chunk in faq:
            self.assertNotIn("Приоритет", chunk.content)
            self.assertNotIn("Целевая аудитория", chunk.content)
        mapping = document.metadata["tables"][0]["mapping"]
        self.assertEqual(mapping["Пример вопроса"], "question")
        self.assertEqual(mapping["Шаблонный ответ"], "answer")
        self.assertEqual(mapping["Основная категория"], "metadata")

    def test_metadata_columns_filter_searches(self):
        hits = retrieval.search("карта", [self.kb.pk], filters={"Основная категория": "Новые клиенты"}, top_k=20)
        self.assertTrue(hits)
        self.assertTrue(all(hit.metadata["Основная категория"] == "Новые клиенты" for hit in hits))


class HeaderDetectionTests(TestCase):
    def test_the_header_on_row_three_under_a_title_and_a_note(self):
        rows = [["Bank FAQ 2024"], ["Internal — do not forward"], ["Question", "Answer", "Owner"],
                ["How do I block a card?", "Call the hotline.", "ops"], ["Fees?", "None.", "ops"]]
        text = "\n".join(tables.table_lines(rows))
        found = tables.read_tables(text)
        self.assertEqual(found[0].columns, ["Question", "Answer", "Owner"])
        self.assertEqual(len(found[0].rows), 2)
        self.assertIn("Bank FAQ 2024", text.split("|")[0])

    def test_empty_and_duplicated_header_names_get_usable_names(self):
        self.assertEqual(tables.column_names(["Name", "", "Name", "name"], [["a", "b", "c", "d", "e"]]),
                         ["Name", "Column B", "Name (2)", "name (3)", "Column E"])

    def test_numbers_and_dates_are_not_a_header(self):
        rows = [["2024-01-01", "15", "7"], ["2024-01-02", "16", "8"]]
        text = "\n".join(tables.table_lines(rows))
        self.assertEqual(tables.read_tables(text)[0].columns, ["Column A", "Column B", "Column C"])
        self.assertEqual(len(tables.read_tables(text)[0].rows), 2)

    def test_mapping_guessed_from_english_names_and_from_content(self):
        self.assertEqual(tables.guess_mapping(["Q", "A", "Category"], [["x?", "y", "z"]]),
                         {"Q": "question", "A": "answer", "Category": "metadata"})
        rows = [["How do I reset my password?", "Open the settings page and choose reset; a link comes by e-mail.",
                 "7"],
                ["Can I pay by card?", "Yes, every major card is accepted at the checkout and in the app.", "3"]]
        self.assertEqual(tables.guess_mapping(["Col1", "Col2", "Col3"], rows),
                         {"Col1": "question", "Col2": "answer", "Col3": "metadata"})

    def test_a_table_without_questions_is_rows_of_labelled_text(self):
        text = "| City | District | Population |\n| --- | --- | --- |\n| Minsk | Centre | 2000000 |\n"
        pieces, described = entries.split_document(text)
        self.assertEqual(described[0]["mapping"], {"City": "text", "District": "text", "Population": "text"})
        self.assertEqual([piece.content for piece in pieces], ["City: Minsk\nDistrict: Centre\nPopulation: 2000000"])


class BadSpreadsheetTests(TempDirMixin, TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()

    def test_two_hundred_columns_merged_cells_formulas_dates_and_numbers(self):
        header = ["Вопрос", "Ответ"] + [f"Поле {n}" for n in range(198)]
        rows = [["Отчёт за квартал"], [], header,
                ["Как открыть счёт?", "В любом отделении.", datetime.datetime(2024, 5, 1), 12.5, "=SUM(D4:D5)"]
                + ["x"] * 195,
                ["Сколько стоит карта?", "Бесплатно.", None, 3, "=1+1"] + ["y"] * 195]
        path = workbook(self.tmp / "wide.xlsx", rows, merge="A1:F1")
        result = ingestion.ingest_file(self.kb, path)
        document = result.document
        self.assertEqual(document.status, Document.Status.READY, document.error_message)
        self.assertEqual(len(document.metadata["tables"][0]["columns"]), 200)
        chunks = list(document.chunks.filter(metadata__entry__kind="faq").order_by("position"))
        self.assertEqual([chunk.content for chunk in chunks], ["В любом отделении.", "Бесплатно."])
        self.assertEqual(chunks[0].metadata["Поле 0"], "2024-05-01")
        self.assertEqual(chunks[0].metadata["Поле 1"], "12.5")
        self.assertNotIn("=SUM", document.text)

    def test_merged_category_cells_carry_down_to_the_rows_below(self):
        rows = [["Категория", "Вопрос", "Ответ"], ["Карты", "Как заблокировать карту?", "В приложении."],
                [None, "Как разблокировать карту?", "Там же."]]
        path = workbook(self.tmp / "merged.xlsx", rows, merge="A2:A3")
        chunks = list(ingestion.ingest_file(self.kb, path).document.chunks.order_by("position"))
        self.assertEqual([chunk.metadata.get("Категория") for chunk in chunks], ["Карты", "Карты"])

    def test_semicolon_csv_in_windows_1251(self):
        text = ("Тема;Вопрос;Ответ\r\nВклады;Какой процент по вкладу?;До 12 % годовых.\r\n"
                "Карты;Как получить карту?;Закажите в приложении.\r\n")
        path = self.tmp / "faq.csv"
        path.write_bytes(text.encode("cp1251"))
        document = ingestion.ingest_file(self.kb, path).document
        chunks = list(document.chunks.order_by("position"))
        self.assertEqual([(c.title, c.metadata["entry"]["question"], c.content) for c in chunks],
                         [("Вклады", "Какой процент по вкладу?", "До 12 % годовых."),
                          ("Карты", "Как получить карту?", "Закажите в приложении.")])

    def test_a_hundred_thousand_rows_parse_in_bounded_memory_and_report_row_progress(self):
        path = self.tmp / "big.csv"
        with path.open("w", encoding="utf-8") as handle:
            handle.write("id,name,comment\n")
            for n in range(100_000):
                handle.write(f"{n},item {n},note {n % 7}\n")
        tracemalloc.start()
        parsed = parsing.parse_file(path)
        pieces, described = entries.split_document(parsed.text)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        self.assertEqual(described[0]["rows"], 100_000)
        self.assertEqual(len(pieces), 100_000)
        # Linear in the rows (the sheet is streamed, never held as a grid): about 1.4 KB a row
        # including the pieces handed to the embedder; the text itself is capped by MAX_TEXT_CHARS.
        self.assertLess(peak / 100_000, 2048, f"peak {peak:,} bytes for 100,000 rows")
        seen = []
        document = Document.objects.create(knowledge_base=self.kb, source_kind="upload", source_uri="big")
        chunks = ingestion.build_chunks(self.kb, document, parsed.text[:200_000], [])
        ingestion.embed_chunks(self.kb, chunks, batch_size=1000,
                               progress=lambda done, total: seen.append((done, total)))
        self.assertEqual(seen[-1], (len(chunks), len(chunks)))
        self.assertGreater(len(seen), 3)

    def test_a_mapping_naming_a_missing_column_fails_and_keeps_the_indexed_version(self):
        path = workbook(self.tmp / "faq.xlsx", [["Вопрос", "Ответ"], ["Где банкомат?", "На углу."]])
        document = ingestion.ingest_file(self.kb, path).document
        with self.assertRaisesMessage(tables.MappingError, "'Нет такой'"):
            jobs.change_column_mapping(document, {"Нет такой": "answer"})
        document.refresh_from_db()
        self.assertEqual(document.status, Document.Status.READY)
        self.assertEqual(document.chunks.count(), 1)


class MappingChangeTests(TempDirMixin, TestCase):
    def test_changing_the_mapping_rechunks_only_that_document(self):
        kb = make_kb()
        path = workbook(self.tmp / "faq.xlsx",
                        [["Вопрос", "Ответ", "Примечание"], ["Где банкомат?", "На углу.", "внутр."]])
        document = ingestion.ingest_file(kb, path).document
        other = ingestion.ingest_text(kb, title="Other", text="Some other text about ATMs.").document
        other_chunk = other.chunks.get().pk
        self.assertEqual(document.chunks.get().content, "На углу.")
        with self.captureOnCommitCallbacks(execute=True):
            jobs.change_column_mapping(document, {"Примечание": "text"})
        self.assertEqual(Document.objects.get(pk=document.pk).chunks.get().content, "На углу.\n\nПримечание: внутр.")
        self.assertEqual(other.chunks.get().pk, other_chunk)


class MappingAdminTests(TempDirMixin, TestCase):
    def test_the_document_page_shows_the_columns_and_the_form_changes_them(self):
        kb = make_kb()
        path = workbook(self.tmp / "faq.xlsx",
                        [["Вопрос", "Ответ", "<b>Приоритет</b>"], ["Где банкомат?", "На углу.", "1"]])
        document = ingestion.ingest_file(kb, path).document
        admin = get_user_model().objects.create_superuser("admin", "a@example.com", "pw")
        self.client.force_login(admin)
        page = self.client.get(reverse("admin:knowledge_document_change", args=[document.pk]))
        self.assertContains(page, "&lt;b&gt;Приоритет&lt;/b&gt;")
        self.assertContains(page, reverse("admin:knowledge_document_columns", args=[document.pk]))
        url = reverse("admin:knowledge_document_columns", args=[document.pk])
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client.post(url, {"column_0": "question", "column_1": "ignored", "column_2": "answer"})
        self.assertEqual(response.status_code, 302)
        document.refresh_from_db()
        self.assertEqual(document.column_mapping["Ответ"], "ignored")
        self.assertEqual(document.chunks.get().content, "1")


class MappingApiTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        cls.key, cls.token = make_key()

    def csv(self):
        return SimpleUploadedFile("faq.csv", "Вопрос,Ответ,Отдел\nГде банкомат?,На углу.,ops\n".encode())

    def test_an_upload_accepts_a_column_mapping(self):
        with self.captureOnCommitCallbacks(execute=True):
            response = self.api("post", f"/knowledge-bases/{self.kb.pk}/documents", token=self.token,
                                files=[self.csv()], data={"column_mapping": '{"Отдел": "text"}'})
        self.assertEqual(response.status_code, 202, response.content)
        document = Document.objects.get(pk=response.json()["documents"][0]["id"])
        self.assertEqual(document.column_mapping, {"Отдел": "text"})
        self.assertEqual(Chunk.objects.get(document=document).content, "На углу.\n\nОтдел: ops")

    def test_a_mapping_naming_a_missing_column_is_422(self):
        response = self.api("post", f"/knowledge-bases/{self.kb.pk}/documents", token=self.token,
                            files=[self.csv()], data={"column_mapping": '{"Департамент": "metadata"}'})
        error = self.assertError(response, 422, "mapping_error")
        self.assertIn("Департамент", error["message"])
        self.assertFalse(Document.objects.filter(knowledge_base=self.kb).exists())


FAQ_PAGE = """# Help centre

Welcome to the help centre.

## How do I reset my password?

Open **Settings**, choose [Reset password](/account/reset) and follow the link we e-mail you.

## Can I pay by card?

Yes:

- Visa and Mastercard
- Apple Pay

## About us

We are a small team.
"""


class FaqPageTests(TestCase):
    def test_question_headings_and_their_answers_become_entries(self):
        pieces, _ = entries.split_document(FAQ_PAGE)
        faq = [piece for piece in pieces if piece.kind == "faq"]
        self.assertEqual([piece.question for piece in faq], ["How do I reset my password?", "Can I pay by card?"])
        self.assertEqual(faq[1].content, "Yes:\n\n- Visa and Mastercard\n- Apple Pay")
        prose = " ".join(piece.content for piece in pieces if piece.kind == "")
        self.assertIn("Welcome to the help centre.", prose)
        self.assertIn("We are a small team.", prose)
        self.assertNotIn("Visa", prose)

    def test_a_single_question_heading_is_ordinary_prose(self):
        pieces, _ = entries.split_document("# Guide\n\n## Why?\n\nBecause.\n\n## Setup\n\nRun it.")
        self.assertEqual({piece.kind for piece in pieces}, {""})


    def test_headings_without_a_question_mark_are_entries_under_an_faq_heading(self):
        text = ("# Частые вопросы\n\nОтветы службы поддержки.\n\n## Сброс пароля\n\nОткройте «Настройки» и нажмите "
                "«Сбросить».\n\n## How to change my PIN\n\nIn the app, under Cards.\n")
        faq = [piece for piece in entries.split_document(text)[0] if piece.kind == "faq"]
        self.assertEqual([(piece.question, piece.content) for piece in faq],
                         [("Сброс пароля", "Откройте «Настройки» и нажмите «Сбросить»."),
                          ("How to change my PIN", "In the app, under Cards.")])

    def test_a_document_titled_faq_makes_its_short_headings_entries(self):
        text = "## Сброс пароля\n\nВ настройках.\n\n## Оплата картой\n\nVisa и Mastercard.\n"
        self.assertEqual({piece.kind for piece in entries.split_document(text)[0]}, {""})
        document = ingestion.ingest_text(make_kb(), title="Вопросы и ответы", text=text).document
        self.assertEqual(list(document.chunks.filter(metadata__entry__kind="faq").order_by("position")
                              .values_list("metadata__entry__question", "content")),
                         [("Сброс пароля", "В настройках."), ("Оплата картой", "Visa и Mastercard.")])

    def test_a_heading_worded_as_a_question_is_an_entry_among_questions_only(self):
        page = FAQ_PAGE.replace("## About us", "## How to cancel an order\n\nPress Cancel.\n\n## About us")
        faq = [piece.question for piece in entries.split_document(page)[0] if piece.kind == "faq"]
        self.assertEqual(faq, ["How do I reset my password?", "Can I pay by card?", "How to cancel an order"])
        self.assertTrue(entries.asks_question("1.3. Я понял, что такое Debian, а что такое Linux?!"))
        guide = "# Install\n\n## How to install\n\nRun pip.\n\n## How to configure\n\nEdit it.\n\n## Why?\n\nSo.\n"
        self.assertEqual({piece.kind for piece in entries.split_document(guide)[0]}, {""})

    def test_questions_set_in_bold_under_topic_headings_are_entries(self):
        # Seen in a bank's Word FAQ: topics are headings, questions bold paragraphs; the topic "Дебетовые карты -
        # MORE" became one entry of eight questions and answers, quoted whole as "the answer".
        document = ingestion.ingest_file(make_kb(), DATA / "documents" / "docx" / "ru" / "bank-faq-ru-generated.docx"
                                         ).document
        entry = document.chunks.get(metadata__entry__question="Сколько стоит обслуживание карты MORE?")
        self.assertEqual(entry.content, "Выпуск и обслуживание карты MORE бесплатны для физических лиц при "
                                        "соблюдении условий банка.")
        self.assertIn("Дебетовые карты - MORE", entry.section_path)
        self.assertFalse(document.chunks.filter(metadata__entry__question="Дебетовые карты - MORE").exists())
        # One bold line in a guide, or bold lines that do not ask, stay text.
        guide = "# Guide\n\nSome text.\n\n**Note**\n\nRead this first.\n\n**Why?**\n\nBecause.\n"
        self.assertEqual({piece.kind for piece in entries.split_document(guide)[0]}, {""})

    def test_a_chapter_about_the_faq_is_no_faq(self):
        text = "# Общая информация о ЧаВо\n\n## Авторы\n\nИван.\n\n## Обратная связь\n\nПишите нам.\n"
        self.assertEqual({piece.kind for piece in entries.split_document(text, title="О ЧаВо")[0]}, {""})


class TablesInPagesTests(TempDirMixin, TestCase):
    def test_a_table_in_an_html_page_becomes_entries(self):
        page = ("<html><head><title>FAQ</title></head><body><h1>Частые вопросы</h1><p>Ответы на вопросы клиентов.</p>"
                "<table><tr><th>Вопрос</th><th>Ответ</th><th>Категория</th></tr>"
                "<tr><td>Где банкомат?</td><td>На углу.</td><td>Банкоматы</td></tr>"
                "<tr><td>Как сменить PIN?</td><td>В приложении.</td><td>Карты</td></tr></table></body></html>")
        path = self.tmp / "faq.html"
        path.write_text(page, encoding="utf-8")
        document = ingestion.ingest_file(make_kb(), path).document
        rows = [(c.metadata["entry"]["question"], c.content, c.metadata["Категория"])
                for c in document.chunks.filter(metadata__entry__kind="faq").order_by("position")]
        self.assertEqual(rows, [("Где банкомат?", "На углу.", "Банкоматы"),
                                ("Как сменить PIN?", "В приложении.", "Карты")])
        self.assertTrue(document.chunks.filter(content__contains="Ответы на вопросы клиентов.").exists())
