"""The intent router's merged hits: the code's tests after the code, unless the question asks about tests."""

import pytest

from knowledge.search.planned import _run_step, plan_and_search
from tests.factories import make_indexed_repo

# A test names what it tests in every line; the code a question asks how to use names it once.
TESTS = "".join(f"\n\ndef test_schedule_{n}():\n    schedule = add_schedule('report', every='hour')\n"
                f"    assert schedule.next_run  # the schedule runs every hour\n" for n in range(8))
REPO = {
    "jobs/__init__.py": '"""Background jobs."""\n',
    "jobs/schedules.py": '''"""When jobs run."""


def add_schedule(task, every):
    """Create a schedule that runs the task periodically."""
    return {"task": task, "every": every}
''',
    "tests/test_schedules.py": f"from jobs.schedules import add_schedule{TESTS}",
}


def documentation_step(plan, kb) -> tuple:
    """The plan's step searching the documentation (D0), and what it finds run alone."""
    step = next(step for step in plan.steps if "D0" in step.layers)
    found, _ = _run_step(step, [kb.pk], {})
    return step, found


@pytest.fixture
def kb(tmp_path):
    return make_indexed_repo(tmp_path / "jobs-repo", REPO)


@pytest.mark.django_db
def test_a_how_to_question_finds_the_code_before_its_tests(kb):
    plan, hits = plan_and_search("How do I add a schedule?", [kb.pk])
    tests = [bool(hit.metadata.get("is_test")) for hit in hits]
    assert True in tests  # the tests were found, and come last
    assert tests == sorted(tests), [(hit.layer, hit.metadata.get("qname")) for hit in hits]
    assert hits[0].metadata.get("qname", "").startswith("jobs.schedules")


@pytest.mark.django_db
def test_a_question_about_tests_finds_them_first(kb):
    plan, hits = plan_and_search("Which tests check the schedule?", [kb.pk])
    assert hits[0].metadata.get("is_test")


@pytest.mark.django_db
def test_a_question_about_testing_keeps_the_ranks_of_the_documentation(tmp_path):
    # Flask's "How do I test a Flask application?": the test suite's little apps were put above
    # docs/testing.rst when the fused list put tests first.
    kb = make_indexed_repo(tmp_path / "site-repo", {
        "site/__init__.py": '"""The site."""\n',
        "tests/apps/app_one.py": "from site import make_app\n\napp = make_app('one')\n",
        "tests/apps/app_two.py": "from site import make_app\n\napp = make_app('two')\n",
        "docs/testing.md": "# Testing a site application\n\nTest a site application with the test client: it "
                           "sends requests to the application without running a server.\n",
    })
    plan, hits = plan_and_search("How do I test a site application?", [kb.pk])
    assert hits[0].source_uri.endswith("docs/testing.md"), [(hit.layer, hit.source_uri) for hit in hits[:4]]


@pytest.mark.django_db
def test_an_example_app_comes_after_the_code_and_its_documentation_unless_asked_for(tmp_path):
    # click's "How do I add a custom CLI command?" was answered by examples/complex's `init` command.
    kb = make_indexed_repo(tmp_path / "cli-repo", {
        "cli/__init__.py": '"""Commands."""\n',
        "cli/commands.py": ('"""Commands."""\n\n\ndef add_command(group, command):\n'
                            '    """Register a custom command with a group of commands."""\n'
                            "    group[command.name] = command\n"),
        "examples/shop/commands.py": ("from cli.commands import add_command\n\n\ndef init():\n"
                                      '    """Register the shop\'s custom command with the group of commands."""\n'
                                      "    add_command(GROUP, init)  # a custom command in a group of commands\n"),
    })
    plan, hits = plan_and_search("How do I add a custom command to a group?", [kb.pk])
    examples = [hit.source_uri.split(":")[-1].startswith("examples/") for hit in hits]
    assert True in examples and examples == sorted(examples), [(hit.layer, hit.source_uri) for hit in hits]
    plan, hits = plan_and_search("Is there an example of a custom command in a group?", [kb.pk])
    assert any("examples/" in hit.source_uri for hit in hits[:2]), [(hit.layer, hit.source_uri) for hit in hits]


