"""reStructuredText read as the project's Markdown, line for line: Python projects document in RST.

`rst_as_markdown(text)` keeps every line where it was (a citation's line is the file's), so:

* a title with an underline, or an overline and an underline, of one punctuation character is an
  ATX heading, its adornment lines blank; as in RST, the levels follow the order in which the
  adornment styles first appear;
* a literal block (after a paragraph ending in `::`, or a `.. code-block:: python`, `.. code::`,
  `.. sourcecode::` directive, or one whose body is code: `.. doctest::`, `.. click:example::`) is
  fenced: the blank line opening it becomes the fence, so does the blank line closing it (or the fence
  closes the block's last line);
* an admonition (`.. note::`, `.. warning::`, …) reads as its name, "Note:", and its text; an object's
  description (`.. py:function:: send(data)`, `.. envvar:: FLASK_APP`, autodoc's `.. autoclass:: Cache`) as its
  signature and its text (a heading at the margin, `described`); a container (tabs, a topic) as its title and its
  text; directives that hold no prose (`toctree`, `image`, `include`, autodoc's `automodule`), comments and link
  targets are left out;
* a definition list's term (a short line over its indented definition) is a list item, "- term:", its
  definition the item's text;
* a substitution (`|version|`, `|badge|`) is what it stands for, a picture's left out;
* a grid table (`+----+----+` borders) is a Markdown table, its header's border the delimiter row; so is a
  `.. csv-table::` written in the file, its `:header:` (or first record) the header, a record of several lines one row;
* inline markup reads as Markdown: ``` ``code`` ``` as `code` (each line's part of one that wraps),
  `` `text <url>`_ `` as a link (its text on one line when it wraps before the address), a role's
  `` :func:`name` `` as `name`, `` :class:`~pkg.Name` `` as `Name` (as Sphinx shows it), and so
  interpreted text of the default role (`` `from_dict <pkg.Schema.from_dict>` `` as `from_dict`); a
  `` :ref:`label` `` without a title as the title of the section its label stands over, as Sphinx shows
  it — the file's own labels, and those of the other files of its repository — and a `` :doc:`path` ``
  without one as that file's title (`targets`, from `sphinx_targets`).
"""

import csv
import posixpath
import re

_ATX_HEADING = re.compile(r"^(#{1,6})[ \t]")  # a heading as read, in the lines written so far
_DESCRIPTION_HEADING = re.compile(r"^#{1,6}[ \t]+`[^`\n]+`[ \t]*$")  # one an object's description made (`described`)
_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1{2,}[ \t]*$")  # three or more of one punctuation character
_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)\.\.[ \t]+(?P<name>[\w:-]+)::[ \t]*(?P<argument>.*)$")
_COMMENT = re.compile(r"^[ \t]*\.\.(?:[ \t]|$)")
# An anonymous link's target ("__ https://developer.mozilla.org/…" under the sentence linking "header|__"): no text.
_ANONYMOUS_TARGET = re.compile(r"^[ \t]*__[ \t]+\S")
_SUBSTITUTION = re.compile(r"^[ \t]*\.\.[ \t]+\|([^|\n]+)\|[ \t]+([\w-]+)::(.*)$", re.MULTILINE)
_CODE_DIRECTIVES = {"code-block", "code", "sourcecode"}
# A grid table's border ("+------+-----+"), or the one under its header ("+======+=====+").
_GRID_BORDER = re.compile(r"^[ \t]*\+(?:[-=]+\+)+[ \t]*$")
# A simple table's border: two columns of "=" or more ("=====  =========").
_SIMPLE_BORDER = re.compile(r"^[ \t]*=+(?:[ \t]+=+)+[ \t]*$")
# Directives whose body is code too: Sphinx's doctest and notebook extensions, and a project's own examples
# and runs (Pallets' `.. click:example::`, `.. click:run::`).
_CODE_LIKE = re.compile(r"(?:^|:)(?:doctest|testcode|testoutput|ipython|jupyter-execute"
                        r"|code-cell|program-output|command-output|example|run|console)$")
