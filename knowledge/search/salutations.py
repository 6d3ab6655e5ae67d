"""What a customer asks, without the letter around it: greeting, sign-off and signature.

"Здравствуйте! … С уважением, Анна Петрова, ООО «Ромашка», +375 29 …" is how people write to
support, by e-mail above all, and every word of it used to reach the search and the FAQ-entry
comparison: an FAQ question asked with a greeting and a four-line signature matched its entry too
loosely to be answered automatically. `strip_salutations` leaves the question: grounded answers
(`answers.ground`) search and judge it, and a ticket's messages are read through it by triage, the
reply's language and the golden-set proposals (`Ticket.customer_text`); staff see them as written.

Rules, English and Russian, all on whole lines at the edges of the message:

- a signature: everything below an RFC 3676 delimiter line (`-- `) unless a question is there, or a
  last line such as "Sent from my iPhone" / "Отправлено с iPhone";
- a sign-off: a line near the end that opens with a closing ("Best regards", "Thanks",
  "С уважением", "Спасибо") and has at most a name after it, with at most a few short lines below
  (name, position, phone); or such a closing after the last sentence of the last line (a letter
  written on one line: "… украли? С уважением, Анна");
- a greeting: a first line that is one ("Hello,", "Hi Anna!", "Добрый день."), or one opening the
  first line before a comma or "!" ("Здравствуйте! Как стать клиентом?").

A message made only of these is kept whole; nothing inside the message is touched.
"""

import re

_GREETING = (r"hello|hi|hey|hiya|greetings|good\s+(?:morning|afternoon|evening|day)|dear|здравствуйте|здравствуй"
             r"|добрый\s+(?:день|вечер|утро)|доброе\s+утро|доброго\s+(?:дня|вечера|утра|времени\s+суток)|привет"
             r"|приветствую|уважаем\w*")
# The greeting alone on its line ("Добрый день.", "Dear support team,"), or opening it ("Hi Anna, my …").
_GREETING_LINE = re.compile(rf"^(?:{_GREETING})\b(?:\s*[,.!:]*|(?:\s+[^\s,.!?:;]+){{1,3}}\s*[,!:]+)\s*$",
                            re.IGNORECASE)
_GREETING_OPENING = re.compile(
    rf"^(?:{_GREETING})\b(?:\s*(?:[,!]+\s*|\.+\s+)|(?:\s+[^\s,.!?:;]+){{1,3}}\s*[,!]+\s*)(?=\S)", re.IGNORECASE)
_CLOSINGS = (
    r"thanks(?:\s+in\s+advance|\s+a\s+lot)?|thank\s+you(?:\s+in\s+advance)?|many\s+thanks|thx"
    r"|(?:best|kind|warm|warmest)\s+(?:regards|wishes)|regards|cheers|sincerely|yours\s+(?:sincerely|truly)"
    r"|all\s+the\s+best|спасибо(?:\s+заранее|\s+большое)?|заранее\s+спасибо|большое\s+спасибо|благодарю"
    r"|с\s+уважением|с\s+наилучшими\s+пожеланиями|всего\s+доброго|хорошего\s+дня")
_CLOSING = re.compile(rf"^(?:{_CLOSINGS})\b[\s,.!]*(?P<rest>.*)$", re.IGNORECASE)
# A closing after the last sentence on its line ("… украли? С уважением, Анна"): a one-line letter.
_CLOSING_AT_END = re.compile(rf"(?<=[.?!…])\s+(?:{_CLOSINGS})\b[\s,.!]*(?P<rest>[^.?!]*)$", re.IGNORECASE)
# What may follow a closing on its line: nothing, a name ("Анна", "Ann Smith"), or what the thanks are for.
_AFTER_CLOSING = re.compile(r"^(?:|(?:[A-ZА-ЯЁ][\w'.-]*\s*){1,4}|(?:for\s+(?:your|the)\s+(?:help|time|support"
                            r"|assistance|reply|answer)|за\s+(?:помощь|ответ|внимание|поддержку))[\s,.!]*)$")
_SENT_FROM = re.compile(r"^(?:sent\s+(?:from|via)\s+|get\s+outlook\s+for\s+|отправлено\s+(?:с|со|из)\s+)\S.{0,60}$",
                        re.IGNORECASE)
_DELIMITER = re.compile(r"^--\s?$")
# "Re: Fwd: Отв: …" before a subject say nothing about the question.
REPLY_PREFIX = re.compile(r"^(?:\s*(?:re|fwd?|aw|ha|отв|пересл)\s*(?:\[\d+\])?\s*:)+", re.IGNORECASE)
SIGNATURE_LINES, SIGNATURE_LINE_CHARS = 5, 80  # the lines a sign-off may have below it: name, position, phone


def strip_salutations(text: str) -> str:
    """The customer's text without greeting, sign-off and signature (the whole text when nothing else is left)."""
    lines = text.strip().split("\n")
    lines = _without_signature(lines)
    lines = _without_sign_off(lines)
    lines = _without_greeting(lines)
    asked = "\n".join(lines).strip()
    return asked or text.strip()


def is_salutation(line: str) -> bool:
    """Whether `line` is nothing but a greeting or a closing ("Hello!", "Спасибо!"), e.g. a subject."""
    line = line.strip()
    closing = _CLOSING.match(line)
    return bool(_GREETING_LINE.match(line) or (closing and not closing["rest"].strip()))


def _without_signature(lines: list[str]) -> list[str]:
    for index, line in enumerate(lines):
        # Below the delimiter: a name, a company, a disclaimer — never a question of the customer's.
        if _DELIMITER.match(line) and not any(below.rstrip().endswith("?") for below in lines[index + 1:]):
            lines = lines[:index]
            break
    while lines and (not lines[-1].strip() or _SENT_FROM.match(lines[-1].strip())):
        lines = lines[:-1]
    return lines


def _without_sign_off(lines: list[str]) -> list[str]:
    tail = [index for index, line in enumerate(lines) if line.strip()][-(SIGNATURE_LINES + 1):]
    for position, index in enumerate(tail):
        closing = _CLOSING.match(lines[index].strip())
        below = [lines[after].strip() for after in tail[position + 1:]]
        if (closing and _AFTER_CLOSING.match(closing["rest"].strip())
                and all(len(line) <= SIGNATURE_LINE_CHARS and not line.endswith("?") for line in below)):
            return lines[:index]
    if tail:
        last = lines[tail[-1]]
        closing = _CLOSING_AT_END.search(last)
        if closing and _AFTER_CLOSING.match(closing["rest"].strip()):
            return [*lines[:tail[-1]], last[:closing.start()].rstrip()]
    return lines


def _without_greeting(lines: list[str]) -> list[str]:
    first = next((index for index, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return lines
    line = lines[first].strip()
    if _GREETING_LINE.match(line):
        return lines[first + 1:]
    return lines[:first] + [_GREETING_OPENING.sub("", line, count=1)] + lines[first + 1:]
