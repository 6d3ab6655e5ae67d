"""Rows a question seldom asks for: a repository's tests and example apps, changelogs and upgrade guides, licences,
its guide for contributors, lists of its authors and of related projects, translations into another language than
the question's, and for a how-to its private code.

A test names the function it tests as often as the function's own file does, an example app the API it
uses, a changelog what each release fixed ("Fixed a name error when overriding the digest method"), a
licence the use of the software in any form, a private helper what its public function does
("Field._serialize: Serializes value to a basic Python datatype", behind `Schema.dump`); none is what a
how-to asks for. Search scores them down
(`retrieval._demote_secondary`) and the intent router's merge puts them last (`planned._tests_last`),
unless the question asks about them.
"""

import re

from knowledge.indexing.layers import markdown
from knowledge.search.hits import SearchHit
from knowledge.search.intent_words import HOW_TO, SUPPORT_ASKED
from portal.languages import detect_language

# A question about tests keeps the rows of test files where they rank (`_demote_secondary`); one about
# examples those of a repository's example apps (`examples/complex/commands/cmd_init.py`).
TESTS_ASKED = re.compile(r"\btest|\bтест|\bspec\b|\bpytest\b|\bunittest", re.IGNORECASE)
EXAMPLE_PATH = re.compile(r"(?:^|[:/])(?:[\w.]+[-_])?(?:examples?|demos?|samples?)/")  # "typing-examples/"
# A repository's benchmarks (`benchmarks/`, `bench/`, asv's `asv_bench/`): sqlparse's "How do I reindent SQL?" opened
# with `benchmarks.bench_reindent_offset`, "Reindentation offset benchmark (GHSA-cfqr-cjx5-5jcm, CWE-1333).".
BENCHMARK_PATH = re.compile(r"(?:^|[:/])(?:benchmarks?|bench|asv_bench)/")
BENCHMARKS_ASKED = re.compile(r"\bbench|\bperform|\bfast|\bslow|\bspeed|\bquick|\bhow long\b|производител|быстр|"
                              r"медлен|скорост", re.IGNORECASE)
# Another project's code a repository carries (bleach's `bleach/_vendor/html5lib/`): "How do I contribute?" opened with
# html5lib's tokenizer. The package's name after the folder is asked about by its name.
VENDORED_PATH = re.compile(r"(?:^|[:/])(?:_?vendor(?:ed)?|third[-_]?party|3rdparty)/([\w.-]+)", re.IGNORECASE)
VENDORED_ASKED = re.compile(r"\bvendor|\bthird[- ]?party|\bbundled\b|\bembedded\b|\bсторонн", re.IGNORECASE)
EXAMPLES_ASKED = re.compile(r"\bexample|\bdemo\b|\bsample|пример|демо", re.IGNORECASE)
# A question about a release, a version or what changed keeps a changelog's rows where they rank; a
# how-to does not ("How do I change the digest method?": not "Fixed a name error when overriding the
# digest method"). A release, a version, a number, a deprecation ask about releases however the question
# is put; words of change only outside a how-to, where they say what to do ("How do I add a new field?",
# "How do I copy an instance with one field changed?" was answered by two release notes).
_RELEASE_NAMED = re.compile(r"\bchangelog\b|\breleas|\d\.\d|deprecat|\bupgrad|\bbreaking\b|релиз|выпуск|устарел",
                            re.IGNORECASE)
RELEASE_ASKED = re.compile(rf"{_RELEASE_NAMED.pattern}|\bversion|верси", re.IGNORECASE)
CHANGE_WORDS = re.compile(r"\bchang(ed|es)\b|\bnew\b|\bremoved\b|\badded\b|\bsince\b|\bmigrat|\bhistory\b|"
                          r"\bfix(ed|es)?\b|\bbug|измен|нов(ое|ого|ые|ых)\b|удал[её]н|добавлен|обновл|истори|"
                          r"исправ|ошибк", re.IGNORECASE)
# The heading of a document's section holding its release history, over a section for each release ("Change History >
# 0.5.0 (2016-08-22)"): "How do I parse a .gitignore file?" was answered by "Renamed gitignore.GitIgnorePattern to …".
_CHANGELOG_HEADING = re.compile(rf"(?:{markdown.CHANGELOG_NAMES}|change[- ]log|change history|version history"
                                r"|what's new|история изменений|список изменений|изменения)", re.IGNORECASE)
