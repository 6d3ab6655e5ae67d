"""One Markdown reader: the chunker, the parsers' titles and the layered index see the same headings."""

from knowledge.indexing import parsing, tables
from knowledge.indexing.chunking import split_text
from knowledge.indexing.layers.docs import read_sections
from knowledge.indexing.layers.markdown import parse_doc
from knowledge.indexing.markdown import (
    fenced_lines,
    first_heading,
    list_fences,
    scan,
    setext_headings,
    summary_headings,
)
from knowledge.indexing.rst import rst_as_markdown
from knowledge.search.source_text import clean_text

TEXT = """# C#

Intro about the language.

## Setup {#setup}

Install it.

~~~text
# not a heading
~~~

### Closing hashes ###

Done.
"""


def test_chunker_parser_and_layers_read_the_same_titles():
    titles = ["C#", "Setup", "Closing hashes"]
    assert [section.title for section in read_sections(TEXT)] == titles
    assert first_heading(TEXT) == "C#"
    paths = [chunk.heading_path for chunk in split_text(TEXT, chunk_size=60, overlap=0, min_size=0)]
    assert ["C#", "Setup", "Closing hashes"] in paths
    assert all("not a heading" not in path for chunk_path in paths for path in chunk_path)


def test_sections_keep_file_lines_and_fenced_text():
    setup = read_sections(TEXT, first_line=3)[1]
    assert (setup.line, setup.section_path) == (7, "C# > Setup")
    assert "# not a heading" in setup.text
    assert fenced_lines(TEXT) == {8, 9, 10}


CHANGELOG = """4.21.2 / 2024-11-06
==========

  * deps: path-to-regexp@0.1.12

4.21.1 / 2024-10-08
-------------------

  * Backported a fix.
    ---

A paragraph of two lines,
its second line over a rule
---

- a list item
---

```text
Not a title
===
```
"""


def headings(text: str) -> list[tuple[int, str]]:
    return [(heading.level, heading.title) for heading in scan(text)[0]]


def test_setext_headings_are_headings_line_for_line():
    converted = setext_headings(CHANGELOG)
    assert converted.count("\n") == CHANGELOG.count("\n")
    assert headings(converted) == [
        (1, "4.21.2 / 2024-11-06"), (2, "4.21.1 / 2024-10-08")]
    assert "its second line over a rule\n---" in converted and "Not a title\n===" in converted


def test_a_markdown_changelog_with_setext_headings_has_sections_in_the_parser_and_the_layers(tmp_path):
    path = tmp_path / "History.md"
    path.write_text(CHANGELOG)
    doc = parsing.parse_file(path)
    assert doc.title == "4.21.2 / 2024-11-06"
    assert [chunk.heading_path for chunk in split_text(doc.text, chunk_size=80, overlap=0, min_size=0)][:2] == [
        ["4.21.2 / 2024-11-06"], ["4.21.2 / 2024-11-06", "4.21.1 / 2024-10-08"]]
    layers = parse_doc("History.md", CHANGELOG)
    sections = {section.section_path: section.line for section in layers.sections}
    assert sections == {"4.21.2 / 2024-11-06": 1, "4.21.2 / 2024-11-06 > 4.21.1 / 2024-10-08": 6}
    assert layers.title == "History", "a changelog's latest release is not its title"
    assert parse_doc("CHANGELOG.md", "Changelog\n=========\n\n1.0\n---\n\nFirst.\n").title == "Changelog"


PARSE_README = """Installation
------------

    pip install parse

Usage
-----

Parse strings using a specification based on the Python format() syntax.

Potential Gotchas
-----------------

parse() will always match the shortest text necessary.
"""


def test_a_top_level_heading_naming_a_section_titles_no_document(tmp_path):
    # parse's README.rst opens with "Installation" and "Usage" at its top level: every source of it was titled
    # "Installation" ("Installation > Potential Gotchas"), each read as the answer to "How do I install parse?".
    path = tmp_path / "README.rst"
    path.write_text(PARSE_README)
    assert parsing.parse_file(path).title == "README"
    assert parse_doc("README.rst", rst_as_markdown(PARSE_README)).title == "README"
    assert first_heading("# Usage\n\nCall it.\n\n# API\n\nparse()\n") == ""
    # A document's name heading its first section stays its title, with the sections beside it or under it;
    # so does a section's name alone at the top (an installation guide).
    assert first_heading("# backoff\n\nRetries.\n\n# Examples\n\nSee below.\n") == "backoff"
    assert first_heading("# Installation\n\n## pip\n\npip install x\n\n## conda\n\nconda install x\n") == (
        "Installation")
    assert parse_doc("docs/install.md", "Installation:\n=============\n\nRun pip.\n").title == "Installation:"


