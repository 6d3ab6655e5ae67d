"""PDF text extraction with pypdf, keeping the page each stretch of text came from.

pypdf finds the spaces between words in the text's operators; a PDF that places each word by position
without a space character (DocBook's dblatex output, a Sphinx book set with XeLaTeX) reads as
"РуководствоначинающегоразработчикаDebian". Such a page, one whose words run together as the quality
report's `run_together_words` judges them, is read again with pdfium, which infers the spaces from the
gaps between glyphs, and pdfium's text is kept when fewer of its words run together.

The other way round, a font set with wide letter spacing reads in pypdf as "докум ентации", "Общ
ие": its kerning looks like a space. On every page, a word pypdf splits in two where pdfium reads
one word is joined (`_gaps_closed`).
"""

import logging
import re
from collections import Counter
from pathlib import Path

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from pypdf import PasswordType, PdfReader
from pypdf.errors import DependencyError, PyPdfError

from knowledge.documents import ParsedDocument
from knowledge.exceptions import ParseError

from .ocr import needs_ocr
from .pagetext import join_pages, tidy_pages
from .quality import LONG_WORD_LETTERS, MAX_LONG_WORD_SHARE, long_word_share
from .text import short_reason, text_too_long

logger = logging.getLogger(__name__)

ENCRYPTED = gettext_noop("%(name)s: PDF is encrypted; remove the password and upload it again")
# /Title values that name a placeholder rather than the document.
PLACEHOLDER_TITLES = ("untitled", "document", "title")


def parse_pdf(path: Path, *, max_chars: int) -> ParsedDocument:
    """Text per page (tidied by `pagetext.tidy_pages`), pages joined by a blank line; `pages` maps
    offsets to page numbers."""
    reader = _open(path)
    with _PdfiumPages(path) as pdfium_pages:
        return _parse_pages(path, reader, pdfium_pages, max_chars)


def _parse_pages(path: Path, reader: PdfReader, pdfium_pages: "_PdfiumPages", max_chars: int) -> ParsedDocument:
    texts: dict[int, str] = {}
    unreadable: list[int] = []
    # Pages whose text layer is missing or too thin: the worker reads them with OCR (ocr.py).
    thin: list[int] = []
    offset = 0
    for number, page in enumerate(_pages(reader, path), start=1):
        try:
            text = page.extract_text() or ""
        except Exception as exc:  # noqa: BLE001 - pypdf raises many types on damaged content streams
            logger.info("pdf %s: page %d unreadable: %r", path.name, number, exc)
            unreadable.append(number)
            continue
        spaced = pdfium_pages.text(number) if text.strip() else None
        if spaced is not None:
            text = _better_spaced(text, spaced)
        text = text.replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n").strip()
        if needs_ocr(text):
            thin.append(number)
        if not text:
            continue
        offset += len(text) + (2 if texts else 0)  # the blank line that joins pages
        texts[number] = text
        if offset > max_chars:
            raise text_too_long(path.name, max_chars)
    if not texts and unreadable:
        raise ParseError(_("%(name)s is damaged: no page could be read") % {"name": path.name})
    metadata: dict = {"page_count": len(reader.pages), "ocr_wanted": thin}
    if unreadable:
        metadata["unreadable_pages"] = unreadable
    title = _title(reader) or path.stem
    text, pages = join_pages(tidy_pages(texts))
    return ParsedDocument(text=text, title=title, mime="", metadata=metadata, pages=pages)


def _open(path: Path) -> PdfReader:
    try:
        reader = PdfReader(path)
        if reader.is_encrypted:
            # Many PDFs carry only an owner password (printing/copying limits) and open with "".
            try:
                opened = reader.decrypt("")
            except (DependencyError, NotImplementedError, PyPdfError) as exc:
                raise ParseError(_(ENCRYPTED) % {"name": path.name}) from exc
            if opened == PasswordType.NOT_DECRYPTED:
                raise ParseError(_(ENCRYPTED) % {"name": path.name})
        return reader
    except ParseError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure to read the file structure means "damaged"
        raise _damaged(path, exc) from exc


def _pages(reader: PdfReader, path: Path) -> list:
    try:
        return list(reader.pages)
    except Exception as exc:  # noqa: BLE001 - a broken page tree surfaces here, not in PdfReader()
        raise _damaged(path, exc) from exc


class _PdfiumPages:
    """pdfium's reading of a PDF's pages (spaces placed by the gaps between glyphs), the document
    opened on first use; None for a page it cannot read."""

    def __init__(self, path: Path) -> None:
        self.path, self._document, self._unreadable = path, None, False

    def __enter__(self) -> "_PdfiumPages":
        return self

    def __exit__(self, *exc_info) -> None:
        if self._document is not None:
            self._document.close()

    def text(self, number: int) -> str | None:
        import pypdfium2 as pdfium

        try:
            if self._document is None and not self._unreadable:
                self._document = pdfium.PdfDocument(str(self.path))
            if self._document is None:
                return None
            # A hyphen ending a line is U+FFFE, the lines joined; as printed, tidy_pages decides the word.
            return self._document[number - 1].get_textpage().get_text_range().replace("\ufffe", "-\n")
        except pdfium.PdfiumError:
            self._unreadable = self._document is None
            return None


def _better_spaced(text: str, spaced: str) -> str:
    """pypdf's `text` of a page, or pdfium's `spaced` when fewer of its words run together; with the
    words pypdf splits where pdfium reads one word joined."""
    run_together = len(text) >= LONG_WORD_LETTERS and long_word_share(text) > MAX_LONG_WORD_SHARE
    if run_together and long_word_share(spaced) < long_word_share(text):
        return spaced
    return _gaps_closed(text, spaced)


_LETTER_RUN = r"[^\W\d_]+"
_WORDS = re.compile(_LETTER_RUN)
# A word, one space, and (looked ahead at, so pairs overlap) the word after it on the same line.
_PAIR = re.compile(rf"(?<![\w-])({_LETTER_RUN})[^\S\n](?=({_LETTER_RUN})(?![\w-]))")


def _gaps_closed(text: str, reference: str) -> str:
    """`text` with the words it splits in two joined where `reference` reads them as one: when the
    reference has the joined word more often than `text` does and never the two words apart (a page
    saying "по тому" and "потому" keeps both, as the reference reads both)."""
    reference = reference.replace("-\n", "")
    counts = Counter(word.lower() for word in _WORDS.findall(text))
    reference_counts = Counter(word.lower() for word in _WORDS.findall(reference))
    reference_pairs = {(first.lower(), second.lower()) for first, second in _PAIR.findall(reference)}

    def join(match: re.Match) -> str:
        first, second = match.group(1).lower(), match.group(2).lower()
        if reference_counts[first + second] > counts[first + second] and (first, second) not in reference_pairs:
            return match.group(1)  # the space dropped
        return match.group(0)

    return _PAIR.sub(join, text)


def _damaged(path: Path, exc: Exception) -> ParseError:
    return ParseError(_("%(name)s is damaged and cannot be read as a PDF (%(reason)s)")
                      % {"name": path.name, "reason": short_reason(exc)})


def _title(reader: PdfReader) -> str:
    try:
        title = reader.metadata.title if reader.metadata else None
    except Exception:  # noqa: BLE001 - broken metadata must not cost us the text
        return ""
    title = " ".join(str(title or "").split())
    # Word's PDF export titles documents "Microsoft Word - report.docx".
    if title.lower().startswith("microsoft word - "):
        title = title[len("microsoft word - "):]
    return "" if title.lower() in PLACEHOLDER_TITLES else title