# An upgrade or migration guide (docs/upgrading.rst, UPGRADING.md, MIGRATION.md, docs/migration-guide.md): what the
# releases changed and how to follow them, a release history in other words. marshmallow's "What happens by default
# when the input has an unknown field?" opened with its upgrading guide's "Before version 2.0, certain fields …".
_UPGRADE_GUIDE_PATH = re.compile(r"(?:^|[:/])(?:upgrad(?:e|es|ing)|migrat(?:e|es|ing|ions?))(?:[-_.][^/]*)?$",
                                 re.IGNORECASE)
UPGRADE_ASKED = re.compile(r"\bupgrad|\bmigrat|\bport(?:ing)? (?:from|to)\b|обнов|мигр|перейт|переход", re.IGNORECASE)
# A guide for the project's own developers (CONTRIBUTING.md, docs/contributing.rst, HACKING), and a question asking
# how to work on the project: marshmallow's "How do I run code after loading?" was answered "To run all tests: pytest".
# So are the instructions to coding assistants at a repository's root (AGENTS.md, CLAUDE.md, GEMINI.md) and GitHub
# Copilot's: sqlparse's AGENTS.md ("Run all tests across Python versions: `make test`") is for who changes the code.
_CONTRIBUTING_PATH = re.compile(r"(?:^|[:/])(?:contributing|hacking)(?:[-_.][^/]*)?$"
                                r"|(?:^|:)(?:AGENTS|CLAUDE|GEMINI)\.md$|(?:^|[:/])\.github/copilot-instructions\.md$",
                                re.IGNORECASE)
CONTRIBUTING_ASKED = re.compile(r"contribut|\bdevelop|\btest|\bpull request|\bfork|\bpatch|\bfrom (?:the )?source"
                                r"|\blint|\bbuild|\bdocs?\b|\bdocumentation|\bhack|вклад|разработ|тест|сборк|"
                                r"документац", re.IGNORECASE)
# A code of conduct (CODE_OF_CONDUCT.md, docs/code_of_conduct.rst), and a question asking how people behave in the
# project: django-constance's "How do I read a constance setting in code?" was answered "The django-constance project
# utilizes the Django Commons Code of Conduct." (its words "constance" and "code").
_CONDUCT_PATH = re.compile(r"(?:^|[:/])code[-_]of[-_]conduct(?:[-_.][^/]*)?$", re.IGNORECASE)
CONDUCT_ASKED = re.compile(r"\bconduct\b|\bharass|\bbehaviou?r|\babus|\bcommunity\b|поведени|этик|сообществ",
                           re.IGNORECASE)
# A question about the licence: its name, copyright, or what the licence lets one do with the software.
LICENSE_ASKED = re.compile(r"licen[cs]|copyright|\bcommercial|\bproprietary|\bopen[- ]source|\bgpl\b|\bmit\b|"
                           r"\bbsd\b|\bapache\b|лиценз|авторск|коммерческ", re.IGNORECASE)
# A section listing other projects (p-queue's "Related": "• p-limit - Run multiple promise-returning & async functions
# with limited concurrency" answered "How do I limit concurrency?"), and a question asking for them.
_OTHERS = r"(?:projects|packages|libraries|modules|tools)"
_RELATED_HEADING = re.compile(rf"(?:related(?: {_OTHERS}| work)?|see also|alternatives?|similar {_OTHERS}"
                              rf"|other {_OTHERS}|похожие проекты|см\. также|альтернативы)", re.IGNORECASE)
OTHERS_ASKED = re.compile(r"\brelated\b|\balternative|\bsimilar\b|\binstead\b|\bother (?:librar|package|project|tool)"
                          r"|\bcompar|\bvs\.?\b|\bversus\b|похож|альтернатив|аналог|вместо", re.IGNORECASE)
# A question about a project's people: who wrote, made or maintains it, its authors, contributors or credits.
PEOPLE_ASKED = re.compile(r"\bauthor|\bcontribut|\bmaintain|\bcredit|\bthank|\bwho\b|\bкто\b|\bавтор|\bразработчик"
                          r"|\bсопровожда|\bблагодар", re.IGNORECASE)
# A document translated into a language its path names (ISO 639-1, a region after it): README-es.md, README.zh-CN.md,
# docs/guide.ja.md, docs/ru/usage.md, i18n/de/index.md. Not "how-to-use-it.md", nor a package's folder "src/id/".
_LANGUAGES = ("ar|bg|bn|ca|cs|da|de|el|en|es|et|fa|fi|fr|he|hi|hr|hu|id|it|ja|ko|lt|lv|ms|nl|no|pl|pt|ro|ru|sk|sl|sr"
              "|sv|th|tr|uk|ur|vi|zh")
