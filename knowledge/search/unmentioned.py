"""Names a question asks about that its knowledge bases never mention.

Asked of Flask's documentation, which never says "Kubernetes", "How do I deploy Flask on
Kubernetes?" found the deployment pages — close in meaning, sharing "deploy" and "Flask" — and an
extract of them went out at confidence 0.88, answering another question. Without a chat model an
answer can only quote, and a quote cannot say "the documentation does not cover this". So a
question that names a thing — a product, a format, a standard, written as names are: with a capital
inside the sentence ("Kubernetes", "Mermaid"), in capitals ("PDF", "ORM", "СБП") or in mixed case
("GraphQL", "iPhone", "LaTeX") — that no chunk of the sources' bases holds, nor the bases' names
and descriptions, is not answered (`answers.judge`: `unmentioned_name`), unless it also names
something they do hold that is not in many of their chunks (`COMMON_TERM_SHARE`, 10 %, as keyword
search counts them; the product's own name is in all: "Flask"): "Does HOXB4 help HSC expansion?" is
about HSC too.

Not names: the first word of a sentence, the words of a question written in capitals or with every
word capitalised, words of one or two letters (a two-letter acronym, "ES modules", "UI", "DB", is as
often a word of the trade as a name), and words joined to code or addresses by `.`, `_`, `/`, `@` or a
backquote (`Flask.config`, `user@example.com`): those ask about code, which the layered index and the
extract's own rules handle — but capitals joined by a slash are one name ("HTTP/3", "TCP/IP"). Nor a
person's, who is not what is asked about ("my colleague John", "Mr. Smith").
Only the sentences that ask are read: a statement asks about nothing. A Russian name is found in any
of its cases, a name with stress marks ("Агне́шка", as Wikipedia writes names) with or without them,
and a name of six letters or more one letter away from a word the bases use often (their term
statistics), or with two letters swapped, is taken for a misspelling of it ("Pyton-Markdown",
"Gunicron").
"""

import re
import unicodedata

from django.db import connection

from knowledge.indexing.entries import ASKS_UNMARKED
from knowledge.search import query_limits, retrieval, source_text, sql, term_shares
from knowledge.search.words import TO_LATIN, is_russian

# A word with its inner hyphens ("Python-Markdown", "e-mail") and stress marks ("Агне́шка"); digits may be
# part of it ("S3", "2FA").
_PART = r"[^\W_](?:[^\W_]|[\u0300-\u036f])*"
_WORD = re.compile(rf"{_PART}(?:-{_PART})*")
# The sentences that ask (`asking_sentences`): those ending with a question mark, or opening with a
# question word as an FAQ's unmarked headings do (`entries.ASKS_UNMARKED`). A statement — a claim to check
# against the sources, a customer telling who they are or what happened ("Hi, this is Anna from Acme
# Corp.") — is searched for evidence about what it names, which a source gives in its own words
# ("Aspirin inhibits the production of PGE2.": "prostaglandin E2").
# Capitals joined by a slash name one thing, as full-text search reads them ("HTTP/3", "TCP/IP", "CI/CD").
_SLASHED = re.compile(r"(?<![\w/.])[A-Z0-9]*[A-Z][A-Z0-9]*(?:/[A-Z0-9]+)+(?![\w/])")
# What joins a word to code, a path or an address when it touches the word.
_CODE_JOINERS = frozenset("._/@`\\:=#$%&*+<>|~^")
# What may stand between a sentence's end and its first word: spaces, quotes, brackets, dashes, bullets.
_OPENING = " \t\"'«»“”„‘’()[]{}-–—•*"
_SENTENCE_END = frozenset(".!?…:;\n")
_INITIAL = re.compile(r"(?:^|\s)[A-ZА-ЯЁ]\.$")
# A person, not a thing the question is about: a name after a title ("Mr. Smith", "г-жа Иванова") or after
# a possessive and who they are ("my colleague John", "моей жене Марии"), with the surname that follows it
# ("John Smith"). Who they are is said with a word of this list: "my browser Firefox" names a thing.
_TITLE = r"(?i:mrs?|ms|miss|dr|sir|madam|prof|господин\w*|госпож\w*|г-н|г-жа)"
_TITLE_WORD = re.compile(_TITLE)
_PERSON_BEFORE = re.compile(
    rf"(?:\b{_TITLE}\.?"
    r"|\b(?i:my|our|your|his|her|their|мо(?:й|я|ё|е|и|его|ей|ему|им|их|ём|ю)|тво(?:й|я|ё|е|и|его|ей|ему|им|их|ю)"
    r"|наш(?:|а|е|и|его|ей|ему|им|их|ем|у)|ваш(?:|а|е|и|его|ей|ему|им|их|ем|у))\s+"
    r"(?:colleagues?|co-?workers?|coworkers?|boss|manager|wife|husband|son|daughter|mother|father|mom|mum|dad"
    r"|friend|partner|assistant|accountant|employee|client|customer|brother|sister|grandmother|grandfather"
    r"|коллег\w*|жен(?:а|ы|е|у|ой)|муж(?:|а|у|ем|е)|сын(?:|а|у|ом|е)|доч(?:ь|ери|ерью|ка|ки|ке|ку|кой)"
    r"|мам(?:а|ы|е|у|ой)|пап(?:а|ы|е|у|ой)|мат(?:ь|ери)\w*|от(?:ец|ц)\w*|друг(?:|а|у|ом|е)|подруг\w*"
    r"|сотрудни\w*|начальни\w*|руководител\w*|бухгалтер\w*|менеджер\w*|клиент\w*|партн[её]р\w*|брат\w*"
    r"|сестр\w*|бабушк\w*|дедушк\w*|помощни\w*))"
    r"(?:\s+[A-ZА-ЯЁ][a-zа-яё]+)?\s+$")