def test_a_link_in_a_heading_reads_as_its_text():
    text = ("## [v1.11.1](https://github.com/django-q2/django-q2/tree/v1.11.1) (2026-08-26)\n\nFixed.\n\n"
            "## [Unreleased]\n\n### See [the guide][guide]\n")
    assert headings(text) == [(2, "v1.11.1 (2026-08-26)"), (2, "[Unreleased]"), (3, "See the guide")]


def test_a_headings_markup_reads_as_what_it_marks():
    # The Debian maintainer's guide as HTML: citations read "6.3. Команда **debuild**", "Настройка **dh\_make**".
    text = ("## 2.7. Настройка **dh\\_make**\n\nТекст.\n\n### Файл `rules` и *его* цели\n\nТекст.\n\n"
            "## The `__init__` method of __Strong words__ and _this_\n\n### Why \\*stars\\*? a * b * c\n")
    assert headings(text) == [(2, "2.7. Настройка dh_make"), (3, "Файл rules и его цели"),
                              (2, "The __init__ method of Strong words and this"), (3, "Why *stars*? a * b * c")]
    paths = [chunk.heading_path for chunk in split_text(text, chunk_size=60, overlap=0, min_size=0)]
    assert ["2.7. Настройка dh_make", "Файл rules и его цели"] in paths
    titles = [section.title for section in read_sections(text)]
    assert titles[:2] == ["2.7. Настройка dh_make", "Файл rules и его цели"]
    # An extract reads inline markup the same way: an escaped mark is a character, not emphasis.
    assert clean_text("Why \\*stars\\*? **Bold** and dh\\_make.") == "Why *stars*? Bold and dh_make."


def test_a_tables_delimiter_row_may_have_one_hyphen_a_column():
    # GitHub's tables need one hyphen a column ("| :-- | :-- |", as commander.js' README writes its hooks);
    # read as prose, its events ran into ":-- :-- :--" in an answer.
    text = ("The supported events are:\n\n| event name | when hook called |\n| :-- | :-: |\n"
            "| `preAction` | before the action handler |\n| `preSubcommand` | before a subcommand |\n")
    [table] = tables.read_tables(text)
    assert table.columns == ["event name", "when hook called"]
    assert table.rows == [["`preAction`", "before the action handler"], ["`preSubcommand`", "before a subcommand"]]
    assert "-" not in clean_text(text)
    assert tables.read_tables("| a | b |\n| - | - |\n| 1 | 2 |\n")[0].rows == [["1", "2"]]
    # A list item of a dash, or a line of two, is no delimiter row.
    assert tables.read_tables("| a | b |\n- item\n") == []
    assert clean_text("Before\n--\nafter - and so") == "Before\n--\nafter - and so"


def test_a_line_of_images_reads_as_nothing():
    # A README's badges: their alt texts ran together into "Supported Python versions Documentation Status PyPI
    # downloads", which an extract quoted as a sentence.
    badges = ("[![PyPI version](https://img.shields.io/pypi/v/x.svg?logo=pypi)](https://pypi.org/project/x/)\n"
              "[![Tests](https://github.com/o/x/workflows/Test/badge.svg)](https://github.com/o/x/actions) "
              "![MIT License][licence-badge]\n\nThis package turns numbers into words.")
    assert clean_text(badges) == "This package turns numbers into words."
    # An image inside a sentence still reads as its text.
    assert clean_text("Press the ![gear](gear.png) icon to open the settings.") == (
        "Press the gear icon to open the settings.")


def test_a_headings_badges_are_no_part_of_its_title():
    # dotenv's README opens "# dotenv [![NPM version](…)](…) [![downloads](…)](…)": every source was titled with them.
    text = ("# dotenv [![NPM version](https://img.shields.io/npm/v/dotenv.svg)](https://www.npmjs.com/package/dotenv) "
            "[![downloads](https://img.shields.io/npm/dw/dotenv)](https://www.npmjs.com/package/dotenv)\n\n"
            "Loads .env.\n\n## ![icon](icon.png) Usage\n\nCall config().\n")
    assert first_heading(text) == "dotenv"
    assert [heading.title for heading in scan(text)[0]] == ["dotenv", "Usage"]


def test_a_headings_inline_html_reads_as_its_text():
    # qs' README opens "# qs <sup>[![Version Badge][…]][…]</sup>": every source was titled "qs <sup></sup>".
    text = ("# qs <sup>[![Version Badge][npm-version-svg]][package-url]</sup>\n\n## Press <kbd>Ctrl</kbd>+<kbd>C</kbd>"
            "\n\n## The `<sup>` tag\n\n## The <head> element\n")
    titles = ["qs", "Press Ctrl+C", "The <sup> tag", "The <head> element"]
    assert [heading.title for heading in scan(text)[0]] == titles


