"""Messages written by workers (in the portal's language) read in each reader's language."""

from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import SimpleTestCase, TestCase
from django.urls import reverse
from django.utils import translation

from knowledge import jobs
from knowledge.models import Document
from portal.stored_text import translated
from tests.api.base import make_key
from tests.conftest import DATA
from tests.factories import make_kb
from tests.i18n.helpers import english_words, visible_text


class TranslatedTests(SimpleTestCase):
    def test_an_id_is_no_english_word(self):
        # A job's task id, "71489b3181dd4ca7add165e151898f75", once held "add" and failed the Russian pages' check.
        self.assertEqual(english_words("Id задачи: 71489b3181dd4ca7add165e151898f75"), [])
        self.assertEqual(english_words("Нажмите Add, чтобы добавить"), ["Add"])

    def test_an_english_message_with_placeholders_reads_in_russian_with_its_values(self):
        self.assertEqual(translated("Support has no knowledge bases: no draft is written.", "ru"),
                         "У агента Support нет баз знаний: черновик не составляется.")

    def test_the_active_language_is_the_default(self):
        with translation.override("ru"):
            self.assertEqual(translated("Invalid input: query, top_k"), "Некорректные данные: query, top_k")
        with translation.override("en"):
            self.assertEqual(translated("Invalid input: query, top_k"), "Invalid input: query, top_k")

    def test_a_russian_message_reads_in_english(self):
        """Written by a worker of a portal whose PORTAL_LANGUAGE is ru."""
        self.assertEqual(translated("У агента Поддержка нет баз знаний: черновик не составляется.", "en"),
                         "Поддержка has no knowledge bases: no draft is written.")

    def test_a_message_quoted_inside_a_message_is_translated_too(self):
        self.assertEqual(translated("Not enabled: Support has no knowledge bases: no draft is written.", "ru"),
                         "Не включено: У агента Support нет баз знаний: черновик не составляется.")

    def test_a_message_without_placeholders(self):
        self.assertEqual(translated("Not found", "ru"), "Не найдено")

    def test_text_no_message_made_is_left_as_it_is(self):
        for text in ("Connection reset by peer", "report.pdf: Unexpected EOF", "", "https://help.example/a"):
            with self.subTest(text=text):
                self.assertEqual(translated(text, "ru"), text)

    def test_a_value_that_happens_to_be_a_ui_word_is_not_translated(self):
        """A file or agent named "Documents" is a name, not the menu item."""
        self.assertEqual(translated("Not enabled: Documents", "ru"), "Не включено: Documents")

    def test_a_message_too_general_to_tell_apart_is_not_matched(self):
        """A message with less fixed wording than a couple of words ("risk %(risk)s", "%(ms)s ms")
        would turn any text that happens to end or begin like it into a translation."""
        self.assertEqual(translated("high risk", "ru"), "high risk")
        self.assertEqual(translated("risk assessment", "ru"), "risk assessment")
        self.assertEqual(translated("125 ms", "ru"), "125 ms")


    def test_sizes_and_durations_inside_a_message_read_in_the_readers_units(self):
        """Too short to be told apart in free text, "%(size)s MB" is recognised as a whole value."""
        self.assertEqual(translated("scan.pdf is 15.1 MB; the limit is 10.0 MB", "ru"),
                         "Размер scan.pdf — 15,1 МБ; предел — 10,0 МБ")
        self.assertEqual(translated("page.html is 12,345 bytes; the limit is 10,000 bytes", "ru"),
                         "Размер page.html — 12\xa0345 байт; предел — 10\xa0000 байт")
        self.assertEqual(translated("15.1 MB", "ru"), "15.1 MB")  # on its own: not a message's text
        self.assertEqual(translated("Budget MB is 2 MB; the limit is 1 MB", "ru"),
                         "Размер Budget MB — 2 МБ; предел — 1 МБ")