ADMONITIONS = {"note", "warning", "tip", "important", "caution", "attention", "danger", "error", "hint",
                "seealso", "admonition", "deprecated", "versionadded", "versionchanged"}
# Object descriptions (Sphinx's domains: `.. py:function::`, `.. function::`, …): the object's signature.
# Autodoc's (`.. autoclass:: TTLCache(maxsize, ttl, timer=time.monotonic)`) too: the docstring it pulls in is read
# with the code, the text written under it is the page's own ("By default, the time-to-live is specified in
# seconds …"), its options (`:members:`) are not.
AUTODOC = {"autoclass", "autofunction", "automethod", "autoattribute", "autodata", "autoexception", "autodecorator",
           "autoproperty"}
DESCRIPTIONS = {"function", "class", "method", "attribute", "data", "exception", "decorator", "describe",
                 "object", "option", "confval", "program"} | AUTODOC
# Directives whose text is no prose: tables of contents, pictures, includes, autodoc's modules and summaries, markup,
# diagrams.
_LEFT_OUT = {"toctree", "image", "figure", "include", "literalinclude", "raw", "index", "currentmodule",
             "module", "highlight", "meta", "contents", "sectnum", "target-notes", "default-role", "role",
             "mermaid", "graphviz", "digraph", "plantuml", "uml",
             # Sphinx's doctest runs these around the examples; its pages never show them.
             "testsetup", "testcleanup"}
# A Sphinx info field of a hand-written description (`.. function:: my_wait(retry_state)` over ":param RetryCallState
# retry_state: info about current retry invocation", ":rtype: float"): read as the item of a list (`_field_item`).
_PARAMETER_FIELDS = {"param", "parameter", "arg", "argument", "key", "keyword", "kwarg", "kwparam", "var", "ivar",
                     "cvar"}
_RAISES_FIELDS = {"raises", "raise", "except", "exception"}
_FIELD_LABELS = {"returns": "Returns", "return": "Returns", "rtype": "Return type", "yields": "Yields",
                 "yield": "Yields", "ytype": "Yield type"}
INFO_FIELD_KINDS = "|".join(sorted({*_PARAMETER_FIELDS, *_RAISES_FIELDS, *_FIELD_LABELS, "type"}, key=len,
                                   reverse=True))
TYPE_FIELDS = frozenset({"type", "rtype", "ytype", "vartype"})  # a type's field: what Sphinx adds to another's
_INFO_FIELD = re.compile(rf"^(?P<indent>[ \t]*):(?P<kind>{INFO_FIELD_KINDS})(?:[ \t]+(?P<what>[^:\n]+?))?[ \t]*:"
                         r"(?:[ \t]+(?P<text>.*))?$")
