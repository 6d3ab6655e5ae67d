"""The code names a question asks about, for the intent router (`knowledge.search.intent`).

A name counts when it is written as code (`backticked`, `name()`), looks like code and the bases
define it (snake_case, CamelCase), or is spelled as one of the bases' symbols or modules
(`Config`, `LOGGING_CONFIG`, `_walk_to_root`, `fetchOrders`, `dotenv.main` — also a partly
qualified name such as `Config.load`). A backticked name counts even when the bases do not define
it: `click` is a third-party module a question may ask about.

The words inside a code name are not the question's words: "What does dotenv.cli depend on?"
is no question about a CLI, so the rules read the question with its code names masked.
"""

import re

from knowledge.search.vocabulary import CYRILLIC, find_subject, is_code_name
from knowledge.search.words import STOP_WORDS, code_words

HTTP_ROUTE = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(/[\w\-./{}<>:]*)", re.IGNORECASE)
# `backticked`, or an identifier (dotted or not, `()` allowed) that is no part of a path or a longer word.
CODE_TOKEN = re.compile(r"`([^`]+)`|(?<![\w./$-])([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(\(\))?(?![\w-])")
# Code by its look alone: snake_case, CamelCase of two words or more.
CODE_SHAPE = re.compile(r"[a-z]+_[a-z0-9_]+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+")
_UPPER_NAME = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")  # a setting's or constant's name: CORS_ALLOW_HEADERS
# Code only when the bases spell it so: dotted, _private, UPPER_CASE, lowerCamel, Capitalised, an acronym opening
# CamelCase ("LRUCache", "HTTPServer").
CODE_LIKE = re.compile(r".*\..*|_\w+|[A-Z][A-Z0-9_]+|[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+|[A-Z]{2,}[a-z]\w*")
# A file's path as a question writes it, with a folder ("lib/option.js", "./lib/option"); not part of a URL
# or of a route. A file's name alone is not: "my project's urls.py" is the asker's file.
FILE_PATH = re.compile(r"(?<![\w./:-])((?:[\w.-]+/)+[\w.-]*\w)(?![\w/])")
DOTTED = re.compile(r"(?<![\w/.])[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(\))?")
LATIN_WORD = re.compile(r"(?<![\w/{])([A-Za-z_][\w.-]*[\w])(?![\w}])")
CUE_NAME = re.compile(r"\b(?:calls?|calling|inherits? from|subclass(?:es)? of|extends|imports?|command|"
                      r"function|method|class|callers of|module|package|depends? on|uses?)\s+([A-Za-z_][\w.-]*)",
                      re.IGNORECASE)
NOT_NAMES = {"api", "cli", "http", "https", "sla", "rest", "url", "json", "sql", "get", "post", "put",
             "patch", "delete", "the", "a", "an", "this", "that", "does", "do", "is", "are", "from", "of",
             "to"}
ASKS_WHAT_IT_DOES = re.compile(r"\bwhat does ([A-Za-z_][\w]*) do\b|\bчто делает ([A-Za-z_][\w]*)\b", re.IGNORECASE)
# "What is the signature of intcomma?", "What arguments does intcomma accept?", "What does naturaltime return?", "What
# does the at method accept?": a plain word the question asks the signature, parameters, return value or exceptions of
# (not one of its parameters: "the gnu parameter of naturalsize").
ASKS_ITS_SIGNATURE = re.compile(
    r"\b(?:signature|parameters|arguments|params|args|return (?:value|type)) of (?:the )?"
    r"([A-Za-z_][\w.]*\w)(?![\w.])|"
    r"\bdoes (?:the )?([A-Za-z_][\w.]*(?:\(\))?) (?:(?:method|function|decorator) )?"
    r"(?:take|accept|expect|return|raise|yield)\b|"
    r"\b(?:сигнатур\w*|параметр\w*|аргумент\w*)(?: (?:у|принимает|функции|метода|класса))*"
    r" ([A-Za-z_]\w*)\b|\b(?:возвращает|принимает) ([A-Za-z_]\w*)\b",
    re.IGNORECASE)
# "the route decorator", "the paginate function": a plain word its kind follows (not a word describing it).
# Not "class": "the pagination class" names what the class is for, and a class's own name is Capitalised.
NAMED_BY_KIND = re.compile(r"\b([A-Za-z_][\w]*) (?:decorator|function|method)\b", re.IGNORECASE)
NOT_KIND_NAMES = NOT_NAMES | {"which", "what", "each", "any", "test", "helper", "new", "custom", "base", "parent",
                               "child", "python", "my", "own", "your", "view", "async"}
