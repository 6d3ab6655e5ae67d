"""The lines of an example too long to quote that do what a how-to question asks.

A README often shows its usage as one long block of code under a heading, a line per thing it can do
(schedule's "Usage": `schedule.every(10).minutes.do(job)`, `schedule.every().monday.do(job)`, … thirty
lines). The block is too long to quote (`code_blocks.CODE_MAX_LINES`), and with no sentence around it
"How do I run a job every Monday?" was answered by the package's description. For a how-to question the
block's lines sharing the most of the question's words, two at least, stand in for it, under the heading
of their section as a heading over its command does: "Usage: `schedule.every().monday.do(job)`". Not when
more than `MOST_LINES` lines share as many (the words are the example's, not the question's), nor without
a heading to introduce them: code alone reads as no answer. Imports and the lines opening a block (a definition,
`if …:`) are never the lines; a comment is never a line alone, but one on a line of its own says what the line
after it does (mitt's "Usage": `// listen to all events` over `emitter.on('*', …)`): its words count for that
line, and the two are quoted together.
"""

import re

from knowledge.search import headings
from knowledge.search.code_blocks import CODE_LEFT_OUT, COMMAND, code_lines, quoted_whole, unquotable
from knowledge.search.intent_words import HOW_TO
from knowledge.search.source_text import HEADING, HEADING_INTRO, clean_text
from knowledge.search.words import code_words, singular, word_stems

MOST_LINES = 2
# The lines of code of an example quoted whole under a heading saying what is asked (`_example_asked`).
EXAMPLE_MAX_LINES = 30
# Comments and imports: they name what the example uses, not what it does ("from pkg.url_safe import …" for
# "How do I sign a URL-safe string?"),
_SKIPPED = re.compile(r"^\s*(?:#|//|/\*|\*|--|;|import\b|from\s+\S+\s+import\b|(?:const|let|var)\s.*=\s*require\()"
                      # and what opens a block: a definition says what the example is made of, not what it does
                      # (`def job_with_argument(name):` for "How do I pass arguments to a job?", not its call)
                      r"|^\s*(?:async\s+)?(?:def|class|function|interface|struct|fn)\b|.*[:{(\[]\s*$")
_NUMBER = re.compile(r"\d+")
_WORD = re.compile(r"[^\W_]+")
# A comment on a line of its own saying what the line after it does: words, not code commented out (`# x = 1`)
# nor a lead-in to several lines ("// working with handler references:").
_SAYING_COMMENT = re.compile(r"^\s*(?:#|//)\s*([^\W\d_][^=(){};:]*[^\W_])\s*$")
# A Python session's prompt: `>>> # a comment` is a comment, `... )` closes a block.
_PROMPT = re.compile(r"^(?:>>>|\.\.\.)(?: |$)")


def with_asked_lines(hit, source: list[str], question: str) -> list[str]:
    """`source`'s sentences with each block too long to quote replaced by its lines asked about, under their
    section's heading (HEADING_INTRO and COMMAND lines), where it has such lines and a heading."""
    if not any(sentence.startswith(CODE_LEFT_OUT) for sentence in source):
        return source
    out = []
    for sentence in source:
        lines = asked_lines(sentence, question) if sentence.startswith(CODE_LEFT_OUT) else []
        heading = _heading_over(hit.content, lines[0]) if lines else None
        if heading:
            out += [f"{HEADING_INTRO}{heading}:", *(f"{COMMAND}{line}" for line in lines)]
        elif len(source) == 1 and (example := _example_asked(hit, sentence, question)):
            out += example
        else:
            out.append(sentence)
    return type(source)(out)  # readable.OpensWhole stays one


def _example_asked(hit, block: str, question: str) -> list[str]:
    """A section that is one example too long to quote, under a heading saying all a how-to asks: its heading and the
    example whole, up to EXAMPLE_MAX_LINES (cors' "How do I configure CORS asynchronously?" and its "Configuring CORS
    Asynchronously", 19 lines of code and no sentence: none of them says "asynchronously", and it was refused);
    [] for any other section."""
    heading, asked = headings.section_heading(hit), word_stems(question)
    if not HOW_TO(question) or not heading or not asked or not asked <= word_stems(heading):
        return []
    written = [line for line in code_lines(block) if line.strip()]
    # (Not one with a line never quoted, which its candidate holds as a blank line.)
    if not written or len(written) > EXAMPLE_MAX_LINES or any(map(unquotable, (hit.content or "").split("\n"))):
        return []
    return [f"{HEADING_INTRO}{heading}:", quoted_whole(block)]


def asked_lines(block: str, question: str) -> list[str]:
    """The lines of a block left out that share the most of `question`'s words and numbers ("every 10
    minutes"), two at least, stripped, each once; of those, the ones saying least else (`max_length=9` before
    `max_length=15, word_boundary=True` for "How do I set the maximum length?"); [] when more than MOST_LINES
    are left. A line under a comment saying what it does is read with the comment and comes with it."""
    asked, numbers = word_stems(question), set(_NUMBER.findall(question))
    units = _units([line.strip() for line in code_lines(block) if line.strip()])
    words = [word_stems(code_words(" ".join(unit))) for unit in units]
    shared = [len(words[at] & asked) + len(set(_NUMBER.findall(" ".join(unit))) & numbers)
              for at, unit in enumerate(units)]
    best = max(shared, default=0)
    top = [at for at, count in enumerate(shared) if count == best]
    # Short words count between them: "listen to all events" over "listen to an event" for "… to all events?"
    said = {at: len(_words(" ".join(units[at])) & _words(question)) for at in top}
    top = [at for at in top if said[at] == max(said.values())]
    least = min((len(words[at] - asked) for at in top), default=0)
    top = [units[at] for at in top if len(words[at] - asked) == least]
    return list(dict.fromkeys(line for unit in top for line in unit)) if best >= 2 and len(top) <= MOST_LINES else []


def does_asked(lines: list[str], question: str) -> bool:
    """Whether a line of code of `lines` that may be quoted shares two of `question`'s words as `asked_lines` counts
    them, its names split into words (`pluralize.addPluralRule(…)` says "add", "plural", "rule")."""
    asked = word_stems(question)
    return any(len(word_stems(code_words(" ".join(unit))) & asked) >= 2
               for unit in _units([line.strip() for line in lines if line.strip()]))


def _words(text: str) -> set[str]:
    """All of `text`'s words, short and stop words too, in the singular."""
    return {singular(word) for word in _WORD.findall(code_words(text).lower())}


def _units(lines: list[str]) -> list[tuple[str, ...]]:
    """The lines that may be quoted, each once, a line right under a comment saying what it does with it (a Python
    session's lines read without their prompts)."""
    units, bare = [], [_PROMPT.sub("", line) for line in lines]
    for at, line in enumerate(lines):
        if _SKIPPED.match(bare[at]):
            continue
        unit = (lines[at - 1], line) if at and _SAYING_COMMENT.match(bare[at - 1]) else (line,)
        if unit not in units:
            units.append(unit)
    return units


def _heading_over(content: str, line: str) -> str | None:
    """The heading of the section in which `content` writes `line`: the last heading before it."""
    at = content.find(line)
    if at < 0:
        return None
    headings = HEADING.findall(content, 0, at)
    return clean_text(headings[-1]).strip() if headings else None
