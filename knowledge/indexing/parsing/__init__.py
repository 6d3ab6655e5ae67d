"""File parsers: turn an uploaded or fetched file into Markdown-flavoured text.

`parse_file()` is the one entry point. It checks what every format shares — extension, size,
magic bytes, zip expansion — before a format module (`pdf`, `docx`, `spreadsheet`, `presentation`,
`opendocument`, `text`, `html`) reads the content, so a file that lies about its type or expands
without bound never reaches a third-party parser. Every failure is a `KnowledgeError` with a message
a content manager can act on.
"""

import bisect
import zipfile
import zlib
from pathlib import Path

from django.conf import settings
from django.utils.formats import number_format
from django.utils.translation import gettext, gettext_noop

from knowledge.documents import ParsedDocument
from knowledge.exceptions import FileTooLargeError, ParseError, UnsupportedFileError
from portal.sizes import file_size

from . import docx, images, opendocument, pdf, presentation, spreadsheet, text
from .html import html_to_markdown
from .text import text_too_long

__all__ = ["PARSER_VERSION", "SUPPORTED_EXTENSIONS", "is_supported", "page_at", "parse_file"]

# Bump when the text produced for the same file changes: it is part of each document's
# configuration signature, so a bump marks documents for re-indexing.
# 34: a fenced code block nested in a list item moved to the margin (markdown.list_fences), an RST anonymous
# link's target (`__ https://…`) left out;
# 33: Sphinx info fields (`:param T name:`, `:rtype:`) as list items, as Sphinx shows them;
# 32: text written under autodoc's object directives (`.. autoclass::`) kept, an entry of its own, options left out;
# 31: an object's description at the margin (RST `.. py:data:: TESTING`, MyST `{py:data}`) a heading of its own;
# 30: Sphinx doctest's hidden `testsetup` and `testcleanup` blocks left out (RST and MyST);
# 29: an RST grid table as a Markdown table, and the parts of code names in the full-text vector (search_text.py);
# 28: an HTML definition's (<dd>) lines at the margin, so its code blocks are fenced code;
# 27: an RST :ref: (MyST {ref}, {doc}) without a title as its section's title; 26: RST interpreted text of
# the default role as its title (`from_dict <pkg.Schema.from_dict>`);
# 25: MyST roles, directives and definition lists, reference links inlined (knowledge/indexing/myst.py);
# 24: an RST link wrapped before its address, a directive whose body is code fenced; 23: inline MDX
# components as their words; 22: an RST role wrapped onto the next line, an HTML source's line breaks as
# spaces; 21: PDF letter-spaced words, setext headings, .rst
PARSER_VERSION = "34"

SUPPORTED_EXTENSIONS: tuple[str, ...] = (
    ".md", ".markdown", ".rst", ".txt", ".log", ".csv", ".pdf", ".docx", ".xlsx", ".xls", ".pptx", ".odt", ".ods",
    ".odp", ".html", ".htm",
    *images.IMAGE_EXTENSIONS,
)

MIME_TYPES = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".rst": "text/x-rst",
    ".txt": "text/plain",
    ".log": "text/plain",
    ".csv": "text/csv",
    ".pdf": "application/pdf",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".xls": "application/vnd.ms-excel",
    ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    **opendocument.MIME_TYPES,
    ".html": "text/html",
    ".htm": "text/html",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".tif": "image/tiff",
    ".tiff": "image/tiff",
}

# Office Open XML files are zip archives; a small file can declare gigabytes of XML. We refuse
# archives whose members add up to more than this many times the upload limit, or to more XML than
# the text limit can use (XML_BYTES_PER_CHAR of markup per character of text, on top of the upload
# limit for pictures and other parts), before mammoth or openpyxl inflate anything.
ZIP_EXPANSION_FACTOR = 20
XML_BYTES_PER_CHAR = 8
MAX_ZIP_MEMBERS = 10_000
ZIP_READ_CHUNK = 1024 * 1024
# What zipfile raises on damaged archives (RuntimeError: an encrypted member; NotImplementedError:
# an unknown compression method).
ZIP_ERRORS = (
    zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, RuntimeError, NotImplementedError,
)

