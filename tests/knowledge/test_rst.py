"""reStructuredText (Sphinx docs, README.rst) read as Markdown: uploads and the repository index."""

import shutil
from pathlib import Path

import pytest

from knowledge.indexing import parsing
from knowledge.indexing.chunking import split_text
from knowledge.indexing.layers import store
from knowledge.indexing.markdown import fenced_lines, scan
from knowledge.indexing.rst import rst_as_markdown, section_labels
from knowledge.models import Chunk
from tests.factories import make_kb

FLASK_SOURCES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "site" / "flask-docs" / "_sources"

README = """==========
django-kit
==========

A toolkit. See `the docs <https://example.com/docs>`_ and :func:`~kit.run`.

.. image:: https://badge.example.com/kit.svg
   :target: https://example.com

Installation
------------

Install it with pip::

    pip install django-kit

Then add ``kit`` to ``INSTALLED_APPS``.

.. code-block:: python
   :linenos:

   INSTALLED_APPS = [
       "kit",
   ]

Configuration
-------------

.. note::
   Set ``KIT_TIMEOUT`` in the environment.

.. _usage:

Usage
-----
Call ``kit.run()``.

.. toctree::
   :maxdepth: 2

   intro

.. envvar:: KIT_HOME

   Where the kit keeps its files.

.. py:function:: run(fast=False)

   Run the kit. For example::

       kit.run(fast=True)

.. tabs::

   .. group-tab:: Linux

      Run it as a service. |badge| |kit| |version|

.. |badge| image:: https://img.shields.io/pypi/v/kit
.. |kit| replace:: *django-kit*
"""


def headings(text: str) -> list[tuple[int, str]]:
    return [(heading.level, heading.title) for heading in scan(text)[0]]


def test_a_readme_reads_as_markdown_line_for_line():
    markdown = rst_as_markdown(README)
    lines = markdown.split("\n")
    assert len(lines) == len(README.split("\n"))
    assert headings(markdown) == [(1, "django-kit"), (2, "Installation"), (2, "Configuration"), (2, "Usage"),
                                  (3, "run(fast=False)")]
    assert lines[1] == "# django-kit" and lines[9] == "## Installation"
    # "~": Sphinx shows the last part of the name, as the page reads.
    assert lines[4] == "A toolkit. See [the docs](https://example.com/docs) and `run`."
    assert "Install it with pip:" in lines and "Then add `kit` to `INSTALLED_APPS`." in lines
    fenced = fenced_lines(markdown)
    assert {index for index, line in enumerate(lines) if "pip install" in line or '"kit",' in line} <= fenced
    assert lines[20] == "```python" and ":linenos:" not in markdown
    assert "Note:" in lines and "Set `KIT_TIMEOUT` in the environment." in lines
    for left_out in ("image::", "badge", "_usage", "toctree", "maxdepth", "intro"):
        assert left_out not in markdown
    # An object's description keeps its text (dedented, so it is no indented code) under its signature, a heading
    # one level under its section's.
    assert "Environment variable `KIT_HOME`:" in lines and "Where the kit keeps its files." in lines
    assert "### `run(fast=False)`" in lines and "Run the kit. For example:" in lines
    assert next(index for index, line in enumerate(lines) if "kit.run(fast=True)" in line) in fenced
    assert "Linux" in [line.strip() for line in lines]
    # A substitution is what it stands for; a badge's picture is left out, an undefined one stays.
    assert "Run it as a service.  *django-kit* |version|" in [line.strip() for line in lines]


