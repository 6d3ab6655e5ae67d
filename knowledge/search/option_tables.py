"""A command's options as its usage text lists them — docopt's, getopt's and `--help` output's table, the flags on
the left, what they do two spaces or more to the right, a long text going on below under itself — or under the
flags, indented deeper:

    -s REGEXP, --sep REGEXP   use a custom column separator (default: whitespace)
    -f FMT, --format FMT      set output table format; supported formats:
                              plain, simple, grid (default: simple)
    -r --range <range>
            Print versions that match the specified range.

A README shows the table as code (tabulate's "Usage of the command line utility") and a `main()`'s docstring
holds it (docopt's way); either was read as one run-on sentence of every option, and "What does the --sep option
do?" quoted them all."""

import re
from dataclasses import dataclass

# A row: its flags ("-s REGEXP, --sep REGEXP", "-1, --header", "--max-width=N", "-i --increment [<level>]"), then
# what it does — on its line, or on the lines below it indented deeper (`--help` output's other way: semver's).
_ARGUMENT = r"(?:[ =](?:[A-Z][A-Z_]*|<[^>\s]+>|\[[^\]\s]+\]))?"
_FLAGS = rf"-{{1,2}}[\w?][\w-]*{_ARGUMENT}(?:,?[ \t]+-{{1,2}}[\w-]+{_ARGUMENT})*"
_ROW = re.compile(rf"^(?P<margin>[ \t]*)(?P<flags>{_FLAGS})(?:(?P<gap>[ \t]{{2,}})(?P<said>\S.*?))?[ \t]*$")
_FLAG = re.compile(r"-{1,2}([\w?][\w-]*)")
_FLAG_LINE = re.compile(r"^[ \t]*-{1,2}[\w?]", re.M)  # a line a row may be


@dataclass(frozen=True)
class OptionRow:
    flags: str  # as written: "-s REGEXP, --sep REGEXP"
    said: str  # what it does, its lines run on
    start: int  # the span of its lines in the text
    end: int

    @property
    def item(self) -> str:
        """The row as a list's item: "• -s REGEXP, --sep REGEXP — use a custom column separator …"."""
        return f"• {self.flags} — {self.said}"

    @property
    def names(self) -> set[str]:
        """Its flags' names in lower case, without their dashes: {"s", "sep"}."""
        return {name.lower() for name in _FLAG.findall(self.flags)}


def written_flags(text: str) -> set[str]:
    """The flags `text` is, as written and in lower case ({"-l", "--loose"} of "-l --loose"); empty when it is
    anything else."""
    return {flag.lower() for flag in re.findall(r"-{1,2}[\w?][\w-]*", text)} if re.fullmatch(_FLAGS, text) else set()


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
            rows.append([match.group("flags"), match.group("said") or "", offset, offset + len(line)])
            # (Its text below it, flags alone on their line: indented deeper than they are.)
            column = match.end("gap") if match.group("said") else match.end("margin") + 3
        elif column is not None and line.strip() and len(line) - len(line.lstrip()) >= column - 2:
            rows[-1][1] = f"{rows[-1][1]} {line.strip()}".strip()  # its text going on under it
            rows[-1][3] = offset + len(line)
        elif line.strip() or not rows:
            tables.append(rows)
            rows, column = [], None
        else:
            column = None  # a blank line: the next row may follow, no more of this one's text
        offset += len(line) + 1
    tables.append(rows)
    # (Flags with no text on their line nor below it are no row: "-v" alone.)
    tables = [[row for row in table if row[1]] for table in tables]
    return [OptionRow(*row) for table in tables if len(table) > 1 for row in table]


def as_items(text: str) -> str:
    """`text` with each option table's rows as list items, the flags then " — " then what they do: "• -s REGEXP,
    --sep REGEXP — use a custom column separator (default: whitespace)"."""
    for row in reversed(option_rows(text)):
        text = f"{text[:row.start]}{row.item}{text[row.end:]}"
    return text


def items(code: str) -> str:
    """The rows of the option tables in a block of code (a command's `--help` output shown as code) as a list of
    its own, a paragraph apart, for an extract to quote the row asked; "" when it has none."""
    rows = option_rows(code)
    return "\n\n" + "\n".join(row.item for row in rows) + "\n\n" if rows else ""


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