# A directive's option under it (`:header: Option, Description`).
_OPTION = re.compile(r"^[ \t]*:([\w-]+):[ \t]*(.*)$")
_LINK = re.compile(r"`([^`<]+?)\s*<([^`>]+)>`__?")
_ROLE = re.compile(r":[\w:+-]+:`(?:([^`<]+?)\s*<[^`>]+>|([^`]+))`")
# A role whose text runs onto the next line (":gh:`The tutorial project is … in the Flask" / "repository
# <examples/tutorial>`"): its text alone, the line break kept, so each line stays where it was.
_WRAPPED_ROLE = re.compile(r":[\w:+-]+:`([^`<\n]*\n[ \t]*[^`<\n]*?)\s*(?:<[^`>\n]+>)?`")
# A link whose text runs onto the next line ("the official `Jinja2 Template Documentation" / "<https://…>`_ for more
# information."): the link on the first line, the second line's text where it was.
_WRAPPED_LINK = re.compile(r"`([^`<\n]+?)\n([ \t]*)([^`<\n]*?)[ \t]*<([^`>\n]+)>`__?[ \t]*")
_LITERAL = re.compile(r"``(.+?)``")
# Interpreted text without a role, in single backticks: the default role's (Sphinx's `default_role`, often
# "py:obj"), read as a role is ("`from_dict <marshmallow.Schema.from_dict>`" as `from_dict`); not a literal
# (double backticks), a reference ("`text`_") nor a role's text.
_INTERPRETED = re.compile(r"(?<![`:\w])`(?!`)(?:([^`<\n]+?)\s*<[^`>\n]+>|([^`\n]+))`(?![`_\w])")
_REFERENCE = re.compile(r"`([^`]+)`__?(?!\w)")
# A named reference without backquotes ("from PyPI_", "see Read-the-Docs__"): its name; a code span as it is.
_NAMED_REFERENCE = re.compile(r"(`[^`]*`)|(?<![\w`/.:-])([A-Za-z][\w.+-]*?[A-Za-z0-9])__?(?![\w`])")
# A label standing over a section (`.. _upgrading:`), not a link's target (`.. _Flask: https://…`).
_LABEL = re.compile(r"^\.\.[ \t]+_([^:`\n]+|`[^`\n]+`):[ \t]*$")
_BARE_REF = re.compile(r":(ref|doc):`([^`<\n]+)`")
_NOT_IN_A_TITLE = re.compile(r"[`<>]")
_DOCUMENT = "doc:"
# Sphinx sources named ".txt" (`source_suffix = ".txt"`: Django's documentation, django-filter's): a text file in a
# documentation folder is reStructuredText when it has a section title (`has_section_title`; docs/requirements.txt
# has none, and is no documentation).
_DOCS_FOLDER = re.compile(r"(?:^|/)(?:docs?|documentation)/", re.IGNORECASE)
# What opens a line that is no definition list's term: a list's bullet or number, a field (":param x:"), an option
# ("-v, --verbose"), a directive or comment, a doctest's prompt, a quote, a table's border or row.
_NOT_A_TERM = re.compile(r"(?:[-*+•]\s|\d+[.)]\s|#\.\s|[a-zA-Z][.)]\s|:|--?\w|\.\.|>>>|\.\.\.|\||\+[-=])")
_TERM_MAX_CHARS = 80


def rst_as_markdown(text: str, targets: dict[str, str] | None = None, path: str = "") -> str:
    """`text` (reStructuredText) as Markdown, each line where it was (see the module docstring);
    `targets`: the titles of the other files' labels and files (`sphinx_targets`), for references to
    them from this file, at `path`."""
    text = titled_references(_substituted(text), {**(targets or {}), **section_labels(text)}, path)
    text = _WRAPPED_ROLE.sub(lambda match: role_text(match.group(1)), text)
    text = _WRAPPED_LINK.sub(_wrapped_link, text)
    lines = _wrapped_literals(text.split("\n"))
    out = list(lines)
    styles: list[str] = []
    number = 0
    while number < len(lines):
        line = lines[number]
        directive = _DIRECTIVE.match(line)
        heading = _heading(lines, number)
        if heading is not None:
            style, title_line, last = heading
            if style not in styles:
                styles.append(style)
            out[number:last + 1] = [""] * (last + 1 - number)
            out[title_line] = "#" * min(styles.index(style) + 1, 6) + " " + _inline(lines[title_line].strip())
            number = last + 1
        elif directive is not None:
            number = _directive(lines, out, number, directive)
        elif _GRID_BORDER.match(line):
            number = _grid_table(lines, out, number)
        elif _SIMPLE_BORDER.match(line) and (after := _simple_table(lines, out, number)) is not None:
            number = after
        elif _COMMENT.match(line) or _ANONYMOUS_TARGET.match(line):
            number = _skip_block(lines, out, number)
        elif field := _INFO_FIELD.match(line):
            out[number] = field.group("indent") + _field_item(field)
            number += 1
        elif _definition_term(lines, number):
            indent = line[:len(line) - len(line.lstrip())]
            out[number] = f"{indent}- {_inline(line.strip()).rstrip(':')}:"
            number += 1
        elif line.rstrip().endswith("::") and not line.lstrip().startswith(".."):
            stripped = line.rstrip()[:-2].rstrip()
            # "Example::" reads "Example:"; a lone "::" or "text ::" introduces the block silently.
            out[number] = _inline(stripped + (":" if stripped and not line.rstrip()[:-2].endswith(" ") else ""))
            number = _fence(lines, out, number, "")
        else:
            out[number] = _inline(line)
            number += 1
    return "\n".join(out)