def test_flask_s_sphinx_sources_keep_their_lines_sections_and_code():
    sources = sorted(FLASK_SOURCES.rglob("*.rst.txt"))
    assert len(sources) > 50
    for source in sources:
        text = source.read_text()
        assert len(rst_as_markdown(text).split("\n")) == len(text.split("\n")), source.name
    uploads = rst_as_markdown((FLASK_SOURCES / "patterns" / "fileuploads.rst.txt").read_text())
    assert headings(uploads)[:3] == [(1, "Uploading Files"), (2, "A Gentle Introduction"), (2, "Improving Uploads")]
    lines = uploads.split("\n")
    code = next(index for index, line in enumerate(lines) if "def allowed_file(filename):" in line)
    assert code in fenced_lines(uploads)
    assert "`save` method" in uploads  # :meth:`~werkzeug.datastructures.FileStorage.save`, as Sphinx shows it
    # A role whose text runs onto the next line reads as its text, each line where it was.
    tutorial = rst_as_markdown((FLASK_SOURCES / "tutorial" / "index.rst.txt").read_text())
    assert ("The tutorial project is available as an example in the Flask\nrepository, if you want to compare"
            in tutorial)
    assert ":gh:" not in tutorial and "<examples/tutorial>" not in tutorial
    # Each configuration value (`.. py:data:: SECRET_KEY`) is a section of its own under "Builtin Configuration
    # Values": "What does the TESTING setting do?" found the section of thirty values and quoted another's sentence.
    config = rst_as_markdown((FLASK_SOURCES / "config.rst.txt").read_text())
    assert "A secret key that will be used for securely signing" in config
    titles = headings(config)
    builtin = titles.index((2, "Builtin Configuration Values"))
    assert titles[titles.index((3, "DEBUG")):][:3] == [(3, "DEBUG"), (3, "TESTING"), (3, "PROPAGATE_EXCEPTIONS")]
    assert builtin < titles.index((3, "DEBUG")) and (3, "PERMANENT_SESSION_LIFETIME") in titles


def test_an_uploaded_rst_file_has_its_title_and_sections(tmp_path):
    path = tmp_path / "quickstart.rst"
    shutil.copy(FLASK_SOURCES / "quickstart.rst.txt", path)
    doc = parsing.parse_file(path)
    assert doc.title == "Quickstart"
    paths = [chunk.heading_path for chunk in split_text(doc.text)]
    assert ["Quickstart", "A Minimal Application"] in paths
    assert not any(".. code-block" in chunk.content for chunk in split_text(doc.text))


def test_a_sphinx_source_published_as_rst_txt_is_read_as_rst():
    doc = parsing.parse_file(FLASK_SOURCES.parents[2] / "documents" / "txt" / "flask-quickstart.rst.txt")
    assert doc.title == "Quickstart" and doc.text.startswith("# Quickstart")
    code = next(index for index, line in enumerate(doc.text.split("\n")) if "from flask import Flask" in line)
    assert code in fenced_lines(doc.text)


@pytest.mark.django_db
def test_a_repository_s_rst_docs_are_documentation_layers(tmp_path):
    repo = tmp_path / "kit"
    (repo / "docs").mkdir(parents=True)
    (repo / "README.rst").write_text(README)
    shutil.copy(FLASK_SOURCES / "patterns" / "fileuploads.rst.txt", repo / "docs" / "fileuploads.rst")
    kb = make_kb()
    store.index_repository(kb, repo)
    sections = set(Chunk.objects.filter(knowledge_base=kb, layer="D0").values_list("metadata__source_path",
                                                                                 "section_path"))
    assert ("docs/fileuploads.rst", "Uploading Files > A Gentle Introduction") in sections
    assert ("README.rst", "django-kit > Installation") in sections
    card = Chunk.objects.get(knowledge_base=kb, layer="D1", metadata__source_path="README.rst")
    assert (card.metadata["title"], card.metadata["doc_kind"]) == ("django-kit", "readme")
    variables = Chunk.objects.filter(knowledge_base=kb, layer="D6", metadata__target_type="env_var")
    assert "KIT_TIMEOUT" in set(variables.values_list("metadata__target", flat=True))


def test_a_link_wrapped_before_its_address_reads_as_its_text():
    # Flask's quickstart: "Head over to the official Jinja2 Template Documentation <https://…>_ for more information."
    doc = parsing.parse_file(FLASK_SOURCES.parents[2] / "documents" / "txt" / "flask-quickstart.rst.txt")
    assert "official [Jinja2 Template Documentation](https://jinja.palletsprojects.com/templates/)\n" in doc.text
    assert ">`_" not in doc.text
    text = "See the `full\n   guide <https://example.com/guide>`_ first.\nNext line.\n"
    assert rst_as_markdown(text) == "See the [full guide](https://example.com/guide)\n   first.\nNext line.\n"


