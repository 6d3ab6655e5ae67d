"""The words of the intent router's rules, English and Russian: each a test of a question's text."""

import re
from collections.abc import Callable


def _has(*patterns: str) -> Callable[[str], bool]:
    compiled = re.compile("|".join(patterns), re.IGNORECASE)
    return lambda text: bool(compiled.search(text))


INTEGRATIONS = _has(r"\bintegrat", r"интеграц", r"интегрир", r"с чем (связан|работает)")
# A question asking for environment variables themselves: which, a list, whether any are read — not one asking
# what happens to them ("What happens to environment variables that were already set?", dotenv's FAQ).
_ENV = r"(environment variables?|env(ironment)?[ _-]?vars?)\b"
ENV_VARS = _has(rf"\b(which|what)\s+(\w+\s+)?{_ENV}", rf"\b(list|all|any)\s+(of\s+)?(the\s+)?{_ENV}",
                rf"\b(reads?|uses?|supports?|needs?|requires?)\s+(any\s+|the\s+)?{_ENV}",
                r"\bкак(ие|ая|ой|ую|их)\s+(\w+\s+)?переменн\w* (окружения|среды)",
                r"\b(список|все)\s+переменн\w* (окружения|среды)",
                r"(чита\w*|использу\w*|нужн\w*)\s+(\w+\s+)?переменн\w* (окружения|среды)")
CALLERS = _has(r"\bwho calls\b", r"\bcallers? of\b", r"\bwhere is .* (called|invoked)\b", r"\bwhat calls\b",
               r"\b(which|what) (\w+ )?(functions?|methods?|code|classes|modules|places|tests?)\b.*\b(call|invoke)",
               r"кто вызывает", r"где вызывает", r"откуда вызывает", r"какие (функции|методы|тесты) (его )?вызывают")
CALLEES = _has(r"\b(what|which)\b.*\bdoes .* (call|invoke)\b", r"\bcalled by\b", r"\bcallees of\b",
               r"что вызывает (функция|метод)", r"какие (функции|методы) вызывает")
IMPORTS = _has(r"\bimport(s|ed|ers?)?\b", r"\bdepends? on\b", r"\bdependen(cies|ts?)\b", r"импорт",
               r"завис(ит|ят)", r"зависимост")
# What the module itself imports (outgoing edges); otherwise an import question asks who imports it.
# "Что импортирует модуль X?" is read as what X imports; "Кто импортирует X" as who imports it.
IMPORTS_OUT = _has(r"\b(what|which)\b.*\bdoes .* (import|depend on|require|need)\b", r"\bdependencies of\b",
                   r"\bimports of\b", r"\bis .* dependent on\b", r"что импортирует", r"какие \w+ импортирует",
                   r"от (чего|каких \w+) зависит", r"зависимости")
USAGES = _has(r"\bwhere is .* used\b", r"\bwhere .* (is|are) used\b", r"\busages? of\b", r"\breferences? to\b",
              r"\bwho uses\b", r"\bwhat uses\b", r"\b(which|what) \w+ uses?\b", r"\bused by\b",
              r"где (используется|используются|применяется)", r"кто использует",
              r"использовани")
INHERITS = _has(r"\bsubclass", r"\binherit", r"\bextend(s|ing)?\b", r"наслед", r"подкласс")
ENTRYPOINT_WORDS = _has(r"\bendpoint", r"\broute", r"\bhandler", r"эндпоинт", r"маршрут", r"ручк",
                        r"обработчик")
# Asked who handles, serves or maps a path written without a method ("Which function handles /<int:id>/update?").
SERVES = _has(r"\b(?:handl|serv|map)(?:e|es|ed|ing|s)?\b", r"обрабатыва", r"обслужива")
CLI = _has(r"\bcli\b", r"\bcommands?\b", r"команд")
# A how-to ("How do I test a click command?", "How do I read an environment variable into an option?",
# "Как добавить свою команду?"): the documentation answers it, not a list of the repository's commands,
# variables, routes or models — unless it names one of them.
_HOW_TO_RU = r"\bкак (мне |можно |нужно |же )?\w+(ть|ться|чь)\b"  # "Как добавить …?": "как" and an infinitive
HOW_TO = _has(r"\bhow (do|can|should|would|could) (i|we|you|one)\b", r"\bhow to\b", _HOW_TO_RU)
# A question a yes or a no answers: opening with an auxiliary verb, or asking with "ли" ("Можно ли …?").
YES_NO = _has(r"^\W*(do|does|did|is|are|was|were|can|could|should|would|will|shall|may|might|must|has|have|had)\b",
              r"\bли\b")
