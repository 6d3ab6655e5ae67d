"""What kind of answer a question expects beside the sentences sharing its words: a date ("When was …
founded?"), a number ("How many …?"), a version's number ("Which Python versions are supported?"), what a function
returns ("What does bytes.parse return?"), or a release's notes ("What changed in 2.0.0?"), which the extract
(`composer`) then quotes though they share no word with the question.
"""

import re

from knowledge.search.code_blocks import CODE_BLOCK
from knowledge.search.intent_words import RELEASE, VERSION
from knowledge.search.source_text import HEADING, quotable_text, sentences
from knowledge.search.words import code_words, word_stems

_SERIES = re.compile(r"^(\d+\.\d+)$")
_MAJOR = re.compile(r"^(\d+)$")  # "v5" is release 5.0.0, as "v2.2" is 2.2.0
# A line of a changelog without headings opening with a release's number, as a list item or not ("- 0.9.0: …",
# "v2.1.0 (2023-01-05)", "1.4 - Fixes").
_RELEASE_LINE = re.compile(r"^[ \t]*(?:[-*+•][ \t]+)?(?P<release>v?\d+(?:\.\d+)+)(?=[ \t]*(?:[:(\-–—]|$))", re.M)

# Questions that ask for a date or a number, and sentences that hold one (Russian and English).
MONTHS = (r"январ|феврал|март|апрел|ма[йя]|июн|июл|август|сентябр|октябр|ноябр|декабр|january|february|march"
          r"|april|may|june|july|august|september|october|november|december")
ANSWER_KINDS = {
    "time": (re.compile(r"^\W*(когда|when)\b|\b(since|until|till) when\b|\b(с|до) каких пор\b"
                        r"|\b(в|на|с|со|до|к|по|in|on|since|from|until|till|by)\s+(каком|какой|какого|какие|каких"
                        r"|which|what)\s+(году|год|года|годы|годах|веке|века|дату|даты|дате|день|дня|числа|число"
                        r"|месяца|месяц|year|century|date|day|month)\b|\bwhat (year|date|century)\b", re.I),
             re.compile(rf"\b(1\d{{3}}|20\d{{2}})\b|\b\d{{1,2}}\s+({MONTHS})|\b({MONTHS})\w*\s+\d{{1,2}}\b"
                        r"|\b[IVX]+\s+(век|в\.)|\bcentury\b", re.I)),
    "number": (re.compile(r"^\W*(сколько|how (many|much|long|tall|high|deep|far|old|big|large))\b|\b(как(ая|ой|ова|ов)"
                          r"|what is the|what's the)\s+(длина|высота|глубина|протяж[её]нность|площадь|численность"
                          r"|население|масса|вес|ширина|скорость|стоимость|цена|length|height|depth|area|population"
                          r"|weight|width|speed|size|price|cost)\b", re.I),
               re.compile(r"\d")),
    # "What Python versions does schedule support?", "Which Node.js version is required?", "Какие версии Python
    # поддерживаются?": a sentence naming a version by its number ("Tested on Python 3.7, 3.8, …", "requires v18").
    "version": (re.compile(r"\b(which|what)\s+(?:[\w.+-]+\s+){0,3}versions?\b|\bкак(ие|ая|ой|ую|их)\s+"
                           r"(?:[\w.+-]+\s+){0,2}верси", re.I),
                re.compile(r"\b[vV]?\d+\.\d+\b|\b[vV]\d+\b")),
    # "What does bytes.parse return for invalid input?": its reference's "Returns" row ("• results — number｜null —
    # Return null upon error.") beside "Parse the string value into an integer in bytes.".
    "return": (re.compile(r"\bwhat (?:does|do|did|will|would|should)\b.{1,80}?\breturn\b|\bwhat is returned\b"
                          r"|\breturn (?:value|type)\b|\bчто\s+(?:\S+\s+){0,3}?(?:возвращает|вернёт|вернет)\b", re.I),
               re.compile(r"\breturn(?:s|ed|ing)?\b|\bвозвраща|\bверн[её]т\b", re.I)),
    # "What is the default value of clone?": deepmerge's "Defaults to `true`." under its heading, three words far in
    # meaning from the question, beside "This was the default behavior before version 2.x." (no value; nor is what
    # happens "by default").
    "default": (re.compile(r"\bdefault\s+(?:value|setting)s?\b|\b(?:what|which)(?:'s|\s+is|\s+are)?\s+(?:the\s+)?"
                           r"default\b|\bdefaults?\s+to\b|\b(?:what|which)\s+\w+(?:\s+\w+)?\s+(?:is|are)\s+\w+\s+by\s+"
                           r"default\b|\bзначени[еяю]\s+по\s+умолчанию\b|\bчему\s+ра(?:вен|вн\w*)\b.*\bпо\s+умолчанию\b"
                           r"|\bпо\s+умолчанию\s+(?:равн|равен|стоит|установлен)", re.I),
                re.compile(r"\bdefaults?\s+(?:to|is|are|was|value\s+is)\b|\bdefault(?:\s+value)?\s*[:=]|\(default\b"
                           r"|\bdefault\s+(?:configuration|settings?|options?|values?)\s+(?:is|are)\b"
                           r"|\bпо\s+умолчанию\s*(?:[:=—–]|-\s)|\bпо\s+умолчанию\b[^.]{0,40}?\b(?:равн|равен|стоит|установлен)",
                           re.I)),
}


