"""Word (.docx) documents: mammoth → HTML → Markdown, keeping headings as `#` lines."""

import zipfile
from pathlib import Path
from xml.etree import ElementTree
from xml.parsers import expat

import mammoth
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from mammoth.images import img_element

from knowledge.documents import ParsedDocument
from knowledge.exceptions import FileTooLargeError, ParseError
from knowledge.indexing.markdown import first_heading

from .html import parse_html, soup_to_markdown
from .text import short_reason

# On top of mammoth's defaults (Heading 1–6): Word's Title/Subtitle styles are headings to a reader.
STYLE_MAP = """
p[style-name='Title'] => h1:fresh
p[style-name='Subtitle'] => h2:fresh
"""
DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
BODY = "word/document.xml"
# mammoth holds the whole body as Python objects (tens of bytes per XML byte), so the body is first
# read as a stream that counts text and elements and stops at the limit, in constant memory.
# A real document has far fewer elements than characters; a body of empty elements is a bomb.
SCAN_CHUNK = 1024 * 1024
ELEMENTS_PER_CHAR = 1
MIN_ELEMENTS = 200_000
# Footnote back-links ("↑") carry no text worth indexing.
BACKLINK_PREFIXES = ("#footnote-ref-", "#endnote-ref-")


def parse_docx(path: Path, *, max_chars: int) -> ParsedDocument:
    """Markdown of the document body; title from the core properties or the first heading."""
    check_body_text(path, max_chars)
    try:
        with path.open("rb") as f:
            result = mammoth.convert_to_html(
                f,
                style_map=STYLE_MAP,
                # A style map embedded in an uploaded file is the uploader's, not ours.
                include_embedded_style_map=False,
                # Images carry no text; skipping them avoids base64-encoding every picture.
                convert_image=img_element(lambda image: {}),
            )
    except Exception as exc:  # noqa: BLE001 - mammoth raises KeyError/ValueError/XML errors on bad parts
        raise ParseError(
            _("%(name)s is damaged or not a Word document that we can read (%(reason)s)")
            % {"name": path.name, "reason": short_reason(exc)}
        ) from exc
    soup = parse_html(result.value)
    for link in soup.find_all("a", href=True):
        if link["href"].startswith(BACKLINK_PREFIXES):
            link.decompose()
    markdown = soup_to_markdown(soup)
    if not markdown.strip():
        raise ParseError(_("%(name)s is empty: the document has no text") % {"name": path.name})
    metadata = {"warnings": len(result.messages)} if result.messages else {}
    title = _core_title(path) or first_heading(markdown) or path.stem
    return ParsedDocument(text=markdown, title=title, mime="", metadata=metadata)


def _core_title(path: Path) -> str:
    """`dc:title` from docProps/core.xml, or '' when absent or unreadable."""
    try:
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo("docProps/core.xml")
            # Core properties are a few hundred bytes; a large one is not worth parsing.
            if info.file_size > 1024 * 1024:
                return ""
            root = ElementTree.fromstring(archive.read(info))
    except (KeyError, zipfile.BadZipFile, ElementTree.ParseError, OSError):
        return ""
    element = root.find(DC_TITLE)
    return " ".join((element.text or "").split()) if element is not None else ""


def check_body_text(path: Path, max_chars: int, *, members: tuple[str, ...] = (BODY,)) -> None:
    """Refuse a body (the archive's `members`, counted together) whose text or element count is over
    the limit, reading it as a stream."""
    max_elements = max(MIN_ELEMENTS, ELEMENTS_PER_CHAR * max_chars)
    counts = {"chars": 0, "elements": 0}
    chars, elements = number_format(max_chars, force_grouping=True), number_format(max_elements, force_grouping=True)
    too_long = FileTooLargeError(
        _("%(name)s holds more than %(count)s characters of text; the limit is %(limit)s")
        % {"name": path.name, "count": chars, "limit": chars}
    )
    too_many = FileTooLargeError(
        _("%(name)s holds more than %(count)s XML elements; the limit is %(limit)s "
          "(the document is padded or damaged)")
        % {"name": path.name, "count": elements, "limit": elements}
    )

    def start(name, attrs):
        counts["elements"] += 1
        if counts["elements"] > max_elements:
            raise too_many

    def text(data):
        counts["chars"] += len(data.strip())
        if counts["chars"] > max_chars:
            raise too_long

    try:
        with zipfile.ZipFile(path) as archive:
            for name in members:
                parser = expat.ParserCreate()  # one document per part; the counts run on
                parser.StartElementHandler, parser.CharacterDataHandler = start, text
                with archive.open(name) as stream:
                    while chunk := stream.read(SCAN_CHUNK):
                        parser.Parse(chunk, False)
                    parser.Parse(b"", True)
    except KeyError:
        return  # no body part: mammoth says what is wrong
    except expat.ExpatError as exc:
        raise ParseError(_("%(name)s is damaged: its text is not well-formed XML (%(error)s)")
                         % {"name": path.name, "error": exc}) from exc
