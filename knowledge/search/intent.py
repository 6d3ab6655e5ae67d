"""The intent router: which layers, filters and limits a question needs, and running that plan.

`plan_question(question, vocabulary)` is rule-based, Russian and English: the first matching
intent wins (`RULES` is ordered from the most specific). Names of documents, services and
entities are recognised through a vocabulary (alias → id) loaded from the D1 and D3 rows of the
bases, so "интеграции сервиса биллинга" can become `source_id = billing-service`. A `Planner` is
anything with `plan(question, vocabulary) -> Plan`; an LLM planner can take the rules' place.

The vocabulary is read and cached per base by `knowledge.search.vocabulary`; the code names a
question asks about come from `knowledge.search.code_names`, and the rules read the question with
them masked (a word inside `dotenv.cli` is no question about a CLI).

A plan's steps and the plan itself are `knowledge.search.plans`; running a plan is
`knowledge.search.planned.plan_and_search(question, kb_ids)`.
"""

import re
from dataclasses import dataclass

from knowledge.indexing.layers.code import route_key
from knowledge.search.code_names import (
    CYRILLIC,
    HTTP_ROUTE,
    code_name,
    command_name,
    document_subject,
    env_var_name,
    loose_name,
    mask_code,
    qualified_forms,
    without_name,
)
from knowledge.search.intent_words import (
    CALLEES,
    CALLERS,
    CATALOG,
    CLI,
    COMMANDS,
    COMPARISON,
    DEFINITION,
    ENTITY_MENTIONS,
    ENTRYPOINT_WORDS,
    ENV_VAR_READ,
    ENV_VARS,
    FACT_PREDICATES,
    HOW_TO,
    IMPORTS,
    IMPORTS_OUT,
    INHERITS,
    INSTALL_ASKED_RU,
    INTEGRATIONS,
    LOCATION,
    OVERVIEW,
    RELATIONS,
    RELEASE,
    ROLES,
    SERVES,
    SETTINGS,
    SIGNATURE,
    USAGES,
    VERSION,
    WORKFLOW,
    YES_NO,
    name_words,
    names_whole,
    what_is_named,
)
from knowledge.search.plans import Plan, Planner, Step, precise_keys
from knowledge.search.vocabulary import find_subject

__all__ = ["Plan", "Planner", "RulePlanner", "Step", "code_name", "find_subject", "loose_name", "plan_question",
           "precise_keys"]


@dataclass
class Asked:
    """A question as the rules read it: `words` is the text with its code names masked (§)."""

    text: str
    words: str
    subject: str
    code: str
    vocabulary: dict


class RulePlanner:
    """Keyword and pattern rules in Russian and English."""

    name = "rules"

    def plan(self, question: str, vocabulary: dict[str, str] | None = None) -> Plan:
        text = " ".join(question.split())
        language = "ru" if CYRILLIC.search(text) else "en"
        vocabulary = vocabulary if vocabulary is not None else {}
        code = code_name(text, vocabulary)
        words = mask_code(text, code)  # a word inside a code name triggers no intent ("dotenv.cli")
        # A name written as code is the name, not a document ("`dotenv.main`" does not name "dotenv").
        asked = Asked(text, words, document_subject(mask_code(text), vocabulary), code, vocabulary)
        for intent, rule in RULES:
            steps = rule(asked)
            if steps:
                subject = asked.subject
                if intent in CODE_INTENTS:
                    subject = loose_name(text, code, vocabulary) or subject
                return Plan(question=question, intent=intent, language=language, steps=steps,
                            subject=subject or code, planner=self.name)
        raise AssertionError("the fallback rule always matches")  # pragma: no cover


def _env_vars(q: Asked):
    name = env_var_name(q.text, q.vocabulary)
    if name and ENV_VAR_READ(q.words) and not DEFINITION(q.words):
        return [Step(["D6"], q.text, {"target_type": "env_var", "target": name}, top_k=10, relax=["target"],
                     prefer={"interaction": "reads"},
                     why=f"the files that read or name the environment variable {name}, each with its lines "
                         "(the code's reads first)"),
                Step(["D0", "C0"], q.text, top_k=4, why="the sections and source around them")]
    if not ENV_VARS(q.words) or HOW_TO(q.words):
        return None
    # A question naming the project (its README's title) asks about the whole repository.
    source = q.subject if q.subject not in getattr(q.vocabulary, "readmes", ()) else ""
    filters = {"target_type": "env_var", **({"source_id": source} if source else {})}
    return [Step(["D6"], q.text, filters, top_k=10, relax=[key for key in filters if key != "target_type"],
                 precise=["target_type"], prefer={"interaction": "reads"},
                 why="environment variables are D6 rows: one per variable and file that reads or names it "
                     "(the code's reads first)"),
            Step(["D0", "C0"], q.text, top_k=4, why="the sections and source around them")]


