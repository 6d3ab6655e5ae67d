"""Which versions a project supports, asked about: what its manifest says it runs on and works with.

tenacity's "Which Python versions are supported?" was answered "Tenacity is an Apache 2.0 licensed general-purpose
retrying library, written in Python …" and "retry does not support generator or async generator functions.": its
documentation names no version, its pyproject.toml requires Python >=3.10 and lists 3.10 to 3.14 in its classifiers.
"""

import pytest

from knowledge.indexing.layers.manifests import (
    declared_dependencies,
    declared_people,
    declared_requirements,
    declared_version,
    labelled_urls,
)
from knowledge.search import answers, intent_words, layer_text, runtimes
from tests.factories import make_indexed_repo

PYPROJECT = '''[project]
name = "kit"
requires-python = ">=3.10"
classifiers = [
    "Framework :: Django",
    "Framework :: Django :: 4.2",
    "Framework :: Django :: 5.2",
    "Programming Language :: Python :: 3",
    "Programming Language :: Python :: 3 :: Only",
    "Programming Language :: Python :: 3.10",
    "Programming Language :: Python :: 3.11",
]
dependencies = ["Django>=4.2"]
'''


def test_a_manifest_declares_what_it_runs_on_by_field_engine_or_classifier():
    assert declared_requirements(PYPROJECT) == [
        ("Python", "requires Python >=3.10"), ("Django", "is classified for Django 4.2 and 5.2"),
        ("Python", "is classified for Python 3.10 and 3.11")]
    setup_py = 'setup(\n    name="kit",\n    python_requires=">=3.8",\n    classifiers=[\n' \
               '        "Programming Language :: Python :: 3",\n    ],\n)\n'
    assert declared_requirements(setup_py) == [("Python", "requires Python >=3.8"),
                                               ("Python", "is classified for Python 3")]
    assert declared_requirements('{"name": "kit", "engines": {"node": ">=18", "npm": ">= 8"}}') == [
        ("Node.js", "requires Node.js >=18"), ("npm", "requires npm >= 8")]
    assert declared_requirements('[project]\nname = "kit"\n') == []


def test_what_the_question_names_else_the_language():
    said = declared_requirements(PYPROJECT)
    django = ["is classified for Django 4.2 and 5.2"]
    assert runtimes.asked_of("What versions of Django are supported?", said) == django
    python = ["requires Python >=3.10", "is classified for Python 3.10 and 3.11"]
    for question in ("Which Python versions are supported?", "Which versions are supported?",
                     "Какие версии Python поддерживаются?", "Which versions of kit are supported?"):
        assert runtimes.asked_of(question, said, "kit") == python, question
    assert runtimes.asked_of("What versions of Flask are supported?", said, "kit") == [], "not another's"
    # A part of the package's name is another thing's: django-debug-toolbar's package.json requires Node.js.
    node = declared_requirements('{"name": "django-debug-toolbar", "engines": {"node": ">=24.0.0"}}')
    assert runtimes.asked_of("Which Django versions are supported?", node, "django-debug-toolbar") == []
    whole = "Which versions of django-debug-toolbar are supported?"
    assert runtimes.asked_of(whole, node, "django-debug-toolbar") == ["requires Node.js >=24.0.0"]


@pytest.mark.django_db
def test_which_versions_are_supported_is_answered_from_the_manifest(tmp_path):
    kb = make_indexed_repo(tmp_path / "kit", {
        "pyproject.toml": PYPROJECT,
        "README.md": "# kit\n\nKit signs data, written in Python.\n\n## Usage\n\n"
                     "Call `kit.sign(data)` to sign data. It does not support generators.\n"})
    result = answers.answer("Which Python versions are supported?", [kb.pk])
    assert not result.refused, result.reasons
    assert result.text.startswith("`kit` requires Python >=3.10 (pyproject.toml). `kit` is classified for Python 3.10 "
                                  "and 3.11 (pyproject.toml). [1]"), result.text
    result = answers.answer("What versions of Django are supported?", [kb.pk])
    assert result.text.startswith("`kit` is classified for Django 4.2 and 5.2 (pyproject.toml). [1]"), result.text
    # Asked anything else, the manifest says no versions.
    manifest = runtimes.requirements_first("Which Python versions are supported?", [], [kb.pk])[0]
    assert layer_text.quotable(manifest, question="How do I sign data?") == ""
    assert runtimes.statement_of(manifest, "How do I sign data?") == ""