_TRANSLATION_PATH = re.compile(
    rf"(?:(?:^|[:/])(?:readme|contributing|index)[-_.]|[^/:]\.)(?P<file>{_LANGUAGES})(?:[-_][a-z]{{2,4}})?"
    rf"\.(?:md|mdx|markdown|rst|txt)$|(?:^|[:/])(?:docs?|i18n|locales?|translations?)/(?P<folder>{_LANGUAGES})"
    rf"(?:[-_][a-z]{{2,4}})?/", re.IGNORECASE)
# A part of a qualified name that is private by Python's convention: one leading underscore, not a dunder.
_PRIVATE = re.compile(r"(?:^|\.)(_(?!_)\w*)")


def secondary_row(hit: SearchHit, query: str) -> bool:
    """A row of a repository's tests or example apps, of a changelog, a licence or a section listing related projects,
    or for a how-to of its private code, that the question does not ask about: they name the code they use (a
    changelog what it fixed, a private helper what its public function does, a related project what it does too) as
    often as its own file or section does, and seldom are what was asked for."""
    return secondary_document(hit, query) or unasked_related(hit, query) or unasked_private(hit, query)


def secondary_document(hit: SearchHit, query: str) -> bool:
    """A row whose whole document the question does not ask about: a repository's test, example app or benchmark, a
    changelog, a licence (`secondary_row` but private code, which shares its module with public code)."""
    if hit.metadata.get("is_test"):
        return not TESTS_ASKED.search(query)
    return (unasked_example(hit, query) or unasked_benchmark(hit, query) or unasked_changelog(hit, query)
            or unasked_license(hit, query) or unasked_vendored(hit, query)
            or unasked_translation(hit, query) or unasked_authors(hit, query) or unasked_contributing(hit, query)
            or unasked_conduct(hit, query))


def unasked_contributing(hit: SearchHit, query: str) -> bool:
    """A row of the guide for a project's own developers (CONTRIBUTING) when the question asks nothing of working on
    the project: its commands run the project's tests and build its docs ("To run all tests: pytest")."""
    return bool(_CONTRIBUTING_PATH.search(_file_path(hit))) and not CONTRIBUTING_ASKED.search(query)


def unasked_conduct(hit: SearchHit, query: str) -> bool:
    """A row of a code of conduct when the question asks nothing of how people behave in the project."""
    return bool(_CONDUCT_PATH.search(_file_path(hit))) and not CONDUCT_ASKED.search(query)


def unasked_related(hit: SearchHit, query: str) -> bool:
    """A row of a section listing other projects ("Related", "See also", "Alternatives") when the question asks for
    none: their one-line descriptions share the words of what this project does."""
    return _under_heading(hit, _RELATED_HEADING) and not OTHERS_ASKED.search(query)


def unasked_authors(hit: SearchHit, query: str) -> bool:
    """A row of a list of a project's people (AUTHORS, CONTRIBUTORS, MAINTAINERS, CREDITS, THANKS) when the question
    asks nothing about them: schedule's "- mattss <https://github.com/mattss>" ranked among a how-to's sources."""
    return _of_kind(hit, "authors", markdown.AUTHORS_PATH) and not PEOPLE_ASKED.search(query)


def unasked_translation(hit: SearchHit, query: str) -> bool:
    """A row of a repository's or an uploaded document translated into a language other than the question's: dotenv's
    README-es.md said again what its README.md does, in Spanish, after it ("# instalación local (recomendado)")."""
    language = translation_language(hit)
    return bool(language) and language != detect_language(query)


def translation_language(hit: SearchHit) -> str:
    """The language (its ISO 639-1 code) a document's path says it is translated into, "" when it says none (a web
    page's address says less: a site's "/ru/" may be its only language)."""
    match = _TRANSLATION_PATH.search(_file_path(hit))
    return (match["file"] or match["folder"]).lower() if match else ""


def unasked_license(hit: SearchHit, query: str) -> bool:
    """A row of a licence (a repository's LICENSE, COPYING or NOTICE, or such an uploaded file) when the
    question asks nothing about the licence."""
    return _of_kind(hit, "license", markdown.LICENSE_PATH) and not LICENSE_ASKED.search(query)


def _of_kind(hit: SearchHit, doc_kind: str, path: re.Pattern) -> bool:
    """Whether the hit is of a document of that kind: a repository's (`doc_kind`), or a file named so
    ("file:CHANGES.md"; a web page's name says less: "/news")."""
    return hit.metadata.get("doc_kind") == doc_kind or bool(path.search(_file_path(hit)))