def _settings(q: Asked):
    """The settings code reads (`settings.X`, `getattr(settings, "X")`) and the documentation names."""
    name = env_var_name(q.text, q.vocabulary, "settings")
    if name and ENV_VAR_READ(q.words) and not DEFINITION(q.words):
        return [Step(["D6"], q.text, {"target_type": "setting", "target": name}, top_k=10, relax=["target"],
                     why=f"the files that read or name the setting {name}, each with its lines"),
                Step(["D0", "C0"], q.text, top_k=4, why="the sections and source around them")]
    # (As for environment variables, a how-to asks the documentation: "How do I read a constance setting in code?" is
    # no question about the settings the code reads, whose rows quote nothing to a how-to.)
    if not (SETTINGS(q.words) and ENV_VAR_READ(q.words)) or HOW_TO(q.words):
        return None
    source = q.subject if q.subject not in getattr(q.vocabulary, "readmes", ()) else ""
    filters = {"target_type": "setting", **({"source_id": source or q.code} if source or q.code else {})}
    return [Step(["D6"], q.text, filters, top_k=15, relax=[key for key in filters if key != "target_type"],
                 precise=["target_type"], why="settings are D6 rows: one per setting and file that reads or names it"),
            Step(["D0", "C0"], q.text, top_k=4, why="the sections and source around them")]


def _overview(q: Asked):
    """What the repository is made of: its modules with their docstrings, the most imported first."""
    if OVERVIEW(q.text) and not (IMPORTS(q.words) or CALLERS(q.words) or USAGES(q.words) or INHERITS(q.words)):
        return [Step(["C1"], q.text, {"kind": "module", "is_test": False}, top_k=12, order="imported",
                     relax=["is_test"], precise=["kind"],
                     why="the repository's modules with their docstrings, the most imported first"),
                Step(["D1"], q.text, top_k=4, why="the documents' cards (the README's summary)")]
    return None


def _integrations(q: Asked):
    # "How do I integrate structlog with logging?" asks for a procedure (the documentation), not for the
    # services and addresses the repository's pages mention.
    if INTEGRATIONS(q.words) and not HOW_TO(q.words):
        filters = {"source_id": q.subject} if q.subject else {}
        return [Step(["D6"], q.text, filters, top_k=10, relax=list(filters),
                     why="integrations are D6 rows, one per integration"
                         + (f" of {q.subject}" if q.subject else "")),
                Step(["D0"], q.text, top_k=3, why="the sections around them for context")]
    return None


# A URL path written in a question ("/<int:id>/update", "/users/{id}"): a slash opening a word, then more than it.
_ROUTE_PATH = re.compile(r"(?<![\w./:])(/[\w\-.{}<>:]+(?:/[\w\-.{}<>:]*)*)")


def _http_route(q: Asked):
    match = HTTP_ROUTE.search(q.text)
    if match:
        method, path = match.group(1).upper(), match.group(2)
        # Django routes answer any method; a path may be asked as served or as declared in the code.
        return [Step(["C3"], q.text, {"http_method": [method, "ANY"], "route_key": route_key(path)}, top_k=5,
                     relax=["route_key->declared_route_key", "http_method", "declared_route_key"],
                     expand="source",
                     why=f"the entrypoint that serves {method} {path}, then the handler's source (C0)")]
    # A path without a method, asked who handles or serves it ("Which function handles /<int:id>/update?"): any method.
    path = _ROUTE_PATH.search(q.text)
    if path and (ENTRYPOINT_WORDS(q.words) or SERVES(q.text)) and not HOW_TO(q.words):
        return [Step(["C3"], q.text, {"entry_type": "http", "route_key": route_key(path.group(1))}, top_k=5,
                     relax=["route_key->declared_route_key", "declared_route_key"], expand="source",
                     why=f"the entrypoint that serves {path.group(1)}, then the handler's source (C0)")]
    # "What does the routes command show?" asks about a command that the word names.
    if (ENTRYPOINT_WORDS(q.words) and not q.code and not HOW_TO(q.words)
            and not (CLI(q.words) and command_name(q.words, q.vocabulary))):
        return [Step(["C3"], q.text, {"entry_type": "http"}, top_k=8, relax=["entry_type"], expand="source",
                     why="HTTP entrypoints by their route and handler summary")]
    return None