# The words of a question asking a default that do not say of what: "What is the default value of the X option?".
_DEFAULT_WORDS = word_stems("default defaults value values setting settings option options argument parameter flag "
                            "property key attribute field")


def stated_default(question: str, lines: dict[int, list[str]], sections: dict[int, str]) -> set[tuple[int, int]]:
    """For a question asking a default, the (source number, position) of the sentence introducing it as a block of
    code ("Defaults to:" over `CORS_ALLOW_METHODS = ("DELETE", "GET", …)`), in the source whose heading (`sections`,
    its names read as their words) names the most of what is asked, one at least: "Which HTTP methods are allowed by
    default?" was answered "The default can be imported as corsheaders.defaults.default_methods …", the list left
    out."""
    if not ANSWER_KINDS["default"][0].search(question):
        return set()
    asked, found = word_stems(question) - _DEFAULT_WORDS, []
    for number, source in lines.items():
        for position, sentence in enumerate(source[:-1]):
            if sentence.endswith(":") and ANSWER_KINDS["default"][1].search(sentence) and \
                    source[position + 1].startswith(CODE_BLOCK):
                named = len(asked & word_stems(code_words(f"{sections.get(number, '')} {sentence}")))
                found.extend([(-named, number, position)] if named else [])
    return {min(found)[1:]} if found else set()


def expected_kind(question: str, best: tuple, chosen: dict, items: list, budget: int,
                  sections: dict[int, set[str]] | None = None) -> list:
    """For a "when", "how many", "which versions", "what does … return" or "what is the default …" question whose
    extract holds no date, number, version, return value or default: the sentence of the best sentence's source that
    does, nearest to it (the answer is often the next sentence, which names the subject as "it" and shares no word
    with the question); for a version, else another source's; for a return value, another quoted source's."""
    kind = next((kind for kind, (asks, _) in ANSWER_KINDS.items() if asks.search(question)), None)
    if kind is None or any(ANSWER_KINDS[kind][1].search(sentence) for sentence in chosen.values()):
        return []
    holding = [item for item in items if ANSWER_KINDS[kind][1].search(item[2])
               and (item[0], item[1]) not in chosen and len(item[2]) <= budget]
    if kind == "default":  # of what is asked, in its words or its section's (`sections`: the words of each source's
        # heading): clone's "Defaults to `true`." — not the next entry's "If not specified, defaults to reflecting the
        # headers …" for "What is the default value of the methods option?"
        asked = word_stems(question) - _DEFAULT_WORDS
        holding = [item for item in holding if (item[3] | (sections or {}).get(item[0], set())) & asked]
    own = [item for item in holding if item[0] == best[0]]
    if own:
        return sorted(own, key=lambda item: abs(item[1] - best[1]))[:1]
    # Another source's date or number is seldom about the same thing; a version's number, asked for, is (the
    # first such sentence, in the sources' order), and so is what a function returns, said in a source the extract
    # quotes already (its reference's "Returns" row, the best sentence being its code's docstring).
    if kind == "return":
        return [item for item in holding if any(number == item[0] for number, _ in chosen)][:1]
    return holding[:1] if kind == "version" else []


