"""Answers over a repository's layered index: the sources the intent router finds, a symbol's docstring and
where it is defined, an edge as a sentence, never code quoted as prose; a repository's index of entities,
links and facts is not what an answer is grounded on."""

from dataclasses import replace

import pytest

from knowledge.indexing import term_statistics
from knowledge.indexing.layers.docs.sections import says_something
from knowledge.indexing.layers.docstrings import doc_summary
from knowledge.indexing.layers.manifests import package_description, package_name
from knowledge.models import Chunk
from knowledge.search import answers, layer_text
from knowledge.search.planned import plan_and_search
from knowledge.search.retrieval import SearchHit
from tests.factories import make_indexed_repo

REPO = {
    "jobs/__init__.py": '"""Background jobs."""\n',
    "jobs/schedules.py": '''"""When jobs run."""

import datetime


def add_schedule(task, every):
    """Create a schedule that runs the task periodically.

    :param task: the dotted path of the task.
    """
    return {"task": task, "every": every, "next_run": next_run(every)}


def next_run(every):
    return datetime.datetime.now() + datetime.timedelta(hours=1 if every == "hour" else 24)
''',
    "jobs/cli.py": '''"""The command line."""

from jobs.schedules import add_schedule


def main():
    add_schedule("jobs.report", every="hour")
''',
    "docs/schedules.md": "# Schedules\n\nA schedule runs a task every hour or every day, starting from the next run.\n"
                         "See [the reference](reference.md).\n",
}


def hit(layer: str, content: str, **metadata) -> SearchHit:
    return SearchHit(chunk_id=1, document_id=1, knowledge_base_id=1, document_title="t", source_uri="",
                     section_path="", page=None, layer=layer, content=content, snippet="", distance=0.1, score=1.0,
                     rank=1, metadata=metadata)


@pytest.fixture
def kb(tmp_path):
    return make_indexed_repo(tmp_path / "jobs-repo", REPO)


@pytest.mark.django_db
def test_an_answer_quotes_the_docstring_and_where_it_is_defined_never_the_code(kb):
    # Before, the code's "sentences" were the answer: "def add_schedule(task, every): … return {"task": …".
    result = answers.answer("How do I add a schedule for a task?", [kb.pk], threshold=0)
    assert not result.refused, result.reasons
    assert ("`jobs.schedules.add_schedule` (jobs/schedules.py): Create a schedule that runs the task "
            "periodically.") in result.text
    assert "return" not in result.text and "def " not in result.text and ":param" not in result.text


@pytest.mark.django_db
def test_the_caller_asked_for_comes_first_as_a_sentence(kb):
    # The intent router finds the edges into add_schedule; plain search put the function itself first.
    result = answers.answer("Who calls add_schedule?", [kb.pk], threshold=0)
    assert result.text.startswith("`jobs.cli.main` calls jobs.schedules.add_schedule. [1]"), result.text
    assert result.sources[0].layer == "C2"


@pytest.mark.django_db
def test_the_index_of_entities_links_and_facts_does_not_take_the_places_of_the_sources(kb):
    # The page's entity row ("docs/schedules.md (document) — Schedules") outranks its text for its own words.
    result = answers.answer("What are schedules?", [kb.pk], threshold=0)
    assert result.sources and not {source.layer for source in result.sources} & layer_text.UNQUOTED_LAYERS
    assert "A schedule runs a task every hour or every day" in result.text, result.text
    # Named, they are searched.
    named = answers.answer("What are schedules?", [kb.pk], threshold=0, layers=["D3"])
    assert {source.layer for source in named.sources} == {"D3"}


@pytest.mark.django_db
def test_where_a_symbol_is_defined_answers_a_question_asking_where_or_what_it_is_not_how(kb):
    # attrs' "How do I make a class frozen?" was answered "Variable `attr._next_gen.frozen` is defined in
    # src/attr/_next_gen.py.": a symbol without a docstring says where it is, not how to do anything.
    how = answers.answer("How do I use next_run?", [kb.pk], threshold=0)
    assert "is defined in" not in how.text, how.text
    for question in ("Where is next_run defined?", "What is next_run?", "В каком файле next_run?"):
        result = answers.answer(question, [kb.pk], threshold=0)
        assert "Function `jobs.schedules.next_run` is defined in jobs/schedules.py. [1]" in result.text, question