@pytest.mark.django_db
def test_a_name_only_an_example_app_defines_is_found_there_after_the_documentation(tmp_path):
    # django-constance's "What does CONSTANCE_CONFIG look like?" was answered "Constant
    # `example.cheeseshop.settings.CONSTANCE_CONFIG` is defined in example/cheeseshop/settings.py.": the router's
    # symbol step found the example app's settings first, before the documentation naming the setting.
    kb = make_indexed_repo(tmp_path / "kit-repo", {
        "kit/__init__.py": '"""Kit."""\n',
        "docs/index.md": "# Kit\n\n## Configuration\n\nDefine your settings in the `KIT_CONFIG` dictionary of your "
                         "settings module, each a default and a help text:\n\n```python\nKIT_CONFIG = {\n    "
                         "'SITE_NAME': ('My Title', 'Website title'),\n}\n```\n",
        "example/shop/settings.py": "KIT_CONFIG = {\n    'SITE_NAME': ('Shop', 'The shop name'),\n}\n",
    })
    plan, hits = plan_and_search("What does KIT_CONFIG look like?", [kb.pk])
    assert hits[0].source_uri.endswith("docs/index.md"), [(hit.layer, hit.source_uri) for hit in hits]
    assert any("example/shop/settings.py" in hit.source_uri for hit in hits)
    # Asked where it is, the example's definition is where.
    plan, hits = plan_and_search("Where is KIT_CONFIG defined?", [kb.pk])
    assert hits[0].source_uri.endswith("example/shop/settings.py"), [(hit.layer, hit.source_uri) for hit in hits]


@pytest.mark.django_db
def test_a_how_to_finds_the_public_api_before_private_helpers_unless_it_names_them(tmp_path):
    # marshmallow's "How do I serialize an object to a dict?" was answered by `Field._serialize`, the method
    # a field overrides, not the `Schema.dump` a user calls.
    kb = make_indexed_repo(tmp_path / "ser-repo", {
        "ser/__init__.py": '"""Serialization."""\n',
        "ser/schema.py": ('"""Schemas."""\n\n\nclass Schema:\n    def dump(self, obj):\n'
                          '        """Return the object as a dict of its fields."""\n'
                          "        return self._serialize(obj)\n\n"
                          "    def _serialize(self, obj):\n"
                          '        """Serialize an object to a dict: serialize each field of the object."""\n'
                          "        return {name: getattr(obj, name) for name in self.fields}\n"),
    })
    plan, hits = plan_and_search("How do I serialize an object to a dict?", [kb.pk])
    # Its row, and the edge "dump calls _serialize".
    private = ["._serialize" in f"{hit.metadata.get('qname')} {hit.metadata.get('dst_ref')}" for hit in hits]
    assert private.count(True) >= 2 and private == sorted(private), [(hit.layer, hit.content[:60]) for hit in hits]
    plan, hits = plan_and_search("What does _serialize do?", [kb.pk])
    assert hits[0].metadata.get("qname", "").endswith("._serialize"), [hit.metadata.get("qname") for hit in hits]


@pytest.mark.django_db
def test_tests_filling_a_steps_places_leave_them_to_the_documentation(tmp_path):
    # attrs' "How do I make a class frozen?": the documentation-and-code step's six places went to its tests and
    # benchmarks (sorted last among themselves), and its documentation's "Immutability" was not among the hits.
    tests = "".join(f"\n\ndef test_frozen_record_{n}():\n    record = make_record(frozen=True)\n"
                    f"    assert record.frozen  # a frozen record cannot be changed\n" for n in range(12))
    kb = make_indexed_repo(tmp_path / "rec-repo", {
        "rec/__init__.py": '"""Records."""\n\n\ndef make_record(**options):\n    return dict(options)\n',
        "tests/test_records.py": f"from rec import make_record{tests}",
        "docs/immutability.md": "# Immutability\n\nMake a record frozen by passing frozen=True when you make it: "
                                "a frozen record cannot be changed once made.\n",
    })
    plan, hits = plan_and_search("How does a frozen record work?", [kb.pk])
    assert plan.intent == "workflow"
    assert any(hit.source_uri.endswith("docs/immutability.md") for hit in hits[:3]), \
        [(hit.layer, hit.source_uri) for hit in hits[:6]]
    # The step itself, not only the plain search merged after it.
    step, found = documentation_step(plan, kb)
    assert found[0].source_uri.endswith("docs/immutability.md"), [(hit.layer, hit.source_uri) for hit in found]
    assert len(found) == step.top_k


def test_a_folder_of_examples_by_any_name_is_an_example_app():
    from knowledge.search.secondary import unasked_example
    from tests.knowledge.layers.test_answers_on_code import hit

    for path in ("examples/app.py", "typing-examples/mypy.py", "src/docs_examples/run.py", "demo/app.py"):
        row = hit("C0", "x = 1")
        row.source_uri = f"file:{path}"
        assert unasked_example(row, "How do I make a record?"), path
    row = hit("C0", "x = 1")
    row.source_uri = "file:src/counterexamples.py"
    assert not unasked_example(row, "How do I make a record?")


