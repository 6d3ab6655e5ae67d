"""OpenDocument packages written as LibreOffice lays them out: an uncompressed `mimetype` first, then
META-INF/manifest.xml, content.xml and meta.xml."""

import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

NAMESPACES = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
    'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/" office:version="1.3"'
)
TEXT_TYPE = "application/vnd.oasis.opendocument.text"
SHEET_TYPE = "application/vnd.oasis.opendocument.spreadsheet"
SLIDES_TYPE = "application/vnd.oasis.opendocument.presentation"


def write_package(path: Path, mimetype: str, body: str, *, styles: str = "", title: str = "",
                  encrypted: bool = False) -> Path:
    """An OpenDocument package of `mimetype` whose body holds `body`, laid out as LibreOffice writes one."""
    kind = mimetype.rsplit(".", 1)[-1]  # text, spreadsheet, presentation
    content = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {NAMESPACES}>'
               f"<office:automatic-styles>{styles}</office:automatic-styles>"
               f"<office:body><office:{kind}>{body}</office:{kind}></office:body></office:document-content>")
    meta = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-meta {NAMESPACES}><office:meta>'
            + (f"<dc:title>{escape(title)}</dc:title>" if title else "") + "</office:meta></office:document-meta>")
    entry = '<manifest:encryption-data manifest:checksum-type="SHA256"/>' if encrypted else ""
    manifest = ('<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
                'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
                f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{mimetype}"/>'
                f'<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">{entry}'
                "</manifest:file-entry></manifest:manifest>")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr(zipfile.ZipInfo("mimetype"), mimetype, compress_type=zipfile.ZIP_STORED)
        package.writestr("META-INF/manifest.xml", manifest)
        package.writestr("content.xml", content)
        package.writestr("meta.xml", meta)
    return path