def _edge_step(q: Asked, edge_type: str, side: str, code: str, why: str, **options) -> Step:
    """C2 edges of one type whose source (`side="src"`) or target (`"dst"`) is `code`.

    A qualified name (`Config.load`) is matched as a suffix at a dot (`uvicorn.config.Config.load`)
    among the bases' names; only when no edge has it is the bare name (`load`) tried.
    """
    name = code.rsplit(".", 1)[-1]
    if "." not in code:
        return Step(["C2"], q.text, {"edge_type": edge_type, f"{side}_name": name}, top_k=20,
                    relax=[f"{side}_name"], why=why, **options)
    key = "src_qname" if side == "src" else "dst_ref"
    return Step(["C2"], q.text, {"edge_type": edge_type, key: qualified_forms(code, q.vocabulary)}, top_k=20,
                relax=[{key: None, f"{side}_name": name}, f"{side}_name"], precise=[key], why=why, **options)


def _callers(q: Asked):
    code = loose_name(q.text, q.code, q.vocabulary)
    if code and CALLEES(q.words):
        return [_edge_step(q, "calls", "src", code, f"call edges out of {code}")]
    if code and CALLERS(q.words):
        return [_edge_step(q, "calls", "dst", code, f"call edges into {code}, then the callers' source",
                           expand="source")]
    return None


def _usages(q: Asked):
    code = loose_name(q.text, q.code, q.vocabulary)
    if code and USAGES(q.words):
        name = code.rsplit(".", 1)[-1]
        target = ({"dst_ref": qualified_forms(code, q.vocabulary)} if "." in code else {"dst_name": name})
        key = next(iter(target))
        return [Step(["C2"], q.text, target, top_k=20, relax=[key], expand="source",
                     why=f"calls, imports and subclasses of {code}, then the source that uses it"),
                Step(["C2"], q.text, {"edge_type": "imports", "imported_name": name}, top_k=10,
                     relax=["imported_name"], why=f"the modules that import {name} by name")]
    return None


def _inherits(q: Asked):
    code = loose_name(q.text, q.code, q.vocabulary)
    if code and INHERITS(q.words):
        return [_edge_step(q, "inherits", "dst", code, f"inheritance edges to {code}")]
    return None


def _imports(q: Asked):
    code = loose_name(q.text, q.code, q.vocabulary)
    if code and IMPORTS(q.words):
        if IMPORTS_OUT(q.words):
            forms = qualified_forms(code, q.vocabulary)
            return [Step(["C2"], q.text, {"edge_type": "imports", "src_qname": forms}, top_k=20,
                         relax=[{"src_qname": None, "src_name": code.rsplit(".", 1)[-1]}, "src_name"],
                         precise=["src_qname"], why=f"import edges out of {code}: what it imports")]
        # A module is the edge's target; a class or function is the name imported from its module; a
        # package (one word: `click`) is the top of every import from it (`from click import echo`).
        name = code.rsplit(".", 1)[-1]
        relax = [{"dst_ref": None, "imported_name": name}, "imported_name"]
        if "." not in code:
            relax = [{"dst_ref": None, "dst_root": code}, {"dst_root": None, "imported_name": name}, "imported_name"]
        return [Step(["C2"], q.text, {"edge_type": "imports", "dst_ref": qualified_forms(code, q.vocabulary)},
                     top_k=20, relax=relax, precise=["dst_ref", "dst_root", "imported_name"],
                     why=f"import edges to {code}: the modules that import it")]
    return None


def _cli(q: Asked):
    code = loose_name(q.text, q.code, q.vocabulary) if CLI(q.words) else q.code
    if CLI(q.words) and COMMANDS(q.words) and not q.code:  # "What commands does gunicorn install?": all of them
        return [Step(["C3"], q.text, {"entry_type": "cli"}, top_k=10, relax=["entry_type"],
                     why="the commands the repository installs and declares (C3), each with its handler"),
                Step(["C4"], q.text, {"role": "cli_command"}, top_k=10, relax=["role"],
                     why="the functions that run them")]
    if CLI(q.words) and not code:
        code = command_name(q.words, q.vocabulary)  # "the qcluster command": a plain word that is a command
    if CLI(q.words) and HOW_TO(q.words) and code not in (getattr(q.vocabulary, "commands", None) or ()):
        return None  # "How do I add a custom CLI command?": the documentation and the API it names
    if CLI(q.words) and (code or re.search(r"\b(cli|command line|командн)", q.words, re.IGNORECASE)):
        filters = {"entry_type": "cli", **({"route_or_command": code.replace("_", "-")} if code else {})}
        return [Step(["C3"], q.text, filters, top_k=5, relax=["route_or_command"], expand="source",
                     why="CLI commands are C3 entrypoints")]
    return None