def test_a_literal_wrapped_onto_the_next_line_is_a_code_span_on_each():
    # docopt's README: "e.g.: ``my_program.py" / "[-hvqo FILE]``" left a pair of backticks open, and the list
    # items after it read as one code span: "• [ ] (brackets) optional elements. e.g.: `my_program.py [-hvqo FILE]
    # - **( )**".
    text = ("- **[ ]** optional elements, e.g.: ``my_program.py\n  [-hvqo FILE]``\n- **( )** required, e.g.: "
            "``my_program.py\n  --path=<path>`` is the same as ``my_program.py\n  (--path=<path>)``.\n"
            "- **|** exclusive.\n")
    assert rst_as_markdown(text) == (
        "- **[ ]** optional elements, e.g.: `my_program.py`\n  `[-hvqo FILE]`\n- **( )** required, e.g.: "
        "`my_program.py`\n  `--path=<path>` is the same as `my_program.py`\n  `(--path=<path>)`.\n"
        "- **|** exclusive.\n")
    # A literal closed on its own line is left as it is, and so are backticks a blank line parts.
    assert rst_as_markdown("``a`` and ``b``\nnext ``c``\n") == "`a` and `b`\nnext `c`\n"


def test_a_directive_whose_body_is_code_is_fenced():
    # click's docs show their examples in `.. click:example::`: its code was read as a sentence of prose
    # ("@click.command() def hello(): click.echo('Hello World!')").
    text = ("Decorate a function:\n\n.. click:example::\n\n    @click.command()\n    def hello():\n"
            "        click.echo('Hello')\n\n.. doctest::\n\n    >>> hello()\n\nThen run it.\n")
    markdown = rst_as_markdown(text)
    assert len(markdown.split("\n")) == len(text.split("\n"))
    fenced = fenced_lines(markdown)
    for code in ("@click.command()", "def hello():", ">>> hello()"):
        assert next(at for at, line in enumerate(markdown.split("\n")) if code in line) in fenced, code
    assert "Then run it." in markdown.split("\n")[-2]


def test_doctests_hidden_set_up_and_clean_up_are_left_out():
    # Sphinx's doctest runs `.. testsetup::` and `.. testcleanup::` around the examples; its pages never show them.
    text = (".. testsetup::\n\n    import marshmallow\n\n.. testcode::\n\n    print(marshmallow.__name__)\n\n"
            ".. testcleanup:: *\n\n    del marshmallow\n\nThat is all.\n")
    markdown = rst_as_markdown(text)
    assert len(markdown.split("\n")) == len(text.split("\n"))
    assert "import marshmallow" not in markdown and "del marshmallow" not in markdown
    assert "print(marshmallow.__name__)" in markdown and "That is all." in markdown


def test_text_written_under_autodoc_is_an_entry_of_its_own_without_its_options():
    # cachetools documents each cache as `.. autoclass::` with text of its own under it: it was left out with the
    # directive, and "What is the default timer of TTLCache?" found no "By default, … time.monotonic is used …".
    text = ("Caches\n======\n\n.. automodule:: cachetools\n   :members:\n\n"
            ".. autoclass:: TTLCache(maxsize, ttl, timer=time.monotonic)\n   :members: popitem, timer, ttl\n\n"
            "   By default, the time-to-live is specified in seconds and\n   :func:`time.monotonic` is used.\n\n"
            "   .. method:: expire(self, time=None)\n\n      Expired items are removed.\n")
    markdown = rst_as_markdown(text)
    assert len(markdown.split("\n")) == len(text.split("\n"))
    assert [title for _, title in headings(markdown)] == [
        "Caches", "TTLCache(maxsize, ttl, timer=time.monotonic)", "expire(self, time=None)"]
    assert "By default, the time-to-live is specified in seconds and\n`time.monotonic` is used." in markdown
    assert "Expired items are removed." in markdown
    assert ":members:" not in markdown and "automodule" not in markdown


