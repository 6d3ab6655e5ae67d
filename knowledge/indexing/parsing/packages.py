"""Office packages (DOCX, PPTX, ODF: XML parts in a ZIP archive) checked against the limits before parsing.

The readers (mammoth, python-pptx, the OpenDocument reader) hold a whole part as Python objects,
tens of bytes per XML byte, so the parts that hold the text are first read as a stream that counts
text and elements and stops at the limit, in constant memory. A real document has far fewer
elements than characters; a part of empty elements is a bomb.
"""

import zipfile
from pathlib import Path
from xml.parsers import expat

from django.utils.formats import number_format
from django.utils.translation import gettext as _

from knowledge.exceptions import FileTooLargeError, ParseError

SCAN_CHUNK = 1024 * 1024
ELEMENTS_PER_CHAR = 1
MIN_ELEMENTS = 200_000


def check_body_text(path: Path, max_chars: int, *, members: tuple[str, ...]) -> None:
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