def _roles(q: Asked):
    for role, matches in ROLES.items():
        if matches(q.words) and not HOW_TO(q.words):
            return [Step(["C4"], q.text, {"role": role}, top_k=50, relax=["role"],
                         why=f"symbols with the role {role}")]
    return None


def _symbol(q: Asked):
    # A plain word that names a symbol too is that symbol when the question asks for a definition, not in
    # a how-to ("How do I make a class frozen?": attrs' documentation says how, not `attr._next_gen.frozen`).
    code = loose_name(q.text, q.code, q.vocabulary) if DEFINITION(q.words) and not HOW_TO(q.words) else q.code
    if code and (DEFINITION(q.words) or not q.subject or _proper_name(q.text, code, q.subject)):
        symbols = [_symbol_step(q, code, f"the symbol {code} in the catalog, then its source")]
        # "What is the difference between wait_fixed and wait_random?" asks about both.
        other = code_name(without_name(q.text, code, " "), q.vocabulary) if COMPARISON(q.words) else ""
        if other and other != code:
            symbols.append(_symbol_step(q, other, f"and the symbol {other} it is compared with"))
        # Asked what it does or how it is used, the documentation may say so where its code does not (colorama's
        # `just_fix_windows_console` has no docstring; its README's "Initialisation" says what it does).
        return symbols + ([] if LOCATION(q.words) or SIGNATURE(q.words) else [
            Step(["D0"], q.text, top_k=3, why="then the documentation's sections naming it")])
    return None


def _proper_name(text: str, code: str, subject: str) -> bool:
    """Whether the question writes the symbol's name capitalised inside a sentence, as a class is named ("What does
    the Nested field do?"), and its subject is not that name (an entity "Invoice" a document mentions): that is the
    symbol, not a document titled with another word of the question (marshmallow's API page "fields" for "field")."""
    name = code.rsplit(".", 1)[-1]
    return (name[:1].isupper() and subject.lower() != name.lower()
            and bool(re.search(rf"(?<=[\w,;:] ){re.escape(name)}(?![\w.])", text)))


def _symbol_step(q: Asked, code: str, why: str) -> Step:
    """The catalog's rows of the symbol `code` names, then its source."""
    name = code.rsplit(".", 1)[-1]
    if "." not in code:
        return Step(["C1"], q.text, {"name": name}, top_k=5, relax=["name"], expand="source", why=why)
    # A partly qualified name matches as a suffix at a dot: `Config.load` is `uvicorn.config.Config.load`.
    return Step(["C1"], q.text, {"qname": qualified_forms(code, q.vocabulary)}, top_k=5,
                relax=[{"qname": None, "name": name}, "name"], precise=["qname"], expand="source", why=why)


def _facts(q: Asked):
    for predicate, matches in FACT_PREDICATES.items():
        if matches(q.words):
            filters = {"predicate": predicate, **({"subject_id": q.subject} if q.subject else {})}
            return [Step(["D2"], q.text, filters, top_k=5, relax=["subject_id", "predicate"],
                         why=f"the fact '{predicate}'" + (f" of {q.subject}" if q.subject else "")),
                    Step(["D1"], q.text, {"document_id": q.subject} if q.subject else {}, top_k=2,
                         relax=["document_id"] if q.subject else [], why="the document's card")]
    return None


def _workflow(q: Asked):
    if WORKFLOW(q.words):
        filters = {"document_id": q.subject} if q.subject else {}
        workflows = Step(["D4"], q.text, filters, top_k=3, relax=list(filters), why="workflows (scenarios) first")
        if HOW_TO(q.words):
            # Asked in Russian how to install a project, documentation in English says how as "install": searched so
            # too ("Как установить python-dotenv?" found its IPython extension, not its `pip install python-dotenv`).
            return [workflows, *[Step(["D0"], f"install {project.group(1)}", top_k=3,
                                      why="the documentation's sections on installing it, in English")
                                 for project in [INSTALL_ASKED_RU.search(q.text)] if project],
                    Step(["D0"], q.text, top_k=6, why="then the documentation's sections: a how-to is "
                                                      "answered by its pages"),
                    Step(["C0"], q.text, top_k=3, why="then the source they name")]
        return [workflows,
                Step(["D0", "C0"], q.text, top_k=6, why="then the sections and the source that describe them")]
    return None


