"""Cyrillic file names: an upload named in Russian keeps its name, its path and a readable title."""

import zipfile
from io import BytesIO
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import TestCase
from django.urls import reverse

from knowledge.models import Document
from tests.factories import make_kb

TEXT = "# Возврат денег\n\nДеньги возвращаются на карту в течение пяти рабочих дней.\n".encode()


class CyrillicFileNameTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.root = get_user_model().objects.create_superuser("root", password="pw")
        cls.kb = make_kb(name="Справочный центр")

    def upload(self, *files):
        self.client.force_login(self.root)
        self.client.cookies["django_language"] = "ru"
        with self.captureOnCommitCallbacks(execute=True):
            return self.client.post(reverse("admin:knowledge_knowledgebase_upload", args=[self.kb.pk]),
                                    {"files": list(files)}, follow=True)

    def test_a_russian_file_name_survives_upload_and_indexing(self):
        response = self.upload(SimpleUploadedFile("Возврат денег (2026).md", TEXT, content_type="text/markdown"))
        self.assertContains(response, "Принят 1 файл")
        document = Document.objects.get(knowledge_base=self.kb)
        self.assertEqual(document.status, Document.Status.READY, document.error_message)
        self.assertEqual((document.path, document.source_uri), ("Возврат денег (2026).md",
                                                                "upload:Возврат денег (2026).md"))
        self.assertEqual(document.title, "Возврат денег")
        stored = Path(document.original_file.path)
        self.assertTrue(stored.exists())
        self.assertTrue(stored.name.startswith("Возврат_денег_2026"), stored.name)  # Django's safe name

    def test_russian_folder_and_file_names_inside_a_zip(self):
        archive = BytesIO()
        with zipfile.ZipFile(archive, "w") as bundle:
            bundle.writestr("Справка/Доставка.md", "# Доставка\n\nОбычная доставка занимает три дня.\n")
        response = self.upload(SimpleUploadedFile("справка.zip", archive.getvalue(), content_type="application/zip"))
        self.assertEqual(response.status_code, 200)
        document = Document.objects.get(knowledge_base=self.kb)
        self.assertEqual(document.path, "Справка/Доставка.md")
        self.assertEqual(document.metadata["folder"], "Справка")
