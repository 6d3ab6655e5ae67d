"""The rows of a layered index (`knowledge.indexing.layers`) as an extract quotes them.

A repository's rows are not prose: a source chunk (C0) is code, and the derived rows restate what the
indexer found ("ninja.api.NinjaAPI.urls calls ninja.openapi.urls.get_openapi_urls (resolved)"). An
answer composed from them quoted code as sentences ("def _check_throttles(self, request) …") and index
entries as facts ("docs/guides/auth.md (document) — Authentication"). So:

- a symbol (C1) is its name, where it is defined and the first sentence of its docstring (to a question
  asking where it is: "Class `jinja2.environment.Environment` is defined in src/jinja2/environment.py: …"):
  "`ninja.throttling.AnonRateThrottle` (ninja/throttling.py): Limits the rate of API calls …"; a symbol
  without one, where it is defined ("Method `ninja.main.NinjaAPI.create_response` is defined in
  ninja/main.py."), for a question asking where, or what that symbol is, only: it tells nobody how to do
  anything ("How do I make a class frozen?" was answered "Variable `attr._next_gen.frozen` is defined in …");
- a source chunk (C0) is the docstring of what it holds, said the same way, else nothing: its code is
  not quoted;
- an edge (C2, to a question asking what calls, imports, uses or inherits what: "`attrs` imports attr."
  answered "What is the difference between attr.s and attrs.define?"), an entrypoint (C3), a role (C4)
  and an integration (D6) are their first line as a sentence ("`ninja.operation.Operation._run_checks`
  calls ninja.utils.check_csrf.", "GET /items is handled by …", "… is a schema (class)", "… reads the
  environment variable …"), a qualified name as code, an entrypoint with what its handler or command
  says it does ("Command `qcluster` is handled by …: Starts a Django Q Cluster."), a role with what its
  symbol's docstring says ("… is an exception (class): Timed out while connecting to the host."; without it, nothing
  to a how-to: "`bin.nanoid` is a cli command (module)." answered "How do I install nanoid?"); an
  integration answers only a question asking for the services, environment variables or settings a
  repository names, or naming the one it names — never a how-to ("How do I define a class with attrs?" ended
  on "… mentions stackoverflow.com (url).") nor what changed in a release ("CHANGELOG mentions
  en.wikipedia.org (url).") nor where something is registered ("API Docs mentions github.com (URL).");
- entities (D3) and relations (D5) — a document's title, a link between two files — say nothing a
  reader asked, and facts (D2) and workflows (D4) restate the documentation's own sentences and steps
  (D0; "Workflow: Configuration Best Practices Main flow:" opened an answer): not quoted, and an answer
  whose caller names no layers is not grounded on them (`ANSWER_LAYERS`);
- documentation (D0) and its catalog (D1) are prose and read as any document does.

Uploaded documents are D0: none of this applies to them.
"""

import ast
import functools
import itertools
import keyword
import re
import textwrap
from pathlib import PurePosixPath

from knowledge.indexing import rst
from knowledge.indexing.layers import CODE_LAYERS, DOC_LAYERS
from knowledge.indexing.layers.docstrings import (
    EMPHASIS,
    as_text,
    described_parameter,
    doc_summary,
    jsdoc_description,
)
from knowledge.indexing.layers.manifests import MANIFEST_NAMES
from knowledge.indexing.layers.markdown import LICENSE_PATH
from knowledge.search import code_names, installs, licences, option_tables, runtimes
from knowledge.search.code_blocks import code_likeness
from knowledge.search.code_names import CODE_TOKEN, named_options, writes_name
from knowledge.search.intent_words import (
    CALLEES,
    CALLERS,
    COMMANDS,
    ENV_VARS,
    HAS_COMMANDS,
    HOW_TO,
    IMPORTS,
    INHERITS,
    INTEGRATIONS,
    LOCATION,
    SETTINGS,
    USAGES,
    VERSION_ASKED,
)
from knowledge.search.retrieval import SearchHit
from knowledge.search.source_text import quotable_text, sentences
from knowledge.search.words import STOP_WORDS, code_words, word_stems

PROSE_LAYERS = frozenset({"D0", "D1"})
UNQUOTED_LAYERS = frozenset({"D2", "D3", "D4", "D5"})
# The layers an answer draws on when its caller names none: a repository's index of entities, links and
# facts restated from its documentation would take the places of the documentation itself.
ANSWER_LAYERS = [layer for layer in (*DOC_LAYERS, *CODE_LAYERS) if layer not in UNQUOTED_LAYERS]

_JS_DOC = re.compile(r"/\*\*.*?\*/", re.S)
_RESOLUTION = re.compile(r"\s*\((?:resolved|unresolved|external|unknown route|[^()]*\broute|[^()]*command)\)\s*$")
_ENDS = re.compile(r"[.!?…]$")
_ASKED_NAME = re.compile(r"\b[A-Za-z_][\w$]{3,}\b")  # a word of a question that may name a parameter or attribute
# A name that is code however it is written: snake_case ("the force_list argument"; not camelCase: "the macOS
# operating system").
_CODE_NAME = re.compile(r"\w*[a-z0-9]_\w*[a-z0-9]\w*")
# A line opening a Python block, in a paragraph with its docstring: "class MacOS(PlatformDirsABC):".
_BLOCK_OPENER = re.compile(r"(?:async\s+)?(?:def|class)\s+\w+")
_PROSE_LIKENESS = 0.12  # a line of a source chunk with more code punctuation than this is code, not prose
# A chunk of Python opening with a function or a class (its decorators first): its prose is its docstrings'.
_PYTHON_DEFINITION = re.compile(r"\s*(?:@|(?:async\s+)?def\s|class\s)")
# A command's option asked about: written with its dashes, or called an option, a flag or a switch.
_COMMAND_OPTION_ASKED = re.compile(r"(?<![\w-])-{1,2}[\w?]|\b(?:options?|flags?|switch(?:es)?)\b", re.I)
_DEFAULT_ASKED = re.compile(r"\bdefaults?\b|по умолчанию", re.I)
_PARAMETER_ASKED = re.compile(r"\b(?:param(?:eter)?s?|arg(?:ument)?s?|kwargs?|options?|attributes?|fields?|flags?"
                              r"|propert(?:y|ies))\b|параметр|аргумент|опци|атрибут", re.I)