@pytest.mark.django_db
def test_the_manifest_is_said_before_a_contributors_guide_naming_the_versions_tested(tmp_path):
    # tabulate's README: "To run tests on all supported Python versions, make sure all Python interpreters, pytest and
    # tox are installed …" shares more of "Which Python versions are supported?" than its pyproject.toml's statement,
    # found first, and was quoted alone.
    kb = make_indexed_repo(tmp_path / "kit", {
        "pyproject.toml": PYPROJECT,
        "README.md": "# kit\n\nKit signs data.\n\n## How to contribute\n\nTo run tests on all supported Python "
                     "versions, run tox. For example, to test only against Python 3.11 and Python 3.12, run tox -e "
                     "py311,py312.\n"})
    result = answers.answer("Which Python versions are supported?", [kb.pk])
    assert result.text.startswith("`kit` requires Python >=3.10 (pyproject.toml)."), result.text


def test_a_manifest_declares_the_packages_its_project_depends_on():
    # Asked "What are the dependencies of humanize?", the portal refused: only a manifest says it.
    assert declared_dependencies("pyproject.toml", PYPROJECT) == ["Django>=4.2"]
    listed = ('[project]\nname = "kit"\ndependencies = [\n    "uvicorn[standard] >= 0.30",  # the server\n'
              "    'tzdata; python_version >= \"3.9\"',\n]\n\n[project.urls]\nHome = \"https://kit.example\"\n")
    assert declared_dependencies("pyproject.toml", listed) == ["uvicorn[standard] >= 0.30",
                                                               'tzdata; python_version >= "3.9"']
    # None at all: a [project] table without them, an empty list; unknown: dynamic, or no [project] table.
    assert declared_dependencies("pyproject.toml", '[project]\nname = "kit"\n') == []
    assert declared_dependencies("pyproject.toml", '[project]\nname = "kit"\ndependencies = []\n') == []
    assert declared_dependencies("pyproject.toml", '[project]\ndynamic = ["dependencies"]\n') is None
    assert declared_dependencies("pyproject.toml", '[tool.ruff]\nline-length = 99\n') is None
    poetry = '[tool.poetry.dependencies]\npython = "^3.10"\nrequests = "^2.31"  # HTTP\n\n[tool.poetry.group]\n'
    assert declared_dependencies("pyproject.toml", poetry) == ["requests ^2.31"]
    # setup.py: a list in the call, or the name of one assigned above it; none named; a name assigned elsewhere.
    assert declared_dependencies("setup.py", 'setup(\n    name="kit",\n    install_requires=["click>=8"],\n)\n') == [
        "click>=8"]
    assert declared_dependencies("setup.py", 'INSTALL_REQUIRES = [\n    # Typing.\n    "typing_extensions",\n]\n'
                                             'setup(name="kit", install_requires=INSTALL_REQUIRES)\n') == [
        "typing_extensions"]
    assert declared_dependencies("setup.py", 'setup(\n    name="kit",\n)\n') == []
    assert declared_dependencies("setup.py", 'setup(name="kit", install_requires=REQUIRES)\n') is None
    assert declared_dependencies("setup.cfg", "[options]\ninstall_requires =\n    click>=8\n    attrs\n") == [
        "click>=8", "attrs"]
    assert declared_dependencies("package.json", '{"name": "kit", "dependencies": {"express": "^4.19.2"}}') == [
        "express ^4.19.2"]


@pytest.mark.django_db
def test_the_projects_dependencies_are_answered_from_its_manifest_and_a_modules_from_its_imports(tmp_path):
    kb = make_indexed_repo(tmp_path / "kit", {
        "pyproject.toml": PYPROJECT.replace('dependencies = ["Django>=4.2"]',
                                            'dependencies = ["Django>=4.2", "sqlparse>=0.2"]'),
        "setup.py": "from setuptools import setup\n\nsetup()\n",
        "README.md": "# kit\n\nKit signs data, written in Python.\n\n## Usage\n\nCall `kit.sign(data)` to sign it.\n",
        "kit/__init__.py": '"""Kit."""\n',
        "kit/cli.py": '"""The command line."""\n\nimport argparse\n\nfrom kit import signing\n',
        "kit/signing.py": '"""Signing."""\n\n\ndef sign(data):\n    """Sign data."""\n    return data\n'})
    for question in ["What are the dependencies of kit?", "Which packages does kit require?",
                     "What does kit depend on?", "Какие зависимости у kit?"]:
        result = answers.answer(question, [kb.pk])
        assert not result.refused, (question, result.reasons)
        # (The setup.py shim declaring none says less than the pyproject.toml naming them.)
        assert result.text == "`kit` depends on Django>=4.2 and sqlparse>=0.2 (pyproject.toml). [1]", (question,
                                                                                                        result.text)
    # Asked of a module, its imports; asked the versions supported, no dependencies.
    assert "depends on Django" not in answers.answer("What does kit.cli depend on?", [kb.pk]).text
    assert not runtimes.asks_dependencies("Which versions of Django are required?")


