"""The intent router: which layers, filters and limits a question needs, and running that plan.

`plan_question(question, vocabulary)` is rule-based, Russian and English: the first matching
intent wins (`RULES` is ordered from the most specific). Names of documents, services and
entities are recognised through a vocabulary (alias → id) loaded from the D1 and D3 rows of the
bases, so "интеграции сервиса биллинга" can become `source_id = billing-service`. A `Planner` is
anything with `plan(question, vocabulary) -> Plan`; an LLM planner can take the rules' place.

The vocabulary is read and cached per base by `knowledge.search.vocabulary`.

Running a plan is `knowledge.search.planned.plan_and_search(question, kb_ids)`.
"""

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Protocol

from knowledge.indexing.layers.code import route_key
from knowledge.search.vocabulary import find_subject, is_code_name


@dataclass
class Step:
    layers: list[str]
    query: str
    filters: dict = field(default_factory=dict)
    top_k: int = 6
    mode: str = "hybrid"
    # When nothing matches: filter keys dropped in this order ("a->b" renames key a to b instead).
    relax: list[str] = field(default_factory=list)
    expand: str = ""  # "source": C0 chunks of the symbols the hits name
    why: str = ""


@dataclass
class Plan:
    question: str
    intent: str
    language: str
    steps: list[Step]
    subject: str = ""  # the id or code name the question is about, when one was recognised
    planner: str = "rules"
    trace: list[dict] = field(default_factory=list)  # filled by plan_and_search

    def to_dict(self) -> dict:
        return asdict(self)


class Planner(Protocol):
    def plan(self, question: str, vocabulary: dict[str, str] | None = None) -> Plan: ...


HTTP_ROUTE = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(/[\w\-./{}<>:]*)", re.IGNORECASE)
# `backticked`, name(), snake_case, CamelCase.
CODE_NAME = re.compile(r"`([^`]+)`|\b([A-Za-z_][\w.]*\(\))|"
                       r"\b([a-z]+_[a-z0-9_]+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)\b")
CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
LATIN_WORD = re.compile(r"(?<![\w/{])([A-Za-z_][\w.-]*[\w])(?![\w}])")
CUE_NAME = re.compile(r"\b(?:calls?|calling|inherits? from|subclass(?:es)? of|extends|imports?|command|"
                      r"function|method|class|callers of)\s+([A-Za-z_][\w.-]*)", re.IGNORECASE)
NOT_NAMES = {"api", "cli", "http", "https", "sla", "rest", "url", "json", "sql", "get", "post", "put",
             "patch", "delete", "the", "a", "an", "this", "that", "does", "do", "is", "are", "from", "of",
             "to"}


def _has(*patterns: str) -> Callable[[str], bool]:
    compiled = re.compile("|".join(patterns), re.IGNORECASE)
    return lambda text: bool(compiled.search(text))


INTEGRATIONS = _has(r"\bintegrat", r"интеграц", r"интегрир", r"с чем (связан|работает)")
CALLERS = _has(r"\bwho calls\b", r"\bcallers? of\b", r"\bwhere is .* called\b", r"\bwhat calls\b",
               r"кто вызывает", r"где вызывает", r"откуда вызывает", r"какие функции вызывают")
CALLEES = _has(r"\bwhat does .* call\b", r"\bcalled by\b", r"что вызывает (функция|метод)",
               r"какие функции вызывает")
IMPORTS = _has(r"\bimports?\b", r"\bdepends? on\b", r"импорт", r"зависит от")
INHERITS = _has(r"\bsubclass", r"\binherit", r"\bextends\b", r"наслед", r"подкласс")
ENTRYPOINT_WORDS = _has(r"\bendpoint", r"\broute", r"\bhandler", r"эндпоинт", r"маршрут", r"ручк",
                        r"обработчик")
CLI = _has(r"\bcli\b", r"\bcommand\b", r"команд")
DEFINITION = _has(r"\bwhere is .* defined\b", r"\bdefinition of\b", r"\bsignature\b",
                  r"\b(function|method|class)\b", r"где (определ|объявлен)", r"сигнатур",
                  r"(функци|метод|класс)")
ROLES = {
    "api_handler": _has(r"\b(all|list|which) (api )?(handlers|endpoints|routes)\b",
                        r"все (обработчики|эндпоинты|ручки)"),
    "model": _has(r"\b(all|list|which|what) (the )?(data |database |orm |db )?models\b",
                  r"\b(data|database|orm|db) models\b", r"(все|какие) модели"),
    "task": _has(r"\b(all|list|which) (background )?tasks\b", r"(все|какие) (фоновые )?задачи"),
    "test": _has(r"\b(all|list|which) tests\b", r"(все|какие) тесты"),
    "cli_command": _has(r"\b(all|list|which) (cli )?commands\b", r"(все|какие) команды"),
}
WORKFLOW = _has(r"\bhow (does|do|to|is)\b", r"\bworkflow", r"\bscenario", r"\bprocess\b", r"\bsteps?\b",
                r"\bflow\b",
                r"как (работает|происходит|проходит|сделать|выполн|оформ)", r"сценари", r"процесс", r"шаг")