# A command-line option declared with its help text, in one call: its flags as strings ("--override/--no-override",
# "-v", "--verbose"), then, without another call's parenthesis between, `help="…"`.
_CLI_OPTION = re.compile(r"""(?P<flags>["']-{1,2}[\w-]+(?:/-{1,2}[\w-]+)?["'](?:\s*,\s*["']-{1,2}[\w-]+["'])*)"""
                         r"""[^()]{0,300}?\bhelp\s*=\s*(?P<q>["'])(?P<help>[^"'\n]{3,300})(?P=q)""")
# A default written as a value (not a constant's name: `default=DEFAULT_SEPARATOR` says nothing of it).
_CLI_DEFAULT = re.compile(r"""\bdefault\s*=\s*(True|False|None|-?\d+(?:\.\d+)?|"[^"\n]{0,40}"|'[^'\n]{0,40}')""")
# A sentence's last word or two on a line of their own, punctuation and all ("columns):" after "… a list of values for
# different"), which reads as code by its marks alone.
_SENTENCE_END_LINE = re.compile(r"(?:[^\W\d_][\w'-]*\s){0,2}[^\W\d_][\w'-]*[)\]]?[.:;!?]")
_CODE_LINE_ENDS = ("{", "}", ";", "(", "[", "=>")  # a line of code ends so; a sentence does not
# A line of a signature declaring a parameter: "self,", "poll_interval: float = 0.05,", "*,", "**kwargs".
_SIGNATURE_LINE = re.compile(r"^(?:\*{1,2}|\*{0,2}[A-Za-z_]\w*\s*(?::[^=,]+)?(?:=[^,]+)?)\s*,?\s*$")
_CLOSING = ('"""', "'''", "*/")  # a docstring's or a JSDoc comment's last line ends so
_PARAM_FIELD = re.compile(r":param (?:\w+ )?(\w+):\s*|@param\s+(?:\{[^}]*\}\s+)?\[?(\w+)\]?\s*-?\s*")
# A comment's margin opening a line: "/**", "*/", a JSDoc line's "* " — not bold markup ("**not** use …").
_COMMENT_MARGIN = re.compile(r"^(?:/\*+|\*+/|\*(?!\*))[ \t]?")
# A docstring's section title (Google's "Args:", NumPy's "Parameters" and the dashes under it) and list bullets.
_SECTION_TITLE = re.compile(r"(?:Args|Arguments|Parameters|Returns|Raises|Yields|Attributes|Examples?|Notes?|See Also)"
                            r"\s*:?|[-=~^]{3,}")
_FENCED = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[ \t]*$", re.S | re.M)  # a Markdown code block, in a docstring
_EXAMPLE_TITLE = re.compile(r"(?:For )?Examples?(?: usage)?:?", re.I)
_BULLET = re.compile(r"(?:[-*•]|\d{1,2}[.)])\s+")
# A reST info field opening a paragraph: ":param time_str:", ":param str time_str:", ":returns:", ":raises X:".
_FIELD_NAME = re.compile(rf"^:(?P<kind>{rst.INFO_FIELD_KINDS}|vartype)(?:\s+(?P<what>[^:\n]+?))?\s*:\s*")
_ONLY_WHERE = re.compile(r"[A-Z]\w* `[^`]+` is defined in \S+\.")  # `_symbol` without a docstring


# How a row says the signature or the return type asked (`_declared`): what the extract says first (`composer`).
SIGNATURE_SAID, RETURNS_SAID = "Its signature is `", "It returns `"
# Asked what a symbol returns, the type its signature declares it returns.
_RETURN_ASKED = re.compile(r"\breturns?\b|возвраща", re.IGNORECASE)
_RETURNED = re.compile(r"\)\s*->\s*(.+?)\s*:?$")
# A docstring's field as `_docstring_paragraphs` writes it: "time_str (str): …", "Returns: …", "Raises ValueError: …".
_FIELD_LINE = re.compile(r"(?:Returns|Raises \S+|[\w.]+(?: \([^)]*\))?): ")


