"""Code in a source as an extract reads it: short blocks and commands marked to be quoted as written after the
sentence introducing them, a longer block left out but for its lines (`example_lines`), Markdown's indented blocks
told from indented prose.

The marks are characters no stored text holds; `code_lines` reads a marked candidate back as written.
"""

import re
import textwrap

from knowledge.search.citations import MARKER
from knowledge.search.words import same_words

COMMAND = "\x01"  # marks a line of a short code block in the extract's candidates (never in stored text)
# Marks a block of code quoted whole (`code_lines`): a command's mark and one of its own, so what holds for a
# command (never chosen for its words, shown after its introduction) holds for it. Its lines are joined by
# _CODE_LINE and its spaces are _CODE_SPACE, so that neither the reading of clean text (runs of spaces
# collapse) nor the cutting into sentences changes it.
CODE_BLOCK = "\x01\x06"
_CODE_LINE, _CODE_SPACE, _BACKTICK = "\x04", "\x05", "\x07"
# A block of code is quoted whole up to these sizes (its lines, blank lines inside it not counted, and its
# characters); a longer one is left out (CODE_LEFT_OUT). A line longer than a command's is never quoted.
CODE_MAX_LINES, CODE_MAX_CHARS, _LINE_MAX_CHARS = 12, 500, 160
CODE_LEFT_OUT = "\x02\x02"  # stands, among the extract's candidates, for a code block too long to quote
# A documentation generator's line standing for what it includes: Docusaurus' ":::note" and mkdocstrings' "::: module",
# an included file ("{!./src/example.py!}", '--8<-- "example.py"').
GENERATOR_LINE = re.compile(r"^[ \t]*(?::::.*|\{!.*!\}|-{2}8<-{2}.*)$", re.M)
# The package managers whose commands install packages (`installs` reads what they install).
PACKAGE_MANAGERS = (r"(?:pip3?|pipx|uv(?:\s+pip)?|conda|mamba|npm|pnpm|yarn|bun|deno|poetry|pdm|cargo|composer|gem|go"
                    r"|dotnet)")
# A package manager's command installing a package by a verb other than "install" (`command_read`).
_INSTALLS = re.compile(rf"\s*(?:\$\s+)?{PACKAGE_MANAGERS}\s+(?:i|add|get|require)\b")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+•]|\d{1,9}[.)])[ \t]")
_CODE_CHARACTERS = set("{}[]()<>=;:\"'$/\\|&*#@`_")
# Code's punctuation in text that is plainly code (`_plainly_code`): prose has a few in a hundred characters, a line
# of Python or JavaScript a dozen or more.
_CODE_LIKENESS = 0.12
# A comment on a line of its own, in words: not `#!/usr/bin/env`, `#include`, a rule of dashes, nor code after
# `/* stdin: */` or an unpacking's stars (`**dotenv_values(…),  # load …`).
_OWN_LINE_COMMENT = re.compile(r"^\s*(?://+\s*|#+\s+|/\*+\s*|\*+\s+)([^\W\d_](?:(?!\*/).)*?)\s*(?:\*/)?\s*$")
_MARKDOWN_HEADING = re.compile(r" {0,3}#{1,6}[ \t]+\S")
_INDENTED = re.compile(r"(?: {4}|\t)[ \t]*\S")