MISSPELT_LENGTH = 6
_MOSTLY = 0.6  # more than this share of the words in capitals (or capitalised): the style, not names

# The lexemes of each form of the names, in order; and which names the bases' chunks hold or their names
# and descriptions name (`query`: a text-search query, see `_query`).
_LEXEMES = """
    SELECT form, lexeme, positions[1] FROM unnest(%(forms)s::text[]) AS form,
        unnest(to_tsvector(%(config)s::regconfig, form)) ORDER BY form, positions[1]
"""
# One branch per name, its query a constant of the statement, read through the chunks' full-text index
# (`_present`; "+ 0" keeps the planner off the bases' index): as a column of the names, or expecting an
# early match, it walked every chunk of the bases — 0.07–0.2 s a question at 100k chunks for a name no
# chunk holds, against a few milliseconds through the full-text index.
_PRESENT = """
    SELECT %(name{n})s WHERE to_tsvector(%(config)s::regconfig, %(about)s) @@ %(query{n})s::tsquery
       OR EXISTS (SELECT 1 FROM knowledge_chunk
                  WHERE search_vector @@ %(query{n})s::tsquery AND knowledge_base_id + 0 = ANY(%(kb_ids)s))
"""
_STRESS = re.compile("[\u0300\u0301]")
# A Russian name's stem stands for its every case by its letters but the last two (three at least): the
# stemmer stems foreign names unevenly ("Рианны" to "риан", "Рианной" to "риа"; "Беларуси" to "беларус",
# "Беларусь" to "белар"). Matching more words than the name, this errs towards answering.
INFLECTED_STEM = 4
_PAIRS_TO_CYRILLIC = (("sch", "щ"), ("sh", "ш"), ("ch", "ч"), ("zh", "ж"), ("kh", "х"), ("ts", "ц"), ("yu", "ю"),
                      ("ya", "я"))
_TO_CYRILLIC = dict(zip("abcdefghijklmnopqrstuvwxyz", [
    "а", "б", "к", "д", "е", "ф", "г", "х", "и", "дж", "к", "л", "м", "н", "о", "п", "к", "р", "с", "т", "у", "в", "в",
    "кс", "и", "з"], strict=True))


def names(text: str) -> list[str]:
    """The words of `text` written as names are, in order, each once (stress marks left in: "Агне́шка")."""
    found, words = [], []
    for match in sorted([*_WORD.finditer(text), *_SLASHED.finditer(text)], key=lambda match: match.start()):
        word, start, end = match.group(), match.start(), match.end()
        if (_touches_code(text, start, end) and "/" not in word) or sum(char.isalpha() for char in word) < 2:
            continue
        if _TITLE_WORD.fullmatch(word) or _PERSON_BEFORE.search(text[max(0, start - 60):start]):
            continue
        words.append((word, _opens_sentence(text, start)))
    shouting = _share([word for word, _ in words], _in_capitals) > _MOSTLY
    # Every word capitalised ("How Do I Reset My Password?"): acronyms aside, and of three words or more.
    inner = [word for word, opening in words if not opening and not _in_capitals(word)]
    title_case = len(inner) >= 3 and _share(inner, lambda word: word[0].isupper()) > _MOSTLY
    for word, opening in words:
        if _in_capitals(word):
            named = not shouting
        elif any(char.isupper() for char in word[1:]):
            named = True
        else:
            named = word[0].isupper() and not opening and not title_case
        if named and len(word) > 2 and word not in found:
            found.append(word)
    return found