def quotable(hit: SearchHit, row: str | None = None, question: str = "") -> str:
    """What an extract may quote of a source ("" for nothing) as an answer to `question`: of prose, its
    text (`row`: the table rows the question asks about, `rows.quoted_rows`) without headings or code; of
    a layer's row, see above."""
    meta = hit.metadata or {}
    path = meta.get("source_path", "")
    if is_prose(hit):
        if LICENSE_PATH.search(path):  # a licence file is quoted as the licence it is, its clauses never
            return licences.statement_of(hit) if licences.ASKED.search(question) else ""
        return quotable_text(row if row is not None else hit.content)
    layer = hit.layer
    if layer in UNQUOTED_LAYERS or installs.asks_to_install(question, [hit]):
        return ""  # "`setup` (setup.py): Setup script for the humanfriendly package." installs nothing
    if layer in ("C0", "C1") and (said := runtimes.project_said(hit, question)):
        # Asked which versions are supported, what a manifest says the package runs on; or what it depends on, its
        # version (or its `__version__`'s), who wrote it.
        return said
    if layer == "C1":
        return _symbol(meta, question)
    if layer == "C0" and PurePosixPath(path).name in MANIFEST_NAMES:
        # A manifest says what the package is licensed under: itsdangerous' pyproject.toml's classifier "License ::
        # OSI Approved :: BSD License" (its LICENSE.txt is a BSD licence without its name).
        return licences.statement_of(hit) if licences.ASKED.search(question) else ""
    if layer == "C0":
        # What its documentation says of a name the question asks about, else what the code is for.
        qname = meta.get("qname") or meta.get("module_or_unit") or ""
        summary = naming_paragraph(hit.content, question, qname, path) or _opening_and(
            answering_paragraph(hit.content, question, qname) or answering_sentence(hit.content, question, qname),
            first_sentence(_docstring(hit.content)))
        if summary and code_names.asks_signature(question) and (
                declared := _declared(_signature_line(hit.content), question, qname)):
            summary = f"{_sentence(summary)} {declared}"  # (validators' `url`, whose source chunk was found)
        return _said(qname, path, summary, question, meta.get("chunk_type", "")) if summary and qname else ""
    if (layer == "D6" and not _asks_integration(question, meta)) or (layer == "C2" and not _asks_links(question)):
        return ""
    first = (hit.content or "").strip().split("\n", 1)[0]
    summary = first_sentence(meta.get("summary_text") or "") if layer in ("C3", "C4") else ""
    if layer == "C4" and not summary and HOW_TO(question):
        return ""  # "`bin.nanoid` is a cli command (module)." tells nobody how to install nanoid
    first = first.split(", in: ", 1)[0]  # an integration's list of the sections that mention it
    first = _RESOLUTION.sub("", first).replace(" → ", " is handled by ")
    if first.startswith("cli "):  # an entrypoint's command: "cli qcluster is handled by …"
        name, _, rest = first[4:].partition(" ")
        first = f"Command `{name}` {rest}"
    elif first[:1].islower() or first[:1] == "_":
        # A qualified name opens the row: as code, so it is not taken for the tail of a cut sentence.
        name, _, rest = first.partition(" ")
        first = f"`{name}` {rest}"
    if summary:
        first = f"{first}: {summary}"  # what the handler or command says it does
    return _sentence(first) if first.strip() else ""


def chunks_saying_more(hits: list[SearchHit], question: str) -> list[SearchHit]:
    """`hits` with a symbol's source chunk in the place of its catalog row when the chunk's docstring says more to the
    question than the row's first sentence (`naming_paragraph`, `answering_paragraph`), the row last: "Does
    run_pending run jobs that were missed?" found run_pending's row first and its chunk sixth, and quoted "Run all
    jobs that are scheduled to run." without the note below it that answers."""
    chunks = {}  # qualified name → the positions of its source chunks, in order
    for at, hit in enumerate(hits):
        if hit.layer == "C0" and (hit.metadata or {}).get("qname"):
            chunks.setdefault(hit.metadata["qname"], []).append(at)
    placed, moved = list(hits), []
    for at, hit in enumerate(hits):
        if hit.layer != "C1":
            continue
        saying = next((later for later in chunks.get((hit.metadata or {}).get("qname"), [])
                       if later > at and _says_more(hits[later], question)), None)
        if saying is not None:
            placed[at], placed[saying] = hits[saying], None
            moved.append(hit)
    return [hit for hit in placed if hit is not None] + moved


def _says_more(chunk: SearchHit, question: str) -> bool:
    symbol = chunk.metadata.get("qname", "")
    return bool(naming_paragraph(chunk.content, question, *_named_in(chunk))
                or answering_paragraph(chunk.content, question, symbol)
                or answering_sentence(chunk.content, question, symbol))


def parameter_of(hit: SearchHit, question: str) -> str:
    """`parameter_named` of a row of code: the parameter or option the question names that its docstring has an
    entry of; "" for prose, for a row documenting none, and for a question asking the project's own version."""
    if not (hit.layer or "").startswith("C") or VERSION_ASKED(question):
        return ""  # (the project's own version asked is no parameter `version`: django-model-utils' `UUIDField`'s)
    return parameter_named(hit.content or "", question, *_named_in(hit))


def _named_in(hit: SearchHit) -> tuple[str, str]:
    """A row's symbol and the path of its file."""
    meta = hit.metadata or {}
    return meta.get("qname", ""), meta.get("source_path", "")


@functools.lru_cache(maxsize=256)  # read per source chunk twice an answer: whether it says more, what it says
def answering_paragraph(code: str, question: str, symbol: str = "") -> str:
    """The paragraph of a source chunk's docstring below its first that answers what the question asks beyond the
    names of `symbol` — sharing two of its words at least, and more than the first paragraph does — as at most
    three sentences, those sharing a word; "" when there is none. "Does run_pending run jobs that were missed?"
    is answered by run_pending's note "… it is intended behavior that run_pending() does not run missed jobs", not
    by its first sentence, and "What formats does at() accept for daily jobs?" by its `:param time_str:` field
    with the formats listed."""
    if HOW_TO(question):
        return ""  # how to do it is the symbol's first sentence and its examples
    paragraphs = _docstring_paragraphs(_docstring(code))
    asked = word_stems(question) - word_stems(code_words(" ".join(symbol.split(".")[1:])))
    if len(paragraphs) < 2 or len(asked) < 2:
        return ""
    shared = [len(asked & word_stems(code_words(paragraph))) for paragraph in paragraphs]
    best = max(range(1, len(paragraphs)), key=shared.__getitem__)
    # Of a symbol the question does not name, the paragraph says all it asks: tenacity's `sleep`, "This is the
    # default strategy", is no answer to "What is the default stop strategy?".
    named = writes_name(question, symbol.rsplit(".", 1)[-1])
    if shared[best] < 2 or shared[best] <= shared[0] or not named and shared[best] < len(asked):
        return ""
    said = [sentence for sentence in sentences(paragraphs[best]) if asked & word_stems(code_words(sentence))]
    # A field's name ("time_str (str): ", "Returns: ") is said with its text.
    field = _FIELD_LINE.match(paragraphs[best])
    label = field.group(0) if field and not said[0].startswith(field.group(0)) else ""
    return label + " ".join(_sentence(sentence) for sentence in said[:3])