def command_lines(code: str, *, blocks: bool = True) -> str:
    """A short block of code as the paragraphs an extract may quote, "" when it is too long to quote: a
    command or up to three, each line flush left, as COMMAND paragraphs; a block of code with indentation
    or of more lines, up to CODE_MAX_LINES and CODE_MAX_CHARS, as one CODE_BLOCK paragraph (`code_lines`
    reads it back as written), unless not `blocks`. Of a shell session ("$ cmd" and its output, a command
    first), only the commands. Never a block holding what would read as a citation ("argv[1]")."""
    lines = [line.rstrip() for line in textwrap.dedent(code.expandtabs(4)).split("\n")]
    if any(GENERATOR_LINE.match(line) for line in lines):
        return ""  # a file the page includes there: code too long to quote
    if next((line for line in lines if line.strip()), "").lstrip().startswith("$ "):
        lines = [line.strip() for line in lines if line.lstrip().startswith("$ ")]
    written = [line for line in lines if line.strip()]
    if not written or any(map(unquotable, written)) or len(written) > CODE_MAX_LINES:
        return ""
    if len(written) <= 3 and not any(line[:1].isspace() for line in written):
        return "\n\n" + "\n\n".join(f"{COMMAND}`{_guarded(line)}`" for line in written) + "\n\n"
    block = re.sub(r"\n{2,}", "\n\n", "\n".join(lines).strip("\n"))  # a blank line inside it kept, one
    if not blocks or len(block) > CODE_MAX_CHARS:
        return ""
    return f"\n\n{CODE_BLOCK}{_encoded(block.split(chr(10)))}\n\n"


def quoted_whole(left_out: str) -> str:
    """A CODE_LEFT_OUT candidate as a CODE_BLOCK one: the block quoted whole, however long."""
    return CODE_BLOCK + left_out.removeprefix(CODE_LEFT_OUT)


def quoted_block(code: str) -> str:
    """A block of code as an extract may quote it: whole when short (`command_lines`), else a CODE_LEFT_OUT
    paragraph carrying its lines (`example_lines` may still quote one of them)."""
    return command_lines(code) or f"\n\n{CODE_LEFT_OUT}{_encoded(_left_out_lines(code))}\n\n"


def _left_out_lines(code: str) -> list[str]:
    """The lines a CODE_LEFT_OUT paragraph carries, as written but for those never quoted ("" in their place),
    at most CODE_MAX_LINES × 10: one of them may still be what a how-to question asks (`example_lines`)."""
    code = textwrap.dedent(code.expandtabs(4)).strip("\n")
    lines = [line.rstrip() for line in code.split("\n")][:CODE_MAX_LINES * 10]
    return ["" if unquotable(line) else line for line in lines]


def unquotable(line: str) -> bool:
    """A line of code never quoted: longer than a command's, or holding what would read as a citation
    ("argv[1]")."""
    return len(line) > _LINE_MAX_CHARS or bool(MARKER.search(line))


def _encoded(lines: list[str]) -> str:
    """Lines of code as one candidate no reading of text changes (see CODE_BLOCK)."""
    return _CODE_LINE.join(f"`{_guarded(line).replace(' ', _CODE_SPACE)}`" if line else "" for line in lines)


def _guarded(line: str) -> str:
    """A line of code with its backticks as _BACKTICK: each line is read as a code span, which one of its own would
    close (express-rate-limit's `// Limit each IP to 100 requests per `window``)."""
    return line.replace("`", _BACKTICK)


def code_lines(sentence: str) -> list[str]:
    """The lines of a COMMAND, CODE_BLOCK or CODE_LEFT_OUT candidate as written ("" for a blank line inside a
    block; none of a CODE_LEFT_OUT standing for a block no line of which could be kept)."""
    for mark in (CODE_BLOCK, CODE_LEFT_OUT):
        if sentence.startswith(mark):
            encoded = sentence[len(mark):]
            return encoded.replace(_CODE_SPACE, " ").replace(_BACKTICK, "`").split(_CODE_LINE) if encoded else []
    return [sentence.removeprefix(COMMAND).replace(_BACKTICK, "`")]