RELATIONS = _has(r"\brelated\b", r"\bparent\b", r"\bchild(ren)?\b", r"\blinks? to\b", r"связан", r"родител",
                 r"дочерн", r"ссылает")
ENTITY_MENTIONS = _has(r"\bmention", r"\bwhich documents? (describe|cover|talk)", r"упомина",
                       r"где говорится")
CATALOG = _has(r"\bwhat (documents|docs)\b", r"\blist of (documents|docs)\b", r"\bsummary\b", r"\boverview\b",
               r"какие документы", r"список документов", r"кратко", r"обзор", r"о чём документ")
FACT_PREDICATES = {
    "owner": _has(r"\bowns?\b", r"\bowner\b", r"владел", r"ответственн"),
    "status": _has(r"\bstatus\b", r"статус"),
    "sla": _has(r"\bsla\b"),
}


class RulePlanner:
    """Keyword and pattern rules in Russian and English."""

    name = "rules"

    def plan(self, question: str, vocabulary: dict[str, str] | None = None) -> Plan:
        text = " ".join(question.split())
        language = "ru" if CYRILLIC.search(text) else "en"
        vocabulary = vocabulary if vocabulary is not None else {}
        subject = find_subject(text, vocabulary)
        code = code_name(text, vocabulary)
        for intent, rule in RULES:
            steps = rule(text, subject, code, vocabulary)
            if steps:
                if intent in CODE_INTENTS:
                    subject = subject or loose_name(text, code, vocabulary)
                return Plan(question=question, intent=intent, language=language, steps=steps,
                            subject=subject or code, planner=self.name)
        raise AssertionError("the fallback rule always matches")  # pragma: no cover


def _integrations(text, subject, code, vocabulary):
    if INTEGRATIONS(text):
        filters = {"source_id": subject} if subject else {}
        return [Step(["D6"], text, filters, top_k=10, relax=list(filters),
                     why="integrations are D6 rows, one per integration"
                         + (f" of {subject}" if subject else "")),
                Step(["D0"], text, top_k=3, why="the sections around them for context")]
    return None


def _http_route(text, subject, code, vocabulary):
    match = HTTP_ROUTE.search(text)
    if match:
        method, path = match.group(1).upper(), match.group(2)
        # Django routes answer any method; a path may be asked as served or as declared in the code.
        return [Step(["C3"], text, {"http_method": [method, "ANY"], "route_key": route_key(path)}, top_k=5,
                     relax=["route_key->declared_route_key", "http_method", "declared_route_key"],
                     expand="source",
                     why=f"the entrypoint that serves {method} {path}, then the handler's source (C0)")]
    if ENTRYPOINT_WORDS(text) and not code:
        return [Step(["C3"], text, {"entry_type": "http"}, top_k=8, relax=["entry_type"], expand="source",
                     why="HTTP entrypoints by their route and handler summary")]
    return None


def _callers(text, subject, code, vocabulary):
    code = loose_name(text, code, vocabulary)
    if code and CALLEES(text):
        name = code.rsplit(".", 1)[-1]
        return [Step(["C2"], text, {"edge_type": "calls", "src_name": name}, top_k=20,
                     relax=["src_name"], why=f"call edges out of {name}")]
    if code and CALLERS(text):
        name = code.rsplit(".", 1)[-1]
        return [Step(["C2"], text, {"edge_type": "calls", "dst_name": name}, top_k=20,
                     relax=["dst_name"], expand="source",
                     why=f"call edges into {name}, then the callers' source")]
    return None


def _inherits(text, subject, code, vocabulary):
    code = loose_name(text, code, vocabulary)
    if code and INHERITS(text):
        name = code.rsplit(".", 1)[-1]
        return [Step(["C2"], text, {"edge_type": "inherits", "dst_name": name}, top_k=20,
                     relax=["dst_name"], why=f"inheritance edges to {name}")]
    return None


def _imports(text, subject, code, vocabulary):
    code = loose_name(text, code, vocabulary)
    if code and IMPORTS(text):
        key = "dst_ref" if "." in code else "dst_name"
        return [Step(["C2"], text, {"edge_type": "imports", key: code}, top_k=20, relax=[key],
                     why=f"import edges to {code}")]
    return None


