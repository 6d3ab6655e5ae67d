"""What a table row answers: the cells asked for, not the whole row.

A row is indexed as "Column: value" lines (`knowledge.indexing.tables`). Asked "What is the
population of Magnitogorsk?", the extract quotes the row's "City: Magnitogorsk; Population: 413 253"
rather than its sixteen fields: the fields whose column name shares a word with the question (or
names the same thing in other words: price and cost, "цена" and "стоимость", or in the other
alphabet: "регион" and region, "адрес" and address), after the fields whose value the question
names (the row's subject), else the first field. A question that names no column gets the whole
row, one field after another. Of several rows, those that name the most of what the question
names are quoted, else the best one alone: asked about "Кургана", the row of Курган, not those of
Курганинск or of a town in the Курганская область.

`looks_up` tells a question that looks a cell of a row up (it names the row and a column of it, and
nothing else), which `answers.judge` trusts though a row is one source.

Values are named word by word, a question's word and a value's word alike up to an inflected
ending ("Архангельска" names Архангельск, not Курганинск's "Кургана"): first five letters are too
coarse for names, which often share them.
"""

import re

from knowledge.search.words import STOP_WORDS, TO_LATIN, word_stems

_FIELD = re.compile(r"^([^:\n]{1,80}?):[ \t]+(\S.*)$")
# Column names and the words a question uses for them, in English and Russian, by stem (words.word_stems).
_SAME_THING = [
    {"price", "cost", "fee", "tarif", "цена", "цены", "стоим", "тариф", "плата"},
    {"popul", "inhab", "насел", "жител", "числе"},
    {"area", "surfa", "площа"},
    {"phone", "telep", "телеф"},
    {"email", "mail", "почта", "почты", "почту"},
    {"addre", "locat", "адрес", "распо", "наход"},
    {"hour", "open", "sched", "часы", "режим", "распи"},
    {"date", "year", "found", "estab", "дата", "год", "году", "года", "основ"},
    {"durat", "term", "deadl", "срок", "длите"},
    {"limit", "maxim", "лимит", "макси", "огран"},
    {"user", "seat", "польз"},
    {"stora", "disk", "space", "объём", "объем", "храни"},
    {"langu", "язык"},
    {"timez", "пояс"},
    {"posta", "postc", "zip", "zipco", "индек"},
    {"capit", "столи"},
    {"owner", "conta", "manag", "ответ", "конта", "владе", "менед"},
]


_WORD = re.compile(r"\w+", re.UNICODE)
# Cyrillic letters in Latin, and Latin spellings made alike, so that a loanword meets its source:
# "регион" and "region", "адрес" and "address", "категория" and "category", "индекс" and "index".
_LATIN = {**TO_LATIN, **str.maketrans({"c": "k", "q": "k", "w": "v", "y": "i", "x": "ks"})}
_ENDING = 3  # letters an inflected ending may differ by ("Москва", "Москве"; "Нижний", "Нижнего")


def quoted_rows(question: str, sources: dict) -> dict[int, str]:
    """What may be quoted of each source that is a table row, by source number (`sources` is by number
    too): the fields answering `question`, as one line — or "" for a row left out: rows are alternatives, not parts
    of one answer, so when some row names what the question names (its city, its plan), only the
    rows naming the most of it are kept, and when none does, the best one alone — or none, beside
    prose ("How do I start the portal?" quoted a setting's row after the sentence answering it)."""
    asked, words = word_stems(question), _words(question)
    rows = {number: row for number, hit in sources.items() if (row := _row(asked, words, hit))}
    most = max((named for _, named in rows.values()), default=(0, 0))
    if most[0]:
        keep = {number for number, (_, named) in rows.items() if named == most}
    else:  # the best row alone, unless prose is quoted beside it: a row naming nothing asked adds nothing
        keep = set() if len(rows) < len(sources) else set(list(rows)[:1])
    return {number: text if number in keep else "" for number, (text, _) in rows.items()}


def repeated_rows(question: str, hits: list) -> set[int]:
    """Positions (0-based) of the table rows that repeat a table listed above them and name no value the
    question names: matched by what every row of their table shares (the column names: "format",
    "files"), they are alternatives nothing tells apart, and five of them, one after the other, would
    push the section answering "What file formats are supported?" out of the first places."""
    words = {_latin(word) for word in _words(question)}
    seen, repeated = set(), set()
    for at, hit in enumerate(hits):
        pairs = _pairs(hit)
        values = _values(pairs) if pairs is not None else set()
        if pairs is None or any(_alike(word, value) for word in words for value in values):
            continue
        table = (hit.document_id, tuple(name for name, _ in pairs))
        if table in seen:
            repeated.add(at)
        seen.add(table)
    return repeated