def release_notes(question: str, sources: dict, lines: dict[int, list[str]]) -> dict[int, list[str]]:
    """The sentences of the release the question names by its number, by source number (`sources` and
    `lines` are by number too): of a source that is its section ("What changed in version 2.0.0?" and a
    changelog's "Version 2.0.0", "Changelog > v2.0.0"), or of the text under its heading in one holding
    several releases (a short changelog is one chunk)."""
    asked = asked_versions(question)
    notes, named = {}, {}
    for number, hit in (sources.items() if asked else ()):
        if named_in_section := _releases_named(hit, asked):
            notes[number], named[number] = lines[number], named_in_section
        elif (part := _release_part(hit.content or "", asked)) is not None:
            notes[number], named[number] = sentences(quotable_text(part[0])), part[1]
    # Of sections naming two releases asked ("What changed from v4 to v5?"), the one naming both: rimraf's "v4 to v5",
    # not "v3 to v4" and "v5 to v6".
    most = max(named.values(), default=0)
    return {number: text for number, text in notes.items() if named[number] == most}


def holds_release(question: str, sources: list) -> bool:
    """Whether a source is the section of a release the question names by its number, or holds its heading."""
    asked = asked_versions(question)
    return bool(asked) and any(release_section(hit, asked) or release_text(hit.content or "", asked) is not None
                               for hit in sources)


def release_text(content: str, asked: set[str]) -> str | None:
    """The text under the heading naming an asked release, up to the heading of the next release; in a changelog
    without headings, a line (a list item) opening with its number up to the next such line ("- 0.9.0: Drop support
    for Python 2.7 …" and the lines under it, of tabulate's CHANGELOG)."""
    part = _release_part(content, asked)
    return part[0] if part is not None else None


def _release_part(content: str, asked: set[str]) -> tuple[str, int] | None:
    """`release_text` and how many of the `asked` releases its heading names (the heading naming the most: "v4 to
    v5" for "What changed from v4 to v5?", not "v5 to v6"; a line opening with a release names one)."""
    headings = [match for match in HEADING.finditer(content) if VERSION.search(match.group(1))]
    named = [len(asked & versions(heading.group(1))) for heading in headings]
    if any(named):
        at = named.index(max(named))
        end = headings[at + 1].start() if at + 1 < len(headings) else len(content)
        return content[headings[at].end():end], named[at]
    if headings:
        return None
    openings = list(_RELEASE_LINE.finditer(content))
    for at, line in enumerate(openings):
        if asked & versions(line.group("release")):
            return content[line.start():openings[at + 1].start() if at + 1 < len(openings) else len(content)], 1
    return None


def release_section(hit, asked: set[str]) -> bool:
    """Whether the hit is a section of one of the `asked` releases: the nearest heading of its path naming a
    release names it — its own ("v2.0.0", "Version 2.0.0", "4.0.0 (2025-04-16)") or, for the parts a
    conventional changelog gives each release, the one above ("11.0.0 (2024-10-26) > Features")."""
    return bool(_releases_named(hit, asked))


def _releases_named(hit, asked: set[str]) -> int:
    """How many of the `asked` releases the nearest heading of the hit's path naming a release names."""
    return len(asked & versions(release_path(hit.section_path).rpartition(" > ")[2]))


def release_path(section_path: str) -> str:
    """The path of the nearest section of `section_path` whose heading names a release ("Change Log > 11.0.0
    (2024-10-26)" of "… > Features"), "" when none does."""
    parts = section_path.split(" > ")
    named = next((at for at in range(len(parts) - 1, -1, -1) if versions(parts[at])), None)
    return " > ".join(parts[:named + 1]) if named is not None else ""


# A release named by its major number alone, ending a question about what changed, after a name or "version":
# "What changed in marshmallow 4?", "What's new in version 5?" (elsewhere a bare number is a quantity: "How do I stop
# after 3 attempts?").
_MAJOR_ASKED = re.compile(r"(?<=[^\W\d]\s)(\d{1,2})\W*$")


def asked_versions(question: str) -> set[str]:
    """The release numbers a question names (`versions`), and a major release asked what changed in by its number
    alone ("marshmallow 4" is release 4.0.0)."""
    asked = versions(question)
    if not asked and RELEASE(question) and (major := _MAJOR_ASKED.search(question.strip())):
        asked = {f"{major.group(1)}.0.0"}
    return asked


def versions(text: str) -> set[str]:
    """The release numbers `text` names, a series by its first release ("v2.2" is 2.2.0, as "Version 2.2.0" is)."""
    return {_MAJOR.sub(r"\1.0.0", _SERIES.sub(r"\1.0", version.lower().removeprefix("v").removeprefix(".")))
            for version in VERSION.findall(text)}