def _relations(q: Asked):
    if RELATIONS(q.words):
        filters = {"source_id": q.subject} if q.subject else {}
        return [Step(["D5"], q.text, filters, top_k=10, relax=list(filters),
                     why="relation edges between documents"),
                Step(["D1"], q.text, top_k=5, why="cards of the related documents")]
    return None


def _mentions(q: Asked):
    if ENTITY_MENTIONS(q.words):
        filters = {"entity_name": q.subject} if q.subject else {}
        return [Step(["D3"], q.text, filters, top_k=10, relax=list(filters),
                     why="entities and where they appear"),
                Step(["D5"], q.text, {"relation_type": "mentions"}, top_k=10, why="mention edges")]
    return None


def _catalog(q: Asked):
    if CATALOG(q.words):
        filters = {"document_id": q.subject} if q.subject else {}
        return [Step(["D1"], q.text, filters, top_k=8, relax=list(filters),
                     why="document cards with summaries")]
    return None


def _release(q: Asked):
    version = VERSION.search(q.words)
    if version and RELEASE(q.words):  # "What changed in 4.21.0?": the changelog's section that names it
        return [Step(["D0"], version.group(0), {"doc_kind": "changelog"}, top_k=3, mode="keyword", relax=["doc_kind"],
                     expand="section",
                     why=f"the changelog's section of release {version.group(0)}, found by its number")]
    return None


def _project(q: Asked):
    """"What is schedule?" naming a project by its README's title, or part of it ("commander" for "Commander.js"),
    or by the package name the manifest beside it gives ("attrs" for a README titled "README"):
    what its README says it is first (its card: the title and first paragraph), then as usual. The README whose
    title is closest, whichever document the question's words named first (a documentation index titled
    "Tenacity" too)."""
    named, readmes = what_is_named(q.text), getattr(q.vocabulary, "readmes", ())
    if not named or not readmes:
        return None
    names = [*q.vocabulary.items(), *getattr(q.vocabulary, "projects", {}).items()]
    titles = [(len(name_words(alias) - named), identifier) for alias, identifier in names
              if identifier in readmes and names_whole(named, alias)]
    if not titles:
        return None
    readme = min(titles)[1]
    return [Step(["D1"], q.text, {"document_id": readme}, top_k=1, precise=["document_id"],
                 why="what the project says it is: its README's card"),
            Step(["D0", "C0"], q.text, top_k=6, why="then the sections and source chunks, hybrid")]


def _fallback(q: Asked):
    if YES_NO(q.words):
        # "Does tenacity support asyncio?": its documentation says so ("retry works also on asyncio …"); its source
        # chunks, named by the word ("tenacity/asyncio/__init__.py"), say what it is made of.
        return [Step(["D0"], q.text, top_k=6, why="a yes-or-no question: the documentation's sections first"),
                Step(["C0"], q.text, top_k=3, why="then the source they name")]
    return [Step(["D0", "C0"], q.text, top_k=6, why="no specific intent: sections and source chunks, hybrid")]


CODE_INTENTS = {"calls", "usages", "inheritance", "imports", "cli", "symbol"}
RULES = (
    ("env_vars", _env_vars),
    ("settings", _settings),
    ("overview", _overview),
    ("integrations", _integrations),
    ("entrypoint", _http_route),
    ("calls", _callers),
    ("usages", _usages),
    ("inheritance", _inherits),
    ("imports", _imports),
    ("cli", _cli),
    ("roles", _roles),
    ("project", _project),
    ("symbol", _symbol),
    ("release", _release),
    ("facts", _facts),
    ("workflow", _workflow),
    ("relations", _relations),
    ("entities", _mentions),
    ("catalog", _catalog),
    ("general", _fallback),
)


def plan_question(question: str, vocabulary: dict[str, str] | None = None, *,
                  planner: Planner | None = None) -> Plan:
    """The plan for one question (rules unless another planner is given)."""
    return (planner or RulePlanner()).plan(question, vocabulary)