# A parameter's owner: "the X argument of precisedelta", "precisedelta's X argument".
_PARAMETER_OWNER = re.compile(r"\b(?:argument|parameter|option|param|arg|kwarg|keyword)s? (?:of|to|for) (?:the )?`?"
                              r"([A-Za-z_][\w.]*\w(?:\(\))?)|\b([A-Za-z_][\w.]*\w)(?:\(\))?'s \w+ "
                              r"(?:argument|parameter|option|param|arg|kwarg)\b", re.IGNORECASE)
# A question comparing things, and a plain word beside the words comparing ("between load and dump", "tryfirst vs
# trylast").
COMPARED = re.compile(r"\b(?:differ\w*|compar\w*|versus|vs)\b", re.IGNORECASE)
COMPARING_WORDS = {"between", "and", "versus", "vs", "compare", "with"}  # before the word
COMPARED_WITH = {"and", "versus", "vs", "compare", "compares", "compared"}  # after it
_NEVER_COMPARED = NOT_KIND_NAMES | COMPARING_WORDS | COMPARED_WITH | STOP_WORDS
# "Who imports the router module?": a plain word before "module" names the bases' module of that name.
NAMED_MODULE = re.compile(r"\b([A-Za-z_]\w*) module\b", re.IGNORECASE)
# A package's own file, whose module is the package's: `lib/router/index.js` is the router module.
PACKAGE_FILES = {"index", "__init__"}
# A question that names a document says so.
DOCUMENT_WORDS = re.compile(r"\b(documents?|docs?|pages?|runbooks?|readme|guides?|articles?|specs?)\b|"
                            r"документ|страниц|ранбук|инструкц|статья|стать[июе]", re.IGNORECASE)
MASK = "§"
# How a how-to opens before its verb ("How do I", "How can we", "How to").
HOW_TO_OPENING = re.compile(r"^\W*how\s+(?:do|can|should|would)\s+(?:i|we|you|one)\s+|^\W*how\s+to\s+", re.IGNORECASE)
PHRASE_WORDS = 3
PHRASE_SKIPPED = {"a", "an", "the"}


def code_name(text: str, vocabulary=None) -> str:
    """The first code identifier the question names (see the module docstring), or ""."""
    if module := module_by_path(text, vocabulary):
        return module
    for match in CODE_TOKEN.finditer(HTTP_ROUTE.sub(" ", text)):
        backticked, name, call = match.groups()
        if backticked:
            name = backticked.removesuffix("()").strip()
            if name and not HTTP_ROUTE.match(name):
                return name
        elif _counts(name, bool(call), vocabulary):
            return name
    # "What does hydrate do?": a plain word the question asks the doing of is code when the bases define it, or
    # write it in their code names ("What does tryfirst do?": pluggy's `tryfirst=True` option, which no symbol is,
    # is in the names of the tests of it).
    asked = ASKS_WHAT_IT_DOES.search(text)
    name = (asked.group(1) or asked.group(2)) if asked else ""
    if name and name.lower() not in NOT_NAMES and (is_known(name, vocabulary) or _names_part(name, vocabulary)):
        return name
    # (Its signature, parameters, return value: a symbol's alone, not a part of a name.)
    asked = ASKS_ITS_SIGNATURE.search(text)
    name = next(filter(None, asked.groups()), "") if asked else ""
    if name and name.lower() not in NOT_KIND_NAMES and is_known(name, vocabulary):
        return name
    if name := _compared_name(text, vocabulary):
        return name
    # "What does the route decorator do?": the word before its kind, when the bases define it.
    for match in NAMED_BY_KIND.finditer(text):
        if match.group(1).lower() not in NOT_KIND_NAMES and is_known(match.group(1), vocabulary):
            return match.group(1)
    return module_by_name(text, vocabulary) or named_by_phrase(text, vocabulary)


