"""Notion "Markdown & CSV" exports, built here to Notion's layout: nested pages, a database with
its row pages, Russian titles, attachments, a missing file and a broken link."""

import io
import zipfile
from urllib.parse import quote

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import TestCase
from PIL import Image

from knowledge import jobs
from knowledge.models import Chunk, Document
from tests.conftest import DATA
from tests.factories import make_kb

COMPANY, LEAVE, STAFF, ANNA, GONE = "1" * 32, "2a" * 16, "3b" * 16, "4c" * 16, "5d" * 16
ROOT = "Export-5d0c3e2a-1111-2222-3333-444455556666"


def png() -> bytes:
    buffer = io.BytesIO()
    Image.new("L", (8, 8), 255).save(buffer, "PNG")
    return buffer.getvalue()


def export(*, leave_days: int = 28, with_anna: bool = True) -> bytes:
    company_dir = f"{ROOT}/Компания {COMPANY}"
    staff_dir = f"{company_dir}/Сотрудники {STAFF}"
    files = {
        f"{ROOT}/Компания {COMPANY}.md": (
            "# Компания\n\nО компании. Правила отпуска: "
            f"[Отпуск]({quote(f'Компания {COMPANY}/Отпуск {LEAVE}.md')}), "
            f"[старая страница]({quote(f'Компания {COMPANY}/Архив {GONE}.md')}), "
            f"[список сотрудников](https://www.notion.so/Staff-{STAFF}), "
            "[сайт](https://example.com/about).\n\n"
            f"![схема]({quote(f'Компания {COMPANY}/scheme.png')})\n\n"
            f"![фото]({quote(f'Компания {COMPANY}/photo.png')})\n"
        ),
        f"{company_dir}/Отпуск {LEAVE}.md": (
            f"# Отпуск\n\nЕжегодный отпуск — {leave_days} календарных дней. "
            f"Общие правила — в [разделе о компании](../{quote(f'Компания {COMPANY}.md')}). "
            + "Отпуск можно делить на части, одна из них не короче четырнадцати дней. " * 4 + "\n\n"
            "## Как оформить\n\n" + "Заявление подают за две недели до начала отпуска через портал. " * 5 + "\n"
        ),
        f"{company_dir}/scheme.png": png(),
        f"{company_dir}/pdflatex-4-pages.pdf": (DATA / "documents/pdf/text/pdflatex-4-pages.pdf").read_bytes(),
        f"{company_dir}/Сотрудники {STAFF}.csv": "Имя,Должность,Город\nАнна,Бухгалтер,Казань\n",
        f"{company_dir}/Сотрудники {STAFF}_all.csv": (
            "Имя,Должность,Город\nАнна,Бухгалтер,Казань\nБорис,Инженер,Москва\nВера,Юрист,Самара\n"),
    }
    if with_anna:
        files[f"{staff_dir}/Анна {ANNA}.md"] = "# Анна\n\nДолжность: Бухгалтер\nГород: Казань\n"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


class NotionExportTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()

    def upload(self, data: bytes):
        with self.captureOnCommitCallbacks(execute=True):
            job, refused = jobs.add_uploads(self.kb, [SimpleUploadedFile("Notion export.zip", data)])
        job.refresh_from_db()
        return job, refused

    def documents(self) -> dict[str, Document]:
        return {doc.title: doc for doc in Document.objects.filter(knowledge_base=self.kb)}

    def test_pages_become_documents_titled_without_ids_under_their_hierarchy(self):
        _, refused = self.upload(export())
        documents = self.documents()
        self.assertEqual(set(documents), {"Компания", "Отпуск", "Сотрудники", "Анна", "pdflatex-4-pages"})
        self.assertTrue(all(doc.status == "ready" for doc in documents.values()),
                        {doc.title: doc.error_message for doc in documents.values()})
        self.assertEqual(refused, [])
        leave = documents["Отпуск"]
        self.assertEqual((leave.source_uri, leave.path), (f"notion:{LEAVE}", "Компания/Отпуск"))
        self.assertTrue(leave.text.startswith("# Компания\n\n## Отпуск\n\n"))
        paths = set(Chunk.objects.filter(document=leave).values_list("section_path", flat=True))
        self.assertIn("Компания > Отпуск > Как оформить", paths)
        self.assertEqual(documents["Анна"].path, "Компания/Сотрудники/Анна")

    def test_links_become_titles_and_broken_links_and_missing_files_are_named(self):
        self.upload(export())
        company = self.documents()["Компания"]
        self.assertIn("Правила отпуска: Отпуск, старая страница, список сотрудников (“Сотрудники”)", company.text)
        self.assertIn("[сайт](https://example.com/about)", company.text)
        self.assertIn("[image: scheme.png]", company.text)
        self.assertIn("[missing image: photo.png]", company.text)
        self.assertNotIn(".md", company.text)
        self.assertEqual(company.metadata["broken_links"],
                         [f"Компания {COMPANY}/Архив {GONE}.md", f"Компания {COMPANY}/photo.png"])
        leave = self.documents()["Отпуск"]
        self.assertIn("в разделе о компании (“Компания”).", leave.text)

    def test_a_database_is_ingested_as_a_table_with_every_row(self):
        self.upload(export())
        staff = self.documents()["Сотрудники"]
        self.assertEqual(staff.mime, "text/csv")
        row = Chunk.objects.filter(document=staff, content__contains="Вера").get()
        self.assertIn("Самара", row.content)
        self.assertIn("Юрист", row.content)

    def test_attachments_are_documents_of_their_own(self):
        self.upload(export())
        attachment = self.documents()["pdflatex-4-pages"]
        self.assertEqual(attachment.source_uri, f"notion-file:{COMPANY}/pdflatex-4-pages.pdf")
        self.assertGreater(attachment.chunk_count, 0)

    def test_a_newer_export_updates_changed_pages_and_removes_vanished_ones(self):
        self.upload(export())
        job, _ = self.upload(export(leave_days=31, with_anna=False))
        documents = self.documents()
        self.assertNotIn("Анна", documents)
        self.assertIn("31 календарных дней", documents["Отпуск"].text)
        self.assertEqual(job.counters.get("updated"), 1)
        self.assertEqual(job.counters.get("unchanged"), 3)

    def test_an_ordinary_zip_is_not_read_as_notion(self):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("Guide/Install.md", "# Install\n\nRun the installer.")
        self.upload(buffer.getvalue())
        self.assertEqual(list(self.documents()), ["Install"])
        self.assertEqual(Document.objects.get(knowledge_base=self.kb).source_uri, "upload:Guide/Install.md")
