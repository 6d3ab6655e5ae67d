"""Bad input to the file parsers: bombs, damaged, empty, mislabelled and oversized files.

The real documents are in ../shared/data/documents (see SOURCES.md there); the well-formed ones are
in test_parsing.py.
"""

import struct
import zipfile
from pathlib import Path

import pytest
from django.utils import translation

from knowledge.exceptions import FileTooLargeError, ParseError, UnsupportedFileError
from knowledge.indexing import parsing

DOCS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "documents"
SITE = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "site"
MB = 1024 * 1024


def parse(relative: str, **limits):
    return parsing.parse_file(DOCS / relative, **limits)


def copy_bytes(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


# --- bad input ---------------------------------------------------------------------------------


def write_zip_bomb(path: Path, member: str, size: int) -> Path:
    """A real archive whose one member inflates to `size` bytes of zeros (compresses ~1000:1)."""
    chunk = bytes(MB)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open(member, "w", force_zip64=True) as f:
            for _ in range(size // MB):
                f.write(chunk)
    return path


def declare_size(path: Path, member: str, size: int) -> Path:
    """Rewrite the uncompressed size that a zip's headers declare for `member`: a lying archive."""
    data = bytearray(path.read_bytes())
    name = member.encode()
    # (signature, where the file name starts, where the uncompressed size sits)
    for signature, name_at, size_at in ((b"PK\x01\x02", 46, 24), (b"PK\x03\x04", 30, 22)):
        start = data.find(signature)
        while start != -1:
            if data[start + name_at:start + name_at + len(name)] == name:
                struct.pack_into("<I", data, start + size_at, size)
            start = data.find(signature, start + 4)
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("name", "member"), [("bomb.docx", "word/document.xml"), ("bomb.xlsx", "xl/worksheets/sheet1.xml")]
)
def test_zip_bomb_is_refused_before_unpacking(tmp_path, name, member):
    path = write_zip_bomb(tmp_path / name, member, 256 * MB)
    assert path.stat().st_size < MB
    with pytest.raises(FileTooLargeError, match="expands to 256.0 MB when unpacked; the limit is 20.0 MB"):
        parsing.parse_file(path, max_bytes=MB)


def test_zip_declaring_gigabytes_is_refused_with_default_limits(tmp_path):
    path = tmp_path / "headers.docx"
    path.write_bytes((DOCS / "docx/en/pandoc-headers.docx").read_bytes())
    declare_size(path, "word/document.xml", 2 * 1024 * MB - 1)
    with pytest.raises(FileTooLargeError, match=r"expands to 2,048\.\d MB when unpacked"):
        parsing.parse_file(path)


def test_zip_member_larger_than_declared_is_damaged(tmp_path):
    # 64 MB of zeros that claim to be 1 KB: must fail on the CRC, not be inflated by mammoth.
    path = write_zip_bomb(tmp_path / "liar.docx", "word/document.xml", 64 * MB)
    declare_size(path, "word/document.xml", 1024)
    with pytest.raises(ParseError, match="liar.docx is damaged"):
        parsing.parse_file(path, max_bytes=MB)


@pytest.mark.parametrize("name", ["secret.docx", "secret.xlsx", "secret.pptx"])
def test_password_protected_office_files_are_a_parse_error(tmp_path, name):
    # Office saves an encrypted file as an OLE container with an "EncryptionInfo" stream.
    directory_entry = "EncryptionInfo".encode("utf-16-le")
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(1016) + directory_entry + bytes(512)
    with pytest.raises(ParseError, match=f"{name} is password-protected; remove the password"):
        parsing.parse_file(copy_bytes(tmp_path, name, ole))


@pytest.mark.parametrize("name", ["empty.pdf", "empty.docx", "empty.md", "empty.xls"])
def test_zero_byte_file_is_empty(tmp_path, name):
    with pytest.raises(ParseError, match=f"{name} is empty"):
        parsing.parse_file(copy_bytes(tmp_path, name, b""))


@pytest.mark.parametrize("name", ["blank.txt", "blank.csv", "blank.html"])
def test_whitespace_only_file_is_empty(tmp_path, name):
    with pytest.raises(ParseError, match="is empty"):
        parsing.parse_file(copy_bytes(tmp_path, name, b" \n\n\t \r\n"))


def test_png_named_pdf_is_refused(tmp_path):
    png = (SITE / "flask-docs/_images/flask-logo.png").read_bytes()
    with pytest.raises(UnsupportedFileError, match="named .pdf but its content is a PNG image"):
        parsing.parse_file(copy_bytes(tmp_path, "report.pdf", png))


def test_text_named_docx_is_refused(tmp_path):
    text = (DOCS / "txt/flask-patterns-caching.rst.txt").read_bytes()
    with pytest.raises(UnsupportedFileError, match="named .docx but its content is a text file"):
        parsing.parse_file(copy_bytes(tmp_path, "caching.docx", text))


def test_pdf_named_txt_is_refused(tmp_path):
    pdf = (DOCS / "pdf/text/crazyones-pdfa.pdf").read_bytes()
    with pytest.raises(UnsupportedFileError, match="named .txt but its content is a PDF document"):
        parsing.parse_file(copy_bytes(tmp_path, "crazy.txt", pdf))


def test_docx_named_xlsx_is_refused(tmp_path):
    docx = (DOCS / "docx/en/pandoc-headers.docx").read_bytes()
    with pytest.raises(UnsupportedFileError, match="named .xlsx but is not an Excel workbook"):
        parsing.parse_file(copy_bytes(tmp_path, "headers.xlsx", docx))


def test_xlsx_named_xls_is_refused(tmp_path):
    xlsx = (DOCS / "xlsx/en/roo-hidden_sheets.xlsx").read_bytes()
    with pytest.raises(UnsupportedFileError, match="named .xls but its content is a ZIP archive"):
        parsing.parse_file(copy_bytes(tmp_path, "sheets.xls", xlsx))


@pytest.mark.parametrize("name", ["letter.doc", "photo.gif", "Makefile"])
def test_unsupported_extension_lists_supported_types(tmp_path, name):
    supported = r"is not supported; supported types: \.md, \.markdown, .*\.pdf"
    with pytest.raises(UnsupportedFileError, match=supported):
        parsing.parse_file(copy_bytes(tmp_path, name, b"content"))


def test_file_over_max_bytes(tmp_path):
    size = (DOCS / "pdf/text/multicolumn.pdf").stat().st_size
    with pytest.raises(FileTooLargeError, match=f"multicolumn.pdf is {size:,} bytes; the limit is 50,000 bytes"):
        parse("pdf/text/multicolumn.pdf", max_bytes=50_000)


def test_sizes_in_a_refusal_are_in_the_active_languages_words_and_numbers(tmp_path):
    path = write_zip_bomb(tmp_path / "bomb.docx", "word/document.xml", 256 * MB)
    with translation.override("ru"), pytest.raises(FileTooLargeError) as refused:
        parsing.parse_file(path, max_bytes=MB)
    assert "256,0 МБ" in str(refused.value) and "20,0 МБ" in str(refused.value), str(refused.value)


def test_max_bytes_defaults_to_settings(settings):
    settings.PORTAL = {**settings.PORTAL, "MAX_UPLOAD_BYTES": 10_000}
    with pytest.raises(FileTooLargeError):
        parse("pdf/text/multicolumn.pdf")


@pytest.mark.parametrize(
    "relative",
    [
        "pdf/ru/gost_r_7.0.11-2011.pdf",
        "csv/hflabs-city-ru.csv",
        "xlsx/en/roo-Bibelbund.xlsx",
        "txt/debian-faq.ru.txt",
    ],
)
def test_text_over_max_chars(relative):
    with pytest.raises(FileTooLargeError, match="more than 5,000 characters"):
        parse(relative, max_chars=5000)


def test_missing_file_is_a_parse_error(tmp_path):
    with pytest.raises(ParseError, match="cannot read"):
        parsing.parse_file(tmp_path / "gone.pdf")
