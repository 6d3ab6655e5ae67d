"""Heading-aware, paragraph-first splitting of a document's text into overlapping chunks.

The rules (DESIGN.md, "Ingestion"), with `overlap` clipped to `chunk_size // 2` and `min_size` to
`chunk_size // 4` so that every window below is non-empty:

* Sections. An ATX heading line (one to six `#` after at most three spaces, then a blank or the end of
  the line) outside ``` / ~~~ fences starts a section. A section whose non-blank text is shorter than
  `min_size` merges with the following one; a short last section merges with the one before. Apart
  from that, no chunk spans two sections: a heading always starts a new chunk.
* Cuts. A chunk has at most `chunk_size` characters and ends at the latest boundary of the best kind
  found in its window: a heading inside merged sections, a blank line or the edge of a code fence, a
  sentence end (`.` `!` `?` `…`, outside fences), a line end, a word end, and finally anywhere. The
  window opens `max(min_size, overlap + 1)` characters after the chunk start and closes so that the
  section's last chunk keeps at least `min_size` characters: no chunk is shorter than `min_size`
  unless the whole text is (or, in degenerate texts, next to a whitespace run of `chunk_size // 4`).
  A window blank to its end, where cutting anywhere would end the chunk where the previous one ends,
  reaches past the blank as after such a run.
* Tables. A run of two or more pipe table rows (lines opening and closing with `|`, outside fences) is
  cut only at its rows' ends: a sentence end inside a row is no boundary (express-rate-limit's options
  table was cut after "unavailable." with the row's closing pipe in the next chunk), and its edges
  count as paragraph ends, as a fence's do, so that a table that fits is kept whole.
* Overlap. Within a section the next chunk starts `overlap` characters before the previous chunk's
  end, moved forward to the first word start within `min(24, overlap // 4)` characters, or else to
  the first non-blank character — unless that is inside a word and the previous chunk was not cut
  hard: then to the next word start before the previous chunk's end, or no overlap (helmet's README
  had a chunk open with "org/en-US/docs/Glossary/Cross-site_scripting), but makes things worse"). A
  start inside a table's row moves forward to the next row's start (or the first non-blank after the
  table), and when that is not before the previous chunk's end there is no overlap. There is no
  overlap either when the next chunk starts at a heading or after a whitespace run of at least
  `chunk_size // 4` characters.
* Chunks never begin or end with whitespace, `content == text[start:end]`, and starts and ends
  strictly increase. `heading_path` lists the heading titles in effect at the chunk's start, or after
  the headings that open it with nothing between them (closing `#`s and `{#id}` / `{/*id*/}` anchors
  removed, empty titles skipped). Headings and fences are
  read by `knowledge.indexing.markdown`, the project's one Markdown reader.
"""

import re
from bisect import bisect_right
from dataclasses import dataclass

from knowledge.documents import TextChunk
from knowledge.indexing import markdown

# Part of each document's configuration signature: bump whenever the same input can chunk differently.
# 11: a long piece of code is cut at a blank line in its last half (`layers.code.line_chunks`); 10: an overlapping
# chunk whose window is blank to its end reaches past the blank, as after a long whitespace run (it ended where the
# previous one did); 9: headings read double-backtick code spans and escaped brackets as written; 8: no overlap starts
# inside a word; 7: tables cut at their rows' ends only; 6: headings read without their inline markup; 5: a chunk
# opened by headings over headings takes the last one's path; 4: questions set in bold are FAQ entries
# (entries.faq_sections)
CHUNKER_VERSION = "11"

_NON_BLANK = re.compile(r"\S")
_PARAGRAPH_END = re.compile(r"\S(?:[^\S\n]*\n){2,}")
_SENTENCE_END = re.compile(r"[.!?…]+[\"'»”’)\]]*(?=\s)")
_LINE_END = re.compile(r"\S[^\S\n]*\n")
_LAST_WORD_END = re.compile(r"[\s\S]*\S(?=\s)")
_WORD_START = re.compile(r"(?<=\s)\S")
_TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t\r]*$", re.M)
# A chunk that starts mid-word reads badly in citations; a few characters of overlap buy a clean start.
_SNAP_LIMIT = 24

_HEADING, _PARAGRAPH, _SENTENCE, _LINE, _WORD, _HARD = range(6)


