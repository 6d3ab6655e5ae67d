"""An extract that shares only a base's common words with the question: about something else.

Every page of Flask's documentation says "Flask", so "How do I use websockets with Flask?" found
pages close enough in meaning, and the extract quoted "Welcome to Flask's documentation. Flask
depends on the Jinja template engine …" at confidence 0.82: the one word it shared with the question
was the product's name. When the words an extract shares with the question are all common in the
bases it quotes — in at least `COMMON_WORD_SHARE` of their chunks, by their term statistics
(`term_shares`) — while the question has words that are not (what it asks about: "websockets",
"admin panel", "price"), the extract answers another question (`answers.compose_extractive`:
`common_words_only`).

An extract that shares no word at all was chosen for its meaning (a reworded question: "get my money
back" for a refund page) and is left to the rules on meaning; a question whose words are all common
("What is Flask?") asks about what the base is about, and is answered.
"""

import re

from django.db import connection

from knowledge.search import term_shares
from knowledge.search.citations import MARKER
from knowledge.search.code_blocks import line_read
from knowledge.search.code_names import DOTTED
from knowledge.search.words import code_words, is_russian

# A word in this share of the chunks or more is what the bases are about (the product's name), not what
# a question asks. Measured on crawled documentation sites: "Flask" and "Python-Markdown" are in every
# chunk, "Debian" in 99 %; what their questions ask about ("install", "release", "debug") in 1–29 %.
COMMON_WORD_SHARE = 0.3
# What a comparison asks for is its kind, not its subject: "What is the difference between Signer and Serializer?"
# asks about the two, and an extract saying how they differ need not say "difference".
_COMPARISON = re.compile(r"^(?:differ|compar|versus$|vs$|разниц|различ|отлич|сравн)")
_QUOTED_CODE = re.compile(r"^    .*$", re.M)
_PUNCTUATION = re.compile(r"[^\w\s]+")

# The question's lexemes, each with whether the extract holds it and whether `named` (the project's names) does.
_SHARED = """
    SELECT lexeme, to_tsvector(%(config)s::regconfig, %(extract)s) @@ quote_literal(lexeme)::tsquery,
           to_tsvector(%(config)s::regconfig, %(named)s) @@ quote_literal(lexeme)::tsquery
    FROM unnest(to_tsvector(%(config)s::regconfig, %(question)s))
"""


def only_common_shared(question: str, extract: str, sources: list, kbs: dict, named: str = "") -> bool:
    """Whether the words `extract` shares with `question` are all common in the bases of `sources` (`kbs`:
    the bases by id) or in `named` (what a repository is named) — or, of a repository's sources, it shares none —
    while the question has words that are not; False without term statistics. The first source's base stems the
    words. (A repository's extract sharing none answers another question, however close in meaning the embedder finds
    it: django-cors-headers' "How do I contribute?" and "CORS_PREFLIGHT_MAX_AGE — The number of seconds the browser can
    cache the preflight response."; a passage of prose may say what is asked in other words: TyDi-ru's questions
    answered fell by 2.4 points when it could not.)"""
    if is_russian(question) and not is_russian(extract):
        return False  # a Russian question and English sources share only names: the words are no measure
    shared, asked = _compared(question, extract, sources, kbs, named)
    return bool(asked) and not shared & asked and (bool(shared) or _of_repository(sources))


def _of_repository(sources: list) -> bool:
    """Whether the sources are a repository's (its documentation names things by the words a question asks them by,
    where a passage of prose may say the same in other words)."""
    return any((hit.metadata or {}).get("repo_id") for hit in sources)


def shares_nothing_asked(question: str, extract: str, sources: list, kbs: dict, named: str = "") -> bool:
    """Whether `extract` holds none of the words the question asks about (its words that are not common in the
    bases of `sources`, nor in `named`: the project's name, what its README is titled) while the question has
    some; False without term statistics."""
    shared, asked = _compared(question, extract, sources, kbs, named)
    return bool(asked) and not shared & asked


def _compared(question: str, extract: str, sources: list, kbs: dict, named: str = "") -> tuple[set, set]:
    """The question's lexemes `extract` holds, and those of the question not common in the bases of `sources` nor
    in `named`, nor asking for a comparison (empty sets without term statistics)."""
    kbs = [kbs[kb_id] for kb_id in dict.fromkeys(hit.knowledge_base_id for hit in sources) if kb_id in kbs]
    if not kbs or not extract.strip():
        return set(), set()
    with connection.cursor() as cursor:
        cursor.execute(_SHARED, {"config": kbs[0].text_search_config, "question": _code_words(question),
                                 "extract": _code_words(MARKER.sub(" ", extract)), "named": named})
        held = {lexeme: (in_extract, in_named) for lexeme, in_extract, in_named in cursor.fetchall()}
        shares = term_shares.shares(cursor, kbs, list(held)) if held else None
    if not shares:
        return set(), set()
    # A hyphenated word is a lexeme and so is each of its parts ("python-slugify", "python", "slugifi"): its parts are
    # what an extract says ("A Python slugify application …").
    return ({lexeme for lexeme, (in_extract, _) in held.items() if in_extract},
            {lexeme for lexeme, (_, in_named) in held.items() if shares[lexeme] < COMMON_WORD_SHARE and not in_named
             and not _COMPARISON.match(lexeme) and "-" not in lexeme})


def _code_words(text: str) -> str:
    """`text` with a dotted code name's parts as words: full-text search reads `pkg.keys.hashkey` as one token,
    which shares nothing with "hashkey"; so the words of the code an extract quotes (its lines indented by
    four spaces: `schedule.every().monday.do(job)`, whose "monday.do" would read as a host name; `npm i yargs`
    installs), its names' words too (`pluralize.addPluralRule(…)` adds "add", "plural", "rule")."""
    def read(match: re.Match) -> str:
        line = line_read(match.group().strip())
        return _PUNCTUATION.sub(" ", f"{line} {code_words(line)}")

    text = _QUOTED_CODE.sub(read, text)
    return DOTTED.sub(lambda match: match.group().removesuffix("()").replace(".", " "), text)
