"""What a table row answers: the cells asked for, not the whole row.

A row is indexed as "Column: value" lines (`knowledge.indexing.tables`). Asked "What is the
population of Magnitogorsk?", the extract quotes the row's "City: Magnitogorsk; Population: 413 253"
rather than its sixteen fields: the fields whose column name shares a word with the question (or
names the same thing in the other language: price and cost, "цена" and "стоимость"), after the
fields whose value the question names (the row's subject), else the first field. A question that
names no column gets the whole row, one field after another. Of several rows, those whose subject
the question names are quoted, else the best one alone.
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
    {"timez", "пояс"},
    {"posta", "postc", "zip", "zipco", "индек"},
    {"capit", "столи"},
    {"owner", "conta", "manag", "ответ", "конта", "владе", "менед"},
]


def quoted_rows(asked: set[str], sources: list) -> dict[int, str]:
    """What may be quoted of each source that is a table row, by source number (1-based): the fields
    answering a question of these stems, as one line — or "" for a row left out: rows are
    alternatives, not parts of one answer, so when some row names what the question names (its city,
    its plan), the rows that do not are left out, and when none does, all but the best one."""
    rows = {number: row for number, hit in enumerate(sources, start=1) if (row := _row(asked, hit))}
    naming = {number for number, (_, names) in rows.items() if names}
    keep = naming or set(list(rows)[:1])
    return {number: text if number in keep else "" for number, (text, _) in rows.items()}


def _row(asked: set[str], hit) -> tuple[str, bool] | None:
    """(the fields answering the question as one line, whether a value of the row is named by the
    question); None when the hit is no row of "Column: value" lines, or holds more than its fields
    (an answer column)."""
    if (hit.metadata or {}).get("entry", {}).get("kind") != "row":
        return None
    lines = [line for line in hit.content.split("\n") if line.strip()]
    fields = [_FIELD.match(line) for line in lines]
    if len(lines) < 2 or not all(fields):
        return None
    pairs = [(match.group(1).strip(), match.group(2).strip()) for match in fields]
    wanted = _wider(asked)
    # The row's subject: the fields whose value the question names ("the Premium plan" names Plan: Premium).
    subject = [at for at, (_, value) in enumerate(pairs) if word_stems(value) & asked]
    named = [at for at, (name, _) in enumerate(pairs)
             if word_stems(name.replace("_", " ")) & wanted and at not in subject]
    if not named or len(named) + len(subject) == len(pairs):
        return "; ".join(f"{name}: {value}" for name, value in pairs), bool(subject)
    shown = set(named) | set(subject or [0])
    return "; ".join(f"{name}: {value}" for at, (name, value) in enumerate(pairs) if at in shown), bool(subject)


def _wider(asked: set[str]) -> set[str]:
    """The question's stems with the other names of the things they name."""
    wider = set(asked)
    for same in _SAME_THING:
        if asked & same:
            wider |= same
    return wider