PDF_MAGIC = b"%PDF"
ZIP_MAGIC = b"PK\x03\x04"
OLE_MAGIC = b"\xd0\xcf\x11\xe0"
# Excel 2–4 saved a bare BIFF stream, not an OLE container: it opens with a BOF record.
BIFF_MAGICS = (b"\x09\x00", b"\x09\x02", b"\x09\x04", b"\x09\x08")
# The stream that marks an OLE container holding an encrypted .docx/.xlsx/.pptx (names are UTF-16).
ENCRYPTED_OOXML = "EncryptionInfo".encode("utf-16-le")
# Signatures we name when a file's content is not what its extension says (English; translate with gettext).
KNOWN_SIGNATURES = (
    (PDF_MAGIC, gettext_noop("a PDF document")),
    (ZIP_MAGIC, gettext_noop("a ZIP archive (e.g. DOCX or XLSX)")),
    (OLE_MAGIC, gettext_noop("an old Office file (e.g. DOC or XLS)")),
    (b"\x89PNG", gettext_noop("a PNG image")),
    (b"\xff\xd8\xff", gettext_noop("a JPEG image")),
    (b"GIF8", gettext_noop("a GIF image")),
    (b"\x1f\x8b", gettext_noop("a gzip archive")),
    (b"Rar!\x1a\x07", gettext_noop("a RAR archive")),
    (b"7z\xbc\xaf", gettext_noop("a 7-Zip archive")),
    (b"\x7fELF", gettext_noop("a program")),
)
IMAGE_MAGICS = {"PNG": (b"\x89PNG",), "JPEG": (b"\xff\xd8\xff",), "TIFF": (b"II*\x00", b"MM\x00*")}
TEXT_EXTENSIONS = (".md", ".markdown", ".rst", ".txt", ".log", ".csv", ".html", ".htm")
# Zip member prefix that each Office format must contain.
ZIP_PARTS = {".docx": ("word/", gettext_noop("a Word document")), ".xlsx": ("xl/", gettext_noop("an Excel workbook")),
             ".pptx": ("ppt/", gettext_noop("a PowerPoint presentation")),
             ".odt": (opendocument.CONTENT, gettext_noop("an OpenDocument text")),
             ".ods": (opendocument.CONTENT, gettext_noop("an OpenDocument spreadsheet")),
             ".odp": (opendocument.CONTENT, gettext_noop("an OpenDocument presentation"))}


# The binary formats' readers, each `(path, *, max_chars) -> ParsedDocument`.
DOCUMENT_PARSERS = {
    ".pdf": pdf.parse_pdf, ".docx": docx.parse_docx, ".xlsx": spreadsheet.parse_xlsx, ".xls": spreadsheet.parse_xls,
    ".pptx": presentation.parse_pptx, ".odt": opendocument.parse_odt, ".ods": opendocument.parse_ods,
    ".odp": opendocument.parse_odp,
}


def is_supported(path_or_name: str | Path) -> bool:
    """Whether the file's extension is one we parse (case-insensitive)."""
    return Path(str(path_or_name)).suffix.lower() in SUPPORTED_EXTENSIONS


def page_at(pages: list[tuple[int, int]], offset: int) -> int | None:
    """The page number holding character `offset`, given `(start_offset, page_number)` pairs."""
    index = bisect.bisect_right([start for start, _ in pages], offset) - 1
    return pages[index][1] if index >= 0 else None


def parse_file(
    path: str | Path, *, max_bytes: int | None = None, max_chars: int | None = None
) -> ParsedDocument:
    """Extract Markdown-flavoured text, title and metadata from a supported file."""
    path = Path(path)
    ext = path.suffix.lower()
    max_bytes = settings.PORTAL["MAX_UPLOAD_BYTES"] if max_bytes is None else max_bytes
    max_chars = settings.PORTAL["MAX_TEXT_CHARS"] if max_chars is None else max_chars
    _check_file(path, ext, max_bytes, max_chars)
    parsed = _dispatch(path, ext, max_chars)
    parsed.mime = MIME_TYPES[ext]
    if "\x00" in parsed.text and not parsed.pages:
        # PostgreSQL text columns cannot hold NUL characters.
        parsed.text = parsed.text.replace("\x00", "")
    # Pages without a text layer wait for OCR in the worker (ocr.recognise_pages).
    if not parsed.text.strip() and not parsed.metadata.get("ocr_wanted"):
        raise ParseError(gettext("%(name)s is empty: no text could be extracted") % {"name": path.name})
    if len(parsed.text) > max_chars:
        raise text_too_long(path.name, max_chars)
    parsed.title = " ".join(parsed.title.split())[:500] or path.stem
    return parsed


def _check_file(path: Path, ext: str, max_bytes: int, max_chars: int) -> None:
    """What every format shares: a known extension, a size within limits, honest content."""
    if ext not in SUPPORTED_EXTENSIONS:
        raise UnsupportedFileError(
            gettext("%(name)s: file type %(ext)s is not supported; supported types: %(supported)s")
            % {"name": path.name, "ext": ext or gettext("(none)"), "supported": ", ".join(SUPPORTED_EXTENSIONS)}
        )
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            head = f.read(8192)
    except OSError as exc:
        raise ParseError(gettext("%(name)s: cannot read the file (%(error)s)")
                         % {"name": path.name, "error": exc.strerror or exc}) from exc
    if size == 0:
        raise ParseError(gettext("%(name)s is empty") % {"name": path.name})
    if size > max_bytes:
        raise FileTooLargeError(gettext("%(name)s is %(size)s; the limit is %(limit)s")
                                % {"name": path.name, "size": file_size(size), "limit": file_size(max_bytes)})
    _check_content_type(path, ext, head)
    if ext in ZIP_PARTS:
        _check_zip(path, ext, min(ZIP_EXPANSION_FACTOR * max_bytes, max_bytes + XML_BYTES_PER_CHAR * max_chars))