# A comparison of two things: "What is the difference between A and B?", "A vs B", "Чем A отличается от B?".
COMPARISON = _has(r"\bdiffer", r"\bcompar", r"\bversus\b", r"\bvs\b", r"разниц", r"различ", r"отлича", r"сравн")
# Where something is: its file, its module ("Where is Config defined?", "В каком файле next_run?").
# Not where to put something of one's own: "Where do I put CorsMiddleware in MIDDLEWARE?" asks how to configure it (its
# README's Setup), not the file defining the class.
_LOCATED = _has(r"\bwhere\b", r"\b(which|what) (file|module|package)\b", r"\bdefined\b", r"\blocat",
                r"\bгде\b", r"\bв как\w+ (файле|модуле|пакете)\b", r"определ[её]н|объявлен")
_PLACED = _has(r"\bwhere\s+(do|can|should|would|must)\s+(i|we|you|one)\s+(put|place|add|insert|register|mount|include"
               r"|configure|declare|list|write)\b", r"\bwhere\s+(do|does|should|must)\s+(\S+\s+){1,4}go\b")


def LOCATION(text: str) -> bool:  # noqa: N802 — a predicate named as the patterns beside it are
    return _LOCATED(text) and not _PLACED(text)
# The commands a package installs or provides, as a list.
COMMANDS = _has(r"\b(what|which|all|list)\b.*\bcommands\b", r"\bconsole scripts\b", r"(все|какие)( \w+)? команды")
# Whether the project has a command at all: "Is there a command line tool?", "Does it have a CLI?", "Есть ли CLI?".
HAS_COMMANDS = _has(r"\b(is|are) there\b.*\b(cli|command[- ]line|commands?)\b",
                    r"\b(does|do|can)\b.*\b(have|has|provide|ship|include|come with|offer)\b.*\b(cli|command[- ]line"
                    r"|commands?)\b", r"\bесть ли\b.*\b(cli|командн\w*|команд\w*)")
# Which versions of something the project supports, requires or works with ("What versions of Django are supported?",
# "Which Python version is required?", "Какие версии Python поддерживаются?"): its requirements now.
SUPPORT_ASKED = _has(r"\bversions?\b.*\b(?:support|compatib|requir|work)",
                     r"\b(?:support|compatib|requir)\w*\b.*\bversions?\b",
                     r"верси\w*.*(?:поддерж|совмест|требу)", r"(?:поддерж|совмест|требу)\w*.*верси")
# The packages a project depends on, asked of the project ("What are the dependencies of humanize?", "Which packages
# does it require?"), not the versions of one it supports (`SUPPORT_ASKED`).
DEPENDENCIES_ASKED = _has(r"\bdependenc(?:y|ies)\b", r"\bdepends? on\b",
                          r"\brequire[sd]?\b.*\b(?:packages?|librar(?:y|ies))\b",
                          r"\b(?:packages?|librar(?:y|ies))\b.*\b(?:require|need)", r"\bthird[- ]party\b",
                          r"зависимост", r"зависит от", r"(?:пакет|библиотек)\w*.*(?:нужн|требу)")
# The project's own version, asked ("What is the latest version?", "Which version is this?", "Какая текущая версия?"),
# not the versions of something it supports (`SUPPORT_ASKED`).
_VERSION_ASKED = _has(r"\b(?:latest|current|newest|most recent)\s+(?:version|release)\b",
                      r"\b(?:what|which)\s+version\s+(?:is|of)\s+(?:this|it|the (?:project|package|library))\b",
                      r"\bversion\s+(?:number\s+)?(?:is|of)\s+(?:this|the (?:project|package|library))\b",
                      r"(?:последн|текущ|актуальн)\w*\s+верси", r"\bкакая\s+верси\w*\s+(?:у|это)")


def VERSION_ASKED(text: str) -> bool:  # noqa: N802 — a predicate named as the patterns beside it are
    return _VERSION_ASKED(text) and not SUPPORT_ASKED(text)


# Who wrote or maintains the project ("Who is the author?", "Who wrote sqlparse?", "Who maintains it?", "Кто автор?").
AUTHORS_ASKED = _has(r"\bwho\b.*\b(?:author|maintainer|creator|owner)s?\b",
                     r"\bwho\s+(?:wrote|writes|created|creates|made|makes|maintains|develops|developed|owns|built)\b",
                     r"\b(?:authors?|maintainers?|creators?)\s+of\b", r"\bкто\b.*\b(?:автор|написал|создал|"
                     r"разработ|сопровожда|поддерживает)", r"\bавтор\w*\s+(?:проекта|библиотеки|пакета)")
# Where the project's documentation is, or where its bugs are reported ("Where is the documentation?", "Where do I
# report a bug?", "Где документация?").
DOCS_WHERE_ASKED = _has(r"\bwhere\b.*\b(?:documentation|docs)\b", r"\b(?:link|url)\s+(?:to|of|for)\s+(?:the\s+)?"
                        r"(?:documentation|docs)\b", r"\bгде\b.*\bдокументац")
BUGS_WHERE_ASKED = _has(r"\bwhere\b.*\b(?:report|file|open|submit)\b.*\b(?:bugs?|issues?|problems?)\b",
                        r"\b(?:issue|bug)\s+tracker\b", r"\bгде\b.*\b(?:сообщить|написать|завести)\b.*\b(?:ошибк|баг)")
