"""Messages the workers stored, shown in each reader's language.

A worker writes a document's error, a job item's reason or a crawl report's line when no reader
is there: in the portal's language (PORTAL_LANGUAGE), from a message of the catalogue with its
placeholders filled. `translated(text)` gives such a text in the active language: it finds the
message the text was made from (an entry whose wording, placeholders as wildcards, matches it
whole), reads the values back out of it, translates those that are messages themselves (a parse
error quoting OCR's; a size, "15.1 MB" read as "15,1 МБ") and fills the reader's translation. Text
that no message made (a parser's own words, a URL, a name) comes back as it is. The database and
the logs keep the words as they were written; the admin and the API's schemas show them through this.
"""

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import polib
from django.conf import settings
from django.utils import translation
from django.utils.formats import number_format

PLACEHOLDER = re.compile(r"%\((\w+)\)[-#0 +]*\d*(?:\.\d+)?([sdrfi])|%%")
# A message with less fixed wording than this matches too much ("%(name)s: %(error)s", "%(ms)s ms").
MIN_WORDING = 7
MAX_DEPTH = 2  # a message quoting a message quoting a message
ENGLISH_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+")
ENGLISH_DECIMAL = re.compile(r"(?:\d{1,3}(?:,\d{3})+|\d+)\.(\d+)")
# The value of a short message's placeholder ("%(size)s MB"): a number as some language writes it.
NUMBER_VALUE = r"\d[\d.,\u00a0\u202f ]*"


@dataclass(frozen=True)
class Message:
    msgid: str
    pattern: re.Pattern
    wording: str  # the fixed text, without placeholders: how much of a text the message explains
    clue: str  # its longest fixed part: checked with `in` before the pattern is tried
    lead: int  # the length of the fixed wording before the first placeholder
    kinds: tuple[tuple[str, str], ...]  # (placeholder name, conversion)
    # A unit after a number ("%(size)s MB", "%(ms)s ms"): too short to be told apart in free text,
    # so recognised only as the whole value of another message's placeholder, its values numbers.
    quantity: bool = False


def translated(text: str, language: str | None = None) -> str:
    """`text` in `language` (the active one by default) when messages of the catalogue made it."""
    if not text or not isinstance(text, str):
        return text
    language = (language or translation.get_language() or settings.LANGUAGE_CODE).split("-")[0].lower()
    return _explained(text, language, 0)[0]


@lru_cache(maxsize=4096)
def _explained(text: str, language: str, depth: int) -> tuple[str, int]:
    """`text` in `language`, and how much of it the wording of messages explains.

    Of the messages that match `text` whole, the reading that explains the most wording wins: in
    "Not enabled: Support has no knowledge bases: …" the outer message quoting the inner one, not the
    inner one with "Not enabled: Support" as the agent's name (when two readings explain as much, the
    one whose message begins with more of its own wording: the outer one). A value inside a message
    is taken for a message without placeholders only when it is a few words ("a text file"): a file
    named "Documents" stays as it is."""
    best, best_lead = (text, 0), -1
    sentence = depth == 0 or (" " in text.strip() and len(text) >= MIN_WORDING)
    for other, (exact, messages) in _catalogues().items():
        if other == language:
            continue
        if sentence and text in exact:
            return _in(language, exact[text], {}, text), len(text)
        for message in messages:
            if message.quantity and depth == 0:
                continue
            if message.clue in text and (found := message.pattern.fullmatch(text)):
                reading = _reading(message, found.groupdict(), language, depth)
                if reading is not None and (reading[1], message.lead) > (best[1], best_lead):
                    best, best_lead = reading, message.lead
    return best