def asking_sentences(text: str) -> list[str]:
    """The sentences of `text` that ask: ending with a question mark, or opening with a question word."""
    return [sentence for sentence in source_text.sentences(text)
            if sentence.rstrip(" \t\"'»”)").endswith("?") or ASKS_UNMARKED.match(sentence)]


def unmentioned_names(text: str, kbs) -> list[str]:
    """The names in the sentences of `text` that ask (`asking_sentences`) that the bases `kbs` never
    mention — no chunk holds them (a phrase search of their full-text vectors), nor the bases' names and
    descriptions, nor, misspelt, their common words — when those sentences name nothing else the bases
    hold but what many of their chunks hold (`COMMON_TERM_SHARE`: the product's own name).
    A question that also names something the bases know ("Does HOXB4 help HSC expansion?": HSC) is
    about that: [] then."""
    asked = list(dict.fromkeys(name for sentence in asking_sentences(text) for name in names(sentence)))
    if not asked or not kbs:
        return []
    by_config: dict[str, list] = {}
    for kb in kbs:
        by_config.setdefault(kb.text_search_config, []).append(kb)
    missing = set(asked)
    with connection.cursor() as cursor:
        for config, group in by_config.items():
            lexemes = _lexemes(cursor, set(asked), config)
            queries = {name: _query(forms) for name, forms in lexemes.items()}
            told = sorted(name for name in asked if queries[name])  # no lexeme at all: nothing to tell by
            present = _present(cursor, told, queries, config, group) if told else set()
            if _names_specific(cursor, group, [_first_lexeme(lexemes[name]) for name in present]):
                return []
            missing = (missing & set(told)) - present
            missing -= _misspelt(missing, lexemes, group)
            if not missing:
                return []
    return [name for name in asked if name in missing]


def _present(cursor, told: list[str], queries: dict, config: str, kbs: list) -> set[str]:
    """The names the bases' chunks hold, or their names and descriptions name: one statement, read
    through the full-text index, under the search's time limit."""
    statement = " UNION ALL ".join(_PRESENT.replace("{n}", str(n)) for n in range(len(told)))
    params = {"config": config, "about": " ".join(f"{kb.name} {kb.description}" for kb in kbs),
              "kb_ids": [kb.pk for kb in kbs], **{f"name{n}": name for n, name in enumerate(told)},
              **{f"query{n}": queries[name] for n, name in enumerate(told)}}
    batch, params, position = sql.with_search_settings(
        (statement, params), ef_search=retrieval.setting("HNSW_EF_SEARCH"), seqscan=False,
        in_transaction=connection.in_atomic_block, statement_timeout_ms=query_limits.timeout_ms())
    cursor.execute(batch, params)
    for _ in range(position):
        cursor.nextset()
    return {name for name, in cursor.fetchall()}


def _names_specific(cursor, kbs, lexemes: list[str]) -> bool:
    """Whether one of the lexemes is in fewer of the bases' chunks than keyword search calls common
    (`COMMON_TERM_SHARE`); without statistics to tell by, whether there is one at all."""
    shares = term_shares.shares(cursor, kbs, lexemes)
    if shares is None:
        return bool(lexemes)
    return any(share < retrieval.setting("COMMON_TERM_SHARE") for share in shares.values())


def _lexemes(cursor, asked: set[str], config: str) -> dict[str, list[tuple[list, bool]]]:
    """Each name's forms as lexemes with their positions, each with whether it is the name in the other
    alphabet: as written, without its stress marks when it has some, and spelt in Latin letters when it
    is in Cyrillic ones or the other way round (a customer writes "Озон", the FAQ "OZON")."""
    forms = {}
    for name in asked:
        plain = _STRESS.sub("", unicodedata.normalize("NFC", name))
        spelt = [(form, False) for form in dict.fromkeys([name, plain])]
        forms[name] = spelt + [(other, True) for other in [_other_alphabet(plain)] if other]
    cursor.execute(_LEXEMES, {"forms": sorted({form for each in forms.values() for form, _ in each}),
                              "config": config})
    read: dict[str, list] = {}
    for form, lexeme, position in cursor.fetchall():
        read.setdefault(form, []).append((lexeme, position))
    # A name that is a stop word as written ("MORE", "На") has nothing to tell it by, in any alphabet.
    return {name: [(read[form], other) for form, other in each if form in read]
            if any(form in read for form, other in each if not other) else [] for name, each in forms.items()}