class FailedDocumentPagesTests(TestCase):
    """A real ingestion failure, written while English is the portal's language, read by a Russian admin."""

    @classmethod
    def setUpTestData(cls):
        cls.root = get_user_model().objects.create_superuser("root", password="pw")
        cls.kb = make_kb()

    def setUp(self):
        upload = SimpleUploadedFile("header-only-invalid.pdf",
                                    (DATA / "documents/pdf/malformed/header-only-invalid.pdf").read_bytes())
        with self.captureOnCommitCallbacks(execute=True):
            self.job, _ = jobs.add_uploads(self.kb, [upload])
        self.document = Document.objects.get(knowledge_base=self.kb)
        self.client.force_login(self.root)

    def test_the_error_is_stored_as_written_and_read_in_russian(self):
        stored = self.document.error_message
        self.assertTrue(stored.startswith("header-only-invalid.pdf is damaged"), stored)
        self.client.cookies["django_language"] = "ru"
        pages = [reverse("admin:knowledge_document_change", args=[self.document.pk]),
                 reverse("admin:knowledge_document_changelist"),
                 reverse("admin:knowledge_job_change", args=[self.job.pk])]
        for url in pages:
            with self.subTest(url=url):
                page = self.client.get(url).content.decode()
                self.assertIn("Файл header-only-invalid.pdf повреждён", page)
                self.assertNotIn("is damaged", page)
        self.document.refresh_from_db()
        self.assertEqual(self.document.error_message, stored)

    def test_an_english_admin_reads_it_as_written(self):
        page = self.client.get(reverse("admin:knowledge_document_change", args=[self.document.pk])).content.decode()
        self.assertIn("header-only-invalid.pdf is damaged", page)

    def test_the_api_job_document_follows_accept_language(self):
        _, token = make_key(scopes=["read"])
        headers = {"Authorization": f"Bearer {token}", "Accept-Language": "ru"}
        body = self.client.get(f"/api/v1/jobs/{self.job.pk}", headers=headers).json()
        self.assertIn("Файл header-only-invalid.pdf повреждён", body["documents"][0]["reason"])
        self.assertIn("Файл header-only-invalid.pdf повреждён", body["failures"][0]["reason"])
        document = self.client.get(f"/api/v1/documents/{self.document.pk}", headers=headers).json()
        self.assertIn("Файл header-only-invalid.pdf повреждён", document["error_message"])
        english = self.client.get(f"/api/v1/jobs/{self.job.pk}", headers={**headers, "Accept-Language": "en"})
        self.assertIn("header-only-invalid.pdf is damaged", english.json()["documents"][0]["reason"])


class WorkerFailuresOnRussianPagesTests(TestCase):
    """Uploads that fail in several ways, their reasons written in English by the worker: the pages a
    Russian content manager reads them on hold no English word of the portal's."""

    def test_no_english_is_left_around_the_failures(self):
        root = get_user_model().objects.create_superuser("root", password="pw")
        kb = make_kb(name="Справочный центр")
        pdf = DATA / "documents/pdf/malformed/header-only-invalid.pdf"
        uploads = [SimpleUploadedFile("отчёт.pdf", pdf.read_bytes()),
                   SimpleUploadedFile("таблица.xlsx", b"just text, not a workbook"),
                   SimpleUploadedFile("пустой.md", b"   \n\n  ")]
        with self.captureOnCommitCallbacks(execute=True):
            job, _ = jobs.add_uploads(kb, uploads)
        errors = list(Document.objects.filter(knowledge_base=kb).values_list("error_message", flat=True))
        self.assertEqual(len([error for error in errors if error]), 3, errors)
        self.client.force_login(root)
        self.client.cookies["django_language"] = "ru"
        pages = {"documents": reverse("admin:knowledge_document_changelist"),
                 "job": reverse("admin:knowledge_job_change", args=[job.pk]),
                 "jobs": reverse("admin:knowledge_job_changelist"),
                 "base": reverse("admin:knowledge_knowledgebase_change", args=[kb.pk]),
                 "upload": reverse("admin:knowledge_knowledgebase_upload", args=[kb.pk])}
        pages.update({f"document {pk}": reverse("admin:knowledge_document_change", args=[pk])
                      for pk in Document.objects.filter(knowledge_base=kb).values_list("pk", flat=True)})
        for name, url in pages.items():
            with self.subTest(page=name):
                text = visible_text(self.client.get(url).content.decode())
                self.assertEqual(english_words(text), [], text[:3000])
                self.assertNotRegex(text, r"\b(is damaged|is empty|but its content is|not supported)\b")
                self.assertNotIn("upload:", text)  # a file is named by its name, not by its source URI

    def test_a_refused_upload_is_explained_in_russian(self):
        """A refusal made in the request (not by a worker) speaks the uploader's language at once."""
        root = get_user_model().objects.create_superuser("root", password="pw")
        kb = make_kb(name="Справочный центр")
        self.client.force_login(root)
        self.client.cookies["django_language"] = "ru"
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client.post(reverse("admin:knowledge_knowledgebase_upload", args=[kb.pk]),
                                        {"files": [SimpleUploadedFile("фото.gif", b"GIF89a not really"),
                                                   SimpleUploadedFile("справка.md", "# Справка\n\nТекст.".encode())]},
                                        follow=True)
        text = visible_text(response.content.decode())
        self.assertIn("Неподдерживаемый тип файла", text)
        self.assertEqual(english_words(text), [], text[:3000])