def _field_item(field: re.Match) -> str:
    """A Sphinx info field as the item of a list, as Sphinx shows it: ":param RetryCallState retry_state: info about
    …" as "- retry_state (RetryCallState): info about …", ":rtype: float" as "- Return type: float"."""
    text = _inline(field.group("text") or "")
    return f"- {field_label(field.group('kind'), field.group('what') or '')}: {text}".rstrip()


def field_label(kind: str, what: str) -> str:
    """What Sphinx shows for an info field of `kind` (":param", ":raises", …) over what the field names ("str
    time_str", "ValueError"): "time_str (str)", "Raises ValueError", "Returns", "Return type", "Type of x"."""
    words = what.split()
    if kind in _PARAMETER_FIELDS and words:
        return f"{words[-1]} ({' '.join(words[:-1])})" if len(words) > 1 else words[0]
    if kind in _RAISES_FIELDS:
        return f"Raises {' '.join(words)}".strip()
    if kind == "type" and words:
        return f"Type of {words[-1]}"
    return _FIELD_LABELS.get(kind, kind.capitalize())


def section_labels(text: str) -> dict[str, str]:
    """{label: the title of the section it stands over} of a file's `.. _label:` lines, labels in
    lower case (Sphinx matches them so)."""
    lines = text.split("\n")
    labels, pending = {}, []
    for number, line in enumerate(lines):
        if label := _LABEL.match(line):
            pending.append(label.group(1).strip("`").strip().lower())
        elif line.strip():
            if pending and (heading := _heading(lines, number)) is not None:
                title = title_free(lines[heading[1]])
                labels.update(dict.fromkeys(pending, title) if title else {})
            pending = []
    return labels


def is_source(path: str) -> bool:
    """Whether a repository's file is reStructuredText by its path: a `.rst` file, or a `.txt` file in a
    documentation folder (a Sphinx source, when it has a section title)."""
    lower = path.lower()
    return lower.endswith(".rst") or lower.endswith(".txt") and bool(_DOCS_FOLDER.search(lower))


# What only reStructuredText writes: a directive (`.. code-block:: python`), a role (:func:`clean`), a title adorned
# with a character no Markdown heading or rule uses ("~~~~", "^^^^").
_RST_ONLY = re.compile(r"^[ \t]*\.\.[ \t]+[\w:-]+::|(?<![\w`]):[a-z]+(?::[a-z]+)?:`[^`\n]+`"
                       r"|^([~^\"'+:.])\1{3,}[ \t]*$", re.MULTILINE)


def reads_as_rst(path: str, text: str) -> bool:
    """Whether a repository's documentation file is reStructuredText: by its path (`is_source`), or a file named
    without an extension (bleach's CHANGES, whose notes show their code in `.. code-block:: python`) that writes
    what only reStructuredText does."""
    return is_source(path) or "." not in path.rpartition("/")[2] and bool(_RST_ONLY.search(text))


def has_section_title(text: str) -> bool:
    """Whether a text has a section title of reStructuredText (a `.txt` file `is_source` names is one indeed)."""
    lines = text.split("\n")
    return any(_heading(lines, number) is not None for number in range(len(lines)))


def sphinx_targets(texts: dict[str, str]) -> dict[str, str]:
    """What the reStructuredText files of a repository ({path: text}) give references a title by: each label's
    section title, and each file's title under "doc:" and its path without the suffix."""
    targets = {}
    for path, text in texts.items():
        if is_source(path):
            targets.update(section_labels(text))
            lines = text.split("\n")
            title = next((lines[heading[1]] for number in range(len(lines))
                          if (heading := _heading(lines, number)) is not None), "")
            if title := title_free(title):
                targets[document_key(path)] = title
    return targets


