"""The lines of an example too long to quote that do what a how-to question asks.

A README often shows its usage as one long block of code under a heading, a line per thing it can do
(schedule's "Usage": `schedule.every(10).minutes.do(job)`, `schedule.every().monday.do(job)`, … thirty
lines). The block is too long to quote (`code_blocks.CODE_MAX_LINES`), and with no sentence around it
"How do I run a job every Monday?" was answered by the package's description. For a how-to question the
block's lines sharing the most of the question's words, two at least, stand in for it, under the heading
of their section as a heading over its command does: "Usage: `schedule.every().monday.do(job)`". Not when
more than `MOST_LINES` lines share as many (the words are the example's, not the question's), nor without
a heading to introduce them: code alone reads as no answer. Comments, imports and the lines opening a block (a
definition, `if …:`) are never the lines.
"""

import re

from knowledge.search.code_blocks import CODE_LEFT_OUT, COMMAND, code_lines
from knowledge.search.source_text import HEADING, HEADING_INTRO, clean_text
from knowledge.search.words import code_words, word_stems

MOST_LINES = 2
# Comments and imports: they name what the example uses, not what it does ("from pkg.url_safe import …" for
# "How do I sign a URL-safe string?"),
_SKIPPED = re.compile(r"^\s*(?:#|//|/\*|\*|--|;|import\b|from\s+\S+\s+import\b|(?:const|let|var)\s.*=\s*require\()"
                      # and what opens a block: a definition says what the example is made of, not what it does
                      # (`def job_with_argument(name):` for "How do I pass arguments to a job?", not its call)
                      r"|^\s*(?:async\s+)?(?:def|class|function|interface|struct|fn)\b|.*[:{(\[]\s*$")
_NUMBER = re.compile(r"\d+")


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
        else:
            out.append(sentence)
    return type(source)(out)  # readable.OpensWhole stays one


def asked_lines(block: str, question: str) -> list[str]:
    """The lines of a block left out that share the most of `question`'s words and numbers ("every 10
    minutes"), two at least, stripped, each once; of those, the ones saying least else (`max_length=9` before
    `max_length=15, word_boundary=True` for "How do I set the maximum length?"); [] when more than MOST_LINES
    are left."""
    asked, numbers = word_stems(question), set(_NUMBER.findall(question))
    lines = list(dict.fromkeys(line.strip() for line in code_lines(block)
                               if line.strip() and not _SKIPPED.match(line)))
    words = [word_stems(code_words(line)) for line in lines]
    shared = [len(words[at] & asked) + len(set(_NUMBER.findall(line)) & numbers) for at, line in enumerate(lines)]
    best = max(shared, default=0)
    top = [at for at, count in enumerate(shared) if count == best]
    least = min((len(words[at] - asked) for at in top), default=0)
    top = [lines[at] for at in top if len(words[at] - asked) == least]
    return top if best >= 2 and len(top) <= MOST_LINES else []


def _heading_over(content: str, line: str) -> str | None:
    """The heading of the section in which `content` writes `line`: the last heading before it."""
    at = content.find(line)
    if at < 0:
        return None
    headings = HEADING.findall(content, 0, at)
    return clean_text(headings[-1]).strip() if headings else None
