"""Rows a question seldom asks for: a repository's tests and example apps, and changelogs.

A test names the function it tests as often as the function's own file does, an example app the API it
uses, a changelog what each release fixed ("Fixed a name error when overriding the digest method"); none
is what a how-to asks for. Search scores them down (`retrieval._demote_secondary`) and the intent
router's merge puts them last (`planned._tests_last`), unless the question asks about them.
"""

import re

from knowledge.indexing.layers import markdown
from knowledge.search.hits import SearchHit

# A question about tests keeps the rows of test files where they rank (`_demote_secondary`); one about
# examples those of a repository's example apps (`examples/complex/commands/cmd_init.py`).
TESTS_ASKED = re.compile(r"\btest|\bтест|\bspec\b|\bpytest\b|\bunittest", re.IGNORECASE)
EXAMPLE_PATH = re.compile(r"(?:^|[:/])(?:examples?|demos?|samples?)/")
EXAMPLES_ASKED = re.compile(r"\bexample|\bdemo\b|\bsample|пример|демо", re.IGNORECASE)
# A question about a release, a version or what changed keeps a changelog's rows where they rank; a
# how-to does not ("How do I change the digest method?": not "Fixed a name error when overriding the
# digest method").
CHANGES_ASKED = re.compile(r"\bchang(ed|es|elog)\b|\bnew\b|\breleas|\bversion|\d\.\d|deprecat|\bremoved\b|"
                           r"\badded\b|\bsince\b|\bupgrad|\bmigrat|\bhistory\b|\bfix(ed|es)?\b|\bbug|\bbreaking\b|"
                           r"измен|верси|релиз|выпуск|нов(ое|ого|ые|ых)\b|устарел|удал[её]н|добавлен|обновл|истори|"
                           r"исправ|ошибк", re.IGNORECASE)


def secondary_row(hit: SearchHit, query: str) -> bool:
    """A row of a repository's tests or example apps, or of a changelog, that the question does not ask
    about: they name the code they use (a changelog what it fixed) as often as its own file or section
    does, and seldom are what was asked for."""
    if hit.metadata.get("is_test"):
        return not TESTS_ASKED.search(query)
    return unasked_example(hit, query) or unasked_changelog(hit, query)


def unasked_changelog(hit: SearchHit, query: str) -> bool:
    """A row of a changelog (a repository's, or an uploaded CHANGES.md) when the question asks about no
    release, version or change."""
    uri = hit.source_uri or ""  # a file's ("file:CHANGES.md"); a web page's name says less ("/news")
    changelog = hit.metadata.get("doc_kind") == "changelog" or (
        not uri.lower().startswith(("http://", "https://")) and bool(markdown.CHANGELOG_PATH.search(uri)))
    return changelog and not CHANGES_ASKED.search(query)


def unasked_example(hit: SearchHit, query: str) -> bool:
    """A row of a repository's example apps (`examples/`, `demo/`, `samples/`) when the question does not
    ask for an example."""
    return hit.layer != "D0" and bool(EXAMPLE_PATH.search(hit.source_uri or "")) and not EXAMPLES_ASKED.search(query)
