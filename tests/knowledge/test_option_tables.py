"""A command's options as its usage text lists them (docopt's, getopt's, `--help` output's table)."""

from dataclasses import replace

from knowledge.search import composer, layer_text, option_tables, source_text
from tests.knowledge.test_composer import hit

# tabulate's README shows its command's usage as code, and `_main`'s docstring holds the same table.
USAGE = """Usage: tabulate [options] [FILE ...]

    FILE                      a filename of the file with tabular data;
                              if "-" or missing, read data from stdin.

    Options:

    -h, --help                show this message
    -1, --header              use the first row of data as a table header
    -s REGEXP, --sep REGEXP   use a custom column separator (default: whitespace)
    -f FMT, --format FMT      set output table format; supported formats:
                              plain, simple, grid
                              (default: simple)

Performance considerations
"""


def test_the_rows_are_read_with_their_text_going_on_below():
    rows = option_tables.option_rows(USAGE)
    assert [(row.flags, row.said) for row in rows] == [
        ("-h, --help", "show this message"), ("-1, --header", "use the first row of data as a table header"),
        ("-s REGEXP, --sep REGEXP", "use a custom column separator (default: whitespace)"),
        ("-f FMT, --format FMT", "set output table format; supported formats: plain, simple, grid (default: simple)")]
    assert rows[2].names == {"s", "sep"}
    # One row alone is no table; nor is a list of items or a command's flags in a sentence.
    assert option_tables.option_rows("Run it so:\n\n    -v  verbose\n\nThat is all.") == []
    assert option_tables.option_rows("- one item\n- another item\n\nUse `ls -la  here`.") == []


def test_a_readmes_table_reads_as_items_and_one_option_is_its_row():
    text = source_text.clean_text(USAGE)
    assert "• -s REGEXP, --sep REGEXP — use a custom column separator (default: whitespace)" in text.split("\n")
    # Asked one option, the answer is its row, not the table run on as one sentence.
    answer = composer.compose("What does the --sep option do?", [hit(1, USAGE)], entry_match=False).text
    assert answer == ("Options: [1]\n"
                      "• -s REGEXP, --sep REGEXP — use a custom column separator (default: whitespace) [1]")


def test_a_usage_docstrings_row_is_the_options_entry():
    code = f'def _main():\n    """\\\n    {USAGE}    """\n    import getopt\n'
    assert layer_text.naming_paragraph(code, "What does the --sep option do?", "tabulate._main") == (
        "-s REGEXP, --sep REGEXP: use a custom column separator (default: whitespace).")
    assert layer_text.parameter_named(code, "What is the default of the format option?", "tabulate._main") == "format"


# semver's README: its `--help` output in a fenced block, each option's text on the lines below its flags.
HELP_BELOW = """As a command-line utility:

```
Usage: semver [options] <version> [<version> [...]]

Options:
-r --range <range>
        Print versions that match the specified range.

-i --increment [<level>]
        Increment a version by the specified level.  Level can
        be one of: major, minor, patch.  Default level is 'patch'.

-l --loose
        Interpret versions and ranges loosely
```
"""


def test_an_options_text_below_its_flags_is_its_row():
    rows = option_tables.option_rows(HELP_BELOW)
    assert [(row.flags, row.said) for row in rows] == [
        ("-r --range <range>", "Print versions that match the specified range."),
        ("-i --increment [<level>]", "Increment a version by the specified level.  Level can be one of: major, "
                                     "minor, patch.  Default level is 'patch'."),
        ("-l --loose", "Interpret versions and ranges loosely")]
    answer = composer.compose("What does the --increment option do?", [hit(1, HELP_BELOW)], entry_match=False).text
    assert "-i --increment [<level>] — Increment a version by the specified level." in answer, answer
    assert "--range" not in answer and "--loose" not in answer


def test_a_row_is_looked_up_by_a_flag_as_written():
    # semver's "What does the -l option of the semver command do?" quoted three other rows and not "-l --loose".
    for question in ("What does the -l option of the semver command do?", "What does the --loose flag do?"):
        assert composer._looks_up_row("• -l --loose — Interpret versions and ranges loosely",
                                      composer.row_keys(question)), question
    assert not composer._looks_up_row("• -r --range <range> — Print versions that match the specified range.",
                                      composer.row_keys("What does the -l option of the semver command do?"))
    assert option_tables.written_flags("-i --increment [<level>]") == {"-i", "--increment"}
    assert option_tables.written_flags("Interpret versions") == set()


def test_an_options_row_said_by_the_code_and_the_readme_is_said_once():
    # tabulate's "--sep" is a row of `_main`'s usage docstring and of its README's copy: the answer said it twice.
    code = replace(hit(1, f'def _main():\n    """\\\n    {USAGE}    """\n    import getopt\n', qname="tabulate._main",
                       source_path="tabulate/__init__.py"), layer="C0")
    answer = composer.compose("What does the --sep option do?", [code, hit(2, USAGE)], entry_match=False).text
    assert answer.count("use a custom column separator") == 1, answer
