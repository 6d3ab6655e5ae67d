"""What a table row answers: the cells asked for, not the whole row.

A row is indexed as "Column: value" lines (`knowledge.indexing.tables`). Asked "What is the
population of Magnitogorsk?", the extract quotes the row's "City: Magnitogorsk; Population: 413 253"
rather than its sixteen fields: the fields whose column name shares a word with the question (or
names the same thing in the other language: price and cost, "цена" and "стоимость"), after the
fields whose value the question names (the row's subject), else the first field. A question that
names no column gets the whole row, one field after another.
"""

import re

from knowledge.search.words import word_stems

_FIELD = re.compile(r"^([^:\n]{1,80}?):[ \t]+(\S.*)$")
# Column names and the words a question uses for them, in English and Russian, by stem (words.word_stems).
_SAME_THING = [
    {"price", "cost", "costs", "fee", "fees", "tarif", "цена", "цены", "стоим", "тариф", "плата"},
    {"popul", "inhab", "насел", "жител", "числе"},
    {"area", "surfa", "площа"},
    {"phone", "telep", "телеф"},
    {"email", "mail", "почта", "почты", "почту"},
    {"addre", "locat", "адрес", "распо", "наход"},
    {"hours", "open", "opens", "sched", "часы", "режим", "распи"},
    {"date", "year", "found", "estab", "дата", "год", "году", "года", "основ"},
    {"durat", "term", "deadl", "срок", "длите"},
    {"limit", "maxim", "лимит", "макси", "огран"},
    {"user", "users", "seats", "польз"},
    {"stora", "disk", "space", "объём", "объем", "храни"},
    {"langu", "язык"},
    {"capit", "столи"},
    {"owner", "conta", "manag", "ответ", "конта", "владе", "менед"},
]


def row_extract(asked: set[str], hit) -> str:
    """The fields of a row hit that answer a question of these stems, as one line ("" when the hit is
    no row of "Column: value" lines, or holds more than its fields: an answer column)."""
    if (hit.metadata or {}).get("entry", {}).get("kind") != "row":
        return ""
    lines = [line for line in hit.content.split("\n") if line.strip()]
    fields = [_FIELD.match(line) for line in lines]
    if len(lines) < 2 or not all(fields):
        return ""
    pairs = [(match.group(1).strip(), match.group(2).strip()) for match in fields]
    wanted = _wider(asked)
    # The row's subject: the fields whose value the question names ("the Premium plan" names Plan: Premium).
    subject = [at for at, (_, value) in enumerate(pairs) if word_stems(value) & asked]
    named = [at for at, (name, _) in enumerate(pairs) if word_stems(name) & wanted and at not in subject]
    if not named or len(named) + len(subject) == len(pairs):
        return "; ".join(f"{name}: {value}" for name, value in pairs)
    subject = subject or [0]
    return "; ".join(f"{name}: {value}" for at, (name, value) in enumerate(pairs) if at in named or at in subject)


def _wider(asked: set[str]) -> set[str]:
    """The question's stems with the other names of the things they name."""
    wider = set(asked)
    for same in _SAME_THING:
        if asked & same:
            wider |= same
    return wider
