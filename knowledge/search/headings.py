"""A section's heading as what its first sentence says (`composer`): the heading names what the section is about,
and its text goes on from there without saying it again.
"""

import re

from knowledge.search.readable import points_back
from knowledge.search.secondary import PEOPLE_ASKED
from knowledge.search.source_text import HEADING
from knowledge.search.words import word_stems

# A heading that is the name of code: dotted, called, snake_case or camelCase ("limit.activeCount", "`init()`",
# "pLimit(concurrency)", "max_tries"), a method of an instance the reference leaves unnamed too (".clear()").
_CODE_HEADING = re.compile(r"`?(?=[\w$.#]*(?:[.#_(]|[a-z][A-Z]))[.#]?[A-Za-z_$][\w$]*(?:[.#][A-Za-z_$][\w$]*)*"
                           r"(?:\([^()]*\))?`?")
# The field lines an API reference writes between a name's heading and what it says of it ("Type: `Function`",
# "Default: `10`"): the first sentence after them is the section's first that says anything.
_LABELS = r"Type|Default|Default value|Required|Optional|Since|Values?|Minimum|Maximum|Тип|По умолчанию"
_FIELDS = re.compile(rf"(?:(?:{_LABELS}):\s*[^\s.:]+(?:\s[^\s.:]+){{0,3}}\s*)+\.?", re.IGNORECASE)
_FIELD_LABEL = re.compile(rf"({_LABELS}):\s", re.IGNORECASE)  # a line opening as a field line does
_TYPED_NAME = re.compile(r"`?([\w$.]+)(?::[ \t]+[^:`\n]+|[ \t]+\([^()\n]+\))`?")  # "name: type", "name (type)"
# A heading of one word: an option's or a parameter's name when field lines open its section ("concurrency"), or in
# lower case or capitals under a heading listing such names (cookie's "Options > decode", Flask's "Builtin
# Configuration Values > TESTING", morgan's "Predefined Formats > tiny").
_NAME = re.compile(r"`?[A-Za-z_$][\w$-]*`?")
# The heading of a section naming a project's people.
_PEOPLE_HEADING = re.compile(r"(?:the\s+)?(?:authors?|maintainers?|creators?|credits|contributors|автор[ыа]?)",
                             re.IGNORECASE)
_LISTING = re.compile(r"\b(?:options?|param(?:eter)?s|arguments|args|props|propert(?:y|ies)|attributes|fields|settings"
                      r"|configuration values|config values|methods|events|hooks|functions|commands|subcommands|flags"
                      r"|variables|formats|tokens|filters|modes|levels|types|presets|plugins"
                      r"|параметры|опции|аргументы|свойства|методы|события|функции|команды|флаги|переменные|форматы"
                      r"|фильтры|режимы|уровни|типы)\b", re.IGNORECASE)
# A signature's parameters, in the heading of its reference entry: "`LFUCache(maxsize, getsizeof=None)`".
_SIGNATURE_PARAMETERS = re.compile(r"(?<=[\w$])\([^()]+\)(?=`?\s*$)")


def opens_section(hit) -> bool:
    """Whether a chunk opens with its section's heading and text: a document's chunk starts at a heading only
    where its section does (`chunking`); a repository's section row carries its heading over every piece of a
    long section, and says which piece is the first (`section_start`; rows indexed before it said so: none)."""
    if not HEADING.match(hit.content.lstrip("\n")):
        return False
    return hit.metadata.get("section_start", "artifact_type" not in hit.metadata)


def heading_words(hit, source: list[str], position: int) -> set[str]:
    """The words of the heading a section's first sentence is under, as words it says: the heading names what the
    section is about, and its text goes on from there without saying it again ("Lazy evaluation of expensive
    functions" over "… you can use the opt() method to achieve this."). A signature's are its name's: the parameters
    of "LFUCache(maxsize, getsizeof=None)" are not what its section is about ("What does getsizeof do?")."""
    return word_stems(_SIGNATURE_PARAMETERS.sub("", _heading(hit, source, position)))