# What the repository is made of: its main modules or packages, its structure.
OVERVIEW = _has(r"\bmain (modules|packages|components|parts)\b",
                r"\b(what|which) (modules|packages) (are|make|does)\b",
                r"\bmodules? (of|in) (the|this) (project|repository|repo|package|codebase)\b",
                r"\b(project|repository|code|codebase) (structure|layout)\b",
                r"\b(structure|layout|architecture) of (the|this) (project|repository|repo|package|code)",
                r"(из каких|какие) (\w+ )?(модул|пакет|компонент)", r"основн\w* (модул|пакет|компонент)",
                r"структур\w* (проекта|репозитория|кода|пакета)")
SETTINGS = _has(r"\bsettings?\b", r"настройк")
# A question about one environment variable by its name: who reads it, where it is used.
ENV_VAR_READ = _has(r"\bread", r"\bused\b", r"\buses?\b", r"\bset\b", r"чита", r"использ", r"задаёт|задает")
# A symbol's signature: its code answers (as where it is, LOCATION), its documentation's prose does not.
SIGNATURE = _has(r"\bsignature\b", r"сигнатур")
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
    "exception": _has(r"\b(all|list|which|what) (the )?(custom )?exceptions\b", r"(все|какие) исключения"),
}
WORKFLOW = _has(r"\bhow (does|do|to|is)\b", r"\bworkflow", r"\bscenario", r"\bprocess\b", r"\bsteps?\b",
                r"\bflow\b",
                r"как (работает|происходит|проходит|сделать|выполн|оформ)", r"сценари", r"процесс", r"шаг",
                _HOW_TO_RU)  # a how-to in Russian, "Как установить …?"
# "Как установить python-dotenv?": the project a Russian question asks how to install.
INSTALL_ASKED_RU = re.compile(r"\bустанов(?:ить|ка|ки)\s+([\w@][\w.@/-]*\w)", re.IGNORECASE)
RELATIONS = _has(r"\brelated\b", r"\bparent\b", r"\bchild(ren)?\b", r"\blinks? to\b", r"связан", r"родител",
                 r"дочерн", r"ссылает")
ENTITY_MENTIONS = _has(r"\bmention", r"\bwhich documents? (describe|cover|talk)", r"упомина",
                       r"где говорится")
CATALOG = _has(r"\bwhat (documents|docs)\b", r"\blist of (documents|docs)\b", r"\bsummary\b", r"\boverview\b",
               r"какие документы", r"список документов", r"кратко", r"обзор", r"о чём документ")
FACT_PREDICATES = {
    "owner": _has(r"\bowns\b", r"\bwho (does )?own\b", r"\bowner\b", r"владел", r"ответственн"),  # not "my own"
    "status": _has(r"\bstatus\b", r"статус"),
    "sla": _has(r"\bsla\b"),
}
# A release asked about: its number ("4.21.0", "v1.11.0", "2.0rc1") and a word of change.
# A release's number: "2.0.0", "v2.2", "v.3.0" (Python-Markdown's "Release Notes for v.3.0"), "1.0rc1", a major
# release by its "v" ("v5": rimraf's "Major Changes > v4 to v5").
VERSION = re.compile(r"(?<![\w.])(?:(?:v\.?)?\d+\.\d+(?:\.\d+)*(?:[-.]?(?:rc|a|b|alpha|beta|dev)\d*)?|v\d+)(?![\w.])",
                     re.IGNORECASE)
RELEASE = _has(r"\bchange", r"\bnew\b", r"\brelease", r"\bfix", r"\badded\b", r"\bremoved\b", r"\bbreaking\b",
               r"изменил", r"нового", r"исправлен", r"релиз", r"выпуск", r"в верси")

# A question asking what a thing is or does, and nothing else: "What is schedule?", "What is X used for?", "What does
# X do?", "Что такое X?", "Для чего нужен X?" (the thing named is the group that matched).
WHAT_IS = re.compile(r"^\W*(?:what\s+(?:is|are)|what's|tell\s+me\s+about|что\s+такое|что\s+это\s+за)\s+(?:the\s+)?"
                     r"(.+?)(?:\s+(?:used\s+for|for|about))?\W*$"
                     r"|^\W*what\s+does\s+(.+?)\s+do\W*$|^\W*для\s+чего\s+нуж(?:ен|на|но|ны)\s+(.+?)\W*$", re.I)


def what_is_named(question: str) -> set[str]:
    """The words of the thing a WHAT_IS question names, in lower case (empty for another question)."""
    match = WHAT_IS.match(question)
    return name_words(next(group for group in match.groups() if group)) if match else set()


def name_words(name: str) -> set[str]:
    """The words of a name ("Commander.js": commander, js), in lower case."""
    return set(re.findall(r"\w+", name.lower()))


def names_whole(named: set[str], name: str) -> bool:
    """Whether `name` ("Commander.js", a README's title; a package's name) has every word `named` asked for."""
    return bool(named) and named <= name_words(name)
