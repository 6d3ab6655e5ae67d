"""A command's options as its usage text lists them — docopt's, getopt's and `--help` output's table, the flags on
the left, what they do two spaces or more to the right, a long text going on below under itself:

    -s REGEXP, --sep REGEXP   use a custom column separator (default: whitespace)
    -f FMT, --format FMT      set output table format; supported formats:
                              plain, simple, grid (default: simple)

A README shows the table as code (tabulate's "Usage of the command line utility") and a `main()`'s docstring
holds it (docopt's way); either was read as one run-on sentence of every option, and "What does the --sep option
do?" quoted them all."""

import re
from dataclasses import dataclass

# A row: its flags ("-s REGEXP, --sep REGEXP", "-1, --header", "--max-width=N"), then what it does.
_ROW = re.compile(r"^(?P<margin>[ \t]*)(?P<flags>-{1,2}[\w?][\w-]*(?:[ =](?:[A-Z][A-Z_]*|<[^>\s]+>|\[[^\]\s]+\]))?"
                  r"(?:,[ \t]*-{1,2}[\w-]+(?:[ =](?:[A-Z][A-Z_]*|<[^>\s]+>|\[[^\]\s]+\]))?)*)"
                  r"(?P<gap>[ \t]{2,})(?P<said>\S.*?)[ \t]*$")
_FLAG = re.compile(r"-{1,2}([\w?][\w-]*)")
_FLAG_LINE = re.compile(r"^[ \t]*-{1,2}[\w?]", re.M)  # a line a row may be


@dataclass(frozen=True)
class OptionRow:
    flags: str  # as written: "-s REGEXP, --sep REGEXP"
    said: str  # what it does, its lines run on
    start: int  # the span of its lines in the text
    end: int

    @property
    def names(self) -> set[str]:
        """Its flags' names in lower case, without their dashes: {"s", "sep"}."""
        return {name.lower() for name in _FLAG.findall(self.flags)}


def option_rows(text: str) -> list[OptionRow]:
    """The rows of the option tables in `text`: two rows or more, one under the other (blank lines may part them),
    a row's text going on in the lines right below it, indented about as far. One row alone is no table ("-h  shows
    help" in a paragraph)."""
    if not _FLAG_LINE.search(text):
        return []
    tables, rows, column, offset = [], [], None, 0  # column: where the last row's text starts, while it may go on
    for line in text.split("\n"):
        match = _ROW.match(line)
        if match:
            rows.append([match.group("flags"), match.group("said"), offset, offset + len(line)])
            column = match.end("gap")
        elif column is not None and line.strip() and len(line) - len(line.lstrip()) >= column - 2:
            rows[-1][1] += f" {line.strip()}"  # its text going on under it
            rows[-1][3] = offset + len(line)
        elif line.strip() or not rows:
            tables.append(rows)
            rows, column = [], None
        else:
            column = None  # a blank line: the next row may follow, no more of this one's text
        offset += len(line) + 1
    tables.append(rows)
    return [OptionRow(*row) for table in tables if len(table) > 1 for row in table]


def as_items(text: str) -> str:
    """`text` with each option table's rows as list items, the flags then " — " then what they do: "• -s REGEXP,
    --sep REGEXP — use a custom column separator (default: whitespace)"."""
    for row in reversed(option_rows(text)):
        text = f"{text[:row.start]}• {row.flags} — {row.said}{text[row.end:]}"
    return text


def option_help(text: str, names) -> tuple[str, str]:
    """The row of an option table in `text` for an option of `names` (without dashes, any case) as a sentence —
    "-s REGEXP, --sep REGEXP: use a custom column separator (default: whitespace)." — and the name asked; "", ""
    when there is none."""
    asked = {name.lower() for name in names}
    for row in option_rows(text):
        if name := next((name for name in sorted(row.names) if name in asked), ""):
            said = row.said if row.said.endswith((".", "!", "?")) else f"{row.said}."
            return f"{row.flags}: {said}", name
    return "", ""
