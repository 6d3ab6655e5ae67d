"""Word (.docx) documents: mammoth → HTML → Markdown, keeping headings as `#` lines."""

import zipfile
from pathlib import Path
from xml.etree import ElementTree

import mammoth
from django.utils.translation import gettext as _
from mammoth.images import img_element

from knowledge.documents import ParsedDocument
from knowledge.exceptions import ParseError
from knowledge.indexing.markdown import first_heading

from .html import parse_html, soup_to_markdown
from .packages import check_body_text
from .text import short_reason

# On top of mammoth's defaults (Heading 1–6): Word's Title/Subtitle styles are headings to a reader.
STYLE_MAP = """
p[style-name='Title'] => h1:fresh
p[style-name='Subtitle'] => h2:fresh
"""
DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
BODY = "word/document.xml"
# Footnote back-links ("↑") carry no text worth indexing.
BACKLINK_PREFIXES = ("#footnote-ref-", "#endnote-ref-")


def parse_docx(path: Path, *, max_chars: int) -> ParsedDocument:
    """Markdown of the document body; title from the core properties or the first heading."""
    check_body_text(path, max_chars, members=(BODY,))
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
    # Word keeps a table's header in its first row, marked or not.
    markdown = soup_to_markdown(soup, header_by_default=True)
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
