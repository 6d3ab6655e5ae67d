"""How well a file was read: the parse-quality report stored on each document.

`assess()` looks only at what parsing and OCR produced (no database): pages and characters per page,
pages left without text, OCR pages and confidence, tables, the text encoding, the language, and signs
of a bad read — garbage characters, undecodable bytes, broken Cyrillic (text decoded in the wrong
encoding), scanned pages OCR could not read, pages that could not be read at all, spreadsheet
formulas whose results were never saved. Each sign is a flag;
a document with any flag needs a person's attention before ticket auto-replies may quote it
(`Document.usable_for_auto_reply`).
"""

import re
import unicodedata
from pathlib import Path

from django.utils.translation import gettext_lazy

from knowledge.documents import ParsedDocument
from knowledge.indexing.tables import DELIMITER_ROW

from .ocr import page_texts
from .text import detect_encoding

# The flags, with the phrase the admin and the ticket decision show.
FLAGS = {
    "garbage_text": gettext_lazy("much of the text is not letters or digits (a broken text layer?)"),
    "replacement_characters": gettext_lazy("bytes that could not be decoded (�)"),
    "broken_cyrillic": gettext_lazy("broken Cyrillic: text decoded in the wrong encoding"),
    "low_ocr_confidence": gettext_lazy("OCR was unsure of the text"),
    "ocr_not_run": gettext_lazy("scanned pages were not read: OCR is unavailable"),
    "incomplete": gettext_lazy("part of the file could not be read"),
    "formulas_without_values": gettext_lazy(
        "formulas without saved results (the file was never opened and saved in a spreadsheet program): "
        "their cells are empty"),
    "run_together_words": gettext_lazy("words run together: the spaces between them were lost"),
}
LOW_OCR_CONFIDENCE = 60.0
# Below this many characters (a title, a caption) the proportions below say nothing.
MIN_CHARS_TO_JUDGE = 200
MAX_GARBAGE_SHARE = 0.05
MIN_WORD_CHAR_SHARE = 0.5
MAX_LISTED_PAGES = 1000
# Words with this many letters are rare in any language (German compounds included); a text layer that
# lost its spaces ("РуководствоначинающегоразработчикаDebian") is full of them.
LONG_WORD_LETTERS = 25
MAX_LONG_WORD_SHARE = 0.02

# UTF-8 bytes read as cp1251 ("РїСЂРёРІРµС‚") or as latin-1/cp1252 ("Ð¿Ñ€Ð¸"), and KOI8-R read as
# cp1251, which swaps the case of every letter ("пРИВЕТ").
MOJIBAKE = re.compile(
    "[РС][ЂЃЉЊЌЋЏђѓљњќћџЎўЈҐЄЇІіґёєјЅѕї‚„…†‡€‰‹‘’“”•–—™›µ¶·°±§©«¬®]"
    "|[ÐÑ][\u0080-\u00bf\u0152-\u0192\u02c6-\u02dc\u2013-\u2122]"
    r"|\b[а-яё][А-ЯЁ]{2,}\b"
)
WORD = re.compile(r"\w+")
# A token that is code, a path, an address or an identifier rather than a word: it may be long.
NOT_A_WORD = re.compile(r"[/\\_@|=<>{}\[\]()]|\w\.\w")
TABLE_RULE = re.compile(DELIMITER_ROW, re.M)
# A character that belongs to no text: control, private-use, unassigned, surrogate, symbols drawn
# from a font without a Unicode map, and the replacement character.
GARBAGE_CATEGORIES = {"Cc", "Co", "Cn", "Cs", "So"}
# Box-drawing and block characters ("├──", "█") draw file trees and bars in code blocks: text, not garbage.
DRAWING = ("\u2500", "\u259f")
MARKDOWN_MARKS = frozenset("|-:*#_`>[]()!\\")
ENGLISH_WORDS = {"the", "and", "of", "to", "is", "in", "that", "for", "with", "on"}
GERMAN_WORDS = {"der", "die", "und", "das", "ist", "nicht", "mit", "auf", "ein", "eine"}


