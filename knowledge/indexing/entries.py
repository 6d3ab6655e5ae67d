"""A document's text cut into pieces: table rows and FAQ entries as whole units, prose by the chunker.

- Tables (`knowledge.indexing.tables`): one piece per row, shaped by the document's column mapping.
- FAQ pages: a heading that asks a question (ends in `?`, or starts with `Q:` / `В:` / `Вопрос:`)
  followed by its answer becomes one entry (when at least two paragraphs all in bold ask, each such
  paragraph counts as a heading below every other: Word FAQs set their questions so, under
  heading-styled topics), when the page has at least two such headings (or is an
  FAQ by construction, such as the answers written in the admin: `knowledge.written`). FAQs also
  title their entries without a question mark, so two more kinds of heading with an answer and no
  sub-headings are entries: a short one ("Сброс пароля") under a heading or a document title that
  says FAQ ("Частые вопросы", "Вопросы и ответы", "Q&A"), and one worded as a question ("How to
  reset a password", "Как сменить PIN") among sibling headings of which most ask. A heading merely
  worded as a question in a guide ("How to install") stays a heading.
- Everything else goes through `chunking.split_text` as before; the table and FAQ regions are
  blanked (same length, so offsets hold) rather than cut out, so headings keep their paths.

An entry's `content` is its answer: the unit that is cited. Its question goes to the section
path (full-text weight A), to the embedder's input and to `metadata["entry"]`, so retrieval
matches the incoming question against the entry's question as well as its answer.
"""

import re
from dataclasses import dataclass, field

from knowledge.indexing import chunking, markdown, tables

QUESTION_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
_NOT_NEWLINE = re.compile(r"[^\n]")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_ASKS = re.compile(r"[?？][?!]*\s*$|^(?:q|в|вопрос|question)\s*[:.)]", re.I)  # "…?", "…?!", "Q: …"
# A heading or title that says its section is an FAQ (not one that is about one: "Общая информация о ЧаВо").
_FAQ_TITLE = re.compile(
    r"(?<!\bо )(?<!\bоб )(?<!\bпро )(?<!\babout )(?<!\bthe )(?<![\w-])(?:faqs?|f\.a\.q\.?|q\s*&\s*a|q\s*/\s*a"
    r"|frequently asked questions|questions (?:and|&) answers|(?:часто )?задаваемые вопросы|частые вопросы"
    r"|вопросы и ответы|вопрос-ответ|чаво)(?![\w-])", re.I)
# A heading worded as a question without its mark: "How to reset…", "Как сменить…", "Что делать, если…".
ASKS_UNMARKED = re.compile(
    r"^(?:\d+(?:\.\d+)*\.?\s+)?(?:how|what|why|where|when|which|who|can|should|is|are|do|does|"
    r"как|какой|какая|какое|какие|каким|что|чем|почему|зачем|где|куда|откуда|когда|кто|сколько|можно|нужно)\b",
    re.I)
# A paragraph all in bold ("**Как оформить карту?**"), read as a heading below every real one (h1-h6).
_BOLD_LINE = re.compile(r"^ {0,3}(?:\*\*([^*\n]+)\*\*|__([^_\n]+)__)[ \t]*$")
BOLD_LEVEL = 7
# A heading under an FAQ title is an entry's question only when it is this short: longer ones are prose.
MAX_TOPIC_WORDS = 12
# An FAQ answer longer than this many chunks is a chapter, not an entry: the chunker cuts it.
MAX_ENTRY_CHUNKS = 4


@dataclass
class Piece:
    content: str
    start: int
    end: int
    heading_path: list[str] = field(default_factory=list)
    title: str = ""
    question: str = ""
    metadata: dict = field(default_factory=dict)
    kind: str = ""  # "" prose, "row" a table row, "faq" a question and its answer