def test_each_layer_reads_as_a_sentence():
    quotable = layer_text.quotable
    code = 'def add(a, b):\n    """Add two numbers.\n\n    More detail.\n    """\n    return a + b\n'
    assert quotable(hit("C0", code, qname="m.add", source_path="m.py")) == "`m.add` (m.py): Add two numbers."
    assert quotable(hit("C0", "def add(a, b):\n    return a + b\n", qname="m.add")) == ""
    # Flask's docstrings wrap their first sentence; its first line alone read "…acts as the central."
    wrapped = ('class Flask(App):\n    """The flask object implements a WSGI application and acts as the central\n'
               '    object.  It is passed the name of the module.\n\n    :param import_name: the name.\n    """\n')
    assert quotable(hit("C0", wrapped, qname="flask.app.Flask")) == \
        "`flask.app.Flask`: The flask object implements a WSGI application and acts as the central object."
    assert doc_summary("Convert the return value to an instance of\n:attr:`response_class`.\n\nMore.") \
        == "Convert the return value to an instance of response_class."
    assert doc_summary("Uses :class:`~flask.sessions.SecureCookieSessionInterface` by default") \
        == "Uses SecureCookieSessionInterface by default"
    assert doc_summary("Returns a date, or ``None`` for a browser session.") \
        == "Returns a date, or None for a browser session."
    # schedule's Scheduler.idle_seconds opens with its field: "What does idle_seconds return?" found no summary.
    assert doc_summary(":return: Number of seconds until\n         :meth:`next_run <Scheduler.next_run>`\n"
                       "         or None if no jobs are scheduled") \
        == "Returns number of seconds until next_run or None if no jobs are scheduled."
    assert doc_summary(":param name: The name.\n:type name: str\n:returns: ``True`` when saved.\n:raises X: never") \
        == "Returns True when saved."
    assert doc_summary("Returns:\n    The JSON text of the response.\n\nRaises:\n    ValueError: never.") \
        == "Returns the JSON text of the response."
    assert doc_summary(":param name: The name.") == ""
    # platformdirs' ":return: data directory tied to the user, e.g. ``~/.local/share/$appname``" ended at "e.g.".
    assert doc_summary(":return: data directory tied to the user, e.g. ``~/.local/share/$appname`` or\n"
                       " ``$XDG_DATA_HOME/$appname``") \
        == "Returns data directory tied to the user, e.g. ~/.local/share/$appname or $XDG_DATA_HOME/$appname."
    assert doc_summary("Open the file, i.e. read its header. Then stop.") == "Open the file, i.e. read its header."
    # platformdirs' Android: "Follows the guidance `from here <https://android.stackexchange.com/a/216132>`_."
    assert doc_summary("Follows the guidance `from here <https://example.org/a/1>`_. More.") \
        == "Follows the guidance from here."
    # NumPy's sections: tqdm's cli.main read "Parameters (internal use only) --------- fp : file-like object …".
    assert doc_summary("Parameters (internal use only)\n---------\nfp  : file-like object for tqdm") == ""
    assert doc_summary("Compute the mean.\nParameters\n----------\nx : array") == "Compute the mean."
    # more-itertools' `chunked`: a first sentence introducing its example was no summary, and "What does chunked do?"
    # said where it is defined; its emphasis of a parameter's name read as stars.
    assert doc_summary("Break *iterable* into lists of length *n*:\n\n    >>> list(chunked([1, 2, 3], 2))") \
        == "Break iterable into lists of length n."
    assert doc_summary("If *obj* is iterable, return an iterator over its items::\n\n    >>> obj = (1, 2, 3)") \
        == "If obj is iterable, return an iterator over its items."
    assert doc_summary("Here is an example of its use:\n\n    >>> f()") == ""
    assert doc_summary("Example:\n\n    >>> f()") == ""
    assert doc_summary("Do **not** pass *args here.") == "Do not pass *args here."
    # humanize's natural_list: a title over the paragraph saying what it does; "How do I join a list with commas and
    # 'and'?" quoted nothing of it.
    assert doc_summary("Natural list.\n\n    Convert an iterable into a string with commas and 'and'.\n\n"
                       "    Examples:\n        >>> natural_list(['one', 'two'])") \
        == "Convert an iterable into a string with commas and 'and'."
    assert doc_summary("Natural list.") == "Natural list."
    assert doc_summary("Natural list.\n\n    >>> natural_list(['one', 'two'])") == "Natural list."
    method = '    @property\n    def size(self):\n        """The number of items held."""\n        return 1\n'
    assert quotable(hit("C0", method, qname="m.Box.size")) == "`m.Box.size`: The number of items held."
    assert quotable(hit("C0", "/** Sends the order to the warehouse. */\nexport function ship(order) {}\n",
                        qname="shop.ship")) == "`shop.ship`: Sends the order to the warehouse."
    # An example is not a summary.
    undocumented = hit("C1", "", qname="p.paginate", kind="function", docstring="@api.get(...", source_path="p.py")
    assert quotable(undocumented, question="Where is paginate?") == "Function `p.paginate` is defined in p.py."
    assert quotable(undocumented, question="How do I paginate?") == ""
    assert quotable(hit("C3", "cli qcluster → dq.commands.qcluster.Command.handle (django management_command)")) \
        == "Command `qcluster` is handled by dq.commands.qcluster.Command.handle."
    assert quotable(hit("C3", "GET /items → shop.api.list_items (ninja route)")) \
        == "GET /items is handled by shop.api.list_items."
    assert quotable(hit("C4", "shop.models.Order is a model (class)\nmodel: inherits django.db.models.Model")) \
        == "`shop.models.Order` is a model (class)."
    # Nothing to a how-to: "`bin.nanoid` is a cli command (module)." answered "How do I install nanoid?".
    assert quotable(hit("C4", "bin.nanoid is a cli command (module)"), question="How do I install nanoid?") == ""
    # "What exceptions can httpx raise?" was answered "`httpx._exceptions.WriteError` is an exception (class)." and two
    # more alike: what each is for is its docstring's first sentence.
    assert quotable(hit("C4", "web._exceptions.ConnectTimeout is an exception (class)\nexception: inherits Timeout",
                        summary_text="Timed out while connecting to the host.")) \
        == "`web._exceptions.ConnectTimeout` is an exception (class): Timed out while connecting to the host."
    # Asked where it is, a documented symbol says that first (jinja's "Where is the Environment class defined?"
    # was refused: its docstring's sentence alone was far from the question in meaning).
    documented = hit("C1", "", qname="m.add", kind="function", docstring="Add two numbers.", source_path="m.py")
    assert quotable(documented, question="Where is add defined?") \
        == "Function `m.add` is defined in m.py: Add two numbers."
    assert quotable(documented, question="What does add do?") == "`m.add` (m.py): Add two numbers."
    assert quotable(hit("C0", code, qname="m.add", source_path="m.py", chunk_type="function"),
                    question="Where is add defined?") == "Function `m.add` is defined in m.py: Add two numbers."
    edge = hit("C2", "jobs.cli.main calls jobs.schedules.add_schedule (resolved)")
    for question in ("Who calls add_schedule?", "What does main call?", "Which modules import jobs?",
                     "Where is add_schedule used?", "Кто вызывает add_schedule?"):
        assert quotable(edge, question=question) == "`jobs.cli.main` calls jobs.schedules.add_schedule.", question
    # attrs' "What is the difference between attr.s and attrs.define?" was answered "`attrs` imports attr.".
    assert quotable(edge, question="How do I add a schedule?") == ""
    integration = hit("D6", "Routers mentions Swagger UI (external system), in: Routers; Routers > Nested",
                      target="Swagger UI")
    for question in ("Which services do the routers integrate with?", "What is Swagger UI?"):
        assert quotable(integration, question=question) == "Routers mentions Swagger UI (external system).", question
    assert quotable(integration, question="How do I add Swagger UI to the routers?") == ""
    # django-ninja's "Where are the URLs of the OpenAPI JSON and the docs page registered?" was answered "API Docs
    # mentions github.com (URL).": a mention answers only a question about what the repository integrates.
    assert quotable(integration, question="Where are the routers registered?") == ""
    assert quotable(hit("D3", "docs/a.md (document) — A")) == ""
    assert quotable(hit("D4", "Workflow: Best practices\nMain flow:\n- Create the app in a function.")) == ""
    assert quotable(hit("D0", "# Title\n\nSome **prose**.")) == "Some prose."


def test_where_a_symbol_is_defined_comes_after_what_the_documentation_says_of_it():
    # colorama's "What does init() do?" opened with "Function `colorama.initialise.init` is defined in
    # colorama/initialise.py.", semver's "What does coerce do?" said only that, its README's entry ranked below it.
    from knowledge.search import composer

    where = hit("C1", "", qname="funcs.coerce", kind="function", docstring="", source_path="funcs/coerce.js")
    readme = replace(hit("D0", "## Functions\n\n* `coerce(version)`: Coerces a string to semver if possible"),
                     chunk_id=2, document_id=2, rank=2)
    for question in ("What does coerce do?", "What does coerce() do?"):
        assert composer.compose(question, [where, readme], entry_match=False).text == (
            "• coerce(version): Coerces a string to semver if possible [2]"), question
    # Alone, or beside documentation naming another function, it points to the code (django-ninja's "What does
    # get_schema do?" beside "ModelSchema uses the create_schema function."); asked where, it is the answer.
    assert composer.compose("What does coerce do?", [where], entry_match=False).text == (
        "Function `funcs.coerce` is defined in funcs/coerce.js. [1]")
    other = replace(readme, content="## Functions\n\n* `coerce_all(versions)`: Coerces strings to semver")
    assert composer.compose("What does coerce do?", [where, other], entry_match=False).text.startswith(
        "Function `funcs.coerce` is defined in funcs/coerce.js. [1]")
    assert composer.compose("Where is coerce defined?", [where, readme], entry_match=False).text.startswith(
        "Function `funcs.coerce` is defined in funcs/coerce.js. [1]")