def introduced_commands(text: str) -> str:
    """An indented code block of Markdown (four spaces, after a blank line) as code: right after a line ending with
    ":" or a heading, as COMMAND paragraphs when it is short; after a paragraph, when it is plainly code
    (`_plainly_code`: a doctest's or a shell's prompt, code's punctuation), quoted whole when short and else left out,
    as a fenced block is. Other indented text is left as it is (after a list item it is the item's continuation;
    elsewhere it may be a PDF's indentation)."""
    lines, out, index = text.split("\n"), [], 0
    while index < len(lines):
        out.append(lines[index])
        # A line ending with ":" introduces it, and so does a heading over it (python-slugify's "# How to install"
        # over `pip install python-slugify`, which read as a sentence of prose).
        introduces = (lines[index].rstrip().endswith(":") or _MARKDOWN_HEADING.match(lines[index])) and not (
            _LIST_ITEM.match(lines[index]))
        if index + 2 < len(lines) and not lines[index + 1].strip() and _INDENTED.match(lines[index + 2]):
            end = _indented_end(lines, index + 2)
            code = "\n".join(lines[index + 2:end])
            # Commands only after an introduction: indented text of more lines may be a PDF's paragraph, not code.
            block = command_lines(code, blocks=False) if introduces else ""
            # (Not after a list item, nor a line of one: indented, it goes on with the item.)
            if not block and not _LIST_ITEM.match(lines[index]) and not lines[index][:1].isspace() and _plainly_code(
                    code):
                block = quoted_block(code)
            if block and (end == len(lines) or not lines[end].strip()):
                out.append(block)
                index = end
                continue
        index += 1
    return "\n".join(out)


def _indented_end(lines: list[str], start: int) -> int:
    """Where the indented block starting at line `start` ends: at a line not indented, blank lines inside it
    (followed by an indented one) its own."""
    end = start
    while end < len(lines) and (_INDENTED.match(lines[end]) or not lines[end].strip() and end + 1 < len(lines)
                                and _INDENTED.match(lines[end + 1])):
        end += 1
    return end


def _plainly_code(code: str) -> bool:
    """Indented text that is code whatever introduces it: a doctest's or a shell's session (">>> print(table)",
    "$ make"), or text of code's punctuation more than prose ever has."""
    first = code.lstrip()
    return first.startswith((">>> ", "$ ")) or code_likeness(code) >= _CODE_LIKENESS


def code_likeness(text: str) -> float:
    """The share of characters that are code punctuation (quotes, brackets, operators): prose has few."""
    text = "".join(text.split())
    return sum(char in _CODE_CHARACTERS for char in text) / len(text) if text else 0.0


def repeats_its_code(new: dict, chosen: dict) -> bool:
    """Whether what `new` introduces with a colon is code already chosen (one command in a README and on its
    install page): the text says a command once, and an introduction without it would end on its colon. Code is
    compared block by block: `pip install tabulate` is not said by a block setting a variable first and then
    running it ("On Windows:" `set TABULATE_INSTALL=lib-only`, `pip install tabulate`)."""
    code = _code_blocks(new)
    return bool(code) and code <= _code_blocks(chosen)


def _code_blocks(units: dict) -> set[tuple[str, ...]]:
    """The blocks of code among an extract's sentences, each as its lines' words: a run of COMMAND sentences one
    after the other in one source."""
    blocks, block, last = set(), [], None
    for key, sentence in sorted(units.items()):
        if block and (not sentence.startswith(COMMAND) or key != (last[0], last[1] + 1)):
            blocks.add(tuple(block))
            block = []
        if sentence.startswith(COMMAND):
            block.append(same_words(sentence))
        last = key
    if block:
        blocks.add(tuple(block))
    return blocks


def command_read(command: str) -> str:
    """A command's first line as its words are read (`line_read`)."""
    return line_read(code_lines(command)[0])


def comments_read(block: str) -> str:
    """The comments of a CODE_BLOCK on lines of their own, as the words they say ("Sets "X-Frame-Options: DENY""):
    what each piece of an example does, "" for a block without any."""
    return " ".join(match.group(1) for line in code_lines(block) if (match := _OWN_LINE_COMMENT.match(line)))


def line_read(line: str) -> str:
    """A line of code as its words are read: a package manager's short verb for installing is the word ("npm i
    yargs", "yarn add chalk" install)."""
    return f"{line} install" if _INSTALLS.match(line) else line