def looks_up(question: str, hit) -> bool:
    """Whether `question` looks a cell of this row up: it names the row by one of its values ("Майкоп",
    or "Maikop" in the other alphabet) and a column of it ("основан" for foundation_year, population),
    and nothing else — each of its words (stop words aside) is a value's word or names a column.
    "Сколько стоит билет до Сочи?" names Сочи's row but no column of it, "Какое население Сочи в 1990
    году?" a year the row does not hold."""
    pairs = _pairs(hit)
    if pairs is None:
        return False
    values = _values(pairs)
    columns = set().union(*(_column_keys(name) for name, _ in pairs))
    names_value = names_column = False
    for word in _words(question):
        value = any(_alike(_latin(word), other) for other in values)
        column = bool((_wider({word[:5]}) | {_latin(word)[:5]}) & columns)
        if not (value or column):
            return False
        names_value, names_column = names_value or value, names_column or column
    return names_value and names_column


def _pairs(hit) -> list[tuple[str, str]] | None:
    """A table row's (column, value) fields; None when the hit is no row of "Column: value" lines."""
    if (hit.metadata or {}).get("entry", {}).get("kind") != "row":
        return None
    lines = [line for line in hit.content.split("\n") if line.strip()]
    fields = [_FIELD.match(line) for line in lines]
    if len(lines) < 2 or not all(fields):
        return None
    return [(match.group(1).strip(), match.group(2).strip()) for match in fields]


def _values(pairs: list[tuple[str, str]]) -> set[str]:
    """The words of a row's values, in Latin letters (`_latin`), as a question's words are matched with them."""
    return {_latin(word) for _, value in pairs for word in _words(value)}


def _row(asked: set[str], words: set[str], hit) -> tuple[str, tuple[int, int]] | None:
    """(the fields answering the question as one line, how much of the question the row's values name:
    its words, then in how many fields); None when the hit is no row of "Column: value" lines, or holds
    more than its fields (an answer column). `asked`: the question's stems; `words`: its words."""
    pairs = _pairs(hit)
    if pairs is None:
        return None
    wanted = _wider(asked) | {_latin(word)[:5] for word in words}
    # The row's subject: the fields whose value the question names ("the Premium plan" names Plan: Premium);
    # a value named whole is the row's key ("Plan: Premium"): naming its column asks for nothing more.
    named_words = [[word for word in _words(value) if any(_alike(word, other) for other in words)]
                   for _, value in pairs]
    subject = [at for at, found in enumerate(named_words) if found]
    whole = {at for at in subject if len(named_words[at]) == len(_words(pairs[at][1]))}
    named = [at for at, (name, _) in enumerate(pairs) if _column_keys(name) & wanted and at not in whole]
    # How many of the question's words the row names ("worker" and "workers" in one row name one), then in how
    # many of its fields (a city's row names "Архангельска" in its address and city, a town's in its region).
    naming = (sum(any(_alike(value, word) for found in named_words for value in found) for word in words),
              sum(bool(found) for found in named_words))
    if not named or len(set(named) | set(subject)) == len(pairs):
        return "; ".join(f"{name}: {value}" for name, value in pairs), naming
    # The row's key stays unless the question named it: a description's words ("Which embedder is the
    # default?" names the meaning of PORTAL_EMBEDDER) name the row without saying which it is.
    shown = set(named) | set(subject) | (set() if whole else {0})
    return "; ".join(f"{name}: {value}" for at, (name, value) in enumerate(pairs) if at in shown), naming


def _wider(asked: set[str]) -> set[str]:
    """The question's stems with the other names of the things they name."""
    wider = set(asked)
    for same in _SAME_THING:
        if asked & same:
            wider |= same
    return wider


def _column_keys(name: str) -> set[str]:
    """A column name's stems, and those of its words in Latin letters ("Регион" as "regio")."""
    name = name.replace("_", " ")
    return word_stems(name) | {_latin(word)[:5] for word in _words(name)}


def _words(text: str) -> set[str]:
    """The words of `text` of three letters or more, in lower case, but stop words; a name in snake_case is its
    words, an UPPER_CASE one's but the first, its namespace ("PORTAL_WEB_WORKERS" names web workers; every
    setting of the table is PORTAL_'s)."""
    words = []
    for token in _WORD.findall(text):
        parts = [part for part in token.split("_") if part]
        words.extend(parts[1:] if len(parts) > 1 and token.isupper() else parts)
    return {word for word in map(str.lower, words) if len(word) > 2 and word not in STOP_WORDS}


def _latin(word: str) -> str:
    """A word in Latin letters spelt alike whatever its alphabet, double letters single ("address": "adres")."""
    return re.sub(r"(.)\1+", r"\1", word.translate(_LATIN).replace("ph", "f"))


def _alike(word: str, other: str) -> bool:
    """Whether two words are one word but for an inflected ending: they share all but a few last
    letters, and at least four ("Кургана" and "Курган", not "Курганинск")."""
    if word == other:
        return True
    shared = next((at for at, (a, b) in enumerate(zip(word, other)) if a != b), min(len(word), len(other)))
    return shared >= 4 and len(word) - shared <= _ENDING and len(other) - shared <= _ENDING