def test_a_rows_meaning_is_compared_without_its_package_and_file():
    # With them, "How are task results saved?" and django-q's "…monitor (…/monitor.py): Gets finished tasks
    # from the result queue and saves them to Django." were 0.10 apart on the calibrated scale; without, 0.30.
    from knowledge.search.readable import as_read

    assert as_read(["`jobs.schedules.add_schedule` (jobs/schedules.py): Create a schedule."], 0) \
        == "add_schedule: Create a schedule."
    assert as_read(["Function `jobs.cli.main` is defined in jobs/cli.py."], 0) \
        == "Function main is defined in jobs/cli.py."
    assert as_read(["Use `flask run` to start it."], 0) == "Use `flask run` to start it."  # code, not a name


@pytest.mark.django_db
def test_a_management_command_says_what_it_does_by_its_help(tmp_path):
    # django-q's "qcluster" had nothing to say but its handler's name: `help` is its only description, and
    # django-ninja's export_openapi_schema has a docstring that is only an example.
    kb = make_indexed_repo(tmp_path / "shop-repo", {
        "shop/__init__.py": "",
        "shop/management/commands/import_orders.py": (
            "from django.core.management.base import BaseCommand\n"
            "from django.utils.translation import gettext as _\n\n\n"
            "class Command(BaseCommand):\n"
            '    """\n    Example:\n\n        python manage.py import_orders --day 2026-12-01\n    """\n\n'
            '    help = _("Imports the orders of one day from the warehouse.")\n\n'
            "    def handle(self, *args, **options):\n        return None\n"),
    })
    entry = Chunk.objects.get(knowledge_base=kb, layer="C3")
    assert entry.metadata["summary_text"] == "Imports the orders of one day from the warehouse."
    result = answers.answer("What does the import_orders command do?", [kb.pk], threshold=0)
    assert ("Command `import_orders` is handled by shop.management.commands.import_orders.Command.handle: "
            "Imports the orders of one day from the warehouse.") in result.text, result.text


@pytest.mark.django_db
def test_two_symbols_a_question_compares_by_plain_words_are_each_said(tmp_path):
    # marshmallow's "What is the difference between load and dump?" was refused (0.52) with no symbol step.
    kb = make_indexed_repo(tmp_path / "shapes", {"shapes/__init__.py": "", "shapes/schema.py": (
        "class Schema:\n"
        '    """A set of fields."""\n\n'
        "    def load(self, data):\n"
        '        """Deserialize a data structure to an object defined by the fields."""\n'
        "        return data\n\n"
        "    def dump(self, obj):\n"
        '        """Serialize an object to native Python data types according to the fields."""\n'
        "        return obj\n")})
    result = answers.answer("What is the difference between load and dump?", [kb.pk])
    assert not result.refused, result.reasons
    assert result.confidence >= answers.NAMED_ENTRY_CONFIDENCE
    assert "`shapes.schema.Schema.load` (shapes/schema.py): Deserialize a data structure" in result.text, result.text
    assert "`shapes.schema.Schema.dump` (shapes/schema.py): Serialize an object" in result.text, result.text


@pytest.mark.django_db
def test_a_symbols_signature_or_return_type_asked_is_said_as_its_code_declares_it(tmp_path):
    # humanize's "What is the signature of intcomma?" was refused (0.50); arrow's "What does arrow.now() return?" was
    # refused for sharing only "arrow" and "now", words of every chunk, with `arrow.api.now` it never found.
    readme = "# clock\n\n" + "".join(f"## Part {n}\n\nThe clock tells the time now and then, clock part {n}.\n\n"
                                     for n in range(8)) + (
        "## Arguments\n\nThe clock's functions accept their arguments by name, as digits and groups of digits.\n")
    kb = make_indexed_repo(tmp_path / "clock", {
        "README.md": readme,
        "clock/__init__.py": '"""Clocks."""\nfrom clock.api import now\n',
        "clock/api.py": ('"""The clock\'s functions."""\n\n\n'
                         "def now(tz=None) -> \"Moment\":\n"
                         '    """Calls the default factory\'s now method."""\n    return tz\n\n\n'
                         "def tick(count, every=1.0):\n    return count\n\n\n"
                         "def group_digits(value: int, ndigits: int | None = None) -> str:\n"
                         '    """Converts an integer to a string with commas every three digits."""\n'
                         "    return str(value)\n"),
        "clock/factory.py": ("class Factory:\n"
                             '    """Makes moments."""\n\n'
                             "    def now(self, tz=None):\n"
                             '        """Returns a moment representing now in the given timezone."""\n'
                             "        return tz\n"),
    })
    term_statistics.take(kb.pk)
    kb.refresh_from_db()
    result = answers.answer("What is the signature of group_digits?", [kb.pk])
    assert not result.refused, result.reasons
    assert "Its signature is `def group_digits(value: int, ndigits: int | None=None) -> str`." in result.text, \
        result.text
    # (Said before the documentation's sentences sharing the word "argument": cachetools' "What arguments does cached
    # accept?".)
    result = answers.answer("What arguments does group_digits accept?", [kb.pk])
    assert "Its signature is `def group_digits(" in result.text, result.text
    # (Of one without a docstring too: jmespath's `search`.)
    result = answers.answer("What is the signature of clock.api.tick?", [kb.pk])
    assert "Function `clock.api.tick` is defined in clock/api.py. [1] Its signature is `def tick(count, every=1.0)`." \
        in result.text, result.text
    result = answers.answer("What does clock.now() return?", [kb.pk])
    assert not result.refused, result.reasons
    assert result.text.startswith("`clock.api.now` (clock/api.py): Calls the default factory's now method. [1] It "
                                  "returns `'Moment'`. [1]"), result.text


def test_an_extract_passes_over_rows_with_nothing_to_say_but_not_to_rows_nobody_asked_for():
    # attrs' "How do I make a class frozen?" had three rows of code without docstrings first, and was refused
    # with its documentation's answer fourth.
    from knowledge.search import composer

    question = "How do I make a record frozen?"
    code = hit("C0", "@frozen\nclass FrozenRecord:\n    x: int\n", qname="typing.FrozenRecord", source_path="t.py")
    symbol = hit("C1", "", qname="rec.frozen", kind="variable", source_path="rec/__init__.py")
    test = hit("C1", "", qname="tests.test_rec.test_frozen", kind="function", source_path="tests/test_rec.py",
               docstring="A frozen record cannot be changed.", is_test=True)
    docs = hit("D0", "# Immutability\n\nMake a record frozen by passing frozen=True when you make it.")
    composition = composer.compose(question, [code, symbol, code, test, docs], entry_match=False)
    assert composition.text == "Make a record frozen by passing frozen=True when you make it. [5]"
    assert composition.cited == [5]
    # Among the first three it is read as before: retrieval ranked it there.
    composition = composer.compose(question, [code, test, docs], entry_match=False)
    assert "A frozen record cannot be changed. [2]" in composition.text, composition.text