@functools.lru_cache(maxsize=256)
def answering_sentence(code: str, question: str, symbol: str = "") -> str:
    """A sentence of a source chunk's docstring's prose after its first (no field's) sharing two of the question's
    words at least (beyond the names of `symbol`), more than the first does; "" when there is none. "How do I pass
    arguments to a job?" is answered by schedule's `Job.do`'s "Any additional arguments are passed on to job_func when
    the job runs.", after "Specifies the job_func that should be called every time the job runs."."""
    said = [sentence for paragraph in _docstring_paragraphs(_docstring(code)) if not _FIELD_LINE.match(paragraph)
            for sentence in sentences(paragraph)]
    if len(said) < 2:
        return ""
    asked = word_stems(question) - word_stems(code_words(" ".join(symbol.split(".")[1:])))
    # (Not a sentence introducing what is left out, "No inputs to get current UTC time::" over its example.)
    shared = [0 if sentence.endswith(":") else len(asked & word_stems(code_words(sentence))) for sentence in said]
    best = max(range(1, len(said)), key=shared.__getitem__)
    # How to do it is the first sentence and the examples, unless the first says nothing asked: `run_pending`'s "Run
    # all jobs that are scheduled to run." is no place for its note on missed jobs, asked how to run a job every hour.
    first = word_stems(code_words(said[0])) & asked
    return _sentence(said[best]) if shared[best] >= 2 and shared[best] > len(first) and not (
        first and HOW_TO(question)) else ""


def _docstring_paragraphs(docstring: str) -> list[str]:
    """A docstring's paragraphs as plain text, each field of a field list one of its own (":param time_str: A string
    in one of …" as "time_str: A string in one of …"), a list's items run on after the sentence introducing them
    ("… the following formats: For daily jobs -> HH:MM:SS or HH:MM; For hourly jobs -> MM:SS or :MM"); without
    examples (doctests, the block after "::"), directives, types' fields and Google's or NumPy's section titles."""
    paragraphs, example = [], False
    for block in re.split(r"\n[ \t]*\n", _FENCED.sub("", docstring or "")):
        indented, lines = block[:1].isspace(), [line.strip() for line in block.strip().split("\n")]
        if example and indented or lines[0].startswith((">>>", ".. ")):
            continue  # an example's or a directive's lines
        example = example and indented or lines[-1].endswith("::") or bool(_EXAMPLE_TITLE.fullmatch(lines[-1]))
        fields = [[]]
        for line in lines:
            if _SECTION_TITLE.fullmatch(line):
                continue
            if line.startswith(":") and fields[-1]:
                fields.append([])
            fields[-1].append(line)
        for field in filter(None, fields):
            text = _plain(_FIELD_NAME.sub(_field_name, _run_on(field), count=1))
            if _BULLET.match(field[0]) and paragraphs and paragraphs[-1].endswith(":"):
                paragraphs[-1] += f" {text}"  # the list a paragraph introduces, a blank line between
            elif len(text.split()) >= 3 and not text.startswith(":"):
                paragraphs.append(text)
    return paragraphs


def _run_on(lines: list[str]) -> str:
    """A paragraph's lines on one line, a list's items parted by "; "."""
    text, item = "", False
    for line in lines:
        bullet = _BULLET.match(line)
        text += ("; " if item and bullet else " ") + (line[bullet.end():] if bullet else line)
        item = item or bool(bullet)
    return text.strip()


def _field_name(match: re.Match) -> str:
    """A reST info field's name as Sphinx shows it (`rst.field_label`): ":param time_str:" as "time_str:", ":returns:"
    as "Returns:", ":raises ValueError:" as "Raises ValueError:"; a type's field (":type x:", ":rtype:") as itself,
    left out."""
    if match.group("kind") in rst.TYPE_FIELDS:
        return match.group(0)
    return f"{rst.field_label(match.group('kind'), match.group('what') or '')}: "


def _opening_and(passage: str, opening: str) -> str:
    """A docstring's first sentence and the passage of it answering the question, when there is one."""
    return f"{_sentence(opening)} {passage}" if passage and opening else passage or opening


def declared_commands(question: str, hits: dict[int, SearchHit]) -> set[int]:
    """The numbers of the hits that are commands the repository declares (C3 rows of entry type "cli"), when the
    question asks which commands the project has or whether it has one (`COMMANDS`, `HAS_COMMANDS`): those its
    manifest installs (console scripts) when it names any — not a parser of its tools' scripts (python-slugify's
    tools/check_dist.py) — else every one."""
    if not (COMMANDS(question) or HAS_COMMANDS(question)):
        return set()
    commands = {number for number, hit in hits.items() if is_command(hit)}
    installed = {number for number in commands if hits[number].metadata.get("entrypoint_kind") == "console_script"}
    return installed or commands


