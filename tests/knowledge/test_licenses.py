"""A licence answers questions about the licence, and gives way to everything else; so do a list of a project's
authors, a section listing related projects, an upgrade guide and a guide for contributors.

httpx's source distribution holds no documentation but its README, changelog and LICENSE.md, whose BSD
text was the first source of most how-tos: "How do I set a timeout?" was answered "Copyright © 2019, Encode
OSS Ltd. Redistribution and use in source and binary forms, with or without modification, are permitted…".
"""

import pytest

from knowledge.indexing.layers.markdown import parse_doc
from knowledge.search import answers
from knowledge.search.hits import SearchHit
from knowledge.search.secondary import secondary_row
from tests.factories import make_indexed_repo

LICENSE = """Copyright © 2019, Example Ltd. All rights reserved.

Redistribution and use in source and binary forms, with or without modification, are permitted provided that
the following conditions are met:

* Redistributions of source code must retain the above copyright notice, this list of conditions and the
  following disclaimer.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY EXPRESS OR IMPLIED
WARRANTIES ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER BE LIABLE FOR ANY DAMAGES, HOWEVER CAUSED
AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT, ARISING IN ANY WAY OUT OF THE
USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE. Use of the source code in any form
is permitted provided that this notice and the conditions are retained.
"""
README = """# fetcher

A small HTTP client.

## Timeouts

Every request of a client times out after five seconds. Pass `timeout=30` to the client to wait longer,
or `timeout=None` to wait for ever.
"""
CODE = '''"""The client."""


class Client:
    """An HTTP client with a timeout."""

    def __init__(self, timeout=5.0):
        self.timeout = timeout
'''


def hit(source_uri: str, **metadata) -> SearchHit:
    return SearchHit(chunk_id=1, document_id=1, knowledge_base_id=1, document_title="", source_uri=source_uri,
                     section_path="", page=None, layer="D0", content="", snippet="", distance=0.1, score=1.0,
                     rank=1, metadata=metadata)


def test_a_licence_is_a_row_asked_about_only_by_its_own_questions():
    for licence in [hit("repo:fetcher:LICENSE.md"), hit("file:COPYING"), hit("repo:x:docs/licence.rst"),
                    hit("repo:x:NOTICE"), hit("repo:x:about.md", doc_kind="license")]:
        assert secondary_row(licence, "How do I set a timeout?"), licence.source_uri
        for question in ["What is the license?", "Под какой лицензией распространяется проект?",
                         "Who holds the copyright?", "Can I use it in a commercial product?"]:
            assert not secondary_row(licence, question), (licence.source_uri, question)
    assert not secondary_row(hit("repo:x:docs/licensing-your-plugin.md"), "How do I set a timeout?")
    assert parse_doc("LICENSE.md", LICENSE).doc_kind == "license"


def test_a_list_of_authors_is_a_row_asked_about_only_by_questions_about_its_people():
    # schedule's AUTHORS.rst (" - mattss <https://github.com/mattss>" …) ranked among the first sources of most of its
    # how-tos.
    for authors in [hit("repo:schedule:AUTHORS.rst"), hit("repo:x:CONTRIBUTORS.md"), hit("file:MAINTAINERS"),
                    hit("repo:x:docs/credits.rst"), hit("repo:x:THANKS.txt")]:
        assert secondary_row(authors, "How do I cancel a job?"), authors.source_uri
        for question in ["Who are the authors?", "Who maintains schedule?", "Who contributed to it?",
                         "Кто автор библиотеки?", "Who wrote schedule?"]:
            assert not secondary_row(authors, question), (authors.source_uri, question)
    assert not secondary_row(hit("repo:x:docs/authoring-plugins.md"), "How do I cancel a job?")


def test_an_upgrade_guide_is_a_row_asked_about_only_by_questions_about_releases():
    # marshmallow's "What happens by default when the input has an unknown field?" opened with its upgrading guide's
    # "Before version 2.0, certain fields … had implicit default values …".
    for guide in [hit("repo:marshmallow:docs/upgrading.rst"), hit("repo:x:UPGRADING.md"), hit("file:MIGRATION.md"),
                  hit("repo:x:docs/migration-guide.md"), hit("repo:x:docs/migrating.rst")]:
        assert secondary_row(guide, "What happens by default with an unknown field?"), guide.source_uri
        for question in ["How do I upgrade to 3.0?", "What changed in version 3?", "How do I migrate from 2.x?",
                         "What are the breaking changes?"]:
            assert not secondary_row(guide, question), (guide.source_uri, question)
    assert not secondary_row(hit("repo:x:docs/database-migrations.md"), "How do I add a column?")