def under_heading(hit, source: list[str], position: int, read: str) -> str:
    """A section's first sentence as its meaning is compared: under its heading when that is the name of code the
    section is the reference of ("limit.activeCount: The number of promises that are currently running." — the
    sentence alone is far from "What does activeCount return?"). A heading in words is said again by its text as
    often as not, and is compared no closer with it ("Using Python-Markdown on the Command Line"), but over a first
    sentence introducing what follows (ending with ":") or naming its subject only as "this" or "it"."""
    heading = _SIGNATURE_PARAMETERS.sub("", reference_heading(hit, source, position))  # (see `heading_words`)
    if not heading and (read.endswith(":") and not read.endswith("::") or points_back(read)):
        # A first sentence introducing what follows says nothing of its own: environs' "Supported types" over "The
        # following are all type-casting methods of `Env`:" and its list, far from "What types are supported?" alone;
        # nor does one naming its subject as "this": helmet's "Cross-Origin-Embedder-Policy" over "This header is
        # not set by default.", far from "Is Cross-Origin-Embedder-Policy set by default?" alone.
        heading = _heading(hit, source, position)
    return f"{heading}: {read}" if heading else read


def reference_heading(hit, source: list[str], position: int) -> str:
    """The heading over a field line or the first sentence of a reference entry (`entry_heading`) — a field line
    after its description too, as Sphinx's entries end ("Default: `timedelta(days=31)`" under Flask's
    PERMANENT_SESSION_LIFETIME); "" for any other sentence or section."""
    over = _heading(hit, source, position) or _FIELD_LABEL.match(source[position]) and section_heading(hit)
    return entry_heading(hit, source) if over else ""


def field_label(sentence: str) -> str:
    """The label a field line opens with ("Default" of "Default: `path.resolve(process.cwd(), '.env')`"), "" for
    another sentence."""
    match = _FIELD_LABEL.match(sentence)
    return match.group(1) if match else ""


def entry_heading(hit, source: list[str]) -> str:
    """The heading of a section that is the reference of a name of code (its sentences `source`): a heading that is
    one ("limit.activeCount", ".clear()"), or a word whose section opens with field lines (p-queue's option
    "concurrency" over "Type: `number`") or, in lower case, is under a heading listing names (cookie's "Options >
    decode"); "" for any other section, or a chunk opening none."""
    heading = section_heading(hit)
    # A name with its type after it ("CORS_ALLOWED_ORIGINS: Sequence[str]", django-cors-headers' settings) is the name.
    typed = _TYPED_NAME.fullmatch(heading)
    if typed and _CODE_HEADING.fullmatch(typed.group(1)):
        return typed.group(1)
    # (A name in capitals too, under a heading listing settings: Flask's "Builtin Configuration Values > TESTING".)
    bare = heading.strip("`")
    if _CODE_HEADING.fullmatch(heading) or _NAME.fullmatch(heading) and (
            source and _FIELDS.fullmatch(source[0])
            or (bare[:1].islower() or bare.isupper()) and under_listing(hit)):
        return heading
    return ""


def names_asked(heading: str, asked: set[str], question: str) -> bool:
    """Whether a section's heading names what the question asks (`asked`: its stems): it shares a word with it, or it
    is a project's people's ("Author", "Maintainers", "Credits") and the question asks who (`secondary.PEOPLE_ASKED`:
    cors' "Who wrote cors?" and its "## Author" over "Troy Goode")."""
    return bool(word_stems(heading) & asked) or bool(_PEOPLE_HEADING.fullmatch(heading.strip())) and bool(
        PEOPLE_ASKED.search(question))


def under_listing(hit) -> bool:
    """Whether a chunk's section is one of those a heading lists ("Filters > RangeFilter", "Options > decode")."""
    parent = (hit.section_path or "").split(" > ")[-2:-1]
    return bool(parent) and bool(_LISTING.search(parent[0]))


def section_heading(hit) -> str:
    """The heading of the section a chunk opens ("" when it opens none)."""
    return hit.section_path.rpartition(" > ")[2] if hit.section_path and opens_section(hit) else ""


def _heading(hit, source: list[str], position: int) -> str:
    """The heading over a section's first sentence, the field lines before it left aside ("onFailedAttempt(error)" over
    "Type: `Function`" over "Callback invoked on each retry."); "" for any other sentence."""
    return "" if any(not _FIELDS.fullmatch(said) for said in source[:position]) else section_heading(hit)