def is_command(hit: SearchHit) -> bool:
    """Whether a row is a command the repository declares (C3, entry type "cli")."""
    return hit.layer == "C3" and (hit.metadata or {}).get("entry_type") == "cli"


def is_prose(hit: SearchHit) -> bool:
    """Whether the source is prose (a document, the documentation, its catalog), not a repository's row."""
    layer = hit.layer or "D0"
    return layer in PROSE_LAYERS or not layer.startswith(("C", "D"))


def first_sentence(docstring: str) -> str:
    """The first sentence of a docstring when it is prose (`doc_summary`; "@api.get(...", an example, and
    "Example:" are not)."""
    sentence = doc_summary(docstring)
    if not sentence[:1].isalpha() or len(sentence.split()) < 3 or sentence.endswith(":"):
        return ""
    return sentence


def _symbol(meta: dict, question: str) -> str:
    qname, path = meta.get("qname") or "", meta.get("source_path") or ""
    if not qname:
        return ""
    summary = first_sentence(meta.get("docstring") or "")
    kind = meta.get("kind") or "symbol"
    if summary:
        # Asked a parameter's default, the signature's declaration of it follows ("What is the default
        # delay_seconds of run_all?": "… Run all jobs regardless if they are scheduled to run or not.
        # delay_seconds: int = 0.").
        said, signature = _said(qname, path, summary, question, kind), meta.get("signature") or ""
        if declared := _declared(signature, question, qname):
            return f"{said} {declared}"
        if not signature.startswith(("def ", "async def ")):
            return said
        declared = _default_asked(f"{signature}:\n    pass", question, qname, _asked_names(question, qname)[1])
        return f"{said} {_sentence(declared)}" if declared else said
    if not path or not (LOCATION(question) or (not HOW_TO(question) and names_symbol(question, qname))):
        return ""
    declared = _declared(meta.get("signature") or "", question, qname, " ")
    return f"{kind.capitalize()} `{qname}` is defined in {path}.{declared}"


def _declared(signature: str, question: str, qname: str, before: str = "") -> str:
    """Asked a symbol's signature, parameters or return value by its name ("What is the signature of intcomma?", "What
    arguments does intcomma accept?"), its signature as its code declares it, or the type it returns; "" otherwise, and
    for a class, whose line declares its bases, not what it takes."""
    signature = " ".join((signature or "").split())
    if not signature or signature.startswith("class ") or not code_names.asks_signature(question) or not names_symbol(
            question, qname):
        return ""
    returned = _RETURNED.search(signature) if _RETURN_ASKED.search(question) else None
    return before + (f"{RETURNS_SAID}{returned.group(1)}`." if returned else f"{SIGNATURE_SAID}{signature}`.")


def says_only_where(text: str, question: str) -> bool:
    """Whether a row's quoted text only says where a symbol is defined (it has no docstring), to a question that
    does not ask where: one such sentence points to the code, more say nothing new (a module, its function of the
    same name, a variable of another file named so)."""
    return bool(_ONLY_WHERE.fullmatch(text)) and not LOCATION(question)


def _asks_integration(question: str, meta: dict) -> bool:
    """Whether the question asks what an integration (D6) says: the services, environment variables or settings
    a repository names, or the one this row names ("What is DOTENV_PATH?"), and is no how-to."""
    if HOW_TO(question):
        return False
    target = str(meta.get("target") or "")
    return (INTEGRATIONS(question) or ENV_VARS(question) or SETTINGS(question)
            or bool(target) and target.lower() in question.lower())


def _asks_links(question: str) -> bool:
    """Whether the question asks what calls, imports, uses or inherits what: what an edge (C2) says."""
    return any(asks(question) for asks in (CALLERS, CALLEES, IMPORTS, USAGES, INHERITS))


def names_symbol(question: str, qname: str) -> bool:
    """Whether the question names the symbol: by its qualified name or its end ("next_run", "attr.s"), or as its
    package exports it from one of its modules ("arrow.now" of `arrow.api.now`)."""
    tokens = {match.group(1) or match.group(2) for match in CODE_TOKEN.finditer(question)}
    parts = qname.split(".")
    return any(qname == token or qname.endswith(f".{token}") or "." in token and len(parts) > 2 and token == ".".join(
        [parts[0], *parts[2:]]) for token in tokens)


def _said(qname: str, path: str, summary: str, question: str, kind: str) -> str:
    if path and kind and LOCATION(question) and names_symbol(question, qname):
        # Asked where it is, the sentence says so ("Where is the Environment class defined?" was refused:
        # "`…Environment` (…): The core component of Jinja is the Environment." is far from it in meaning).
        return _sentence(f"{kind.capitalize()} `{qname}` is defined in {path}: {summary}")
    where = f" ({path})" if path else ""
    return _sentence(f"`{qname}`{where}: {summary}")


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text if _ENDS.search(text) else f"{text}."