def test_info_fields_read_as_sphinx_shows_them():
    # tenacity's docs describe the callbacks a user writes with `.. function::` and info fields: quoted raw, ":param
    # RetryCallState retry_state: info about current retry invocation :return: number of seconds …".
    text = (".. function:: my_wait(retry_state)\n\n   :param RetryCallState retry_state: info about the call\n"
            "   :param delay: how long\n   :return: number of seconds to wait\n   :rtype: float\n"
            "   :raises ValueError: when it is wrong\n")
    markdown = rst_as_markdown(text)
    assert len(markdown.split("\n")) == len(text.split("\n"))
    assert markdown.split("\n")[2:7] == [
        "- retry_state (RetryCallState): info about the call", "- delay: how long",
        "- Returns: number of seconds to wait", "- Return type: float", "- Raises ValueError: when it is wrong"]


def test_interpreted_text_of_the_default_role_reads_as_sphinx_shows_it():
    # marshmallow's docs (default_role "py:obj"): "using the `from_dict <marshmallow.Schema.from_dict>`
    # method" was quoted with its target, "from_dict <marshmallow.Schema.from_dict>".
    source = ("Use the `from_dict <marshmallow.Schema.from_dict>` method, `~marshmallow.fields.Nested` or\n"
              "`Schema`; not ``a <b>`` (literal), `a link`_ or :func:`run <kit.run>`.\n")
    assert rst_as_markdown(source).split("\n")[:2] == [
        "Use the `from_dict` method, `Nested` or", "`Schema`; not `a <b>` (literal), a link or `run`."]


UPGRADING = """Upgrading
=========

.. _upgrading_4_0:

Upgrading to 4.0
----------------

Schemas no longer accept ``context``.

.. _Flask: https://flask.palletsprojects.com
"""


def test_a_reference_without_a_title_reads_as_its_sections_title():
    # marshmallow's changelog: "See :ref:`upgrading_4_0` for a guide on updating your code." was quoted as
    # "See upgrading_4_0 for a guide"; Sphinx shows the title of the section the label stands over.
    assert section_labels(UPGRADING) == {"upgrading_4_0": "Upgrading to 4.0"}
    changelog = "4.0.0\n-----\n\nSee :ref:`upgrading_4_0` for a guide, :ref:`the old one <v3>` or :ref:`gone`.\n"
    lines = rst_as_markdown(changelog, section_labels(UPGRADING)).split("\n")
    assert lines[3] == "See `Upgrading to 4.0` for a guide, `the old one` or `gone`."
    own = UPGRADING + "\nRead :ref:`Upgrading_4_0` first.\n"
    assert rst_as_markdown(own).split("\n")[-2] == "Read `Upgrading to 4.0` first."


@pytest.mark.django_db
def test_a_repositorys_references_read_as_the_titles_in_its_other_files(tmp_path):
    # Sphinx shows a :ref: or :doc: without a title as the section's or the file's title.
    repo = tmp_path / "kit"
    (repo / "docs").mkdir(parents=True)
    (repo / "docs" / "upgrading.rst").write_text(UPGRADING)
    (repo / "CHANGELOG.rst").write_text("Changelog\n=========\n\n4.0.0\n-----\n\n"
                                        "See :ref:`upgrading_4_0` for a guide on updating your code.\n"
                                        "Read :doc:`docs/upgrading`, :doc:`/upgrading` or :doc:`nowhere`.\n")
    (repo / "docs" / "index.rst").write_text("Kit\n===\n\nStart with :doc:`upgrading`.\n")
    kb = make_kb()
    store.index_repository(kb, repo)
    chunk = Chunk.objects.get(knowledge_base=kb, layer="D0", metadata__source_path="CHANGELOG.rst")
    assert "See `Upgrading to 4.0` for a guide on updating your code." in chunk.content
    assert "Read `Upgrading`, `Upgrading` or `nowhere`." in chunk.content  # relative, from the root, unknown
    index = Chunk.objects.get(knowledge_base=kb, layer="D0", metadata__source_path="docs/index.rst")
    assert "Start with `Upgrading`." in index.content


def test_a_named_reference_reads_as_its_name():
    # cachetools' README: "available from PyPI_" was quoted with its underscore.
    text = rst_as_markdown("Install it from PyPI_ or see `the docs`_ and Read-the-Docs__, not ``keep_``.\n\n"
                           ".. _PyPI: https://pypi.org/project/cachetools/\n")
    assert text.splitlines()[0] == "Install it from PyPI or see the docs and Read-the-Docs, not `keep_`."