def _query(forms: list[tuple[list, bool]]) -> str:
    """A text-search query matching any of the forms as a phrase; "" for none. A long Russian stem, and a
    name spelt in the other alphabet, match as prefixes."""
    phrases = []
    for lexemes, other_alphabet in forms:
        parts, last = [], None
        for lexeme, position in lexemes:
            prefix = (other_alphabet or is_russian(lexeme)) and len(lexeme) >= INFLECTED_STEM
            stem = lexeme[:max(4 if other_alphabet else 3, len(lexeme) - 2)] if prefix else lexeme
            literal = sql.tsquery_lexeme(stem) + (":*" if prefix else "")
            parts.append(literal if last is None else f"<{position - last}> {literal}")
            last = position
        phrases.append(f"({' '.join(parts)})")
    return " | ".join(phrases)


def _other_alphabet(name: str) -> str:
    """The name in Latin letters when it is written in Cyrillic ones, or the other way round, letter by
    letter ("Телеграм": "telegram", "Samsung": "самсунг"); "" when it mixes them or has other letters."""
    lower = name.lower()
    letters = {char for char in lower if char.isalpha()}
    if letters and all(ord(char) in TO_LATIN for char in letters):
        return lower.translate(TO_LATIN)
    if letters and letters <= set("abcdefghijklmnopqrstuvwxyz"):
        for pair, cyrillic in _PAIRS_TO_CYRILLIC:
            lower = lower.replace(pair, cyrillic)
        return "".join(_TO_CYRILLIC.get(char, char) for char in lower)
    return ""


def _first_lexeme(forms: list[tuple[list, bool]]) -> str:
    """A name's first lexeme, of its form in its own alphabet without stress marks."""
    return [lexemes for lexemes, other_alphabet in forms if not other_alphabet][-1][0][0]


def _misspelt(candidates: set[str], lexemes: dict, kbs) -> set[str]:
    """The candidates whose first lexeme (without stress marks) is a slip from a word common in the bases
    (their term statistics)."""
    common = [base.shares for base in term_shares.base_shares(kbs) or []]
    firsts = {name: _first_lexeme(lexemes[name]) for name in candidates
              if any(not other_alphabet for _, other_alphabet in lexemes[name])}
    return {name for name, first in firsts.items()
            if any(_one_slip(first, word) for shares in common for word in shares)}


def _one_slip(a: str, b: str) -> bool:
    """Whether `a` becomes `b` by changing, adding or removing one letter, or swapping two side by side.
    Words of six letters or more: shorter ones are a slip from too many others ("latex" from "later")."""
    if min(len(a), len(b)) < MISSPELT_LENGTH or abs(len(a) - len(b)) > 1 or a == b:
        return False
    first = next((n for n, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    if len(a) > len(b):
        return a[first + 1:] == b[first:]
    if len(a) < len(b):
        return a[first:] == b[first + 1:]
    swapped = a[first + 1:first + 2] + a[first:first + 1] == b[first:first + 2] and a[first + 2:] == b[first + 2:]
    return a[first + 1:] == b[first + 1:] or swapped


def _touches_code(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    # A sentence's full stop is no joiner: "… in Kubernetes." ends there.
    after_joins = after in _CODE_JOINERS and not (after in ".:" and (end + 1 >= len(text) or text[end + 1].isspace()))
    return before in _CODE_JOINERS or after_joins


def _opens_sentence(text: str, start: int) -> bool:
    before = text[:start].rstrip(_OPENING)
    # An initial's full stop ends no sentence ("А. С. Пушкин"), as `source_text.sentences` reads them.
    return not before or (before[-1] in _SENTENCE_END and not _INITIAL.search(before))


def _in_capitals(word: str) -> bool:
    letters = [char for char in word if char.isalpha()]
    return len(letters) > 1 and all(char.isupper() for char in letters)


def _share(words: list[str], test) -> float:
    return sum(1 for word in words if test(word)) / len(words) if words else 0.0