def test_a_collapsible_sections_summary_is_a_heading_under_the_one_above():
    # dotenv's README writes its FAQ as <details><summary>question</summary>: no question was any section's heading,
    # and "Should I commit my .env file?" was answered with sentences of other questions' answers.
    text = ("## FAQ\n\n<details><summary>Should I commit my `.env` file?</summary><br/>\n\nNo.\n\n</details>\n"
            "<details><summary><b>What about variable expansion?</b></summary>\n\nUse dotenv-expand.\n\n</details>\n"
            "```html\n<details><summary>Inside a fence</summary>\n```\n"
            "<summary>A summary</summary> with text after it\n")
    read = summary_headings(text)
    assert read.count("\n") == text.count("\n")  # line for line
    assert [(heading.level, heading.title) for heading in scan(read)[0]] == [
        (2, "FAQ"), (3, "Should I commit my .env file?"), (3, "What about variable expansion?")]
    assert "<details><summary>Inside a fence</summary>" in read


def test_a_fenced_block_in_a_list_item_is_code(tmp_path):
    # validators' docs: "1. Either set the environment variable …" over its item's ```console block, four spaces in:
    # the fence and its lines were read as a paragraph ("console $ export RAISE_VALIDATION_ERROR=True $ python -c …").
    text = ("### To raise validation error\n\n1. Either set the environment variable `RAISE_VALIDATION_ERROR`\n\n"
            "    ```console\n    $ export RAISE_VALIDATION_ERROR=True\n    $ python -c 'print(url(\"bad\"))'\n"
            "      Traceback (most recent call last):\n    ```\n\n2. Or pass `r_ve=True` to each function.\n\n"
            "Code that writes a fence:\n\n    ```\n    x\n    ```\n")
    read = list_fences(text)
    assert read.count("\n") == text.count("\n")  # line for line
    assert "```console\n$ export RAISE_VALIDATION_ERROR=True\n$ python -c 'print(url(\"bad\"))'\n  Traceback" in read
    assert read.endswith("Code that writes a fence:\n\n    ```\n    x\n    ```\n"), "an indented block outside a list"
    assert len(scan(read)[1]) == 1
    # The uploaded file and the repository's page read it so.
    (tmp_path / "use.md").write_text(text)
    parsed = parsing.parse_file(tmp_path / "use.md")
    assert "console $ export" not in clean_text(parsed.text)
    assert "```console\n$ export RAISE_VALIDATION_ERROR=True" in parsed.text
    section = parse_doc("docs/use.md", text).sections[-1]
    assert "```console\n$ export RAISE_VALIDATION_ERROR=True" in section.text


def test_a_code_span_of_double_backticks_reads_as_its_code():
    # munch's README (Markdown written with reST's habit): "It is safe to ``import *`` from this module." read
    # "It is safe to `import * from this module." — a single backtick paired inside the double ones.
    text = ("* It is safe to ``import *`` from this module.\n* Just run ``pip install tox && tox`` from the root.\n"
            "A Munch is a subclass of ``dict``; the span `` `x` `` holds a backtick, `one` stays one.")
    assert clean_text(text) == ("• It is safe to import * from this module.\n• Just run pip install tox && tox from "
                                "the root.\nA Munch is a subclass of dict; the span `x` holds a backtick, one stays "
                                "one.")
    assert headings("## The ``dict`` methods\n\nText.\n") == [(2, "The dict methods")]


def test_escaped_brackets_in_a_heading_are_no_link():
    # http-errors' "### new createError\[code || name\](\[msg]\))" was titled "new createError\code || name)".
    text = "### new createError\\[code || name\\](\\[msg]\\))\n\nText.\n\n### See [the guide](guide.md)\n"
    assert headings(text) == [(3, "new createError[code || name]([msg]))"), (3, "See the guide")]
    assert clean_text("Call createError\\[code\\](\\[msg]\\) or see [the guide](guide.md).") == (
        "Call createError[code]([msg]) or see the guide.")


def test_a_banner_in_capitals_over_the_title_is_no_title():
    # voluptuous' README opens "# CONTRIBUTIONS ONLY" over a notice, then "# Voluptuous is a Python data validation
    # library": every source of it was titled "CONTRIBUTIONS ONLY".
    text = ("# CONTRIBUTIONS ONLY\n\nI do not have time to fix issues myself.\n\n# Voluptuous is a data validation "
            "library\n\nIt validates data.\n")
    assert first_heading(text) == "Voluptuous is a data validation library"
    # Alone, it is the title; and a name in capitals is a name.
    assert first_heading("# DEPRECATED PACKAGE\n\nUse another.\n") == "DEPRECATED PACKAGE"
    assert first_heading("# XML\n\nText.\n\n# Usage\n\nMore.\n") == "XML"