def _file_path(hit: SearchHit) -> str:
    """The hit's document's address when it names a file (a repository's, an upload's); "" for a web page, whose
    address says less of what the page is ("/news", a site's only language under "/ru/")."""
    uri = hit.source_uri or ""
    return "" if uri.lower().startswith(("http://", "https://")) else uri


def _under_heading(hit: SearchHit, heading: re.Pattern) -> bool:
    """Whether a heading of the hit's section path, its own or one above it, is one `heading` matches whole."""
    return any(heading.fullmatch(part.strip(" :")) for part in (hit.section_path or "").split(" > "))


def unasked_private(hit: SearchHit, query: str) -> bool:
    """A code row of a private class or function (`Field._serialize`, `pkg.helpers._walk`) or of a private
    module itself, or an edge from or to one, when the question is a how-to that does not name it: a how-to
    asks how to use the code, which is its public API. A public name in a private module is public: a package
    may keep its whole API in modules such as `httpx/_client.py` and import it into its `__init__`."""
    if not (hit.layer or "").startswith("C"):
        return False
    private = [name for local in _local_names(hit.metadata) for name in _PRIVATE.findall(local)]
    return bool(private) and HOW_TO(query) and not any(name in query for name in private)


def _local_names(meta: dict) -> list[str]:
    """The names a code row is about, within their modules (`Client._send` of `httpx._client.Client._send`),
    or a module's own name when the row is about a module."""
    if meta.get("edge_type"):  # "path/to/file.py#Class.method"; "path#" a module: its name; outside: none
        return [symbol.partition("#")[2] or (qualified if "#" in symbol else "")
                for symbol, qualified in ((meta.get("src_symbol_id") or "", meta.get("src_qname") or ""),
                                          (meta.get("dst_symbol_id") or "", meta.get("dst_ref") or ""))]
    qualified = meta.get("qname") or ""
    module = meta.get("module_or_unit") or meta.get("package_or_module") or ""
    return [qualified.removeprefix(f"{module}.") if module and qualified != module else qualified]


def unasked_changelog(hit: SearchHit, query: str) -> bool:
    """A row of a changelog (a repository's, or an uploaded CHANGES.md, or a section of a document under a
    changelog's heading: pathspec's README ends with its "Change History") or of an upgrade guide when the question
    asks about no release, version or change."""
    if _UPGRADE_GUIDE_PATH.search(_file_path(hit)):
        return not (changes_asked(query) or UPGRADE_ASKED.search(query))
    changelog = _of_kind(hit, "changelog", markdown.CHANGELOG_PATH) or _under_heading(hit, _CHANGELOG_HEADING)
    return changelog and not changes_asked(query)


def changes_asked(query: str) -> bool:
    """Whether the question asks about a release, a version or what changed — not which versions are supported, the
    project's requirements now ("What versions of Django are supported?" was answered by the changelog's "Drop
    Django 1.3-1.7 support" of 2016, its README's "Django 4.2 to 6.0 supported." left out)."""
    if SUPPORT_ASKED(query) and not (_RELEASE_NAMED.search(query) or CHANGE_WORDS.search(query)):
        return False
    return bool(RELEASE_ASKED.search(query) or (CHANGE_WORDS.search(query) and not HOW_TO(query)))


def unasked_vendored(hit: SearchHit, query: str) -> bool:
    """A row of another project's code the repository carries (`VENDORED_PATH`) when the question asks nothing of
    vendored code nor names that project."""
    vendored = VENDORED_PATH.search(hit.source_uri or "")
    if not vendored or VENDORED_ASKED.search(query):
        return False
    name = vendored.group(1).rsplit(".", 1)[0].lower()
    return not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", query, re.IGNORECASE)


def unasked_benchmark(hit: SearchHit, query: str) -> bool:
    """A row of a repository's benchmarks' code when the question asks nothing of speed or benchmarks."""
    return (hit.layer != "D0" and bool(BENCHMARK_PATH.search(hit.source_uri or ""))
            and not BENCHMARKS_ASKED.search(query))


def unasked_example(hit: SearchHit, query: str) -> bool:
    """A row of a repository's example apps (`examples/`, `demo/`, `samples/`) when the question does not
    ask for an example."""
    return hit.layer != "D0" and bool(EXAMPLE_PATH.search(hit.source_uri or "")) and not EXAMPLES_ASKED.search(query)