def document_key(path: str) -> str:
    """Where a file's title stands among the targets: under its path without the suffix, as `:doc:`
    names it (labels have no ":")."""
    return _DOCUMENT + posixpath.splitext(path)[0]


def titled_references(text: str, targets: dict[str, str], path: str, pattern: re.Pattern = _BARE_REF,
                      written: str = ":{role}:`{title} <{target}>`") -> str:
    """`text` (the file at `path`) with each reference without a title (`pattern`: its role, `ref` or
    `doc`, and its target) that `targets` knows a title for `written` with it (MyST: its own syntax)."""
    def titled(match: re.Match) -> str:
        role, target = match.group(1), match.group(2).strip()
        title = _reference_title(role, target, targets, path)
        return written.format(role=role, title=title, target=target) if title else match.group(0)

    return pattern.sub(titled, text) if targets else text


def _reference_title(role: str, target: str, targets: dict[str, str], path: str) -> str | None:
    """The title Sphinx shows for a `ref` role without one (its label's section) or a `doc` role (the file
    it names, relative to `path`'s folder or, "/guide/install", from the documentation's root); None
    when `targets` does not know it."""
    if role == "ref":
        return targets.get(target.lower())
    if target.startswith("/"):
        return next((title for key, title in targets.items()
                     if key.startswith(_DOCUMENT) and f"/{key[len(_DOCUMENT):]}".endswith(target)), None)
    return targets.get(_DOCUMENT + posixpath.normpath(posixpath.join(posixpath.dirname(path), target)))


def title_free(text: str) -> str:
    """A title as a reference's title may hold it: no backticks or angle brackets."""
    return _NOT_IN_A_TITLE.sub("", text).strip()


def _wrapped_literals(lines: list[str]) -> list[str]:
    """`lines` with each literal whose text runs onto the next line (docopt's "e.g.: ``my_program.py" /
    "[-hvqo FILE]``") closed at the line's end and opened again on the next: each line's part a code span of
    its own, so each line stays where it was and no backticks are left unpaired."""
    lines, opened = list(lines), False
    for number, line in enumerate(lines):
        if opened:
            line = f"{line[:len(line) - len(line.lstrip())]}``{line.lstrip()}"
        following = lines[number + 1] if number + 1 < len(lines) else ""
        opened = line.count("``") % 2 == 1 and "``" in following
        lines[number] = f"{line.rstrip()}``" if opened else line
    return lines


def _wrapped_link(match: re.Match) -> str:
    words = " ".join(part.strip() for part in match.group(1, 3) if part.strip())
    return f"[{words}]({match.group(4)})\n{match.group(2)}"


def _substituted(text: str) -> str:
    """`text` with its substitutions made: `|name|` defined by `.. |name| replace:: words` is the words;
    by any other directive (a badge's `image::`) it is left out."""
    for name, directive, value in _SUBSTITUTION.findall(text):
        text = text.replace(f"|{name}|", value.strip() if directive == "replace" else "")
    return text


def _heading(lines: list[str], number: int) -> tuple[str, int, int] | None:
    """(style, the title's line, the last adornment line) of a section title starting at `number`."""
    line = lines[number]
    following = lines[number + 1] if number + 1 < len(lines) else ""
    after = lines[number + 2] if number + 2 < len(lines) else ""
    over = _ADORNMENT.match(line)
    if over and following.strip() and _ADORNMENT.match(after) and after.rstrip() == line.rstrip():
        return "over" + over.group(1), number + 1, number + 2
    under = _ADORNMENT.match(following)
    if (under and line.strip() and not line[:1].isspace() and not _ADORNMENT.match(line)
            and (number == 0 or not lines[number - 1].strip() or lines[number - 1][:1].isspace())
            and len(following.rstrip()) >= min(len(line.rstrip()), 3)):
        return under.group(1), number, number + 1
    return None