@pytest.mark.django_db
def test_a_readmes_section_opening_with_the_projects_name_in_lower_case_is_quoted(tmp_path):
    # cachetools' README: "## Installation" over "cachetools is available from PyPI_ and can be installed by
    # running::" was refused as nothing to quote — its sentence read as the tail of one a chunk's start cut.
    long_section = "## Usage\n\n" + "".join(f"cachetools keeps item {n} of the cache in memory until it is evicted. "
                                             for n in range(60))
    readme = ("cachetools\n==========\n\nExtensible memoizing collections.\n\nInstallation\n------------\n\n"
              "cachetools is available from PyPI_ and can be installed by running::\n\n  pip install cachetools\n\n"
              ".. _PyPI: https://pypi.org/project/cachetools/\n")
    kb = make_indexed_repo(tmp_path / "caches", {"README.rst": readme, "docs/usage.md": long_section,
                                                 "caches/__init__.py": '"""Caches."""\n'})
    answer = answers.answer("How do I install cachetools?", [kb.pk])
    assert answer.text == ("cachetools is available from PyPI and can be installed by running: [1]\n"
                           "    pip install cachetools"), answer.text
    # Each piece of a long section carries its heading; only the first opens with the section's text.
    # The section is one line, so its pieces share their span: they are put in order by the rows' own order.
    pieces = sorted(Chunk.objects.filter(knowledge_base=kb, layer="D0", section_path="Usage"),
                    key=lambda piece: piece.metadata["order"])
    assert [piece.metadata["section_start"] for piece in pieces][:2] == [True, False]


def test_a_manifest_names_its_package():
    assert package_name("pyproject.toml", '[project]\nname = "attrs"\nversion = "1"\n') == "attrs"
    assert package_name("pyproject.toml", '[tool.poetry]\nname = "acme-tool"\n') == "acme-tool"
    assert package_name("setup.cfg", "[metadata]\nname = schedule\n") == "schedule"
    assert package_name("package.json", '{"name": "@acme/chalk", "version": "5.0.0"}') == "chalk"
    assert package_name("package.json", '["not", "a", "manifest"]') == ""
    assert package_name("pyproject.toml", "[tool.ruff]\nline-length = 100\n") == ""


@pytest.mark.django_db
def test_what_a_project_is_is_its_readmes_summary_named_by_title_or_by_package(tmp_path):
    # "What is schedule?" quoted its README's Documentation section; attrs' README is titled by an HTML logo, so
    # only the manifest beside it says its name.
    readme = ("<p align=\"center\"><img src=\"logo.svg\" alt=\"acmetool\"></p>\n\n"
              "[![PyPI](https://img.shields.io/pypi/v/acmetool.svg)](https://pypi.org/project/acmetool/)\n\n"
              "Acmetool keeps scheduled jobs running on time for humans.\n\n"
              "## Documentation\n\nThe acmetool documentation lives at acmetool.example.org.\n\n"
              "## Related projects\n\n- acmetool-async: Helpers to use acmetool with asyncio.\n")
    kb = make_indexed_repo(tmp_path / "acmetool", {
        "README.md": readme, "pyproject.toml": '[project]\nname = "acmetool"\nversion = "1.0"\n',
        "acmetool/__init__.py": '"""Helpers for acmetool jobs."""\n\n\ndef run():\n    """Run the jobs."""\n'})
    plan, _ = plan_and_search("What is acmetool?", [kb.pk])
    assert (plan.intent, plan.steps[0].filters) == ("project", {"document_id": "README.md"})
    result = answers.answer("What is acmetool?", [kb.pk], threshold=0.0)
    assert result.text.startswith("Acmetool keeps scheduled jobs running on time for humans. [1]"), result.text


@pytest.mark.django_db
def test_a_project_named_only_by_its_setup_py_is_what_its_readme_says(tmp_path):
    # colorlog's README is titled "Log formatting with colors!" and only `setup(name="colorlog", …)` names it: "What is
    # colorlog?" was planned as any question and quoted its Status section ("• colorlog 5.x is an interim version …").
    readme = ("# Log formatting with colors!\n\nAdd colours to the output of Python's `logging` module.\n\n"
              "## Status\n\nacmelog currently requires Python 3.6 or higher.\n\n"
              "* acmelog 5.x is an interim version that will warn Python 2 users to downgrade.\n")
    setup = ('from setuptools import setup\n\nsetup(\n    name="acmelog",\n    version="6.9.0",\n'
             '    description="Add colours to the output of Python\'s logging module.",\n'
             '    packages=["acmelog"],\n)\n')
    kb = make_indexed_repo(tmp_path / "acmelog", {"README.md": readme, "setup.py": setup,
                                                  "acmelog/__init__.py": '"""A logging formatter."""\n'})
    plan, _ = plan_and_search("What is acmelog?", [kb.pk])
    assert (plan.intent, plan.steps[0].filters) == ("project", {"document_id": "README.md"})
    result = answers.answer("What is acmelog?", [kb.pk], threshold=0.0)
    assert result.text.startswith("Log formatting with colors! [1] Add colours to the output of Python's logging "
                                  "module. [1]"), result.text


@pytest.mark.django_db
def test_a_readme_opening_with_its_sections_is_titled_by_its_package(tmp_path):
    # parse's README.rst opens with "Installation" and "Usage" at its top level: every source of it was titled
    # "Installation", and "How do I install parse?" quoted its "Potential Gotchas" after `pip install parse`.
    readme = ("Installation\n------------\n\n.. code-block:: pycon\n\n    pip install acmeparse\n\n"
              "Usage\n-----\n\nParse strings using a specification based on the Python format() syntax.\n\n"
              "Potential Gotchas\n-----------------\n\nparse() will always match the shortest text necessary (from "
              "left to right) to fulfil the parse pattern.\n")
    kb = make_indexed_repo(tmp_path / "acmeparse", {
        "README.rst": readme, "pyproject.toml": '[project]\nname = "acmeparse"\nversion = "1.20.2"\n',
        "acmeparse.py": '"""Parse strings using a specification based on the Python format() syntax."""\n'})
    titles = set(Chunk.objects.filter(knowledge_base=kb, document__source_uri__endswith="README.rst")
                 .values_list("document__title", flat=True))
    assert titles == {"acmeparse"}
    result = answers.answer("How do I install acmeparse?", [kb.pk], threshold=0.0)
    assert result.text == "Installation: [1]\n    pip install acmeparse", result.text


@pytest.mark.django_db
def test_a_readmes_card_answers_what_the_project_is_without_saying_its_name(tmp_path):
    # nanoid's README: "# Nano ID" over "A tiny, secure, URL-friendly, unique string ID generator for JavaScript."
    # "What is Nano ID?" was refused: the card shares only "ID" with it, a word of most of the base, and "Nano" is
    # said by the card's title alone.
    from knowledge.indexing import term_statistics

    modules = {f"src/ids{n}.js": f"/** Generate an ID of {n} symbols. */\nexport function id{n}() {{ return {n} }}\n"
               for n in range(6)}
    kb = make_indexed_repo(tmp_path / "nanoid", {
        "README.md": "# Nano ID\n\nA tiny, secure, URL-friendly, unique string ID generator for JavaScript.\n",
        "package.json": '{"name": "nanoid", "version": "5.0.9"}', **modules})
    term_statistics.take(kb.pk)
    result = answers.answer("What is Nano ID?", [kb.pk], threshold=0.0)
    assert result.text == "A tiny, secure, URL-friendly, unique string ID generator for JavaScript. [1]", (
        result.text, result.reasons)