# A member of an object, a call's arguments or a settings file, as a line of its own: a property or key with its
# value ("whitespace : false ,", "retries: 3"), a keyword argument going on ("timeout=30,"), a shorthand property
# ("section ,").
_MEMBER = re.compile(r"""^\s*["']?([A-Za-z_$][\w$-]*)["']?\s*(?::\s*\S.*|=\s*[^=\s].*,|,)\s*$""")
_COMMENT_OPENS, _COMMENT_CLOSES = re.compile(r"^\s*/\*+"), re.compile(r"\*+/\s*$")
_LINE_COMMENT = re.compile(r"^\s*(?://+|#+(?=\s|$))\s?(.*)$")
# The members a block documents are read when it documents this many (an options object written as code, each
# option under its comment); an example's one commented line is what the example shows.
DOCUMENTED_MEMBERS = 2
_ARROW = re.compile(r"^(?:->|=>|→)\s*")
# A docstring's line documenting a parameter: ":param max_length (int): output string length", ":param str sep: …".
_PARAM_LINE = re.compile(r"^\s*:param\s+(?:[\w.\[\], |]+\s+)?([A-Za-z_]\w*)\s*(?:\([^)]*\))?\s*:\s*(\S.*?)\s*$")
# A comment ending a member's line: "  strict: false,     // strip special characters except replacement".
_TRAILING_COMMENT = re.compile(r"\s(?://+|#)\s+(\S.*?)\s*$")


def documented_members(code: str) -> list[tuple[str, str]]:
    """The members of a block of code documented by a comment right above them, or ending their line, as (name, what
    the comment says), in order: ini's stringify options, each under its `/** … */` ("whitespace", "Whether to insert
    spaces before & after `=`. Disabled by default to have better compatibility with old picky parsers."), slugify's
    each followed by its `// …` ("strict", "strip special characters except replacement, defaults to `false`."), and
    the parameters a docstring's `:param` lines document (python-slugify's "max_length", "output string length."). A
    comment's paragraphs are its sentences, its JSDoc tags (`@param`) left out. None at all when fewer than
    DOCUMENTED_MEMBERS are."""
    members, comment, open_block, doc_comment = [], None, False, False
    for line in code.expandtabs(4).split("\n"):
        if open_block or _COMMENT_OPENS.match(line):
            closes = bool(_COMMENT_CLOSES.search(line))
            text = _COMMENT_CLOSES.sub("", _COMMENT_OPENS.sub("", line)) if not open_block or closes else line
            comment = ([] if not open_block else comment) + [text.strip().lstrip("*").strip()]
            open_block, doc_comment = not closes, True
            continue
        if match := _LINE_COMMENT.match(line):
            comment, doc_comment = (comment or []) + [match.group(1).strip()], False
            continue
        if not line.strip() and doc_comment:
            continue  # a block comment documents the member after it across a blank line (ini's options)
        if param := _PARAM_LINE.match(line):
            members.append((param.group(1), _comment_said([param.group(2)])))
            comment = None
            continue
        trailing = _TRAILING_COMMENT.search(line)
        code_line = line[:trailing.start()] if trailing else line
        comment = comment or ([trailing.group(1)] if trailing else None)
        if comment and (member := _MEMBER.match(code_line)) and (said := _comment_said(comment)):
            members.append((member.group(1), said))
        comment = None
    return members if len(members) >= DOCUMENTED_MEMBERS else []


def _comment_said(lines: list[str]) -> str:
    """A comment's lines as sentences: each paragraph one, ending with a full stop unless it ends otherwise."""
    paragraphs, current = [], []
    for line in [*lines, ""]:
        line = _ARROW.sub("", line)  # "-> Also enables the `whitespace` option": a note going on, no mark to quote
        if line and not line.startswith("@"):
            current.append(line)
        elif current:
            paragraph = " ".join(current)
            paragraphs.append(paragraph if paragraph[-1] in ".!?:;" else f"{paragraph}.")
            current = []
    return " ".join(paragraphs)