def directive_kind(name: str) -> str:
    """"code" (a block of code), "left out" (no prose) or "prose", of a directive named `name` (lower case);
    MyST's are Sphinx's too (`knowledge.indexing.myst`)."""
    if name in _CODE_DIRECTIVES or _CODE_LIKE.search(name):
        return "code"
    if name in _LEFT_OUT or name.startswith("auto") and name not in AUTODOC:
        return "left out"
    return "prose"


def directive_language(name: str, argument: str) -> str:
    """The language a code directive names (`.. code-block:: python`), or ""."""
    return argument.split()[0] if name in _CODE_DIRECTIVES and argument.strip() else ""


def directive_label(name: str, argument: str) -> str:
    """The line a prose directive's text reads under, saying what it is: "Note:", "Environment variable
    `FLASK_APP`:", "`send(data)`", a container's (tabs, a topic, a table) title if any."""
    if name in ADMONITIONS:
        label = name.replace("seealso", "see also").replace("version", "version ").capitalize() + ":"
        return label + (f" {argument}" if argument else "")
    if name == "envvar":
        return f"Environment variable `{argument}`:"
    if ":" in name or name in DESCRIPTIONS:
        return f"`{argument}`" if argument else ""
    return argument


def _grid_table(lines: list[str], out: list[str], number: int) -> int:
    """A grid table from its first border at `number` as a Markdown table, line for line: its rows as they are
    ("|cell|cell|"), the border under its header as the delimiter row and the others as empty rows (which read as
    nothing); without a header, borders are blank lines and each row reads as its cells. Returns the line after it."""
    end = number
    while end < len(lines) and lines[end].lstrip().startswith(("+", "|")):
        end += 1
    headed = any("=" in lines[at] and _GRID_BORDER.match(lines[at]) for at in range(number, end))
    for at in range(number, end):
        if not _GRID_BORDER.match(lines[at]):
            out[at] = _inline(lines[at])
        elif at == number or not headed:
            out[at] = ""
        else:
            cells = lines[at].strip().count("+") - 1
            out[at] = "|" + "|".join(["---" if "=" in lines[at] else "   "] * cells) + "|"
    return end


def _simple_table(lines: list[str], out: list[str], number: int) -> int | None:
    """A simple table from its top border at `number` as a Markdown table, line for line: its header (the rows above
    the second border) the header, that border the delimiter row, each row on its first line with the lines going on
    in its first column's blank (parse's "e.g. 1.1e-10, NAN …" under "e") joined to it, those lines and the borders
    left as empty rows or blank. The line after it; None for a table without a header, or one it cannot read."""
    columns = [match.span() for match in re.finditer(r"=+", lines[number])]
    borders = [number]
    at = number + 1
    while at < len(lines) and lines[at].strip() and len(borders) < 3:
        if _SIMPLE_BORDER.match(lines[at]):
            borders.append(at)
        at += 1
    if len(borders) < 3 or borders[1] - number < 2:
        return None

    def cells(line: str) -> list[str]:
        ends = [start for start, _ in columns[1:]] + [len(line)]
        return [line[start:end].strip() for (start, _), end in zip(columns, ends, strict=True)]

    rows: list[tuple[int, list[str]]] = []
    for at in range(number + 1, borders[2]):
        if at == borders[1]:
            continue
        row = cells(lines[at])
        if rows and not row[0] and at != borders[1] + 1:  # a row going on
            rows[-1] = (rows[-1][0], [f"{had} {more}".strip() for had, more in zip(rows[-1][1], row, strict=True)])
        else:
            rows.append((at, row))
    if not rows or rows[0][0] != number + 1:
        return None
    for at in range(number, borders[2] + 1):
        out[at] = "" if at in (number, borders[2]) else "|" + "|".join(["   "] * len(columns)) + "|"
    out[borders[1]] = "|" + "|".join(["---"] * len(columns)) + "|"
    for at, row in rows:
        out[at] = "| " + " | ".join(_inline(cell).replace("|", "\\|") for cell in row) + " |"
    return borders[2] + 1


