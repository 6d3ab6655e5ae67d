"""What a customer's follow-up says, without the conversation their mail client quoted under it.

A reply e-mail carries the whole thread again: "On Thu, 3 Dec 2026 at 10:00, Help desk
<help@…> wrote:" and our reply as `> ` lines (Gmail, Thunderbird, Apple Mail, Yandex, Mail.ru), or
Outlook's "From: … Sent: … To: …" block and the earlier mail unmarked below it. That history is
already in the ticket, so a follow-up keeps only what is new (`new_text`). The rules read the
shape of those lines, in English and Russian:

- the trailing block of `>` lines, with the attribution line just above it (the line, or two lines
  a client wrapped, that ends with ":" and names a date or an address);
- an attribution line that ends with "wrote:", "пишет:", "написал(а):" and names a date or an
  address, or a separator ("-----Original Message-----", "-------- Исходное сообщение --------"),
  or an Outlook header block ("From:"/"От:" followed by "Sent:"/"Date:"/"Отправлено:"/"Дата:"):
  everything from there on.

A customer's own text is never cut: quoted lines with new text after them (an answer written between
the quotes) stay, and a message that would be left empty is kept whole. A forwarded message is
content, not history, so "Forwarded message" is no separator. The raw e-mail is kept either way.

Our own replies quote the message they answer the same way (`quote`), so the customer sees what was
asked under the answer, and their answer to it is read back by the same rules.
"""

import re

_WROTE = re.compile(r"\b(wrote|writes|пишет|написал|написала|написал\(а\))\s*:\s*$", re.IGNORECASE)
_ADDRESS = re.compile(r"[^\s<>@]+@[^\s<>@]+\.\w+")
_TIME, _YEAR = re.compile(r"\b\d{1,2}:\d{2}\b"), re.compile(r"\b(19|20)\d{2}\b")
_SEPARATOR = re.compile(r"^-{2,}\s*(original message|исходное сообщение|reply message|ответное сообщение)\s*-{2,}$",
                        re.IGNORECASE)
_HEADER_FROM = re.compile(r"^\*?(from|от)\s*:\*?\s+\S", re.IGNORECASE)
_HEADER_NEXT = re.compile(r"^\*?(sent|date|to|subject|отправлено|дата|кому|тема)\s*:", re.IGNORECASE)
_RULE = re.compile(r"^[_\-]{8,}$")
_FORWARDED = re.compile(r"forwarded message|begin forwarded|пересланное сообщение|переадресованн", re.IGNORECASE)
OUTLOOK_BLOCK = 5  # lines after "From:" in which Outlook's next header must appear
QUOTE_MAX_CHARS = 10_000  # of the message a reply quotes; a longer one is cut at a line and marked "[…]"


def is_attribution(text: str) -> bool:
    """Whether `text` is the line a mail client writes above the quote: it ends with ":" and says who
    wrote ("…wrote:", "…пишет:") with a time and year or an address, or gives an address with a time
    and year (Gmail in Russian: "чт, 3 дек. 2026 г. в 10:00, Help desk <help@…>:"). "In 2024 your
    colleague wrote:" in a customer's own text is none."""
    text = text.strip()
    if not text.endswith(":"):
        return False
    addressed = bool(_ADDRESS.search(text))
    return (_dated(text) or addressed) if _WROTE.search(text) else (_dated(text) and addressed)


def _dated(text: str) -> bool:
    return bool(_TIME.search(text) and _YEAR.search(text))


def _attribution_start(lines: list[str], index: int) -> int | None:
    """Where an attribution that ends on line `index` starts: that line, or the line above when the
    client wrapped it there (the date above, "wrote:" below); None when it is no attribution."""
    one = lines[index].strip()
    two = f"{lines[index - 1].strip()} {one}" if index > 0 and lines[index - 1].strip() else ""
    if is_attribution(one):
        return index - 1 if two and not _dated(one) and _dated(two) and is_attribution(two) else index
    return index - 1 if two and is_attribution(two) else None


def quote(text: str, attribution: str) -> str:
    """`text` as a reply quotes it below itself: the attribution line, then every line after "> "."""
    text = text.strip()
    if len(text) > QUOTE_MAX_CHARS:
        cut = text.rfind("\n", 0, QUOTE_MAX_CHARS)
        text = text[:cut if cut > 0 else QUOTE_MAX_CHARS].rstrip() + "\n[…]"
    return "\n".join([attribution, *(f"> {line}".rstrip() for line in text.split("\n"))])


def new_text(body: str) -> str:
    """`body` without the quoted history under it; the whole body when nothing would be left."""
    lines = body.split("\n")
    cut = min(_history_start(lines), _quote_start(lines))
    forwarded = next((index for index, line in enumerate(lines) if _FORWARDED.search(line)), len(lines))
    if cut >= min(len(lines), forwarded + 1):
        return body
    # A rule line drawn above Outlook's header block goes with it.
    while cut > 0 and (not lines[cut - 1].strip() or _RULE.match(lines[cut - 1].strip())):
        cut -= 1
    kept = "\n".join(lines[:cut]).strip()
    return kept or body


def _history_start(lines: list[str]) -> int:
    """The first line of a separator, an Outlook header block or a "… wrote:" attribution."""
    for index, line in enumerate(lines):
        text = line.strip()
        if _SEPARATOR.match(text):
            return index
        if _HEADER_FROM.match(text) and any(_HEADER_NEXT.match(following.strip())
                                            for following in lines[index + 1:index + 1 + OUTLOOK_BLOCK]):
            return index
        if _FORWARDED.search(text):
            break  # what follows is a forwarded message: content
        start = None if text.startswith(">") else _attribution_start(lines, index)
        if start is not None:
            return start
    return len(lines)


def _quote_start(lines: list[str]) -> int:
    """The first line of the trailing block of `>` lines, or of the attribution just above it."""
    start = len(lines)
    while start > 0 and (lines[start - 1].lstrip().startswith(">") or not lines[start - 1].strip()):
        start -= 1
    if not any(line.lstrip().startswith(">") for line in lines[start:]):
        return len(lines)
    above = start
    while above > 0 and not lines[above - 1].strip():
        above -= 1
    first = _attribution_start(lines, above - 1) if above > 0 else None
    return start if first is None else first
