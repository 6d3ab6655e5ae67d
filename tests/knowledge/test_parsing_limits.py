"""Hostile files: parsing is bounded by bytes, characters and memory, and fails only its document.

Every hostile file is generated here, never committed.
"""

import os
import resource
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from django.test import TestCase

from knowledge.exceptions import FileTooLargeError, KnowledgeError
from knowledge.indexing import ingestion, parsing
from knowledge.indexing.parsing.isolation import parse_file_isolated
from knowledge.models import Document
from tests.factories import make_kb

MB = 1024 * 1024
ROOT = Path(__file__).resolve().parents[2]
# Set for the run in a fresh interpreter that measures the bomb's memory (see the test below).
FRESH_BOMB = os.environ.get("PORTAL_TEST_FRESH_BOMB", "")
W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
CONTENT_TYPES = (
    '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.'
    'wordprocessingml.document.main+xml"/></Types>'
)
RELS = (
    '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
    'officeDocument" Target="word/document.xml"/></Relationships>'
)


def write_docx(path: Path, paragraph: str, size: int) -> Path:
    """A valid .docx whose body repeats `paragraph` until document.xml is about `size` bytes."""
    block = (paragraph * max(1, MB // len(paragraph))).encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        archive.writestr("_rels/.rels", RELS)
        with archive.open("word/document.xml", "w", force_zip64=True) as f:
            f.write(f'<?xml version="1.0"?><w:document {W}><w:body>'.encode())
            for _ in range(max(1, size // len(block))):
                f.write(block)
            f.write(b"</w:body></w:document>")
    return path


def text_paragraph(words: int = 40) -> str:
    return "<w:p><w:r><w:t>" + "lorem ipsum dolor " * words + "</w:t></w:r></w:p>"


def peak_rss_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # Linux reports kilobytes


class BoundedParsingTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()

    def test_docx_bomb_under_the_expansion_limit_is_refused_with_bounded_memory(self):
        # 100 MB of body XML in a file of well under 1 MB: before, 5 minutes and 4.7 GiB.
        path = write_docx(Path(self.tmp()) / "bomb.docx", text_paragraph(), 100 * MB)
        self.assertLess(path.stat().st_size, 2 * MB)
        result = ingestion.ingest_file(self.kb, path)
        self.assertEqual(result.outcome, "failed")
        self.assertEqual(result.document.status, Document.Status.ERROR)
        self.assertIn("bomb.docx holds more than 20,000,000 characters of text", result.document.error_message)
        # Peak memory is measured in a fresh interpreter: this process's high-water mark is that of every
        # test before it, and a forked parse child starts out with all of it resident. Its temporary files go
        # in a folder of this test's: a pytest left to find its own resets the permissions of the shared
        # /tmp/pytest-of-<user> (0700), which would lock the embedded server of a `bin/up` test running in
        # another test process (as root, PostgreSQL runs as its own user under that folder) out of its data.
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              "--basetemp", str(Path(self.tmp()) / "fresh"),
                              f"{__file__}::test_parsing_a_docx_bomb_stays_small_in_a_fresh_process"],
                             env={**os.environ, "PORTAL_TEST_FRESH_BOMB": str(path)}, cwd=ROOT,
                             capture_output=True, text=True, timeout=600)
        self.assertEqual(run.returncode, 0, run.stdout[-3000:] + run.stderr[-3000:])
        self.assertIn("1 passed", run.stdout)  # measured, not skipped

    def test_docx_declaring_more_xml_than_the_text_limit_allows_is_refused_unread(self):
        path = write_docx(Path(self.tmp()) / "big.docx", text_paragraph(), 40 * MB)
        with self.assertRaisesRegex(FileTooLargeError, r"expands to 40\.\d MB when unpacked; the limit is 8\.6 MB"):
            parsing.parse_file(path, max_bytes=MB, max_chars=1_000_000)

    def test_docx_of_empty_elements_is_refused_by_element_count(self):
        path = write_docx(Path(self.tmp()) / "empty.docx", "<w:p><w:r><w:t></w:t></w:r></w:p>", 20 * MB)
        with self.assertRaisesRegex(FileTooLargeError, "empty.docx holds more than 200,000 XML elements"):
            parsing.parse_file(path, max_chars=1000)

    def test_parse_over_the_memory_limit_fails_only_its_document(self):
        # 150k short paragraphs pass the streaming checks but mammoth needs hundreds of MB for them.
        path = write_docx(Path(self.tmp()) / "heavy.docx", "<w:p><w:r><w:t>ab</w:t></w:r></w:p>", 5 * MB)
        with self.assertRaisesRegex(FileTooLargeError, "heavy.docx needs more than 64 MB of memory to read"):
            parse_file_isolated(path, memory_mb=64)
        small = write_docx(Path(self.tmp()) / "fine.docx", text_paragraph(3), 1000)
        self.assertIn("lorem ipsum", parse_file_isolated(small, memory_mb=64).text)

    def test_parse_over_the_time_limit_is_refused(self):
        path = write_docx(Path(self.tmp()) / "slow.docx", "<w:p><w:r><w:t>ab</w:t></w:r></w:p>", 5 * MB)
        with self.assertRaisesRegex(Exception, "slow.docx took longer than 0.2 seconds to read"):
            parse_file_isolated(path, timeout=0.2)

    def test_deeply_nested_html_says_what_is_wrong(self):
        path = Path(self.tmp()) / "deep.html"
        path.write_text("<html><body>" + "<div>" * 5000 + "deep" + "</div>" * 5000 + "</body></html>")
        result = ingestion.ingest_file(self.kb, path)
        self.assertEqual(result.document.status, Document.Status.ERROR)
        self.assertIn("deep.html: the HTML nests elements 5,00", result.document.error_message)
        self.assertNotIn("RecursionError", result.document.error_message)

    def tmp(self) -> str:
        import tempfile

        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        return directory.name


@pytest.mark.skipif(not FRESH_BOMB, reason="run in a fresh interpreter by the DOCX bomb test above")
def test_parsing_a_docx_bomb_stays_small_in_a_fresh_process():
    # What the parse adds to the interpreter's own size (Django, the test set-up) is what is bounded;
    # the forked parse child starts out with the parent's pages resident.
    baseline = peak_rss_mb(resource.RUSAGE_SELF)
    with pytest.raises(KnowledgeError, match="holds more than 20,000,000 characters of text"):
        parse_file_isolated(FRESH_BOMB)
    assert peak_rss_mb(resource.RUSAGE_SELF) - baseline < 500
    assert peak_rss_mb(resource.RUSAGE_CHILDREN) - baseline < 500