def test_an_anonymous_links_target_is_no_text():
    # django-cors-headers' README: "__ https://developer.mozilla.org/…" under each setting's sentence linking it was
    # quoted as a sentence, and stood between "Defaults to:" and the block of code it introduces.
    text = rst_as_markdown("Sets the |Allow header|__ in responses.\nDefaults to:\n\n"
                           ".. |Allow header| replace:: ``Allow`` header\n__ https://example.org/allow\n\n"
                           ".. code-block:: python\n\n    ALLOW = ('accept',)\n")
    assert text.splitlines()[:2] == ["Sets the `Allow` header in responses.", "Defaults to:"]
    assert "example.org" not in text and "ALLOW = ('accept',)" in text


def test_a_grid_table_reads_as_its_rows():
    # arrow's guide: the tokens of its format strings are a grid table; its borders ran into the cells as text
    # ("6, 7 +------+------+ ISO week date W 2011-W05-4 …" answered "How do I shift a date by one week?").
    from knowledge.search.source_text import quotable_text, sentences

    border = "+--------------+-------+--------------------------+\n"
    table = (f"Tokens:\n\n{border}|              |Token  |Output                    |\n"
             "+==============+=======+==========================+\n"
             f"|**Year**      |YYYY   |2000, 2001 ... 2012, 2013 |\n{border}"
             f"|**Hour**      |HH     |00, 01, 02 ... 23, 24     |\n{border}\nAfter the table.\n")
    read = rst_as_markdown(table)
    assert read.count("\n") == table.count("\n")  # line for line
    assert sentences(quotable_text(read)) == ["Tokens:", "• Year — YYYY — 2000, 2001 ... 2012, 2013",
                                              "• Hour — HH — 00, 01, 02 ... 23, 24", "After the table."]
    # Without a header, its rows read as their cells, the borders as nothing.
    plain = "+-----+-----+\n|Year |YYYY |\n+-----+-----+\n"
    assert sentences(quotable_text(rst_as_markdown(plain))) == ["Year YYYY"]


def test_a_csv_table_reads_as_its_rows():
    # humanfriendly's README lists its command's options as a `.. csv-table::`; its records were quoted raw
    # ('"-t, --format-timespan=SECONDS","Convert a number of seconds …').
    from knowledge.search.source_text import quotable_text, sentences

    table = (".. csv-table:: Options\n   :header: Option, Description\n   :widths: 30, 70\n\n\n"
             '   "``-c``, ``--run``","Run a command and show a spinner while it\n   runs."\n'
             "   ``--demo``,Show the colors | styles.\n\nAfter the table.\n")
    read = rst_as_markdown(table)
    assert read.count("\n") == table.count("\n")  # line for line
    assert sentences(quotable_text(read)) == [
        "Options", "• -c, --run — Run a command and show a spinner while it runs.",
        "• --demo — Show the colors | styles.", "After the table."]
    # Without a header its first record is; records in another file are not read.
    assert sentences(quotable_text(rst_as_markdown(".. csv-table::\n\n   Year,Token\n   2000,YYYY\n"))) == [
        "• 2000 — YYYY"]
    assert rst_as_markdown(".. csv-table::\n   :file: options.csv\n\nAfter.\n").split("\n")[-2] == "After."
    # Its header is written as its records are, with their delimiter.
    tabbed = ".. csv-table::\n   :header: Year; Token\n   :delim: ;\n\n   2000; YYYY\n"
    assert rst_as_markdown(tabbed).split("\n")[1:3] == ["| Year | Token |", "| --- | --- |"]


def test_a_definition_lists_terms_are_items_of_a_list():
    # parse's README: "The ``Result`` instance has three attributes:" over "``fixed``" and its indented definition;
    # each definition ran on into the next term ("… extracted from the input. named"), and "What attributes does the
    # Result have?" quoted none of them.
    text = ("The ``Result`` instance has three attributes:\n\n``fixed``\n   A tuple of the fixed-position fields.\n"
            "``named``\n   A dictionary of the named fields\n   extracted from the input.\n\nThe end.\n")
    markdown = rst_as_markdown(text)
    assert markdown.split("\n") == [
        "The `Result` instance has three attributes:", "", "- `fixed`:", "   A tuple of the fixed-position fields.",
        "- `named`:", "   A dictionary of the named fields", "   extracted from the input.", "", "The end.", ""]
    # Not a list's item, a field, a simple table's row, nor a release over its list of changes (a changelog).
    for kept in ("* item\n  continued\n", ":Author:\n   Jo.\n", "te    RFC2822 date    datetime\n      e.g. Mon\n",
                 "0.4.6 Current release\n  * Fixed a crash.\n", "Example::\n\n   code\n"):
        assert "- " not in rst_as_markdown(kept).split("\n")[0], kept
    # (A Sphinx info field is an item of its own, `test_info_fields_read_as_sphinx_shows_them`.)
    assert rst_as_markdown(":param x:\n   The x.\n").split("\n")[:2] == ["- x:", "   The x."]