@pytest.mark.django_db
def test_the_public_api_a_package_keeps_in_its_private_modules_is_public(tmp_path):
    # httpx keeps its whole API in private modules (`httpx/_client.py`, `httpx/_config.py`) that its `__init__`
    # imports from: every row was private to a how-to, and "How do I set a timeout?" was refused.
    kb = make_indexed_repo(tmp_path / "fetch-repo", {
        "fetch/__init__.py": '"""Fetching."""\n\nfrom ._config import Timeout\n\n__all__ = ["Timeout"]\n',
        "fetch/_config.py": ('"""Configuration."""\n\n\nclass Timeout:\n'
                             '    """Timeout configuration: Timeout(5.0) waits five seconds for every request."""\n\n'
                             "    def _seconds(self):\n"
                             '        """The timeout of a request in seconds, for the transport."""\n'
                             "        return 5.0\n"),
        "docs/index.md": "# Fetch\n\nFetch fetches pages over HTTP.\n",
    })
    hits = plan_and_search("How do I set a timeout for a request?", [kb.pk])[1]
    rows = [(hit.layer, hit.metadata.get("qname") or hit.source_uri) for hit in hits]
    names = [name for _, name in rows]
    timeout = names.index("fetch._config.Timeout")
    assert timeout < names.index("fetch._config.Timeout._seconds"), rows  # a private method stays private
    assert timeout < names.index("repo:fetch-repo:docs/index.md"), rows  # not after a page that says nothing


@pytest.mark.django_db
def test_a_changelog_filling_a_search_three_times_as_deep_leaves_the_step_to_the_documentation(tmp_path):
    # dayjs' "How do I change the locale?": forty release notes on locales filled the documentation step searched
    # three times as deep, and its README's "I18n" section was never found.
    releases = "".join(f"## 1.{n}.0\n\n### Bug Fixes\n\n* Change the {language} locale's week start\n"
                       f"* Update the {language} locale\n\n"
                       for n, language in enumerate(["Finnish", "German", "Spanish", "Korean", "Greek", "Czech",
                                                     "Hindi", "Welsh", "Polish", "Khmer", "Irish", "Tamil"] * 2))
    kb = make_indexed_repo(tmp_path / "dates", {
        "dates/__init__.py": '"""Dates."""\n',
        "CHANGELOG.md": f"# Changelog\n\n{releases}",
        "README.md": "# dates\n\nA small date library.\n\n## I18n\n\nThe library supports internationalization.\n\n"
                     "```js\ndates.locale('es') // use the Spanish locale globally\n```\n",
    })
    plan, _ = plan_and_search("How do I change the locale?", [kb.pk])
    step, found = documentation_step(plan, kb)
    sections = [(hit.source_uri.rsplit(":", 1)[-1], hit.section_path) for hit in found]
    assert ("README.md", "dates > I18n") in sections[:step.top_k], sections
    # The changelog's notes come after, as they did.
    assert sections.index(("README.md", "dates > I18n")) < min(
        at for at, (name, _) in enumerate(sections) if name == "CHANGELOG.md"), sections


@pytest.mark.django_db
def test_another_projects_code_a_repository_carries_comes_after_its_own(tmp_path):
    # bleach carries html5lib in `bleach/_vendor/html5lib/`: "How do I contribute?" opened with html5lib's tokenizer.
    from knowledge.search.secondary import secondary_row
    from tests.knowledge.layers.test_answers_on_code import hit

    row = hit("C0", "def process_entity(self): pass")
    row.source_uri = "repo:cleaner:cleaner/_vendor/html5lib/_tokenizer.py"
    for question in ("How do I contribute?", "How do I parse an attribute?"):
        assert secondary_row(row, question), question
    for question in ("Which version of html5lib is vendored?", "What does html5lib's tokenizer do?"):
        assert not secondary_row(row, question), question
    for path in ("vendor/github.com/x/y.go", "third_party/zlib/inflate.c", "src/_vendored/six.py"):
        row.source_uri = f"repo:kit:{path}"
        assert secondary_row(row, "How do I contribute?"), path
    row.source_uri = "repo:kit:src/vendors.py"  # a module of the project's own about vendors
    assert not secondary_row(row, "How do I contribute?")
    kb = make_indexed_repo(tmp_path / "cleaner", {
        "cleaner/__init__.py": 'def clean(text):\n    """Clean the markup of a text fragment."""\n    return text\n',
        "cleaner/_vendor/html5lib/_tokenizer.py": (
            'class HTMLTokenizer:\n    def clean_markup_fragment(self, text):\n        """Clean the markup of a '
            'text fragment, tokenized."""\n        return text\n'),
    })
    _, hits = plan_and_search("How do I clean the markup of a text fragment?", [kb.pk])
    assert "_vendor" not in hits[0].source_uri, [hit.source_uri for hit in hits]