def _compared_name(text: str, vocabulary) -> str:
    """The first plain word a question comparing things compares ("What is the difference between load and dump?")
    that the bases define or write in their code names (marshmallow's `Schema.load`, pluggy's `tryfirst` option)."""
    if not COMPARED.search(text):
        return ""
    words = re.findall(r"(?<![\w.])[A-Za-z_]\w*(?![\w.(])", text)
    for before, name, after in zip(["", *words[:-1]], words, [*words[1:], ""], strict=True):
        if (before.lower() in COMPARING_WORDS or after.lower() in COMPARED_WITH) and len(name) > 2 and (
                name.lower() not in _NEVER_COMPARED) and (
                is_known(name, vocabulary) or _names_part(name, vocabulary)):
            return name
    return ""


def parameter_owner(text: str) -> str:
    """The function or class a question names as the owner of the parameter it asks about ("What does the
    minimum_unit argument of precisedelta do?", "… precisedelta's minimum_unit argument …"); "" when it names none."""
    owned = _PARAMETER_OWNER.search(text)
    return next(filter(None, owned.groups()), "").removesuffix("()") if owned else ""


def asks_signature(text: str) -> bool:
    """Whether the question asks a symbol's signature, parameters, return value, exceptions (`ASKS_ITS_SIGNATURE`)."""
    return bool(ASKS_ITS_SIGNATURE.search(text))


def named_by_phrase(text: str, vocabulary) -> str:
    """The public symbol of the bases a how-to names by its verb and the words after it, joined as code joins words
    ("How do I set a key in a .env file?" → python-dotenv's `set_key`, "How do I run pending jobs?" → schedule's
    `run_pending`): an article between them skipped, the last word singular or plural, the longest such name first;
    "" when the bases define none."""
    if not getattr(vocabulary, "symbols", None):
        return ""
    for parts in how_to_phrases(text):
        for name in ("_".join(parts), parts[0] + "".join(part.capitalize() for part in parts[1:])):
            if is_known(name, vocabulary):
                return name
    return ""


def how_to_phrases(text: str) -> list[list[str]]:
    """A how-to's verb and the words after it (`PHRASE_WORDS` at most, an article between them skipped, up to the
    first mark), lower-cased, longest first down to two words, its last word as written, singular and plural: "How do
    I allow all origins?" → [allow, all, origins], [allow, all, origin], …, [allow, all], [allow, alls]."""
    opening = HOW_TO_OPENING.match(text)
    if not opening:
        return []
    words = []
    for token in text[opening.end():].split():
        word = token.rstrip("?!.,;:")
        if not word.isalpha() or len(words) == PHRASE_WORDS:
            break
        if word.lower() not in PHRASE_SKIPPED or not words:
            words.append(word.lower())
        if word != token:
            break
    return [[*words[:size - 1], ending] for size in range(len(words), 1, -1)
            for ending in dict.fromkeys([words[size - 1], words[size - 1].removesuffix("s"), f"{words[size - 1]}s"])]


def entry_named_by_phrase(question: str, text: str) -> str:
    """The name of an entry of the document text `text` (`has_entry`) that a how-to spells by its verb and the words
    after it as the name's last words ("How do I allow all origins?" and django-cors-headers' "###
    CORS_ALLOW_ALL_ORIGINS: bool", "How do I allow credentials?" and `CORS_ALLOW_CREDENTIALS`); "" when it has none."""
    if not HOW_TO_OPENING.match(question):
        return ""
    return next((name for name in dict.fromkeys(CODE_SHAPE.findall(text) + _UPPER_NAME.findall(text))
                 if spelled_by_phrase(question, name) and has_entry(text, name)), "")


def spelled_by_phrase(question: str, name: str) -> bool:
    """Whether a how-to's verb and the words after it (`how_to_phrases`) are the last words of `name`."""
    words = code_words(name).lower().split()
    return any(words[-len(parts):] == parts for parts in how_to_phrases(question) if len(parts) <= len(words))


def module_by_path(text: str, vocabulary) -> str:
    """The module of a source file of the bases the question names by its path ("Who imports lib/option.js?"
    → `lib.option`): the whole path or its end after a folder ("router/layer.js"), with its extension or
    without ("lib/option"); "" when it names none, or several alike."""
    modules = getattr(vocabulary, "modules", None)
    if not modules:
        return ""
    for match in FILE_PATH.finditer(HTTP_ROUTE.sub(" ", text)):
        named = match.group(1).removeprefix("./")
        found = [qname for path, qname in modules.items() if path == named or path.endswith(f"/{named}")]
        if not found:
            found = [qname for path, qname in modules.items()
                     if (stem := path.rsplit(".", 1)[0]) == named or stem.endswith(f"/{named}")]
        if len(set(found)) == 1:
            return found[0]
    return ""