def _csv_table(lines: list[str], out: list[str], number: int, title: str) -> int | None:
    """A `.. csv-table::` directive at `number` as a Markdown table under its title: its `:header:` option (else its
    first record) the header, each record a row however many lines it takes, the rows on the lines after the
    directive's and the lines left blank. The line after it; None when its records are not in the file (`:file:`,
    `:url:`) or its lines cannot hold the table."""
    end = _block_end(lines, number)
    at, options = number + 1, {}
    while at < end and (option := _OPTION.match(lines[at])):
        options[option.group(1).lower()] = option.group(2).strip()
        at += 1
    if "file" in options or "url" in options:
        return None
    delim = options.get("delim", ",")
    delimiter = {"tab": "\t", "space": " "}.get(delim, delim[:1] or ",")
    # The header option is written as the records are.
    written = (f"{line.strip()}\n" for line in ([options["header"]] if "header" in options else []) + lines[at:end])
    read = csv.reader(written, delimiter=delimiter, skipinitialspace=True)
    records = [[_inline(" ".join(cell.split())).replace("|", "\\|") for cell in record] for record in read
               if "".join(record).strip()]
    header = records.pop(0) if records else []
    table = [f"| {' | '.join(cells)} |" for cells in (header, ["---"] * len(header), *records)]
    if not header or len(table) >= end - number - 1:  # a blank line is left after it
        return None
    out[number] = _inline(title)
    out[number + 1:end] = table + [""] * (end - number - 1 - len(table))
    return end


def _directive(lines: list[str], out: list[str], number: int, directive: re.Match) -> int:
    name = directive.group("name").lower()
    argument = directive.group("argument").strip()
    if name == "csv-table" and (after := _csv_table(lines, out, number, argument)) is not None:
        return after
    kind = directive_kind(name)
    if kind == "code":
        out[number] = ""
        return _fence(lines, out, number, directive_language(name, argument))
    if kind == "left out":
        return _skip_block(lines, out, number)
    # Any other directive's text stays, read like the rest (a note's code block is fenced too).
    end = _block_end(lines, number)
    _dedent(lines, number + 1, end)
    out[number + 1:end] = lines[number + 1:end]
    at = number + 1
    while name in AUTODOC and at < end and _OPTION.match(lines[at]):  # autodoc's options: what it pulls in
        out[at] = lines[at] = ""
        at += 1
    out[number] = directive.group("indent") + described(name, _inline(directive_label(name, argument)), out, number,
                                                         directive.group("indent"))
    return number + 1


def described(name: str, label: str, out: list[str], number: int, indent: str) -> str:
    """A directive's label, as a heading one level under the section it is in when it describes an object at the
    margin (`.. py:data:: TESTING`, `.. function:: iteritems(dictionary)`, `.. option:: --verbose`): each entry of a
    reference is a section of its own, "Builtin Configuration Values > TESTING", as Sphinx's index of it reads. One
    indented in another's text stays a line."""
    if indent or not label or name.rsplit(":", 1)[-1] not in DESCRIPTIONS:
        return label
    above = next((len(heading.group(1)) for line in reversed(out[:number])
                  if (heading := _ATX_HEADING.match(line)) and not _DESCRIPTION_HEADING.match(line)), 1)
    return f"{'#' * min(above + 1, 6)} {label}"


def _dedent(lines: list[str], start: int, end: int) -> None:
    """Lines `start` to `end` less the indentation they share."""
    indents = [_indent(lines[inner]) for inner in range(start, end) if lines[inner].strip()]
    cut = min(indents, default=0)
    for inner in range(start, end):
        lines[inner] = lines[inner][cut:] if lines[inner].strip() else ""