@pytest.mark.django_db
def test_a_readme_saying_nothing_of_the_project_is_summarised_by_its_manifest(tmp_path):
    # filelock's README is badges and "For more information checkout the official documentation.": that was what
    # "What is filelock?" got; its pyproject.toml says what the package is.
    readme = ("# acmelock\n\n[![PyPI](https://img.shields.io/pypi/v/acmelock)](https://pypi.org/project/acmelock/)\n\n"
              "For more information checkout the [official documentation](https://acmelock.example/).\n")
    kb = make_indexed_repo(tmp_path / "acmelock", {
        "README.md": readme,
        "pyproject.toml": '[project]\nname = "acmelock"\ndescription = "A platform independent file lock."\n',
        "src/acmelock/__init__.py": '"""Locks."""\n'})
    card = Chunk.objects.get(knowledge_base=kb, layer="D1", document__source_uri__endswith="README.md")
    assert card.content == "acmelock\n\nA platform independent file lock.", card.content
    result = answers.answer("What is acmelock?", [kb.pk], threshold=0.0)
    assert result.text.startswith("A platform independent file lock. [1]"), result.text
    # What a manifest says its package is, wherever it says it.
    assert package_description("setup.cfg", "[metadata]\nname = a\ndescription = Job scheduling\n") == "Job scheduling"
    assert package_description("package.json", '{"name": "nanoid", "description": "A tiny ID\\n generator"}') == (
        "A tiny ID generator")
    assert package_description("pyproject.toml", '[tool.poetry]\nname = "a"\n') == ""
    # Nor does a README whose first words are its install command and a demo's lead-in (termcolor's): "What is
    # termcolor?" was answered "To see demo output, run: python3 -m termcolor".
    readme = ("# acmecolor\n\n## Installation\n\n```bash\npython3 -m pip install acmecolor\n```\n\n### Demo\n\n"
              "To see demo output, run:\n\n```bash\npython3 -m acmecolor\n```\n")
    kb = make_indexed_repo(tmp_path / "acmecolor", {
        "README.md": readme,
        "pyproject.toml": ('[project]\nname = "acmecolor"\n'
                           'description = "ANSI color formatting for output in terminal"\n'),
        "src/acmecolor/__init__.py": '"""Colours."""\n'})
    card = Chunk.objects.get(knowledge_base=kb, layer="D1", document__source_uri__endswith="README.md")
    assert card.content == "acmecolor\n\nANSI color formatting for output in terminal", card.content
    result = answers.answer("What is acmecolor?", [kb.pk], threshold=0.0)
    assert result.text.startswith("ANSI color formatting for output in terminal [1]"), result.text
    # A tagline saying word for word what the manifest says comes first, though it has no full stop (camelcase's
    # "> Convert a dash/dot/underscore/space separated string to camelCase …" was passed over for "Correctly handles
    # Unicode strings.", "What is camelcase?" answered by it alone).
    readme = ("# acmecase\n\n> Convert a dash/dot separated string to camelCase: `foo-bar` → `fooBar`\n\n"
              "Correctly handles Unicode strings.\n\n## Install\n\n```sh\nnpm install acmecase\n```\n")
    kb = make_indexed_repo(tmp_path / "acmecase", {
        "README.md": readme, "index.js": "export default function camelCase(input) { return input }\n",
        "package.json": ('{"name": "acmecase", "description": "Convert a dash/dot separated string to camelCase: '
                         '`foo-bar` → `fooBar`"}')})
    card = Chunk.objects.get(knowledge_base=kb, layer="D1", document__source_uri__endswith="README.md")
    assert card.content == ("acmecase\n\nConvert a dash/dot separated string to camelCase: `foo-bar` → `fooBar`\n\n"
                            "Correctly handles Unicode strings."), card.content
    # Said once: not again when the title says it.
    titled = make_indexed_repo(tmp_path / "acmevalid", {
        "README.md": "# acmevalid - Data Validation for Humans\n\nPython has validation tools. This one needs no "
                     "schema.\n", "pyproject.toml": '[project]\nname = "acmevalid"\n'
                                                    'description = "Data Validation for Humans"\n',
        "acmevalid/__init__.py": '"""Validators."""\n'})
    card = Chunk.objects.get(knowledge_base=titled, layer="D1", document__source_uri__endswith="README.md")
    assert card.content == ("acmevalid - Data Validation for Humans\n\nPython has validation tools. This one needs no "
                            "schema."), card.content
    result = answers.answer("What is acmecase?", [kb.pk], threshold=0.0)
    assert result.text.startswith("Convert a dash/dot separated string to camelCase: foo-bar → fooBar [1] Correctly "
                                  "handles Unicode strings. [1]"), result.text
    # A paragraph of sentences is what the README says, though it ends introducing a list (humanize's).
    assert says_something("This package turns numbers into words (\"3 minutes ago\"). It is localized to:")
    assert not says_something("To see demo output, run:")


@pytest.mark.django_db
def test_what_a_function_without_a_docstring_does_is_answered_by_the_documentation_naming_it(tmp_path):
    # colorama's "What does just_fix_windows_console do?": the function has no docstring, and the answer was
    # "Function `colorama.initialise.just_fix_windows_console` is defined in colorama/initialise.py." alone; its
    # README's "Initialisation" says what it does.
    readme = ("# paints\n\nColoured terminal text.\n\n## Usage\n\n### Windows terminals\n\nCall "
              "`paints.repair_windows_console()` once at start-up: it makes the Windows console understand "
              "ANSI colour codes, and does nothing on other systems.\n\n" + "".join(
                  f"Colour {n} is printed with its own escape sequence and reset at the end of the line. "
                  for n in range(30)) + "\n\n## Licence\n\nMIT.\n")
    kb = make_indexed_repo(tmp_path / "paints", {
        "README.md": readme,
        "paints/__init__.py": "from paints.console import repair_windows_console\n",
        "paints/console.py": "import sys\n\n\ndef repair_windows_console():\n    if sys.platform != 'win32':\n"
                             "        return\n    sys.stdout.write('')\n",
        # Its tests name it in every line: plain search's places go to them.
        "tests/test_console.py": "from paints.console import repair_windows_console\n" + "".join(
            f"\n\ndef test_repair_windows_console_{n}():\n    assert repair_windows_console() is None  "
            f"# repair_windows_console on console {n}\n" for n in range(8)),
    })
    answer = answers.answer("What does repair_windows_console do?", [kb.pk])
    assert "it makes the Windows console understand ANSI colour codes" in answer.text, answer.text
    assert any(hit.source_uri.endswith("README.md") for hit in answer.sources)
    # Asked where it is, its code answers.
    plan, _ = plan_and_search("Where is repair_windows_console defined?", [kb.pk])
    assert [step.layers for step in plan.steps] == [["C1"]], plan.steps