def module_by_name(text: str, vocabulary) -> str:
    """The module of the bases a question names by a word before "module" ("the router module" →
    `lib.router.index`, "the fields module" → `app.fields`); "" when it names none, or several alike."""
    modules = set((getattr(vocabulary, "modules", None) or {}).values())
    for match in NAMED_MODULE.finditer(text):
        word = match.group(1).lower()
        if word in NOT_KIND_NAMES:
            continue
        found = [qname for qname in modules if _module_word(qname) == word]
        if len(found) == 1:
            return found[0]
    return ""


def _module_word(qname: str) -> str:
    parts = qname.lower().split(".")
    return parts[-2] if len(parts) > 1 and parts[-1] in PACKAGE_FILES else parts[-1]


def _counts(name: str, call: bool, vocabulary) -> bool:
    if call or CODE_SHAPE.fullmatch(name):
        return is_code_name(name, vocabulary)
    return bool(CODE_LIKE.fullmatch(name)) and is_known(name, vocabulary)  # spelled as the bases spell it


def _names_part(word: str, vocabulary) -> bool:
    return bool(getattr(vocabulary, "symbols", None)) and vocabulary.names_part(word)


def is_known(name: str, vocabulary) -> bool:
    """Whether the bases define `name` as it is spelled (or a qualified name ends with it)."""
    return bool(getattr(vocabulary, "symbols", None)) and bool(vocabulary.qualified(name))


def loose_name(text: str, code: str, vocabulary=None) -> str:
    """A code name without code formatting: a Latin word in a Russian question, or one after a cue word."""
    if code:
        return code
    if CYRILLIC.search(text):
        for match in LATIN_WORD.finditer(HTTP_ROUTE.sub(" ", text)):
            if match.group(1).lower() not in NOT_NAMES and is_code_name(match.group(1), vocabulary):
                return match.group(1)
    for match in CUE_NAME.finditer(text):
        if match.group(1).lower() not in NOT_NAMES and is_code_name(match.group(1), vocabulary):
            return match.group(1)
    return ""


_COMMAND_WORDS = {"command", "commands", "subcommand", "команда", "команду", "команды", "командой", "команде"}


def command_name(text: str, vocabulary) -> str:
    """The command the question names by a plain word or words ("the qcluster command", "команда
    normalizer"): the longest run of its words that is one of the bases' commands, beside the word
    "command" — or anywhere, when it is no plain word ("init-db")."""
    commands = getattr(vocabulary, "commands", None)
    if not commands:
        return ""
    words = re.findall(r"[\w.:-]+", HTTP_ROUTE.sub(" ", text).lower())
    found = []
    for size in (3, 2, 1):
        for start in range(len(words) - size + 1):
            phrase = " ".join(words[start:start + size])
            if phrase in commands and phrase not in NOT_NAMES:
                # "How do I run the init-db command?": the one beside the word "command", not the verb "run";
                # a plain word elsewhere is a word ("How do I create a group of commands?").
                beside = {words[at] for at in (start - 1, start + size) if 0 <= at < len(words)}
                if beside & _COMMAND_WORDS or not phrase.isalpha():
                    found.append((not beside & _COMMAND_WORDS, -size, start, phrase))
    return min(found)[-1] if found else ""


def env_var_name(text: str, vocabulary, kind: str = "env_vars") -> str:
    """The environment variable (or, with `kind="settings"`, the setting) the question names, as the
    bases' D6 rows spell it (`WEB_CONCURRENCY`)."""
    known = getattr(vocabulary, kind, None)
    if not known:
        return ""
    return next((word for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text) if word in known), "")


def qualified_forms(name: str, vocabulary, limit: int = 50) -> list[str]:
    """`name` and the bases' qualified names that end with it at a dot (as written); of a dotted name none ends with,
    the package's symbols of its last name qualified by fewest names: `arrow.now`, as arrow's package exports it, is
    `arrow.api.now` (not `arrow.arrow.Arrow.now`)."""
    known = vocabulary.qualified(name) if getattr(vocabulary, "symbols", None) else []
    if not known and "." in name and getattr(vocabulary, "symbols", None):
        package, last = name.split(".", 1)[0], name.rsplit(".", 1)[-1]
        exported = [qname for qname in vocabulary.qualified(last) if qname.startswith(f"{package}.")]
        fewest = min((qname.count(".") for qname in exported), default=0)
        known = [qname for qname in exported if qname.count(".") == fewest]
    return list(dict.fromkeys([*known[:limit], name]))