def _definition_term(lines: list[str], number: int) -> bool:
    """Whether line `number` is a definition list's term: a short line right over its more indented definition, after
    a blank line or the definition before it — parse's "``fixed``" over "A tuple of the fixed-position, anonymous
    fields …", which ran on as "… extracted from the input. named". Not a list's item, a field, an option, a
    directive, a prompt, a line introducing a literal block, a simple table's row (its columns apart by runs of
    spaces), a link wrapped onto the next line, nor a line over a list (a changelog's "0.4.6 Current release" over its
    changes, read as they were)."""
    line, following = lines[number], lines[number + 1] if number + 1 < len(lines) else ""
    before = lines[number - 1] if number else ""
    indent = len(line) - len(line.lstrip())
    if (not line.strip() or len(line.strip()) > _TERM_MAX_CHARS or line.rstrip().endswith("::")
            or _NOT_A_TERM.match(line.lstrip()) or "   " in line.strip() or "](" in line or not following.strip()
            or _NOT_A_TERM.match(following.lstrip())):
        return False
    deeper = len(following) - len(following.lstrip()) > indent
    after_blank_or_definition = not before.strip() or len(before) - len(before.lstrip()) > indent
    return deeper and after_blank_or_definition


def _skip_block(lines: list[str], out: list[str], number: int) -> int:
    """Blank a directive or comment and the indented lines under it."""
    end = _block_end(lines, number)
    out[number:end] = [""] * (end - number)
    return end


def _fence(lines: list[str], out: list[str], number: int, language: str) -> int:
    """Fence the literal block under line `number` (after its first blank line; a code directive's
    options before it are left out); the line after the block."""
    end = _block_end(lines, number)
    opening = next((inner for inner in range(number + 1, end) if not lines[inner].strip()), None)
    body = [inner for inner in range(opening + 1, end) if lines[inner].strip()] if opening is not None else []
    if not body:
        return end
    out[number + 1:opening] = [""] * (opening - number - 1)
    out[opening] = f"```{language}"
    for inner in range(opening + 1, end):
        out[inner] = lines[inner]  # code as written
    closing = next((inner for inner in range(body[-1] + 1, end) if not lines[inner].strip()), None)
    if closing is None:  # the block runs into the next text: the fence closes its last line
        out[body[-1]] = lines[body[-1]] + "\n```"
    else:
        out[closing] = "```"
    return end


def _block_end(lines: list[str], number: int) -> int:
    """The line after the block indented under line `number`, one blank line after it included (it
    closes a fence)."""
    indent = _indent(lines[number])
    last, inner = number, number + 1
    while inner < len(lines) and (not lines[inner].strip() or _indent(lines[inner]) > indent):
        if lines[inner].strip():
            last = inner
        inner += 1
    return last + 2 if last + 1 < inner else last + 1


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def role_as_code(match: re.Match) -> str:
    """A role (`` :func:`~pkg.send` ``, `` :doc:`the guide <guide>` ``) as its text in a code span: group 1
    the title before a target, else group 2 the name."""
    return role_text_as_code(match.group(1) or match.group(2))


def role_text_as_code(text: str) -> str:
    """A role's title or name (also MyST's, `` {func}`send` ``) in a code span, as `role_text` reads it."""
    return f"`{role_text(text)}`"


def role_text(text: str) -> str:
    """A role's title or name as Sphinx shows it: "~pkg.mod.send" as its last part, "send" ("~": show the
    last part only); "!" (do not link) is no part of the name."""
    text = text.strip().lstrip("!")
    return text[1:].rsplit(".", 1)[-1] if text.startswith("~") else text


def _inline(line: str) -> str:
    line = _INTERPRETED.sub(role_as_code, line)
    line = _LITERAL.sub(r"`\1`", line)
    line = _LINK.sub(r"[\1](\2)", line)
    line = _ROLE.sub(role_as_code, line)
    line = _REFERENCE.sub(r"\1", line)
    return _NAMED_REFERENCE.sub(lambda match: match.group(1) or match.group(2), line)