def assess(parsed: ParsedDocument, *, encoding: str = "") -> dict:
    """The parse-quality report of a parsed (and OCR'd) file, with its `flags`."""
    text = parsed.text
    report = {"chars": len(text), "encoding": encoding, "language": language(text), "tables": tables(text)}
    report.update(_pages(parsed))
    report.update(_signs(text))
    flags = []
    if report["chars"] >= MIN_CHARS_TO_JUDGE and (
            report["garbage_share"] > MAX_GARBAGE_SHARE or report["word_char_share"] < MIN_WORD_CHAR_SHARE):
        flags.append("garbage_text")
    if report["chars"] >= MIN_CHARS_TO_JUDGE and report["long_word_share"] > MAX_LONG_WORD_SHARE:
        flags.append("run_together_words")
    if report["replacement_chars"] > max(3, len(text) // 2000):
        flags.append("replacement_characters")
    if report["mojibake"] >= 5 and report["mojibake"] > 0.05 * max(1, report["words"]):
        flags.append("broken_cyrillic")
    if report.get("ocr_confidence") is not None and report["ocr_confidence"] < LOW_OCR_CONFIDENCE:
        flags.append("low_ocr_confidence")
    if parsed.metadata.get("ocr_skipped"):
        flags.append("ocr_not_run")
    if parsed.metadata.get("unreadable_pages") or parsed.metadata.get("truncated"):
        flags.append("incomplete")
    if parsed.metadata.get("formulas_without_values"):
        # A column of formulas reads as empty: say so rather than let it vanish from the rows.
        report["formulas_without_values"] = parsed.metadata["formulas_without_values"]
        flags.append("formulas_without_values")
    report["flags"] = flags
    return report


def file_encoding(path: Path) -> str:
    """The encoding a text file was read in ("" for other formats)."""
    from . import TEXT_EXTENSIONS

    if path.suffix.lower() not in TEXT_EXTENSIONS:
        return ""
    return detect_encoding(path.read_bytes())


def describe(flags: list[str]) -> str:
    """The flags as one phrase for people ("broken Cyrillic: …; OCR was unsure …")."""
    return "; ".join(str(FLAGS.get(flag, flag)) for flag in flags)


def language(text: str) -> str:
    """`ru`, `en`, `de`, `latin` (another Latin-script language), `mixed` or "" (too little text)."""
    sample = text[:200_000]
    cyrillic = sum(1 for char in sample if "\u0400" <= char <= "\u04ff")
    latin = sum(1 for char in sample if char.isascii() and char.isalpha())
    letters = cyrillic + latin
    if letters < 50:
        return ""
    if cyrillic / letters > 0.6:
        return "ru"
    if latin / letters < 0.6:
        return "mixed"
    words = [word.lower() for word in WORD.findall(sample[:50_000])]
    english = sum(word in ENGLISH_WORDS for word in words)
    german = sum(word in GERMAN_WORDS for word in words)
    if max(english, german) < 0.02 * max(1, len(words)):
        return "latin"
    return "en" if english >= german else "de"


def tables(text: str) -> int:
    """Markdown tables in the text (each has one delimiter row, `| --- | --- |`, under its header)."""
    return len(TABLE_RULE.findall(text))


def _pages(parsed: ParsedDocument) -> dict:
    page_count = parsed.metadata.get("page_count")
    ocr = parsed.metadata.get("ocr") or {}
    report = {"pages": page_count, "ocr_pages": len(ocr.get("pages", [])),
              "ocr_confidence": ocr.get("mean_confidence"), "ocr_languages": ocr.get("languages", "")}
    if ocr.get("rotated"):  # pages scanned sideways or upside down, read turned upright
        report["ocr_turned_pages"] = sorted(map(int, ocr["rotated"]))[:MAX_LISTED_PAGES]
    if page_count and parsed.pages:
        texts = page_texts(parsed)
        per_page = [len(texts.get(number, "")) for number in range(1, page_count + 1)]
        report["chars_per_page"] = per_page[:MAX_LISTED_PAGES]
        report["pages_without_text"] = [n for n, size in enumerate(per_page, start=1) if not size][:MAX_LISTED_PAGES]
    elif page_count:
        report["chars_per_page"], report["pages_without_text"] = [0] * min(page_count, MAX_LISTED_PAGES), list(
            range(1, min(page_count, MAX_LISTED_PAGES) + 1))
    return report


def _signs(text: str) -> dict:
    sample = text[:1_000_000]
    visible = [char for char in sample if not char.isspace()]
    garbage = sum(1 for char in visible if (unicodedata.category(char) in GARBAGE_CATEGORIES
                                            and not DRAWING[0] <= char <= DRAWING[1]) or char == "\ufffd")
    # Markdown's own marks (tables, emphasis, headings, links) are structure, not garbage.
    prose = [char for char in visible if char not in MARKDOWN_MARKS]
    word_chars = sum(1 for char in prose if char.isalnum())
    return {
        "garbage_share": round(garbage / max(1, len(visible)), 3),
        "word_char_share": round(word_chars / len(prose), 3) if prose else 1.0,
        "replacement_chars": text.count("\ufffd"),
        "mojibake": len(MOJIBAKE.findall(sample)),
        "words": len(WORD.findall(sample)),
        "long_word_share": long_word_share(sample),
    }


def long_word_share(text: str) -> float:
    """The share of words (whitespace-separated, code and addresses left out) of `LONG_WORD_LETTERS`
    letters or more."""
    words = [token for token in text.split() if not NOT_A_WORD.search(token)]
    lengths = [sum(char.isalpha() for char in word) for word in words]
    words_with_letters = sum(length > 1 for length in lengths)
    return round(sum(length >= LONG_WORD_LETTERS for length in lengths) / max(1, words_with_letters), 3)