def _cli_option_help(code: str, names) -> tuple[str, str]:
    """The help text a command-line option named in `names` is declared with in `code` (click's `@click.option(
    "--override/--no-override", …, help="Override variables …")`, argparse's `add_argument("-v", "--verbose", …,
    help=…)`) as a sentence, with the default it declares when that is written as a value: "--override/--no-override:
    Override variables … (default: True)."; and the name asked ("override"); "", "" when there is none. Help text run
    on by a constant says its whole sentences ("Separator between words." of "Separator between words. By default " +
    DEFAULT_SEPARATOR)."""
    asked = {name.lower() for name in names}
    for declared in _CLI_OPTION.finditer(code):
        written = re.findall(r"[\"'](-[^\"']+)[\"']", declared.group("flags"))  # "-o", "--override/--no-override"
        flags = [flag.lstrip("-").lower() for flag in re.findall(r"-{1,2}[\w-]+", declared.group("flags"))]
        if name := next((flag for flag in flags if flag in asked), ""):
            # The call's arguments: those before the help text and after it, to the call's end.
            call = declared.group(0) + code[declared.end():].split(")", 1)[0]
            default = _CLI_DEFAULT.search(call)
            said = declared.group("help")
            if re.match(r"\s*\+", code[declared.end():]):  # run on by a name: "… By default " + DEFAULT_SEPARATOR:
                ends = [end.end() for end in re.finditer(r"[.!?](?=\s|$)", said)]  # its whole sentences
                said = said[:ends[-1]] if ends else said
            said = said.rstrip(". ") + (f" (default: {default.group(1)})" if default else "")
            return _sentence(f"{', '.join(written)}: {said}"), name
    return "", ""


def naming_paragraph(code: str, question: str, symbol: str = "", path: str = "") -> str:
    """The paragraph of prose in a source chunk (a docstring's, a JSDoc comment's) that writes as code a name the
    question asks about — "`None` values are replaced with a `missingval` string …" in `tabulate()`'s docstring for
    "What does the missingval argument do?", a `:param missingval:` or JSDoc `@param missingval` line — as a
    sentence; "" when there is none. A docstring says what a parameter does below its first sentence, which is all
    the row says otherwise. The names of the chunk's own `symbol` (its qualified name's parts) are not asked this
    way: its docstring's first sentence says what it is, not a later note writing its name (structlog's "Where is
    the class ConsoleRenderer defined?" quoted "`ConsoleRenderer` now handles the ``exc_info`` event dict key …")."""
    return _naming(code, question, symbol, path)[0]


def describes_option(hit: SearchHit, names: list[str], question: str) -> bool:
    """Whether a source says what one of the option `names` a question asks about is, where it has no entry of it:
    prose in a sentence calling it an option or the like ("If the optional argument `typed` is set to True, …",
    `code_names.describes_option`), a chunk of code in its docstring's paragraph writing it as code
    (`naming_paragraph`: "`None` values are replaced with a `missingval` string …")."""
    if not names:
        return False
    if is_prose(hit):
        return any(code_names.describes_option(hit.content or "", name) for name in names)
    meta = hit.metadata or {}
    return hit.layer == "C0" and bool(naming_paragraph(hit.content or "", question, meta.get("qname", ""),
                                                       meta.get("source_path", "")))


def parameter_named(code: str, question: str, symbol: str = "", path: str = "") -> str:
    """The name of the parameter or option whose entry `naming_paragraph` is — its help text, its docstring's "Args:"
    entry or `:param` field, whose sentences answer together ("digest_method: Hash function to use … Defaults to
    default_digest_method, which defaults to hashlib.sha1.") —; "" for any other paragraph."""
    return _naming(code, question, symbol, path)[1]


@functools.lru_cache(maxsize=256)
def _naming(code: str, question: str, symbol: str, path: str) -> tuple[str, str]:
    """`naming_paragraph`, and the parameter whose entry it is (`parameter_named`), read once per source and question
    (an extract asks both of each source of code it quotes). A name the question spells in
    words (`spelled_names`) is a parameter's only: "the lock counter" is no `self._context.lock_counter -= 1`. Of
    Python (the file at `path`, a chunk opening with a definition), only docstrings are prose: the rest of a function
    cut into chunks is its code ("if max_age is not None:" reads as words)."""
    names, entries = _asked_names(question, symbol)
    # A how-to asks what the code is for, unless it asks about a parameter by name ("How do I add a schedule for a
    # task?" is no question about `:param task:`).
    if not entries or HOW_TO(question) and not _PARAMETER_ASKED.search(question):
        return "", ""
    option = _cli_option_help(code or "", entries)
    if not option[0] and _COMMAND_OPTION_ASKED.search(question):  # a usage docstring's table ("the help argument"
        option = option_tables.option_help(code or "", entries)  # of docopt() is no "-h, --help" of its example)
    if option[0]:
        return option
    field = described_parameter(code or "", entries)  # an "Args:" or "Parameters" section's entry
    if field:
        return _with_default(f"{field[0]}: {_plain(field[1])}", code, question, symbol, [field[0]]), field[0]
    writing = ""  # the first paragraph writing a name asked; a `:param` field of it in a later one comes first
    paragraphs = re.split(r"\n[ \t]*\n", code or "")
    python = path.endswith((".py", ".pyi")) or bool(_PYTHON_DEFINITION.match(code or ""))
    # The docstring marks of the paragraphs before: inside one opened there (or before the chunk: a long function's
    # second chunk may open inside its docstring), a line of them alone closes it.
    marks = int(python and opens_inside_docstring(code or ""))
    for at, paragraph in enumerate(paragraphs):
        inside, marks = marks % 2 == 1, marks + paragraph.count('"""') + paragraph.count("'''")
        if python and not inside and not any(quotes in paragraph for quotes in ('"""', "'''")):
            continue  # code outside the docstrings
        # Its lines of prose: a docstring's or a JSDoc comment's, not the code beside them (`await Promise.resolve();`)
        # nor a line comment, which is a note on the code's workings ("Since pendingCount has been decreased …").
        lines = [_COMMENT_MARGIN.sub("", line.strip(), count=1).removesuffix("*/").strip()
                 for line in _comment_lines(paragraph, inside) if not line.lstrip().startswith(("//", "#"))]
        # (Not a doctest's lines, nor a reST directive's: ".. versionchanged:: 21.2.0".)
        text = " ".join(line for line in lines if line and not line.startswith((">>>", "...", '"""', "'''", ".. "))
                        and not line.endswith(_CODE_LINE_ENDS) and not _BLOCK_OPENER.match(line)
                        and not (line.endswith(",") and _SIGNATURE_LINE.match(line))
                        and (code_likeness(as_text(line).replace("`", "")) <= _PROSE_LIKENESS
                             or _FIELD_NAME.match(line)  # (":param tryfirst:" alone, its text below it)
                             or _SENTENCE_END_LINE.fullmatch(line) and line.split()[0] not in keyword.kwlist))
        # The last paragraph, unclosed, may be cut short by the chunk's end ("… receives `path`, `key` and").
        cut = at == len(paragraphs) - 1 and not _ENDS.search(text) and not any(
            line.rstrip().endswith(_CLOSING) for line in paragraph.split("\n"))
        if len(text.split()) < 5 or cut:
            continue
        # A `:param` field of the name asked, alone: a docstring's fields run on as one paragraph (filelock's
        # `acquire`: timeout, poll_interval, poll_intervall, blocking …).
        field = next((match for name in entries if (match := re.search(
            rf":param (?:\w+ )?({re.escape(name)}):\s*(.+?)(?=\s*:(?:param|raises?|returns?|rtype|type)\b|$)", text))),
            None)
        if field:
            return _with_default(f"{field.group(1)}: {_plain(field.group(2))}", code, question, symbol,
                                 [field.group(1)]), field.group(1)
        if not writing and any(
                re.search(rf"`{re.escape(name)}`|(?<![\w*])\*{re.escape(name)}\*(?![\w*])"  # (reST's *strict* too)
                          rf"|@param\s+(?:\{{[^}}]*\}}\s+)?\[?{re.escape(name)}\b", text)
                or _CODE_NAME.fullmatch(name) and writes_name(text, name) for name in names):
            writing = _sentence(_PARAM_FIELD.sub(lambda match: f"{match.group(1) or match.group(2)}: ",
                                                 _plain(text)).rstrip(":"))
    # Asked its default, a parameter no docstring documents is read from the signature: "What is the default format
    # of naturalday?", `format: str = '%b %d'` — a sentence among the others, not the entry a docstring's would be.
    declared = _default_asked(code, question, symbol, entries)
    return (_sentence(declared) if declared else writing), ""