@pytest.mark.django_db
def test_where_to_put_a_class_is_answered_by_the_documentation_not_its_file(tmp_path):
    # django-cors-headers' "Where do I put CorsMiddleware in MIDDLEWARE?" was answered "Class
    # `corsheaders.middleware.CorsMiddleware` is defined in src/corsheaders/middleware.py.": its README's Setup says.
    readme = ("# crossing\n\nCross-origin headers for Django.\n\n## Setup\n\nAdd a middleware class to listen in on "
              "responses:\n\n```python\nMIDDLEWARE = [\n    \"crossing.middleware.CrossingMiddleware\",\n    "
              "\"django.middleware.common.CommonMiddleware\",\n]\n```\n\nCrossingMiddleware should be placed as high "
              "as possible, before any middleware that can generate responses.\n")
    kb = make_indexed_repo(tmp_path / "crossing", {
        "README.md": readme,
        "crossing/middleware.py": "class CrossingMiddleware:\n    sync_capable = True\n\n    def __call__(self, "
                                  "request):\n        return self.get_response(request)\n",
    })
    for question in ("Where do I put CrossingMiddleware in MIDDLEWARE?", "Where should CrossingMiddleware go?"):
        plan, _ = plan_and_search(question, [kb.pk])
        assert ["D0"] in [step.layers for step in plan.steps], (question, plan.steps)
        answer = answers.answer(question, [kb.pk])
        assert "should be placed as high as possible" in answer.text, (question, answer.text)
        assert " is defined in " not in answer.text, (question, answer.text)
    plan, _ = plan_and_search("Where is CrossingMiddleware defined?", [kb.pk])
    assert [step.layers for step in plan.steps] == [["C1"]], plan.steps


@pytest.mark.django_db
def test_whether_the_project_has_a_command_is_answered_by_the_commands_its_manifest_installs(tmp_path):
    # tabulate's "Does it have a CLI?" quoted "psql is like tables formatted by Postgres' psql cli:"; sqlparse's "Is
    # there a command line tool?" was refused (0.57) with `sqlformat` found; python-slugify's listed
    # tools/check_dist.py first.
    kb = make_indexed_repo(tmp_path / "tabkit", {
        "README.md": ("# tabkit\n\nPretty-print tabular data.\n\n## Formats\n\npsql is like tables formatted by "
                      "Postgres' psql cli:\n\n```\n| a | b |\n```\n"),
        "pyproject.toml": ('[project]\nname = "tabkit"\nversion = "1.0"\n\n[project.scripts]\n'
                           'tabkit = "tabkit:_main"\n'),
        "tabkit/__init__.py": 'def _main():\n    """Usage: tabkit [options] [FILE ...]"""\n',
        "tools/check_dist.py": ("import argparse\n\n\ndef main():\n    parser = argparse.ArgumentParser()\n    "
                                "parser.add_argument('--dist')\n    return parser.parse_args()\n"),
    })
    for question in ("Does it have a CLI?", "Is there a command line tool?", "What commands does tabkit provide?"):
        answer = answers.answer(question, [kb.pk])
        assert not answer.refused, (question, answer.reasons)
        assert answer.text.startswith("Command `tabkit` is handled by tabkit._main (pyproject console_script)"), (
            question, answer.text)
        assert "check_dist" not in answer.text, (question, answer.text)


@pytest.mark.django_db
def test_where_symbols_are_defined_is_said_once_and_the_documentation_says_what_they_do(tmp_path):
    # semver's "What does coerce do?": its module, the function of the same name and a variable of `bin/semver.js`
    # have no docstrings; the answer was three "… is defined in …" sentences, the README's "Coercion" unread.
    readme = ("# versions\n\nThe semantic versioner.\n\n## Functions\n\n" + "".join(
        f"* `check_{n}(version)`: Check rule {n} of a version\n" for n in range(12))
        + "\n### Coercion\n\n* `coerce(version, options)`: Coerces a string to a version if possible\n\n"
          "If the `options.rtl` flag is set, then `coerce` returns the right-most tuple.\n")
    kb = make_indexed_repo(tmp_path / "versions", {
        "README.md": readme,
        "functions/parse.js": "module.exports = (v) => v\n",
        # Long enough for its source to be several pieces, each a place among the sources.
        "functions/coerce.js": "const parse = require('./parse')\n" + "".join(
            f"const coerceRule{n} = (version, options) => {{\n  const parts = String(version).split('.')\n"
            f"  return options && options.rtl ? parts.slice(-{n + 1}) : parts.slice(0, {n + 1})\n}}\n\n"
            for n in range(12)) + "const coerce = (version, options) => {\n  return parse(coerceRule0(version, "
            "options))\n}\nmodule.exports = coerce\n",
        "bin/versions.js": "const coerce = require('../functions/coerce')\nconst parse = require('../functions/parse')"
                           "\nconsole.log(coerce(parse(process.argv[2])))\n",
    })
    answer = answers.answer("What does coerce do?", [kb.pk])
    # What the README says of it is the answer; where it is defined, once at most, and not after that.
    assert answer.text.startswith("• coerce(version, options): Coerces a string to a version if possible"), answer.text
    assert " is defined in " not in answer.text, answer.text
    # Asked where, each place is an answer.
    where = "Function `functions.coerce.coerce` is defined in functions/coerce.js."
    assert layer_text.says_only_where(where, "What does coerce do?")
    assert not layer_text.says_only_where(where, "Where is coerce defined?")
    assert not layer_text.says_only_where("`functions.coerce.coerce` (functions/coerce.js): Coerce it.", "Why?")