def _dispatch(path: Path, ext: str, max_chars: int) -> ParsedDocument:
    if ext in DOCUMENT_PARSERS:
        return DOCUMENT_PARSERS[ext](path, max_chars=max_chars)
    if ext in images.IMAGE_EXTENSIONS:
        return images.parse_image(path)
    if ext in (".html", ".htm"):
        try:
            title, markdown = html_to_markdown(path.read_bytes())
        except ParseError as exc:
            raise ParseError(f"{path.name}: {exc}") from exc
        return ParsedDocument(text=markdown, title=title or path.stem, mime="")
    if ext in (".md", ".markdown"):
        return text.parse_markdown(path)
    if ext == ".rst" or path.name.lower().endswith(".rst.txt"):  # Sphinx publishes its sources as .rst.txt
        return text.parse_rst(path)
    if ext == ".csv":
        return text.parse_csv(path, max_chars=max_chars)
    return text.parse_plain(path, headings=ext == ".txt")


def _check_content_type(path: Path, ext: str, head: bytes) -> None:
    """Refuse a file whose first bytes contradict its extension."""
    if ext == ".pdf":
        # The PDF spec lets a header follow up to 1 KB of junk; pypdf tolerates it too.
        ok = PDF_MAGIC in head[:1024]
    elif ext in ZIP_PARTS:
        ok = head.startswith(ZIP_MAGIC)
        if not ok and head.startswith(OLE_MAGIC) and ENCRYPTED_OOXML in path.read_bytes():
            # Word, Excel and PowerPoint wrap a password-protected .docx/.xlsx/.pptx in an OLE container.
            raise text.password_protected(path.name)
    elif ext == ".xls":
        ok = head.startswith((OLE_MAGIC, *BIFF_MAGICS))
    elif ext in images.IMAGE_EXTENSIONS:
        ok = head.startswith(IMAGE_MAGICS[images.IMAGE_FORMATS[ext]])
    else:
        ok = not any(head.startswith(magic) for magic, _ in KNOWN_SIGNATURES) and not text.looks_binary(head)
    if ok:
        return
    actual = next((kind for magic, kind in KNOWN_SIGNATURES if head.startswith(magic)), None)
    if actual is None:
        binary = ext in TEXT_EXTENSIONS or text.looks_binary(head)
        actual = gettext_noop("a binary file") if binary else gettext_noop("a text file")
    raise UnsupportedFileError(
        gettext("%(name)s is named %(ext)s but its content is %(actual)s; upload the original file")
        % {"name": path.name, "ext": ext, "actual": gettext(actual)}
    )


def _check_zip(path: Path, ext: str, limit: int) -> None:
    """Refuse a damaged archive, a zip bomb, or an archive of the wrong Office format."""
    damaged = gettext("%(name)s is damaged: it is not a readable %(ext)s (ZIP) file") % {"name": path.name, "ext": ext}
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            if len(members) > MAX_ZIP_MEMBERS:
                raise FileTooLargeError(gettext("%(name)s holds %(count)s parts; the limit is %(limit)s") % {
                    "name": path.name, "count": number_format(len(members), force_grouping=True),
                    "limit": number_format(MAX_ZIP_MEMBERS, force_grouping=True)})
            declared = sum(member.file_size for member in members)
            if declared > limit:
                raise FileTooLargeError(
                    gettext("%(name)s expands to %(size)s when unpacked; the limit is %(limit)s")
                    % {"name": path.name, "size": file_size(declared), "limit": file_size(limit)}
                )
            prefix, kind = ZIP_PARTS[ext]
            if not any(member.filename.startswith(prefix) for member in members):
                raise UnsupportedFileError(
                    gettext("%(name)s is named %(ext)s but is not %(kind)s; upload the original file")
                    % {"name": path.name, "ext": ext, "kind": gettext(kind)}
                )
            _verify_members(archive, members)
    except ZIP_ERRORS as exc:
        raise ParseError(damaged) from exc


def _verify_members(archive: zipfile.ZipFile, members: list[zipfile.ZipInfo]) -> None:
    # Declared sizes can lie. Reading in bounded chunks stops at the declared size and checks the
    # CRC, so a lying member fails here, in constant memory, instead of inside mammoth/openpyxl
    # (whose whole-member reads inflate the entire stream before truncating it).
    for member in members:
        with archive.open(member) as stream:
            while stream.read(ZIP_READ_CHUNK):
                pass
