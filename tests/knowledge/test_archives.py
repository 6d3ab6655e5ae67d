"""Zip uploads: folders kept as the document's path; traversal, absolute paths, symlinks, nested
archives and zip bombs refused member by member, the rest still ingested."""

import io
import stat
import struct
import zipfile

from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import TestCase, override_settings

from knowledge import jobs
from knowledge.models import Document
from tests.conftest import DATA
from tests.factories import make_kb

MD = (DATA / "documents/md/en/react-learn-installation.md").read_bytes()


def zip_of(members: dict, *, symlinks: dict | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        for name, target in (symlinks or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return buffer.getvalue()


def lie_about_sizes(data: bytes, size: int) -> bytes:
    """Patch every declared uncompressed size: what a zip bomb that hides its size does."""
    out = bytearray(data)
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        start = out.find(signature)
        while start != -1:
            out[start + offset:start + offset + 4] = struct.pack("<I", size)
            start = out.find(signature, start + 4)
    return bytes(out)


class ZipUploadTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()

    def upload(self, data: bytes, name: str = "handbook.zip"):
        with self.captureOnCommitCallbacks(execute=True):
            return jobs.add_uploads(self.kb, [SimpleUploadedFile(name, data)])

    def test_each_file_becomes_a_document_with_its_folders_as_path(self):
        job, refused = self.upload(zip_of({
            "Handbook/Setup/install.md": MD,
            "Handbook/notes.txt": "Backups run nightly at two.\n" * 5,
            "Handbook/": b"",
            "__MACOSX/Handbook/._notes.txt": b"\x00\x05",
        }))
        self.assertEqual(refused, [])
        documents = {doc.path: doc for doc in Document.objects.filter(knowledge_base=self.kb)}
        self.assertEqual(set(documents), {"Handbook/Setup/install.md", "Handbook/notes.txt"})
        install = documents["Handbook/Setup/install.md"]
        self.assertEqual((install.status, install.source_uri), ("ready", "upload:Handbook/Setup/install.md"))
        self.assertEqual(install.metadata["folder"], "Handbook/Setup")
        job.refresh_from_db()
        self.assertEqual(job.counters.get("created"), 2)

    def test_hostile_names_are_refused_and_the_rest_still_ingested(self):
        _, refused = self.upload(zip_of({
            "../escape.md": MD,
            "docs/../../escape2.md": MD,
            "/etc/cron.md": MD,
            "C:\\Windows\\evil.md": MD,
            "inner.zip": zip_of({"a.md": MD}),
            "tool.exe": b"MZ",
            "good.md": MD,
        }, symlinks={"link.md": "/etc/passwd"}))
        reasons = {item["item"]: item["reason"] for item in refused}
        self.assertIn("climb out", reasons["handbook.zip: ../escape.md"])
        self.assertIn("climb out", reasons["handbook.zip: docs/../../escape2.md"])
        self.assertIn("Absolute paths", reasons["handbook.zip: /etc/cron.md"])
        self.assertIn("Absolute paths", reasons["handbook.zip: C:\\Windows\\evil.md"])
        self.assertIn("Symbolic links", reasons["handbook.zip: link.md"])
        self.assertIn("Archives inside archives", reasons["handbook.zip: inner.zip"])
        self.assertIn("Unsupported file type", reasons["handbook.zip: tool.exe"])
        self.assertEqual(list(Document.objects.filter(knowledge_base=self.kb).values_list("path", "status")),
                         [("good.md", "ready")])

    @override_settings(PORTAL={**settings.PORTAL, "MAX_UPLOAD_BYTES": 100_000})
    def test_a_zip_bomb_is_refused_before_it_is_unpacked(self):
        bomb = zip_of({f"part{n}.txt": b"0" * 1_000_000 for n in range(3)})
        self.assertLess(len(bomb), 100_000)
        _, refused = self.upload(bomb)
        self.assertEqual(len(refused), 1)
        self.assertIn("unpacks to 3,000,000 bytes; the limit is 2,000,000", refused[0]["reason"])
        self.assertFalse(Document.objects.filter(knowledge_base=self.kb).exists())

    @override_settings(PORTAL={**settings.PORTAL, "MAX_UPLOAD_BYTES": 100_000})
    def test_a_zip_bomb_that_lies_about_its_size_stops_at_the_lie(self):
        bomb = lie_about_sizes(zip_of({"bomb.txt": b"0" * 5_000_000, "a.md": MD}), 1000)
        _, refused = self.upload(bomb)
        reasons = {item["item"]: item["reason"] for item in refused}
        self.assertIn("damaged", reasons["handbook.zip: bomb.txt"])

    def test_a_member_over_the_upload_limit_is_refused_alone(self):
        with override_settings(PORTAL={**settings.PORTAL, "MAX_UPLOAD_BYTES": 20_000}):
            _, refused = self.upload(zip_of({"big.txt": b"word " * 10_000, "small.md": b"# Small\n\nFine."}))
        self.assertIn("over the 20,000-byte limit", refused[0]["reason"])
        self.assertEqual(list(Document.objects.filter(knowledge_base=self.kb).values_list("path", flat=True)),
                         ["small.md"])

    def test_a_damaged_archive_is_refused_with_a_reason(self):
        _, refused = self.upload(b"PK\x03\x04 this is not really a zip")
        self.assertEqual(refused, [{"item": "handbook.zip",
                                    "reason": "The archive is damaged: it is not a readable ZIP file"}])