@pytest.mark.django_db
def test_sphinx_sources_named_txt_in_a_documentation_folder_are_rst_docs(tmp_path):
    # django-filter's (and Django's) Sphinx sources are `.txt` files (`source_suffix = ".txt"`): none was indexed.
    repo = tmp_path / "kit"
    (repo / "docs" / "ref").mkdir(parents=True)
    (repo / "docs" / "ref" / "filters.txt").write_text(
        ".. _ref-filters:\n\n=======\nFilters\n=======\n\n``field_name``\n--------------\n\nThe name of the model "
        "field that is filtered against.\n\n.. code-block:: python\n\n    name = CharFilter(field_name='title')\n")
    (repo / "docs" / "usage.txt").write_text("Usage\n=====\n\nEach filter is described in :ref:`ref-filters`.\n")
    (repo / "docs" / "requirements.txt").write_text("Sphinx\nsphinx-rtd-theme\n")
    (repo / "notes.txt").write_text("Title\n=====\n\nNot in a documentation folder.\n")
    kb = make_kb()
    store.index_repository(kb, repo)
    rows = Chunk.objects.filter(knowledge_base=kb, layer="D0")
    sections = set(rows.values_list("metadata__source_path", "section_path"))
    assert ("docs/ref/filters.txt", "Filters > field_name") in sections
    field = rows.get(metadata__source_path="docs/ref/filters.txt", section_path="Filters > field_name")
    assert "```python\n    name = CharFilter(field_name='title')\n```" in field.content
    usage = rows.get(metadata__source_path="docs/usage.txt")
    assert "Each filter is described in `Filters`." in usage.content
    paths = set(Chunk.objects.filter(knowledge_base=kb).values_list("metadata__source_path", flat=True))
    assert not paths & {"docs/requirements.txt", "notes.txt"}, "no section title, or no documentation folder"


def test_a_simple_table_is_a_markdown_table_line_for_line():
    # parse's README lists its format types in a simple table: it was read as prose ("S Non-whitespace str d Integer
    # numbers (optional sign, digits) int …"), and "How do I parse an integer?" quoted that run of cells.
    border = f"{'=' * 5} {'=' * 40} {'=' * 8}"
    rows = [("Type", "Characters Matched", "Output"), ("d", "Integer numbers (optional sign, digits)", "int"),
            ("e", "Floating-point numbers with exponent", "float"), ("", "e.g. 1.1e-10, NAN", ""),
            ("x", "Hexadecimal numbers (a | b)", "int")]
    written = [f"{a:<5} {b:<40} {c}".rstrip() for a, b, c in rows]
    text = "\n".join(["Types:", "", border, written[0], border, *written[1:], border, "", "After the table.", ""])
    lines = rst_as_markdown(text).split("\n")
    assert len(lines) == len(text.split("\n"))
    assert lines[2:10] == ["", "| Type | Characters Matched | Output |", "|---|---|---|",
                           "| d | Integer numbers (optional sign, digits) | int |",
                           "| e | Floating-point numbers with exponent e.g. 1.1e-10, NAN | float |", "|   |   |   |",
                           "| x | Hexadecimal numbers (a \\| b) | int |", ""]
    assert lines[11] == "After the table."
    # Without a header it is left as it is written; nor is a title's adornment a table.
    plain = "=====  =====\nTrue   False\n=====  =====\n"
    assert rst_as_markdown(plain).split("\n")[1] == "True   False"
    assert rst_as_markdown("=====\nTitle\n=====\n\nText.\n").split("\n")[1] == "# Title"