def test_a_manifest_gives_its_packages_version_as_a_value():
    assert declared_version("pyproject.toml", '[tool.poetry]\nname = "backoff"\nversion = "2.2.1"\n') == "2.2.1"
    assert declared_version("pyproject.toml", '[project]\ndynamic = ["version"]\n[tool.setuptools.dynamic]\n'
                                              'version = {attr = "parse.__version__"}\n') == ""
    assert declared_version("setup.py", "setup(\n    name='arrow',\n    version='1.4.0',\n)") == "1.4.0"
    assert declared_version("setup.py", "setup(version=get_version())") == ""
    assert declared_version("setup.cfg", "[metadata]\nname = kit\nversion = 0.3.1\n") == "0.3.1"
    assert declared_version("package.json", '{\n  "name": "ms",\n  "version": "2.1.3",\n  "engines": {}\n}') == "2.1.3"
    # Asked the versions of something it supports, the question is not about its own.
    assert intent_words.VERSION_ASKED("What is the latest version?")
    assert intent_words.VERSION_ASKED("Какая текущая версия?")
    assert intent_words.VERSION_ASKED("Which version is this?")
    assert not intent_words.VERSION_ASKED("Which Python versions are supported?")
    assert not intent_words.VERSION_ASKED("What is the latest version of Django supported?")


@pytest.mark.django_db
def test_the_projects_version_is_answered_from_its_manifest_else_its_code(tmp_path):
    # "What is the latest version?" was refused for backoff and parse, and django-model-utils' answered "supports
    # Django 3.2+ (latest bugfix release …)" at 0.70, `UUIDField`'s `version` parameter taken for what it asked.
    fields = ('class UUIDField:\n    def __init__(self, version=4):\n        """A UUID field.\n\n'
              '        :param version: An integer that sets the default UUID version.\n        """\n')
    static = make_indexed_repo(tmp_path / "retrying", {
        "pyproject.toml": '[tool.poetry]\nname = "retrying"\nversion = "2.2.1"\n',
        "retrying/__init__.py": '__version__ = "2.2.1"\n', "retrying/fields.py": fields,
        "docs/conf.py": 'version = "0.1"\n'})
    dynamic = make_indexed_repo(tmp_path / "parsing", {
        "pyproject.toml": '[project]\nname = "parsing"\ndynamic = ["version"]\n',
        "parsing/__init__.py": ('"""Parse strings."""\n\n__version__ = "1.22.4"\n\n\ndef parse(text):\n'
                                '    return text\n'),
        "docs/conf.py": 'version = "0.1"\n', "parsing/fields.py": fields})
    for kb, said in ((static, "`retrying` is at version 2.2.1 (pyproject.toml). ["),
                     (dynamic, "`parsing` is at version 1.22.4 (parsing/__init__.py). [")):
        for question in ("What is the latest version?", "Какая текущая версия?"):
            answer = answers.answer(question, [kb.pk])
            assert not answer.refused, (question, answer.reasons)
            assert answer.text.startswith(said), (question, answer.text)
    none = make_indexed_repo(tmp_path / "fields", {"setup.py": "setup(name='fields', use_scm_version=True)\n",
                                                   "fields/__init__.py": fields})
    assert answers.answer("What is the latest version?", [none.pk]).refused


def test_a_manifest_names_who_wrote_and_maintains_its_package():
    assert declared_people("pyproject.toml", '[project]\nname = "sqlparse"\nauthors = [{name = "Andi Albrecht", '
                                             'email = "andi@example.org"}]\n') == {"authors": ["Andi Albrecht"]}
    assert declared_people("pyproject.toml", '[tool.poetry]\nauthors = ["Bob Green <bob@example.org>"]\n') == {
        "authors": ["Bob Green"]}
    assert declared_people("pyproject.toml", '[[project.authors]]\nname = "Richard Jones"\nemail = "r@example.org"\n\n'
                                             '[[project.maintainers]]\nname = "Wim Jeantine-Glenn"\n') == {
        "authors": ["Richard Jones"], "maintainers": ["Wim Jeantine-Glenn"]}
    setup = 'setup(\n    maintainer="Will Kahn-Greene",\n    maintainer_email="w@x",\n)'
    assert declared_people("setup.py", setup) == {"maintainers": ["Will Kahn-Greene"]}
    assert declared_people("package.json", '{"author": "TJ Holowaychuk <tj@example.org>"}') == {
        "authors": ["TJ Holowaychuk"]}
    assert declared_people("package.json", '{"author": {"name": "Jo", "email": "jo@example.org"}}') == {
        "authors": ["Jo"]}
    assert declared_people("setup.cfg", "[metadata]\nname = kit\n") == {}