def token_estimate(text: str) -> int:
    """Rough token count of `text` (about four characters a token; at least 1 when non-empty)."""
    return max(1, len(text) // 4) if text else 0


def split_text(
    text: str, *, chunk_size: int = 2000, overlap: int = 200, min_size: int = 200
) -> list[TextChunk]:
    """Split `text` into heading-aware, overlapping chunks of at most `chunk_size` characters."""
    if chunk_size < 1 or overlap < 0 or min_size < 0:
        raise ValueError(f"Bad chunking settings: {chunk_size=}, {overlap=}, {min_size=}")
    min_size = min(min_size, chunk_size // 4)
    headings, fences = markdown.scan(text)
    starts = [h.start for h in headings]
    tables = _tables(text, fences)
    cutter = _Cutter(
        text=text,
        size=chunk_size,
        overlap=min(overlap, chunk_size // 2),
        min_size=min_size,
        heading_starts=starts,
        heading_ends=[_rstrip(text, start) for start in starts],
        levels=_boundaries(text, fences, [span for span, _ in tables]),
        tables=tables,
    )
    paths = _heading_paths(headings)
    chunks = []
    for group_start, group_end in _merge_small(_sections(text, starts), min_size):
        for start, end in cutter.cut(group_start, group_end):
            i = _heading_in_effect(text, starts, start, end)
            chunks.append(TextChunk(text[start:end], start, end, list(paths[i]) if i >= 0 else []))
    return chunks


def _heading_in_effect(text: str, starts: list[int], start: int, end: int) -> int:
    """The index of the heading whose path a chunk from `start` to `end` takes (-1: none): the one in effect
    at its start, or, when headings with nothing between them open the chunk ("## 2. Add content" right
    over "### Upload files"), the last of them, which its text is under."""
    i = bisect_right(starts, start) - 1
    while i >= 0 and starts[i] >= start and i + 1 < len(starts) and starts[i + 1] < end:
        line_end = text.find("\n", starts[i])
        if line_end < 0 or _NON_BLANK.search(text, line_end, starts[i + 1]):
            break
        i += 1
    return i


def _heading_paths(headings: list[markdown.Heading]) -> list[tuple[str, ...]]:
    """The heading path in effect right after each heading."""
    stack: list[tuple[int, str]] = []  # (level, title) of the open headings, outermost first
    paths = []
    for heading in headings:
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        stack.append((heading.level, heading.title))
        paths.append(tuple(title for _, title in stack if title))
    return paths


def _sections(text: str, heading_starts: list[int]) -> list[tuple[int, int]]:
    """Non-blank extent `(start, end)` of each section, in order; blank sections are dropped."""
    cuts = [0, *heading_starts, len(text)]
    extents = []
    for a, b in zip(cuts, cuts[1:]):
        first = _NON_BLANK.search(text, a, b)
        if first:
            extents.append((first.start(), _rstrip(text, b)))
    return extents


def _merge_small(sections: list[tuple[int, int]], min_size: int) -> list[tuple[int, int]]:
    """Merge sections shorter than `min_size` into the next one (the last one into the previous)."""
    groups: list[tuple[int, int]] = []
    for start, end in sections:
        if groups and groups[-1][1] - groups[-1][0] < min_size:
            groups[-1] = (groups[-1][0], end)
        else:
            groups.append((start, end))
    if len(groups) > 1 and groups[-1][1] - groups[-1][0] < min_size:
        last_end = groups.pop()[1]
        groups[-1] = (groups[-1][0], last_end)
    return groups


def _boundaries(text: str, fences: list[tuple[int, int]],
                tables: list[tuple[int, int]]) -> tuple[list[int], list[int], list[int]]:
    """Sorted chunk-end candidates: paragraph ends, sentence ends and line ends."""
    paragraphs = _outside([m.start() + 1 for m in _PARAGRAPH_END.finditer(text)], fences)
    # Cutting just before or after a code block or a table keeps it whole, so their edges count as paragraph ends.
    blocks = sorted(fences + tables)
    edges = [_rstrip(text, start) for start, _ in blocks] + [end for _, end in blocks]
    sentences = _outside([m.end() for m in _SENTENCE_END.finditer(text)], blocks)
    lines = [m.start() + 1 for m in _LINE_END.finditer(text)]
    return sorted(paragraphs + edges), sentences, lines


def _tables(text: str, fences: list[tuple[int, int]]) -> list[tuple[tuple[int, int], list[int]]]:
    """Each run of two or more pipe table rows outside fences: ((its start, its last row's end), its rows' starts)."""
    runs: list[tuple[tuple[int, int], list[int]]] = []
    rows = [(m.start(), _rstrip(text, m.end())) for m in _TABLE_ROW.finditer(text)]
    kept = set(_outside([start for start, _ in rows], fences))
    for start, end in rows:
        if start not in kept:
            continue
        if runs and text.count("\n", runs[-1][0][1], start) == 1 and not text[runs[-1][0][1]:start].strip():
            runs[-1] = ((runs[-1][0][0], end), runs[-1][1] + [start])
        else:
            runs.append(((start, end), [start]))
    return [run for run in runs if len(run[1]) > 1]


def _outside(positions: list[int], spans: list[tuple[int, int]]) -> list[int]:
    """Drop the positions strictly inside one of the sorted, disjoint spans."""
    if not spans:
        return positions
    span_starts = [start for start, _ in spans]
    kept = []
    for position in positions:
        i = bisect_right(span_starts, position - 1) - 1
        if i < 0 or position >= spans[i][1]:
            kept.append(position)
    return kept


@dataclass
class _Cutter:
    """Cuts one group of sections into chunk spans; all candidate boundaries are precomputed."""

    text: str
    size: int
    overlap: int
    min_size: int
    heading_starts: list[int]
    heading_ends: list[int]
    levels: tuple[list[int], list[int], list[int]]
    tables: list[tuple[tuple[int, int], list[int]]]

    def cut(self, start: int, end: int) -> list[tuple[int, int]]:
        """Chunk spans covering the non-blank text `text[start:end]`."""
        spans = []
        # The last chunk starts at or before `end - min_size` (at the next non-blank after a cut, or
        # earlier when overlapping): a cut must leave a non-blank character by then.
        last_start = end - max(self.min_size, 1)
        latest_cut = _rstrip(self.text, last_start + 1) - 1
        while end - start > self.size:
            lowest = start + max(self.min_size, self.overlap + 1)
            highest = min(start + self.size, latest_cut)
            if highest < lowest:  # only after long whitespace runs; then the last chunk may be short
                highest = min(start + self.size, last_start)
            chunk_end, kind = self._chunk_end(start, lowest, highest, last_start)
            if spans and chunk_end <= spans[-1][1]:
                # An overlapping start whose window is blank up to its last character would be cut where the previous
                # chunk ends: the window reaches as far as after a long whitespace run, the last chunk may be short.
                chunk_end, kind = self._chunk_end(start, lowest, min(start + self.size, last_start), last_start)
            spans.append((start, chunk_end))
            start = self._next_start(chunk_end, kind, lowest)
        spans.append((start, end))
        return spans

    def _chunk_end(self, start: int, lowest: int, highest: int, last_start: int) -> tuple[int, int]:
        """The best boundary in [lowest, highest] and its kind."""
        # A chunk cut at a heading is followed by one starting there: that start must leave room too.
        i = bisect_right(self.heading_starts, last_start)
        i = min(i, bisect_right(self.heading_ends, start + self.size)) - 1
        if i >= 0 and self.heading_ends[i] >= lowest:
            return self.heading_ends[i], _HEADING
        for kind, positions in enumerate(self.levels, start=_PARAGRAPH):
            i = bisect_right(positions, highest) - 1
            if i >= 0 and positions[i] >= lowest:
                return positions[i], kind
        word = _LAST_WORD_END.match(self.text, lowest - 1, highest + 1)
        if word:
            return word.end(), _WORD
        return _rstrip(self.text, highest), _HARD

    def _next_start(self, chunk_end: int, kind: int, lowest: int) -> int:
        """Where the chunk after one ending at `chunk_end` starts."""
        following = _NON_BLANK.search(self.text, chunk_end).start()
        # Overlapping across a heading or a long blank run would repeat another section or pure whitespace;
        # a chunk cut short by whitespace (`chunk_end < lowest`) is too short to overlap at all.
        if kind == _HEADING or chunk_end < lowest or following - chunk_end >= self.size // 4:
            return following
        position = chunk_end - self.overlap
        for (table_start, table_end), rows in self.tables:
            if table_start < position < table_end:  # a row's start, or the text after the table
                later = [row for row in rows if row >= position]
                after = _NON_BLANK.search(self.text, table_end)  # none when the table ends the text
                start = later[0] if later else after.start() if after else following
                return start if start < chunk_end else following
        start = _snap(self.text, position, chunk_end, min(_SNAP_LIMIT, self.overlap // 4))
        if kind != _HARD and start > 0 and not self.text[start - 1].isspace():
            # Inside a word longer than the snap (a link's address): the next word's start, else no overlap.
            word = _WORD_START.search(self.text, start, chunk_end)
            return word.start() if word else following
        return start


def _snap(text: str, position: int, limit: int, window: int) -> int:
    """The first word start in [position, position + window), else the first non-blank at or after it."""
    for i in range(position, min(position + window, limit)):
        if not text[i].isspace() and (i == 0 or text[i - 1].isspace()):
            return i
    return _NON_BLANK.search(text, position).start()


def _rstrip(text: str, end: int) -> int:
    """`end` moved back over whitespace."""
    # Step back a slice at a time: str.rstrip runs in C, so long blank runs stay cheap.
    while end > 0:
        piece = text[max(0, end - 64) : end]
        kept = len(piece.rstrip())
        if kept:
            return end - len(piece) + kept
        end -= len(piece)
    return 0