def _asked_names(question: str, symbol: str) -> tuple[set[str], list[str]]:
    """The names of code a question may ask about, but those of `symbol` (its qualified name's parts): its words
    that may be names — of three letters too when the question says it is an option's or a parameter's ("the gnu
    parameter") —, and with them the names it spells in words (`spelled_names`), which only a parameter's entry
    answers."""
    own = set(symbol.split(".")[1:])
    names = {word for word in _ASKED_NAME.findall(question) if word.lower() not in STOP_WORDS} - own | set(
        named_options(question))
    return names, sorted(names | spelled_names(question) - own)


def _with_default(entry: str, code: str, question: str, symbol: str, names: list[str]) -> str:
    """A parameter's docstring entry as a sentence, and its default as the signature declares it when the question
    asks for it and the entry says none: "precision: Number of decimal for first part of the number. precision: int
    = 2." for "What is the default precision of scientific?"."""
    declared = "" if _DEFAULT_ASKED.search(entry) else _default_asked(code, question, symbol, names)
    return f"{_sentence(entry)} {_sentence(declared)}" if declared else _sentence(entry)


def _default_asked(code: str, question: str, symbol: str, names) -> str:
    """The declaration of a parameter of `names` with its default (`_declared_default`) when the question asks its
    default of the function or class it names, `symbol` ("What is the default format of naturalday?"); "" otherwise
    ("What is the default salt?" is no question about `make_signer`'s `salt=None`)."""
    named = {part.lower() for part in symbol.split(".")[1:] if not part.startswith("__")}
    if not _DEFAULT_ASKED.search(question) or not named & {word.lower() for word in re.findall(r"\w+", question)}:
        return ""
    declared = _declared_default(code or "", names)
    return declared[1] if declared else ""


def _declared_default(code: str, names) -> tuple[str, str] | None:
    """The parameter of `names` that the signature of the function `code` opens with gives a default, and its
    declaration as the signature writes it ("format: str = '%b %d'"); None when there is none."""
    function = _opening_definition(code)
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults = [*zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults, strict=True),
                *((argument, default) for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults,
                                                                   strict=True) if default is not None)]
    for argument, default in defaults:
        if argument.arg in names:
            annotation = f": {ast.unparse(argument.annotation)}" if argument.annotation else ""
            return argument.arg, f"{argument.arg}{annotation} = {ast.unparse(default)}"
    return None


def spelled_names(question: str) -> set[str]:
    """The names of code a question may spell as words ("What is the default digest method of Signer?" asks about
    `digest_method`): two or three words in a row of a phrase, in lower case, none a stop word or shorter than three
    letters, joined in snake case, in kebab case (a command-line option's "max-length") and in camel case
    ("digestMethod")."""
    names = set()
    for phrase in re.split(r"[^A-Za-z\s]", question):  # (a comma or a full stop ends a phrase)
        words = phrase.split()
        for at, size in itertools.product(range(len(words)), (2, 3)):
            run = words[at:at + size]
            if len(run) == size and all(len(word) > 2 and word.islower() and word not in STOP_WORDS for word in run):
                names |= {"_".join(run), "-".join(run), run[0] + "".join(word.title() for word in run[1:])}
    return names