def mask_code(text: str, code: str = "") -> str:
    """The question with its backticked spans, dotted names, `name()` calls and `code` replaced by §."""
    text = re.sub(r"`[^`]*`", MASK, text)
    text = DOTTED.sub(MASK, text)
    text = re.sub(r"\b[A-Za-z_]\w*\(\)", MASK, text)
    return without_name(text, code) if code else text


def without_name(text: str, code: str, mask: str = MASK) -> str:
    """`text` with the code name `code` (not a longer name's part after a dot) replaced by `mask`."""
    return re.sub(rf"(?<![\w.]){re.escape(code)}(?![\w])", mask, text)


def writes_name(text: str, name: str) -> bool:
    """Whether `text` writes the code name `name` as a whole name, not part of a longer one (`wait_fixed` is not in
    `wait_fixed_jitter`; `$` is a JavaScript name's character)."""
    return bool(name) and bool(re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", text))


def document_subject(text: str, vocabulary: dict[str, str]) -> str:
    """The document, service or entity id the question names, read without its code names.

    A title that is a code reference to a name of the bases ("::: dotenv", the mkdocstrings title of
    a package's API reference) names no document unless the question speaks of a document: every
    question about the package would be sent to that page. A page titled or named plainly after a
    code name ("Pagination", pagination.md, beside the `pagination` module) is about it, and stays.
    """
    code = getattr(vocabulary, "code", None)
    if code and not DOCUMENT_WORDS.search(text):
        vocabulary = {alias: identifier for alias, identifier in vocabulary.items()
                      if not _is_code_reference(alias, code)}
    return find_subject(text, vocabulary)


def _is_code_reference(alias: str, code: set[str]) -> bool:
    """One code name written with markup around it ("::: dotenv"), not as a plain word."""
    words = re.findall(r"\w+", alias.lower())
    return len(words) == 1 and words[0] in code and alias.strip().lower() != words[0]


# A name as code writes it and prose does not: in lower camel case ("preserveRoot"), in camel case with an inner
# capital ("DefaultMunch"), in snake case ("max_tries"), a constant's or a setting's ("CORS_ALLOWED_ORIGINS").
_WRITTEN_AS_CODE = re.compile(r"(?<![\w$.-])(?:[a-z]+(?:[A-Z][a-z0-9]*)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+"
                              r"|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![\w$])")
# How a document's entry opens with its name: a list item or a table row, the name (in backticks, in bold or not)
# first, then its text; or a line opening with the name and a colon or a dash ("maxRetries: …", "timeout — …").
# Or a table's row as the index writes an uploaded table's ("Option: nocase" over its other columns' lines), or a
# docstring's parameter (":param max_length (int): output string length"), or a table's row with a later cell the name
# alone (arrow's tokens: "|   |Do   |1st, 2nd, 3rd ... 30th, 31st   |", under a group's cell left empty), or a line of
# the name alone as code over its description (Sphinx's `.. py:data:: TESTING` as read, Flask's configuration values).
_ENTRY_LINE = r"^[ \t]*(?:(?:[-*+•]|\d{{1,3}}[.)]|\|)[ \t]*(?:\*\*)?`?{name}`?(?:\*\*)?(?=[ \t:|(—–,-]|$)" \
              r"|(?:\*\*)?`?{name}`?(?:\*\*)?[ \t]*(?:[:—–]|-[ \t])|[^:\n]{{1,80}}:[ \t]+`?{name}`?[ \t]*$" \
              r"|:param[ \t]+(?:[^:\n]*[ \t])?{name}[ \t]*[(:]" \
              r"|\|(?:[^|\n]*\|)+?[ \t]*(?:\*\*)?`?{name}`?(?:\*\*)?[ \t]*\|" \
              r"|`{name}(?:\([^`\n]*\))?`[ \t]*$)"
# A symbol written as a word of its own: after a space or a quote, before a space or the question's end.
_SYMBOL = re.compile(r"(?<![^\s`'\"])[`'\"]?([^\w\s`'\"][^\s`'\"]*?)[`'\"]?(?=\s|[?.!]?$)")
# Marks of prose, not symbols asked about: a dash between words, an ellipsis, an ampersand, a question mark ending it.
_PROSE_MARKS = {"?", "-", "--", "–", "—", "…", "&"}
_ENTRY_HEADING = r"^ {{0,3}}#{{1,6}}[ \t][^\n]*(?<![\w$]){name}(?![\w$])"
_CALLED_HEADING = r"^ {{0,3}}#{{1,6}}[ \t]+(?:[^\n]*[.`])?{name}\("
# A name in words a question says is one, of an option or the like: "the align option", "the `sort` flag".
OPTION_KINDS = ("option", "argument", "parameter", "param", "setting", "flag", "property", "prop", "field", "key",
                "attribute", "token")
_NAMED_OPTION = re.compile(rf"\bthe\s+[`'\"]?(-{{0,2}}[A-Za-z_$][\w$-]*)[`'\"]?\s+(?:{'|'.join(OPTION_KINDS)})s?\b",
                           re.IGNORECASE)


def named_options(question: str) -> list[str]:
    """The names `question` says in words are an option's, an argument's or the like (`_NAMED_OPTION`): "align" of
    "What does the align option do?", "dot" of "What is the default value of the dot option?"."""
    return [name.lstrip("-") for name in _NAMED_OPTION.findall(question)]


def names_written_as_code(question: str) -> list[str]:
    """The names `question` writes as code would (`_WRITTEN_AS_CODE`): "cache_logger_on_first_use", "maxAge"."""
    return _WRITTEN_AS_CODE.findall(question)


def asked_entry_names(question: str) -> set[str]:
    """The names `question` asks about as an entry of a reference, in lower case: those it says are an option's or
    the like (`named_options`), and those written as code (`_WRITTEN_AS_CODE`: "maxAge", "max_length")."""
    return {name.lower() for name in [*named_options(question), *names_written_as_code(question)]}


def has_entry(text: str, name: str) -> bool:
    """Whether the document text `text` has an entry of `name` (`_ENTRY_LINE`, `_ENTRY_HEADING`) with its text: not
    one ending the chunk, which the next chunk holds whole ("* `RENDER_PANELS`" last of django-debug-toolbar's
    options chunk)."""
    escaped = re.escape(name)
    return any(text[match.end():].strip() for pattern in (_ENTRY_LINE, _ENTRY_HEADING)
               for match in re.finditer(pattern.format(name=escaped), text, re.M))


def describes_option(text: str, name: str) -> bool:
    """Whether the document text `text` says what an option `name` is in a sentence calling it one, written as code:
    "If the optional argument `typed` is set to True, function arguments of different types will be cached
    separately." (cachetools' decorators document their arguments in prose, no entry of each)."""
    kinds = "|".join(OPTION_KINDS)
    escaped = re.escape(name)
    return bool(re.search(rf"\b(?:{kinds})s?\s+`{escaped}`|`{escaped}`\s+(?:{kinds})\b", text, re.IGNORECASE))


def written_symbols(question: str) -> set[str]:
    """The symbols `question` writes as words of their own ("What does ** match?", "… the !(pattern) extglob …",
    "What does ? match?"): a table of syntax is looked up by them. A question mark ending the question is its own."""
    symbols = {symbol for symbol in _SYMBOL.findall(question.rstrip()) if symbol not in _PROSE_MARKS}
    return symbols | ({"?"} if re.search(r"\s\?\s", question) else set())


# Where a question writes what it asks about as its subject: after "does", "is", "the", "about" (or its quote).
_AS_SUBJECT = r"(?:^|\s)(?:does|do|is|are|means?|about|the|означает|значит|делает|такое)\s+[`'\"]?"


def asked_marks(question: str) -> set[str]:
    """The symbols of marks (`is_marks`) `question` asks about, written as its subject — after "does", "is", "the" or
    "about" ("What does * mean in a path?", "What does the ? modifier do?", "Что означает */5?") — not a price or a
    number a customer writes ("Can I pay $50 by card?", "договор № 5")."""
    return {symbol for symbol in written_symbols(question) if is_marks(symbol) and re.search(
        rf"{_AS_SUBJECT}{re.escape(symbol)}[`'\"]?(?=\s|[?.!]?$)", question, re.IGNORECASE)}


def asked_names(question: str) -> list[str]:
    """The names written as code (`names_written_as_code`) a question asks what they are or do, written as its subject
    as `asked_marks` reads it ("What does FLASK_APP do?", "What is the max_tries option for?", "Что делает
    max_tries?") — not a statement naming them ("mTOR regulates autophagy."), nor a question about something else
    they are named in ("What is the default value of CORS_ALLOW_CREDENTIALS?")."""
    if not question.rstrip().endswith("?"):
        return []
    return [name for name in names_written_as_code(question)
            if re.search(rf"{_AS_SUBJECT}{re.escape(name)}(?![\w$])", question, re.IGNORECASE)]


def is_marks(symbol: str) -> bool:
    """Whether a symbol is marks (and digits) alone ("*", "?", "*/2"), which no word says, not a name with letters
    (".env", "[abc]")."""
    return not re.search(r"[^\W\d_]", symbol)


def opens_with_symbol(text: str, symbol: str) -> bool:
    """Whether the section `text` opens, under its headings, with a sentence writing `symbol` as code: what the section
    is about ("##### Optional" and "Parameters can be suffixed with a question mark (`?`) to make the parameter
    optional.")."""
    opening = next((line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")), "")
    return f"`{symbol}`" in re.split(r"(?<=[.!?])\s", opening, maxsplit=1)[0]


def writes_symbol(text: str, symbol: str) -> bool:
    """Whether `text` writes `symbol` as a word of its own, or in brackets, quotes or code: "suffixed with a question
    mark (?)", "just use */2." — not inside another ("/:foo?" writes no "?")."""
    return bool(re.search(rf"(?<![^\s(\[{{\"'`“‘«]){re.escape(symbol)}(?![^\s)\]}}\"'`”’».,;:!?])", text))


def has_symbol_entry(text: str, symbol: str) -> bool:
    """Whether the document text `text` has a table row opening with `symbol` ("| `**` | Matches any character …"),
    a list item opening with it as code, or its name with it in brackets, and what it is ("- `[abc]` — …", "- `**`:
    …", "* A double star or globstar (`**`) — matches zero or more directories.", not "- No wildcard asterisk (`*`) -
    use parameters instead", a hyphen after a name in words), or a section's heading of it alone (morgan's "#####
    :status", "##### :date[format]"; not a shell comment "# .env" in a block of code): not a changelog's item saying
    what changed of it ("* `:response-time` token is now empty when immediate used"), nor a heading writing it among
    other words ("## Reading .env files"; bold markup would be "**" in "## **Important**")."""
    escaped = re.escape(symbol)
    return bool(re.search(rf"^[ \t]*(?:\|[ \t]*`?{escaped}`?[ \t]*\||(?:[-*+•]|\d{{1,3}}[.)])[ \t]+"
                          rf"(?:`{escaped}`[ \t]*(?:[:—–]|-[ \t])|[^`\n:—–|]{{1,40}}\(`{escaped}`\)[ \t]*[:—–])"
                          rf"| {{0,3}}#{{2,6}}[ \t]+`?{escaped}`?(?:[\[(][^\n]*)?[ \t]*$)", text, re.M))


def documented_name(question: str, text: str) -> str:
    """The name written as code (`_WRITTEN_AS_CODE`), or said to be an option's (`_NAMED_OPTION`), that `question`
    asks about and the document text `text` has an entry of — a list item or a table row opening with it, a line
    giving it a value, or a heading naming it ("- `preserveRoot`: If set to boolean `false`, …" for "What does the
    preserveRoot option do?", "align : false ," in ini's options object for "What does the align option do?"), a
    symbol it writes as a word of its own that a syntax table's row opens with ("What does ** match?") — or
    else a word of the question a heading documents as a function or method (`_CALLED_HEADING`); "" when there is
    none."""
    for name in dict.fromkeys([*names_written_as_code(question), *named_options(question)]):
        if has_entry(text, name):
            return name
    # A symbol a syntax table's row opens with ("| `**` | Matches any character …" for "What does ** match?").
    for symbol in sorted(written_symbols(question)):
        if has_symbol_entry(text, symbol):
            return symbol
    # A word of the question a heading of the text documents as a function or method ("### `mime.define(type map)`"
    # for "Why does define throw an error?").
    for word in dict.fromkeys(re.findall(r"[A-Za-z_$][\w$]{2,}", question)):
        if re.search(_CALLED_HEADING.format(name=re.escape(word)), text, re.M):
            return word
    return entry_named_by_phrase(question, text)