def test_a_routed_answers_sources_leave_places_to_other_documents():
    # semver's "What does coerce do?": the symbol's catalog rows and its file's pieces took all six places, and the
    # README's "Coercion" (seventh) was never read.
    def source(n: int, document: int, layer: str = "C1") -> SearchHit:
        return SearchHit(chunk_id=n, document_id=document, knowledge_base_id=1, document_title=f"Doc {document}",
                         source_uri="", section_path="", page=None, layer=layer, content="", snippet="",
                         distance=0.1, score=1.0, rank=n)

    routed = [source(n, document) for n, document in enumerate([1, 1, 2, 1, 1, 1, 3, 4])]
    coerce = "What does coerce do?"
    assert [hit.chunk_id for hit in answers._spread(routed, 6, coerce)] == [0, 1, 2, 6, 7, 3]
    # With no other document left, one document's hits fill the places in their order.
    assert [hit.chunk_id for hit in answers._spread(routed[:6], 6, coerce)] == [0, 1, 2, 3, 4, 5]
    # A README's sections are each their own: cors' README answers "… for all routes?" from its third section.
    readme = [source(n, 5, "D0") for n in range(4)] + [source(4, 6)]
    assert [hit.chunk_id for hit in answers._spread(readme, 4, coerce)] == [0, 1, 2, 3]
    # So are the symbols of one file a comparison names: tenacity's "What is the difference between wait_fixed and
    # wait_random?" (both in `tenacity/wait.py`, whose two places went to wait_fixed's rows).
    rows = [replace(source(n, 1), metadata={"qname": f"tenacity.wait.{name}"})
            for n, name in enumerate(["wait_fixed", "wait_fixed", "wait_fixed", "wait_random", "wait_random"])]
    rows.append(source(9, 2, "D0"))
    compared = "What is the difference between wait_fixed and wait_random?"
    assert [hit.chunk_id for hit in answers._spread(rows, 6, compared)] == [0, 1, 3, 4, 9, 2]
    assert [hit.chunk_id for hit in answers._spread(rows, 6, "Does wait_fixed wait longer than wait_random?")] == [
        0, 1, 9, 2, 3, 4]
    # A copy of a document says nothing its first copy has not: python-dotenv's sdist holds its README twice (README.md
    # and docs/index.md), each section took two places, and "How do I install python-dotenv?" never read "Getting
    # Started". A copy's sections come after every other source.
    said = ["## Getting Started\n\npip install python-dotenv", "## Contributing\n\nmkdocs serve", "## CLI\n\ndotenv"]
    copies = [replace(source(n, 7 + n % 2, "D0"), content=said[n // 2]) for n in range(6)]
    assert [hit.chunk_id for hit in answers._spread(copies, 4, coerce)] == [0, 2, 4, 1]


@pytest.mark.django_db
def test_what_a_parameter_does_is_the_docstrings_paragraph_naming_it(tmp_path):
    # tabulate's "What does the missingval argument do?": its docstring says so below its first sentence
    # ("`None` values are replaced with a `missingval` string …"), and a row quoted only that first sentence.
    source = ('def render(rows, headers=(), missingval=""):\n    """Render rows as a plain-text table.\n\n'
              '    The first row is taken as the header when `headers` is empty.\n\n'
              '    `None` values are replaced with a `missingval` string (like `headers`, this can also be a list\n'
              '    of values, one a column):\n\n    >>> print(render([["spam", None]], missingval="?"))\n    spam  ?\n'
              '    """\n    return "\\n".join(" ".join(str(cell) for cell in row) for row in rows)\n')
    kb = make_indexed_repo(tmp_path / "tables", {"tables/__init__.py": source})
    answer = answers.answer("What does the missingval argument do?", [kb.pk], threshold=0.0)
    assert "None values are replaced with a missingval string" in answer.text, (answer.text, answer.reasons)
    # A reST field and a JSDoc tag name their parameter too; a question naming none gets the first sentence.
    assert layer_text.naming_paragraph(":param timeout: how long to wait, in seconds.", "What is the timeout for?") \
        == "timeout: how long to wait, in seconds."
    assert layer_text.naming_paragraph("/**\n * @param {string} value - the text to parse into a number\n */",
                                       "What does the value param hold?") == "value: the text to parse into a number."
    assert layer_text.naming_paragraph(source, "What does render do?") == ""
    # Its reST as it reads (itsdangerous' "Defaults to :attr:`default_key_derivation`" kept the role's name).
    assert layer_text.naming_paragraph(
        ":param digest: Hash function to use. Defaults to :attr:`default_digest`, which defaults to\n"
        "    :func:`hashlib.sha1`; see ``digest`` and `the guide <https://example.com>`_.",
        "Which digest is used?") == ("digest: Hash function to use. Defaults to default_digest, which defaults to "
                                     "hashlib.sha1; see digest and the guide.")
    # The code after a docstring closes is no part of its paragraph (pluggy's `get_result`), nor the line opening it.
    code = ('    def get_result(self):\n        """Get the result(s) for this hook call.\n\n'
            '        If the hook was marked as a ``firstresult`` only a single value\n        will be returned.\n'
            '        """\n        exc = self._exception\n        return cast(ResultType, self._result)\n')
    assert layer_text.naming_paragraph(code, "What does firstresult do?") \
        == "If the hook was marked as a firstresult only a single value will be returned."
    opened = 'def get_result(self):\n    """\n    The result when ``firstresult`` is set.\n    """\n    exc = None\n'
    assert layer_text.naming_paragraph(opened, "What does firstresult do?") == "The result when firstresult is set."
    # xmltodict's `parse`: a name of code is written plainly as often as in backticks ("You can use the force_list
    # argument …"), and a paragraph the chunk's end cuts short is no sentence ("`force_list` can also be a callable
    # that receives `path`, `key` and" was quoted, closed by a full stop).
    cut = ('    You can use the force_list argument to force lists to be created even\n    when there is only a '
           'single child.\n\n        `force_list` can also be a callable that receives `path`, `key` and')
    assert layer_text.naming_paragraph(cut, "What does force_list do?") \
        == "You can use the force_list argument to force lists to be created even when there is only a single child."
    assert layer_text.naming_paragraph("A forced list of keys.", "What does forced do?") == ""
    # Not a word of prose in camelCase, nor the line a class opens with (platformdirs' "Where is the cache on macOS?").
    macos = 'class MacOS(PlatformDirsABC):\n    """\n    Platform directories for the macOS operating system.\n'
    assert layer_text.naming_paragraph(macos, "Where is the cache directory on macOS?") == ""
    assert layer_text.naming_paragraph(macos.replace("macOS", "`macOS`"), "Where is the cache on macOS?") \
        == "Platform directories for the macOS operating system."
    # A how-to asks what the code is for, unless it names a parameter as one.
    field = ":param timeout: how long to wait, in seconds."
    assert layer_text.naming_paragraph(field, "How do I wait for a timeout?") == ""
    assert layer_text.naming_paragraph(field, "How do I set the timeout parameter?") \
        == "timeout: how long to wait, in seconds."
    # p-limit's code: a line comment is a note on the code's workings, and the code beside a JSDoc is no prose.
    code = ("const next = () => {\n"
            "  // Since `pendingCount` has been decreased by one, increase `activeCount` by one.\n"
            "  activeCount++;\n};\n")
    assert layer_text.naming_paragraph(code, "What does activeCount return?") == ""
    jsdoc = ("(async () => {\n  /** The `activeCount` of promises that are running now. */\n"
             "  await Promise.resolve();\n")
    assert layer_text.naming_paragraph(jsdoc, "What does activeCount return?") \
        == "The activeCount of promises that are running now."



def test_a_later_note_naming_the_symbol_itself_is_no_paragraph_about_a_name_asked():
    # structlog's "Where is the class ConsoleRenderer defined?": the class's docstring chunk past its first sentence
    # was quoted "… is defined in src/structlog/dev.py: ConsoleRenderer now handles the exc_info event dict key
    # itself." and then "Do not** use …", the bold word's stars taken for a JSDoc comment's margin.
    code = ('    .. versionchanged:: 21.2.0\n       `Renderer` now handles the ``exc_info`` key itself. Do\n'
            '       **not** use the `format_exc_info` processor together with `Renderer` anymore!\n    """\n')
    assert layer_text.naming_paragraph(code, "Where is the class Renderer defined?", "pkg.dev.Renderer") == ""
    assert layer_text.naming_paragraph(code, "What does format_exc_info do?", "pkg.dev.Renderer") == (
        "Renderer now handles the exc_info key itself. Do not use the format_exc_info processor together with "
        "Renderer anymore!")


def test_a_docstring_field_of_the_parameter_asked_is_quoted_alone():
    # filelock's `acquire`: "What does the poll_interval argument do?" quoted its signature's lines ("self,
    # poll_interval: float = 0.05, ,."), and its docstring's fields ran on as one paragraph.
    code = ('    def acquire(\n        self,\n        timeout: float | None = None,\n'
            '        poll_interval: float = 0.05,\n        *,\n        blocking: bool | None = None,\n'
            '    ) -> AcquireReturnProxy:\n        """\n        Try to acquire the file lock.\n\n'
            '        :param timeout: maximum wait time for acquiring the lock, ``None`` means use the default\n'
            '        :param poll_interval: interval of trying to acquire the lock file\n'
            '        :param blocking: defaults to True. If False, return at once when the lock is held.\n'
            '        :raises Timeout: if fails to acquire lock within the timeout period\n        """\n')
    assert layer_text.naming_paragraph(code, "What does the poll_interval argument do?") \
        == "poll_interval: interval of trying to acquire the lock file."
    assert layer_text.naming_paragraph(code, "What does the blocking parameter do?") \
        == "blocking: defaults to True. If False, return at once when the lock is held."
    assert layer_text.naming_paragraph(code, "What does the timeout argument do?") \
        == "timeout: maximum wait time for acquiring the lock, None means use the default."


def test_a_command_line_option_asked_about_is_quoted_with_its_help_text():
    # python-dotenv's "What does the --override flag do?" was refused: its code declares the option with click and says
    # what it does in its help text, which no docstring repeats.
    clicked = ('@cli.command()\n@click.option(\n    "--override/--no-override",\n    default=True,\n'
               '    help="Override variables from the environment file with those from the .env file.",\n)\n'
               'def run(ctx, override):\n    """Run command with environment variables present."""\n')
    assert layer_text.naming_paragraph(clicked, "What does the --override flag do?") == (
        "--override/--no-override: Override variables from the environment file with those from the .env file "
        "(default: True).")
    parsed = ("parser.add_argument('-o', '--override', action='store_true',\n"
              "                    help='Indicate to override existing variables')\n"
              "parser.add_argument('-v', '--verbose', help='Say what is done', default=0)\n"
              "parser.add_argument('--separator', default=DEFAULT_SEPARATOR,\n"
              "                    help='Separator between words. By default ' + DEFAULT_SEPARATOR)\n"
              "parser.add_argument('--max-length', type=int, help='Output string length')\n")
    assert layer_text.naming_paragraph(parsed, "What is the verbose option for?") == (
        "-v, --verbose: Say what is done (default: 0).")
    # A default named by a constant says nothing of its value.
    assert layer_text.naming_paragraph(parsed, "What does the --separator option do?") == (
        "--separator: Separator between words.")
    assert layer_text.naming_paragraph(parsed, "What does the quiet option do?") == ""
    # Help text run on by a constant is its whole sentences: "By default." said nothing.
    assert layer_text.naming_paragraph(parsed, "What is the default separator?") == (
        "--separator: Separator between words.")
    # An option spelled in words.
    assert layer_text.naming_paragraph(parsed, "What is the max length option?") == (
        "--max-length: Output string length.")


def test_a_long_functions_first_chunk_says_its_docstring():
    # humanize's `ordinal`: its docstring, examples and translations in two chunks; the first, cut inside the code,
    # was read as no whole Python and said nothing to "How do I show a number as an ordinal?".
    first = ('def ordinal(value: NumberOrString, gender: str = "male") -> str:\n'
             '    """Converts an integer to its ordinal as a string.\n\n    For example, 1 is "1st".\n    """\n'
             '    try:\n        value = int(value)\n    except (TypeError, ValueError):\n        return str(value)\n'
             '    if gender == "male":\n        t = (\n            P_("0 (male)", "th"),\n')
    chunk = SearchHit(chunk_id=1, document_id=1, knowledge_base_id=1, document_title="number.py", source_uri="",
                      section_path="", page=None, layer="C0", content=first, snippet="", distance=0.1, score=1.0,
                      rank=1, metadata={"qname": "humanize.number.ordinal", "source_path": "src/humanize/number.py",
                                        "chunk_type": "function"})
    assert layer_text.quotable(chunk, question="How do I show a number as an ordinal?") == (
        "`humanize.number.ordinal` (src/humanize/number.py): Converts an integer to its ordinal as a string.")
    # A chunk of grouped statements cut short says no module's docstring.
    grouped = replace(chunk, content='"""Numbers."""\nimport math\nt = (\n    1,\n',
                      metadata={"qname": "humanize.number"})
    assert layer_text.quotable(grouped, question="What are numbers?") == ""


def test_a_parameters_default_asked_is_read_from_the_signature():
    # humanize's `naturalday`: its docstring says "formatted according to `format`", its signature what `format` is
    # by default; "What is the default format of naturalday?" quoted the docstring.
    code = ('def naturalday(value: dt.date, format: str = "%b %d", *, utc_offset=0) -> str:\n'
            '    """Return a natural day.\n\n    Otherwise, return a string formatted according to `format`.\n'
            '    """\n')
    assert layer_text.naming_paragraph(code, "What is the default format of naturalday?", "humanize.naturalday") == (
        "format: str = '%b %d'.")
    assert layer_text.naming_paragraph(code, "What is the default utc_offset of naturalday?",
                                       "humanize.naturalday") == "utc_offset = 0."
    # Of a function the question does not name, a signature's default says nothing ("What is the default salt?" and
    # `make_signer(salt=None)`): the docstring's paragraph writing the name does.
    assert layer_text.naming_paragraph(code, "What is the default format?", "humanize.naturalday") == (
        "Otherwise, return a string formatted according to format.")
    # Not asked its default, the docstring says what it is for; a parameter without one has none.
    assert layer_text.naming_paragraph(code, "What does the format argument do?", "humanize.naturalday") == (
        "Otherwise, return a string formatted according to format.")
    assert layer_text.naming_paragraph(code, "What is the default value?", "humanize.naturalday") == ""


@pytest.mark.django_db
def test_a_how_to_asking_to_do_what_a_symbol_is_named_quotes_that_symbol_first():
    # arrow's "How do I shift a date by a number of days?" quoted `Arrow.date`'s "Returns a date object with the same
    # year, month and day." (the question's "date" and "days"), not `Arrow.shift`, found before it.
    from knowledge.search import composer

    def method(name: str, doc: str) -> SearchHit:
        code = f'    def {name}(self, **kwargs):\n        """{doc}"""\n        return self\n'
        return replace(hit("C0", code, qname=f"moments.moment.Moment.{name}", source_path="moments/moment.py",
                           chunk_type="method"), chunk_id=len(name))

    shift = method("shift", "Returns a new moment object with its attributes updated according to the inputs.")
    date = method("date", "Returns a date object with the same year, month and day.")
    question = "How do I shift a date by a number of days?"
    composition = composer.compose(question, [shift, date], entry_match=False)
    assert composition.text.startswith("`moments.moment.Moment.shift` (moments/moment.py): Returns a new moment"), (
        composition.text)
    # Asked anything else, words shared decide as before.
    composition = composer.compose("What does a date of a number of days hold?", [shift, date], entry_match=False)
    assert composition.text.startswith("`moments.moment.Moment.date`"), composition.text
