"""A repository's own addresses, as its manifest gives them, are its site: an answer quoting
`git clone https://github.com/acme/widget.git` from its README sends nobody anywhere foreign."""

import pytest
from django.test import SimpleTestCase

from knowledge import outgoing
from knowledge.indexing.layers.manifests import project_urls
from knowledge.search import answers, project_sites, retrieval
from tests.factories import make_indexed_repo

PACKAGE_JSON = """{
  "name": "widget",
  "version": "1.2.0",
  "homepage": "https://widget.example/docs/index.html",
  "repository": {"type": "git", "url": "git+https://github.com/acme/widget.git"},
  "bugs": "https://github.com/acme/widget/issues",
  "main": "index.js"
}
"""
README = """# widget

Widgets for everyone.

## Installation

To work on widget itself, clone its repository:

    git clone https://github.com/acme/widget.git

Questions go to https://forum.elsewhere.example/widget.
"""


class ProjectUrlsTests(SimpleTestCase):
    def test_each_manifest_gives_its_projects_addresses(self):
        pyproject = ('[project]\nname = "widget"\n[project.urls]\nSource = "https://github.com/acme/widget"\n'
                     'Documentation = "https://widget.readthedocs.io/en/latest/"\n')
        setup_cfg = ("[metadata]\nname = widget\nurl = https://widget.example\nproject_urls =\n"
                     "    Tracker = https://gitlab.com/acme/widget/-/issues\n")
        for name, text, expected in [
            ("package.json", PACKAGE_JSON, ["https://widget.example/docs/index.html", "https://github.com/acme/widget",
                                            "https://github.com/acme/widget/issues"]),
            # npm's shorthand for a GitHub repository
            ("package.json", '{"name": "w", "repository": "acme/widget"}', ["https://github.com/acme/widget"]),
            ("package.json", '{"repository": "gitlab:acme/widget"}', ["https://gitlab.com/acme/widget"]),
            ("pyproject.toml", pyproject, ["https://github.com/acme/widget", "https://widget.readthedocs.io/en/latest/"]),
            ("setup.cfg", setup_cfg, ["https://widget.example", "https://gitlab.com/acme/widget/-/issues"]),
            ("package.json", "{not json", []), ("pyproject.toml", "[project\n", []),
        ]:
            with self.subTest(name=name, text=text[:30]):
                self.assertEqual(project_urls(name, text), expected)

    def test_a_link_is_the_projects_when_it_lies_under_one_of_its_addresses(self):
        sites = outgoing.sites(project_urls("package.json", PACKAGE_JSON))
        for link, allowed in [("https://github.com/acme/widget.git", True),
                              ("https://github.com/acme/widget/blob/main/README.md", True),
                              ("git+https://github.com/acme/widget.git@dev", True),
                              ("https://GitHub.com/Acme/Widget", True),
                              ("https://widget.example/docs/api.html", True),  # beside the homepage's page
                              ("https://widget.example/blog/", False),
                              ("https://github.com/acme/widget-evil", False), ("https://github.com/acme", False),
                              ("https://github.com/mallory/widget", False),
                              ("https://evil.example/acme/widget", False)]:
            with self.subTest(link=link):
                self.assertEqual(outgoing.under_sites(link, sites), allowed)


@pytest.mark.django_db
def test_an_answer_quoting_the_repositorys_own_links_is_not_flagged_a_foreign_one_is(tmp_path):
    # express' "git clone https://github.com/expressjs/express.git" was held for review in triage and withheld
    # by /answer and MCP: a repository's sources have no site of their own (`repo:` URIs).
    kb = make_indexed_repo(tmp_path / "widget", {"package.json": PACKAGE_JSON, "README.md": README,
                                                 "index.js": "module.exports = function widget() {};\n"})
    sources = retrieval.retrieve("How do I clone the widget repository?", [kb.pk], top_k=3).hits
    assert any(hit.source_uri.endswith(":README.md") for hit in sources)
    question = "How do I clone the widget repository?"
    urls = project_sites.project_urls(sources)
    assert urls == ["https://widget.example/docs/index.html", "https://github.com/acme/widget",
                    "https://github.com/acme/widget/issues"]
    own = "git clone https://github.com/acme/widget.git [1]"
    assert outgoing.check_answer(question=question, text=own, sources=sources, project_urls=urls) == []
    foreign = "Questions go to https://forum.elsewhere.example/widget. [1]"
    [flag] = outgoing.check_answer(question=question, text=foreign, sources=sources, project_urls=urls)
    assert (flag.code, flag.match) == ("contact", "https://forum.elsewhere.example/widget")
    # The composed answer quotes the clone command and is not flagged for it.
    result = answers.answer(question, [kb.pk])
    assert "https://github.com/acme/widget.git" in result.text and not result.flags, (result.text, result.flags)
    # Another repository's addresses are not this one's.
    other = make_indexed_repo(tmp_path / "other", {"README.md": README.replace("widget", "gadget")})
    sources = retrieval.retrieve(question, [other.pk], top_k=3).hits
    assert project_sites.project_urls(sources) == []
