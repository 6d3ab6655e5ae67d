"""The words of a question and of a source as the extract compares them: stems of their first five
letters, without the words every question has ("how", "what", "как", "какое"), an English plural as
its singular ("keys" as "key", "entries" as "entry": five letters alone keep "items" from "item"), a short verb's
"-ed" and "-ing" forms as the verb ("passed" as "pass")."""

import re

_WORD = re.compile(r"\w+", re.UNICODE)
_CYRILLIC = re.compile(r"[а-яё]", re.I)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_DOUBLED_ROOT = re.compile(r"([a-z]{2}(?:ss|ll|ff|zz))(?:ed|ing)")
# Russian letters in Latin ones, as loanwords and names are spelt in English ("регион": region, "Телеграм":
# telegram); `str.translate` table, lower case.
TO_LATIN = str.maketrans({"а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "zh", "з": "z",
                          "и": "i", "й": "i", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r",
                          "с": "s", "т": "t", "у": "u", "ф": "f", "х": "h", "ц": "c", "ч": "ch", "ш": "sh",
                          "щ": "sch", "ъ": "", "ы": "i", "ь": "", "э": "e", "ю": "iu", "я": "ia"})

STOP_WORDS = frozenset("""the and for are but not you your can how what which who why when where does did was were has
have had this that these those with from into about there their them then than should would could will shall may
might must also just only any all some its our out use using get один как что это для или при его она они так там
где когда какой какая какое какие каком каков какова каково каких чем кто ли же бы вы мне меня мой моя нужно можно
есть был была были если чтобы""".split())


def same_words(text: str) -> str:
    """A text as compared with another: its words, in lower case (no punctuation, markup or spacing)."""
    return " ".join(_WORD.findall(text.lower()))


def code_words(text: str) -> str:
    """Code with its names' words apart (`job_with_argument`, `requiredOption`), for the stems of a line of it."""
    return _CAMEL.sub(" ", text.replace("_", " "))


def word_stems(text: str) -> set[str]:
    """The stems of `text`'s words of three letters or more, but stop words."""
    words = {_root(singular(word)) for word in _WORD.findall(text.lower()) if len(word) > 2 and word not in STOP_WORDS}
    return {word[:5] for word in words if word not in STOP_WORDS}


def _root(word: str) -> str:
    """A verb of four letters ending in a double consonant as it is, "-ed" or "-ing" after it left out: "passed" and
    "passing" are "pass" ("passe" and "passi" in five letters), as "called" is "call"; a longer verb's five letters
    are its own already."""
    match = _DOUBLED_ROOT.fullmatch(word)
    return match.group(1) if match else word


def singular(word: str) -> str:
    """An English plural's singular ("entries": "entry", "cookies": "cookie", "boxes": "box", "keys": "key");
    other words as they are, words of their own that end in s too ("class", "status", "analysis", "alias")."""
    if len(word) < 4 or not word.endswith("s") or not word.isascii():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-1] if word[-4] in "kv" else f"{word[:-3]}y"
    if word.endswith(("sses", "shes", "xes")):
        return word[:-2]
    return word if word.endswith(("ss", "us", "is", "as")) else word[:-1]


def asked_part(text: str) -> str:
    """What a ticket asks: its text without the subject line triage sets above it (`tickets.triage`: the
    subject, a blank line, the text), unless the subject is all there is."""
    head, _, rest = text.partition("\n\n")
    head = head.strip()
    return rest if rest.strip() and "\n" not in head and not head.endswith(("?", ".", "!", ":")) else text


def shares_words(question: str, sources: list) -> bool:
    """Whether a word of `question` (not a stop word; compared by its first five letters) occurs in a
    source's text, title or heading path; True for a question with no such word at all ("hi?")."""
    asked = word_stems(question)
    return not asked or any(asked & word_stems(f"{hit.document_title} {hit.section_path} {hit.content}")
                            for hit in sources)


def is_russian(text: str) -> bool:
    return bool(_CYRILLIC.search(text))