def _reading(message: Message, values: dict[str, str], language: str, depth: int) -> tuple[str, int] | None:
    filled, explained = {}, len(message.wording)
    for name, kind in message.kinds:
        value = values[name]
        if kind in "di":
            filled[name] = int(value)
        elif kind == "f":
            filled[name] = float(value)
        elif ENGLISH_NUMBER.fullmatch(value) and language != "en":
            filled[name] = _number(int(value.replace(",", "")), 0, language)
        elif message.quantity:  # a number, in English reformatted ("15.1" → "15,1"), else as it was written
            decimal = ENGLISH_DECIMAL.fullmatch(value) if language != "en" else None
            number = float(value.replace(",", "")) if decimal else None
            filled[name] = value if number is None else _number(number, len(decimal.group(1)), language)
        elif depth < MAX_DEPTH:
            filled[name], inner = _explained(value, language, depth + 1)
            explained += inner
        else:
            filled[name] = value
    text = _in(language, message.msgid, filled, None)
    return None if text is None else (text, explained)


def _number(value: float, decimals: int, language: str) -> str:
    """`value` written as `language` writes numbers (grouped thousands, its decimal mark)."""
    with translation.override(language):
        return number_format(value, decimals or None, force_grouping=True, use_l10n=True)


def _in(language: str, msgid: str, values: dict, fallback: str | None) -> str | None:
    """The catalogue's `msgid` in `language`, filled with `values` (`fallback` if its placeholders differ)."""
    with translation.override(language):
        try:
            return translation.gettext(msgid) % values if values else translation.gettext(msgid)
        except (KeyError, TypeError, ValueError):
            return fallback


@lru_cache(maxsize=1)
def _catalogues() -> dict[str, tuple[dict[str, str], list[Message]]]:
    """Per language, the messages as they read in it: whole texts (→ msgid), and patterns of those
    with placeholders. English is the source language (the msgids)."""
    english: dict[str, str] = {}
    translations: dict[str, dict[str, str]] = {}
    for folder in settings.LOCALE_PATHS:
        for mo_path in sorted(Path(folder).glob("*/LC_MESSAGES/django.mo")):
            language = mo_path.parent.parent.name
            for entry in polib.mofile(str(mo_path)):
                if entry.msgid_plural or not entry.msgstr or entry.msgctxt:
                    continue
                english[entry.msgid] = entry.msgid
                translations.setdefault(language, {})[entry.msgid] = entry.msgstr
    texts = {"en": english, **{language: {msgstr: msgid for msgid, msgstr in entries.items()}
                           for language, entries in translations.items()}}
    return {language: _index(by_text) for language, by_text in texts.items()}


def _index(by_text: dict[str, str]) -> tuple[dict[str, str], list[Message]]:
    exact, messages = {}, []
    for text, msgid in by_text.items():
        if "%" not in text:
            exact[text] = msgid
        elif (message := _message(text, msgid)) is not None:
            messages.append(message)
    return exact, messages


def _message(text: str, msgid: str) -> Message | None:
    parts, kinds, position = [], [], 0
    for found in PLACEHOLDER.finditer(text):
        parts.append(re.escape(text[position:found.start()]))
        position = found.end()
        if found.group(0) == "%%":
            parts.append("%")
            continue
        name, kind = found.groups()
        if name in dict(kinds):
            return None  # a placeholder used twice: too rare to be worth a backreference
        kinds.append((name, kind))
        parts.append(rf"(?P<{name}>-?\d+)" if kind in "di" else rf"(?P<{name}>.*?)")
    parts.append(re.escape(text[position:]))
    fixed = PLACEHOLDER.split(text)[::3]
    wording = "".join(fixed)
    if not kinds:
        return None
    quantity = len(wording.strip()) < MIN_WORDING
    if quantity:
        if len(kinds) != 1 or not re.search(r"[^\W\d_]", wording):
            return None
        parts = [part.replace(".*?", NUMBER_VALUE) for part in parts]
    return Message(msgid, re.compile("".join(parts), re.DOTALL), wording, max(fixed, key=len), len(fixed[0]),
                   tuple(kinds), quantity)