def test_a_guide_for_contributors_is_a_row_asked_about_only_by_questions_about_working_on_the_project():
    # marshmallow's "How do I run code after loading?" was answered by its CONTRIBUTING's "To run all tests: pytest".
    for guide in [hit("repo:marshmallow:CONTRIBUTING.rst"), hit("repo:x:docs/contributing.md"), hit("repo:x:HACKING")]:
        assert secondary_row(guide, "How do I run code after loading?"), guide.source_uri
        for question in ["How do I run the tests?", "How can I contribute?", "How do I build the documentation?",
                         "How do I set up a development environment?", "Как собрать документацию?"]:
            assert not secondary_row(guide, question), (guide.source_uri, question)
    assert not secondary_row(hit("repo:x:README.md"), "How do I run code after loading?")
    # So are the instructions to coding assistants at the root (sqlparse's AGENTS.md, and CLAUDE.md naming it).
    for guide in [hit("repo:sqlparse:AGENTS.md"), hit("repo:x:CLAUDE.md"),
                  hit("repo:x:.github/copilot-instructions.md")]:
        assert secondary_row(guide, "How do I format a SQL statement?"), guide.source_uri
        assert not secondary_row(guide, "How do I run the tests?"), guide.source_uri
    assert not secondary_row(hit("repo:x:docs/agents.md"), "How do I build an agent?"), "a guide to agents"


def test_a_code_of_conduct_is_a_row_asked_about_only_by_questions_about_how_people_behave():
    # django-constance's "How do I read a constance setting in code?" was answered "The django-constance project
    # utilizes the Django Commons Code of Conduct.": its words "constance" and "code".
    for conduct in [hit("repo:constance:CODE_OF_CONDUCT.md"), hit("repo:x:docs/code-of-conduct.rst")]:
        assert secondary_row(conduct, "How do I read a constance setting in code?"), conduct.source_uri
        for question in ["What is the code of conduct?", "How do I report harassment?", "Какие правила поведения?"]:
            assert not secondary_row(conduct, question), (conduct.source_uri, question)
    assert not secondary_row(hit("repo:x:docs/code.md"), "How do I read a setting in code?")


def test_a_benchmarks_code_is_a_row_asked_about_only_by_questions_about_speed():
    # sqlparse's "How do I reindent SQL?" opened with `benchmarks.bench_reindent_offset`, "Reindentation offset
    # benchmark (GHSA-cfqr-cjx5-5jcm, CWE-1333).".
    for uri in ("repo:sqlparse:benchmarks/bench_reindent_offset.py", "repo:x:bench/load.py", "repo:x:asv_bench/a.py"):
        bench = hit(uri)
        bench.layer = "C0"
        assert secondary_row(bench, "How do I reindent SQL?"), uri
        assert not secondary_row(bench, "How fast is reindenting?"), uri
    library = hit("repo:x:x/benchmark_tools.py")
    library.layer = "C0"
    assert not secondary_row(library, "How do I reindent SQL?"), "not a folder of benchmarks"


def test_a_section_listing_related_projects_is_asked_about_only_by_questions_about_others():
    # p-queue's "How do I limit concurrency?" quoted its "Related" list: "• p-limit - Run multiple promise-returning &
    # async functions with limited concurrency".
    for path in ["p-queue > Related", "Lib > See also", "Lib > Docs > Alternatives", "Lib > Related projects"]:
        related = hit("repo:p-queue:readme.md")
        related.section_path = path
        assert secondary_row(related, "How do I limit concurrency?"), path
        for question in ["What are the alternatives to p-queue?", "Is there a similar library for streams?",
                         "How does it compare to p-limit?", "Какие есть аналоги?"]:
            assert not secondary_row(related, question), (path, question)
    usage = hit("repo:p-queue:readme.md")
    usage.section_path = "p-queue > Usage > Related tasks"
    assert not secondary_row(usage, "How do I limit concurrency?")


@pytest.mark.django_db
def test_a_how_to_is_answered_by_the_documentation_not_the_licence(tmp_path):
    kb = make_indexed_repo(tmp_path / "fetcher", {"LICENSE.md": LICENSE, "README.md": README,
                                                  "fetcher/__init__.py": CODE})
    for question in ["How do I set a timeout?", "How do I set the conditions of a request?"]:
        answer = answers.answer(question, [kb.pk])
        assert not answer.sources[0].source_uri.endswith("LICENSE.md"), question
        assert "Copyright" not in answer.text and "Redistribution" not in answer.text, (question, answer.text)
    answer = answers.answer("Who holds the copyright?", [kb.pk])
    assert answer.sources[0].source_uri.endswith("LICENSE.md")