def _plain(text: str) -> str:
    """A docstring's reST as plain text: `as_text`, without the backquotes of code and the stars of emphasis ("Do
    **not** use …", "*min_level*")."""
    return EMPHASIS.sub(r"\1", as_text(text)).replace("`", "")


def _comment_lines(paragraph: str, inside: bool = False) -> list[str]:
    """A paragraph's lines up to the one closing its docstring or JSDoc comment: the code after it is no prose
    (pluggy's `get_result`: "… otherwise a list of results. \"\"\"" then `exc = self._exception`). A line holding
    only the marks opens one when no text came before it but a line opening a block (`def render(rows):`) — unless
    the paragraph is `inside` a docstring opened before it: then it closes it (filelock's `release`, its docstring's
    closing marks alone over `self._context.lock_counter -= 1`)."""
    lines = paragraph.split("\n")
    said = inside  # text before the line, other than a line opening a block; or the docstring's, before it
    for at, line in enumerate(lines):
        if line.rstrip().endswith(_CLOSING) and (line.strip() not in _CLOSING or said):
            return lines[:at + 1]
        said = said or bool(line.strip()) and not line.rstrip().endswith((":", *_CODE_LINE_ENDS))
    return lines


def _docstring(code: str) -> str:
    """The docstring of the module, or of the function or class, a source chunk opens with; a JSDoc
    comment opening it; "" when it has none (`_opening_definition`: humanize's `ordinal`, its examples and
    translations in two chunks, said nothing to "How do I show a number as an ordinal?")."""
    code = code or ""
    match = _JS_DOC.match(code.lstrip())
    if match:
        return jsdoc_description(match.group(0))
    first = _opening_definition(code)
    return (ast.get_docstring(first) or "") if first is not None else ""


@functools.lru_cache(maxsize=256)
def _opening_definition(code: str) -> ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Module | None:
    """The function or class a source chunk of Python opens with, else the module when the chunk is whole; None when
    it is not whole Python (a chunk of grouped statements). A long function's first chunk, cut short after its
    docstring, opens with it all the same: the code up to the docstring's closing marks is read alone; and one cut
    short inside its docstring, the docstring closed where the chunk ends (validators' `url`, its long signature and
    diagram leaving the docstring's end to the next chunk). Parsed once per chunk (its summary, the paragraph
    answering and a declared default all read it; the tree is only read)."""
    for whole in (code, *(code[:closing + 3] for closing in _docstring_ends(code)), *_closed_docstring(code)):
        try:
            tree = ast.parse(textwrap.dedent(whole))
        except (SyntaxError, ValueError):
            continue
        first = tree.body[0] if tree.body else None
        if isinstance(first, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return first
        # (A module's docstring is the whole chunk's: one cut short is of grouped statements.)
        return tree if whole is code else None
    return None


def _signature_line(code: str) -> str:
    """The signature of the function a source chunk of Python opens with, as its catalog row writes one ("def
    url(value: str, /, *, skip_ipv6_addr: bool = False) -> bool"); "" for another chunk."""
    opening = _opening_definition(code)
    if not isinstance(opening, ast.FunctionDef | ast.AsyncFunctionDef):
        return ""
    returns = f" -> {ast.unparse(opening.returns)}" if opening.returns else ""
    kind = "async def" if isinstance(opening, ast.AsyncFunctionDef) else "def"
    return f"{kind} {opening.name}({ast.unparse(opening.args)}){returns}"


def _closed_docstring(code: str) -> list[str]:
    """`code` with its first triple-quoted string closed at its end, when the chunk ends inside it ([] when it holds
    none or closes it)."""
    openings = [(code.find(quotes), quotes) for quotes in ('"""', "'''") if quotes in code]
    if not openings:
        return []
    at, quotes = min(openings)
    return [] if code.find(quotes, at + 3) >= 0 else [code.rstrip().rstrip("\\") + quotes]


def opens_inside_docstring(code: str) -> bool:
    """Whether a chunk of Python opens inside a docstring the chunk before opened: its first triple quotes close one
    — alone on their line, or ending a line of prose —, with no definition before them; without triple quotes, most
    of its lines are prose. pluggy's
    `HookimplMarker.__call__`, cut into two chunks, holds its `:param hookwrapper:` and `:param specname:` fields in
    the second."""
    first = min((at for at in (code.find('"""'), code.find("'''")) if at >= 0), default=-1)
    if first < 0:  # a chunk of a docstring's middle, as `tabulate()`'s: most of its lines prose
        lines = [line.strip() for line in code.split("\n") if line.strip()]
        prose = [line for line in lines if not _BLOCK_OPENER.match(line) and not line.endswith(_CODE_LINE_ENDS)
                 and code_likeness(as_text(line).replace("`", "")) <= _PROSE_LIKENESS]
        return bool(lines) and len(prose) * 2 > len(lines)
    before = code[:first]
    line = before.rpartition("\n")[2]
    prose = [text for text in before.split("\n") if text.strip()]
    return bool(prose) and not any(_BLOCK_OPENER.match(text.strip()) for text in prose) and (
        not line.strip() or line.rstrip()[-1:] not in "=(,[{:+" and not re.search(r"\b[rRbBuUfF]{1,2}$", line)) and (
        code_likeness(as_text(" ".join(prose)).replace("`", "")) <= _PROSE_LIKENESS)


def _docstring_ends(code: str) -> list[int]:
    """Where the first string in triple quotes of `code` may close: the next such marks after it opens."""
    ends = []
    for quotes in ('"""', "'''"):
        opening = code.find(quotes)
        closing = code.find(quotes, opening + 3) if opening >= 0 else -1
        ends += [closing] if closing > 0 else []
    return sorted(ends)