def _cli(text, subject, code, vocabulary):
    code = loose_name(text, code, vocabulary) if CLI(text) else code
    if CLI(text) and (code or re.search(r"\b(cli|command line|командн)", text, re.IGNORECASE)):
        filters = {"entry_type": "cli", **({"route_or_command": code.replace("_", "-")} if code else {})}
        return [Step(["C3"], text, filters, top_k=5, relax=["route_or_command"], expand="source",
                     why="CLI commands are C3 entrypoints")]
    return None


def _roles(text, subject, code, vocabulary):
    for role, matches in ROLES.items():
        if matches(text):
            return [Step(["C4"], text, {"role": role}, top_k=50, relax=["role"],
                         why=f"symbols with the role {role}")]
    return None


def _symbol(text, subject, code, vocabulary):
    if DEFINITION(text):
        code = loose_name(text, code, vocabulary)
    if code and DEFINITION(text) or code and not subject:
        name = code.rsplit(".", 1)[-1]
        key = "qname" if "." in code else "name"
        return [Step(["C1"], text, {key: code if key == "qname" else name}, top_k=5, relax=[key],
                     expand="source",
                     why=f"the symbol {code} in the catalog, then its source")]
    return None


def _facts(text, subject, code, vocabulary):
    for predicate, matches in FACT_PREDICATES.items():
        if matches(text):
            filters = {"predicate": predicate, **({"subject_id": subject} if subject else {})}
            return [Step(["D2"], text, filters, top_k=5, relax=["subject_id", "predicate"],
                         why=f"the fact '{predicate}'" + (f" of {subject}" if subject else "")),
                    Step(["D1"], text, {"document_id": subject} if subject else {}, top_k=2,
                         relax=["document_id"] if subject else [], why="the document's card")]
    return None


def _workflow(text, subject, code, vocabulary):
    if WORKFLOW(text):
        filters = {"document_id": subject} if subject else {}
        return [Step(["D4"], text, filters, top_k=3, relax=list(filters), why="workflows (scenarios) first"),
                Step(["D0", "C0"], text, top_k=6, why="then the sections and the source that describe them")]
    return None


def _relations(text, subject, code, vocabulary):
    if RELATIONS(text):
        filters = {"source_id": subject} if subject else {}
        return [Step(["D5"], text, filters, top_k=10, relax=list(filters),
                     why="relation edges between documents"),
                Step(["D1"], text, top_k=5, why="cards of the related documents")]
    return None


def _mentions(text, subject, code, vocabulary):
    if ENTITY_MENTIONS(text):
        filters = {"entity_name": subject} if subject else {}
        return [Step(["D3"], text, filters, top_k=10, relax=list(filters),
                     why="entities and where they appear"),
                Step(["D5"], text, {"relation_type": "mentions"}, top_k=10, why="mention edges")]
    return None


def _catalog(text, subject, code, vocabulary):
    if CATALOG(text):
        filters = {"document_id": subject} if subject else {}
        return [Step(["D1"], text, filters, top_k=8, relax=list(filters),
                     why="document cards with summaries")]
    return None


def _fallback(text, subject, code, vocabulary):
    return [Step(["D0", "C0"], text, top_k=6, why="no specific intent: sections and source chunks, hybrid")]


CODE_INTENTS = {"calls", "inheritance", "imports", "cli", "symbol"}
RULES = (
    ("integrations", _integrations),
    ("entrypoint", _http_route),
    ("calls", _callers),
    ("inheritance", _inherits),
    ("imports", _imports),
    ("cli", _cli),
    ("roles", _roles),
    ("symbol", _symbol),
    ("facts", _facts),
    ("workflow", _workflow),
    ("relations", _relations),
    ("entities", _mentions),
    ("catalog", _catalog),
    ("general", _fallback),
)


def code_name(text: str, vocabulary=None) -> str:
    """The code identifier a question names: `backticked`, `name()`, snake_case or CamelCase.

    Only a name of the bases' code counts (when the vocabulary lists them, see `is_code_name`):
    a product name such as "PostgreSQL" is CamelCase too.
    """
    for match in CODE_NAME.finditer(HTTP_ROUTE.sub(" ", text)):
        name = next(group for group in match.groups() if group)
        name = name.removesuffix("()").strip()
        if name and not HTTP_ROUTE.match(name) and is_code_name(name, vocabulary):
            return name
    return ""


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


def plan_question(question: str, vocabulary: dict[str, str] | None = None, *,
                  planner: Planner | None = None) -> Plan:
    """The plan for one question (rules unless another planner is given)."""
    return (planner or RulePlanner()).plan(question, vocabulary)