def split_document(text: str, *, mapping: dict | None = None, chunk_size: int = 2000, overlap: int = 200,
                   min_size: int = 200, min_questions: int = 2, title: str = "") -> tuple[list[Piece], list[dict]]:
    """The pieces of `text` in reading order, and a description of each table found (for the admin)."""
    found = tables.read_tables(text) if "|" in text else []
    pieces, described, regions = [], [], []
    for table in found:
        effective = {**tables.guess_mapping(table.columns, table.rows),
                     **{name: role for name, role in (mapping or {}).items() if name in table.columns}}
        described.append({"section": table.section, "columns": table.columns, "rows": len(table.rows),
                          "mapping": effective})
        for entry in tables.table_entries(table, effective):
            pieces.append(_row_piece(entry))
        regions.append((table.start, table.end))
    for start, end, question, answer, path in faq_sections(text, chunk_size * MAX_ENTRY_CHUNKS, min_questions,
                                                           faq_title=bool(_FAQ_TITLE.search(title))):
        if any(start < r_end and r_start < end for r_start, r_end in regions):
            continue
        pieces.append(Piece(answer, start, end, path + [question], question=question, kind="faq",
                            metadata={"entry": {"kind": "faq", "question": question}}))
        regions.append((start, end))
    prose = _blank(text, regions) if regions else text
    if regions:
        prose = _blank(prose, _emptied_headings(prose, regions))
    for chunk in chunking.split_text(prose, chunk_size=chunk_size, overlap=overlap, min_size=min_size):
        content = re.sub(r"\n[ \t\n]*\n", "\n\n", chunk.content) if regions else chunk.content
        if regions and all(line.startswith("#") or not line.strip() for line in content.split("\n")):
            continue  # the sheet heading above a table, alone
        pieces.append(Piece(content, chunk.start, chunk.end, chunk.heading_path))
    pieces.sort(key=lambda piece: (piece.start, piece.end))
    return pieces, described


def asks_question(heading: str) -> bool:
    """Whether a heading asks a question (and so, with its answer, makes an FAQ entry)."""
    return bool(_ASKS.search(heading))


def known_columns(described: list[dict]) -> list[str]:
    """Every column name of the described tables, in order, once."""
    return list(dict.fromkeys(name for table in described for name in table["columns"]))


def _row_piece(entry: tables.Entry) -> Piece:
    path = [part for part in (entry.section, entry.title, entry.question) if part]
    info = {"kind": "faq" if entry.question else "row", "row": entry.row}
    if entry.question:
        info["question"] = entry.question
    if entry.section:
        info["section"] = entry.section
    return Piece(entry.content, entry.start, entry.end, path, title=entry.title, question=entry.question,
                 metadata={**entry.metadata, "entry": info}, kind=info["kind"])


def faq_sections(text: str, max_chars: int, min_questions: int = 2,
                 faq_title: bool = False) -> list[tuple[int, int, str, str, list[str]]]:
    """(start, end, question, answer, headings above) of each entry heading and its answer, when the text
    has at least `min_questions` of them (one question heading in prose is just a heading).

    `faq_title`: the document's title says it is an FAQ, so every short heading in it may title an entry."""
    headings, bolds, offset, fenced = [], [], 0, False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        match = None if fenced else QUESTION_HEADING.match(line)
        if match:
            headings.append((offset, len(match[1]), match[2].strip(), offset + len(line) + 1))
        elif not fenced and (bold := _BOLD_LINE.match(line)):
            bolds.append((offset, BOLD_LEVEL, (bold[1] or bold[2]).strip(), offset + len(line) + 1))
        offset += len(line) + 1
    # Word FAQs set their questions in bold under heading-styled topics: such paragraphs are headings one
    # level below any other when several of them ask (a guide's "**Note**" stays text).
    if sum(bool(_ASKS.search(bold[2])) for bold in bolds) >= max(2, min_questions):
        headings = sorted(headings + bolds)
    chosen = _entry_headings(headings, faq_title)
    if len(chosen) < max(1, min_questions):
        return []
    sections = []
    for i, (start, level, title, body_start) in enumerate(headings):
        if i not in chosen:
            continue
        end = next((h[0] for h in headings[i + 1:] if h[1] <= level), len(text))
        answer = text[body_start:end].strip()
        if not answer or len(answer) > max_chars:
            continue
        above = _path_above(headings[:i], level)
        sections.append((start, start + len(text[start:end].rstrip()), title, answer, above))
    return sections