@pytest.mark.django_db
def test_who_wrote_the_project_is_answered_from_its_manifest(tmp_path):
    # sqlparse's "Who wrote sqlparse?" quoted `sqlparse.parse`'s docstring at 0.85; backoff's "Who is the author?" was
    # refused, its pyproject.toml naming Bob Green.
    kb = make_indexed_repo(tmp_path / "sqlkit", {
        "pyproject.toml": ('[project]\nname = "sqlkit"\nauthors = [{name = "Andi Albrecht", '
                           'email = "andi@example.org"}]\nmaintainers = [{name = "Jo Smith"}]\n'),
        "sqlkit/__init__.py": 'def parse(sql):\n    """Parse sql and return a list of statements written by you."""\n',
    })
    for question in ("Who is the author?", "Who wrote sqlkit?", "Who maintains it?", "Кто автор?"):
        answer = answers.answer(question, [kb.pk])
        assert not answer.refused, (question, answer.reasons)
        assert answer.text.startswith("`sqlkit` is written by Andi Albrecht and maintained by Jo Smith "
                                      "(pyproject.toml). ["), (question, answer.text)
        assert "example.org" not in answer.text
        assert "written by you" not in answer.text, (question, answer.text)  # the statement is the whole answer


def test_a_manifest_labels_the_addresses_of_its_project():
    text = ('[project]\nname = "sqlkit"\n\n[project.urls]\nHome = "https://github.com/acme/sqlkit"\n'
            'Documentation = "https://sqlkit.example.org/"\nTracker = "https://github.com/acme/sqlkit/issues"\n')
    assert labelled_urls("pyproject.toml", text) == [("home", "https://github.com/acme/sqlkit"),
                                                      ("documentation", "https://sqlkit.example.org/"),
                                                      ("tracker", "https://github.com/acme/sqlkit/issues")]
    assert labelled_urls("package.json", '{"bugs": {"url": "https://github.com/a/b/issues"}, "repository": '
                                         '"git+https://github.com/a/b.git"}') == [
        ("repository", "https://github.com/a/b"), ("bugs", "https://github.com/a/b/issues")]
    assert intent_words.DOCS_WHERE_ASKED("Where is the documentation?")
    assert intent_words.BUGS_WHERE_ASKED("Where do I report a bug?")
    assert not intent_words.DOCS_WHERE_ASKED("How do I build the docs?")


@pytest.mark.django_db
def test_where_the_documentation_is_and_bugs_are_reported_is_answered_from_the_manifest(tmp_path):
    # "Where is the documentation?" was refused for parse, backoff and django-cors-headers, whose manifests give their
    # homes; sqlparse's "Where do I report a bug?" was refused, its pyproject.toml labelling its tracker.
    labelled = make_indexed_repo(tmp_path / "sqlkit", {
        "pyproject.toml": ('[project]\nname = "sqlkit"\n\n[project.urls]\nHome = "https://github.com/acme/sqlkit"\n'
                           'Documentation = "https://sqlkit.example.org/"\n'
                           'Tracker = "https://github.com/acme/sqlkit/issues"\n'),
        "sqlkit/__init__.py": 'def parse(sql):\n    """Parse the documents of sql."""\n'})
    home = make_indexed_repo(tmp_path / "parsing", {
        "pyproject.toml": '[project]\nname = "parsing"\n\n[project.urls]\nhomepage = "https://github.com/acme/parsing"\n',
        "parsing/__init__.py": 'def report(bug):\n    """Report a bug."""\n'})
    for kb, question, said in (
            (labelled, "Where is the documentation?",
             "The documentation of `sqlkit` is at https://sqlkit.example.org/ (pyproject.toml). ["),
            (labelled, "Where do I report a bug?",
             "Bugs in `sqlkit` are reported at https://github.com/acme/sqlkit/issues (pyproject.toml). ["),
            (home, "Where is the documentation?",
             "The home of `parsing` is at https://github.com/acme/parsing (pyproject.toml). [")):
        answer = answers.answer(question, [kb.pk])
        assert not answer.refused, (question, answer.reasons)
        assert answer.text.startswith(said), (question, answer.text)
    # A home is no tracker: that is not guessed.
    assert "github.com/acme/parsing" not in answers.answer("Where do I report a bug?", [home.pk]).text