def _entry_headings(headings: list, faq_title: bool) -> set[int]:
    """The indexes of the headings that title an entry (see the module docstring)."""
    levels = [level for _, level, _, _ in headings]
    leaf = [i + 1 == len(headings) or levels[i + 1] <= levels[i] for i in range(len(headings))]
    parents = [next((j for j in range(i - 1, -1, -1) if levels[j] < levels[i]), -1) for i in range(len(headings))]
    chosen = {i for i, heading in enumerate(headings) if _ASKS.search(heading[2])}
    for i, (_, _, title, _) in enumerate(headings):
        # Under a heading (or a title) that says FAQ, a short heading with no sub-headings is a question.
        under_faq = faq_title or any(_FAQ_TITLE.search(headings[j][2]) for j in _ancestors(parents, i))
        short = len(title.split()) <= MAX_TOPIC_WORDS and not title.endswith(":") and not _FAQ_TITLE.search(title)
        if under_faq and leaf[i] and short:
            chosen.add(i)
    siblings: dict[tuple[int, int], list[int]] = {}
    for i in range(len(headings)):
        if leaf[i]:
            siblings.setdefault((parents[i], levels[i]), []).append(i)
    for group in siblings.values():
        asking = [i for i in group if _ASKS.search(headings[i][2])]
        if len(asking) >= 2 and 2 * len(asking) >= len(group):
            chosen.update(i for i in group if ASKS_UNMARKED.match(headings[i][2]))
    return chosen


def _ancestors(parents: list[int], index: int) -> list[int]:
    found = []
    while parents[index] >= 0:
        index = parents[index]
        found.append(index)
    return found


def _path_above(headings: list, level: int) -> list[str]:
    path: list[tuple[int, str]] = []
    for _, heading_level, title, _ in headings:
        while path and path[-1][0] >= heading_level:
            path.pop()
        path.append((heading_level, title))
    return [title for heading_level, title in path if heading_level < level]


def _emptied_headings(prose: str, regions: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The heading lines whose sections held only tables or entries (a spreadsheet's `## Sheet: …`).

    Left in the prose, such a heading would be merged by the chunker with the next short section and
    label its text ("## Sheet: Tariffs ## Sheet: Contacts Отдел поддержки"); the rows carry it anyway.
    """
    headings = markdown.scan(prose)[0]
    ends = [_line_end(prose, h.start) for h in headings]
    gaps = [(ends[i], headings[i + 1].start if i + 1 < len(headings) else len(prose)) for i in range(len(headings))]
    empty = [not prose[start:end].strip() for start, end in gaps]
    holds = [any(start <= r_start < end for r_start, _ in regions) for start, end in gaps]
    emptied = []
    for i, heading in enumerate(headings):
        last = next((j for j in range(i + 1, len(headings)) if headings[j].level <= heading.level), len(headings))
        if all(empty[i:last]) and any(holds[i:last]):
            emptied.append((heading.start, ends[i]))
    return emptied


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end < 0 else end


def _blank(text: str, regions: list[tuple[int, int]]) -> str:
    """`text` with the regions' characters (but not their line breaks) turned into spaces."""
    parts, position = [], 0
    for start, end in sorted(regions):
        start = max(start, position)
        parts += [text[position:start], _NOT_NEWLINE.sub(" ", text[start:end])]
        position = max(position, end)
    parts.append(text[position:])
    return "".join(parts)
