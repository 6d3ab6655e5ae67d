"""D0 sections and the D1 catalog card of a Markdown file."""

import re

from knowledge.indexing import chunking
from knowledge.indexing.layers.docs.facts import frontmatter_entities
from knowledge.indexing.layers.docs.relations import relation_links
from knowledge.indexing.layers.markdown import (
    SUMMARY_TITLE,
    ParsedDoc,
    Section,
    as_strings,
    as_text,
    leading_blank_lines,
    line_of,
)
from knowledge.indexing.layers.rows import LayerRow
from knowledge.indexing.markdown import IMAGE

# A README's decoration: badges (images, linked or not) and HTML elements (a centred logo, <br>).
_DECORATION = re.compile(rf"{IMAGE}|<[^>\n]*>")
_WORD = re.compile(r"[^\W\d_]{2,}")
_ALERT = re.compile(r"\[!(?:note|tip|important|warning|caution)\]", re.I)  # GitHub's "> [!NOTE]": an aside
_QUOTE_MARK = re.compile(r"^ {0,3}> ?", re.M)  # a blockquote's mark (chalk's "> Terminal string styling done right")
_SENTENCE_END = re.compile(r"[.!?…](?:[\"'”»)\]]*)$")
_SENTENCE_INSIDE = re.compile(r"[.!?…][\"'”»)\]]*\s+[A-ZА-ЯЁ]")  # one sentence ended, the next begun
# A paragraph that only sends the reader to the documentation ("For more information checkout the [official
# documentation](…).", "Read full docs **[here](…)**.", "You can find more details, API, and other docs on day.js.org
# website."): no summary of what the project is, nor an answer.
_POINTER = re.compile(r"(?:you can (?:also )?)?(?:for (?:more|further|full|additional|detailed) (?:information|info"
                      r"|details|docs|documentation)|(?:please )?(?:see|read|check(?: out)?|visit|refer to) "
                      r"(?:the |our )?(?:full |official |online )?(?:docs|documentation)\b|find (?:more|further|full"
                      r"|additional|detailed) (?:information|info|details|docs|documentation)\b"
                      # "Also see the firstresult section in the pytest docs.", not "See the section below:"
                      r"|(?:also |for (?:an|another) example,? )?see (?:also )?the\b(?!.*:\s*$).{0,60}?"
                      r"\b(?:section|chapter)\b)", re.I)

# --- D0 ---------------------------------------------------------------------------------------------

def section_rows(doc: ParsedDoc, *, chunk_size: int, chunk_overlap: int,
                 chunk_min_size: int) -> list[LayerRow]:
    """D0: one row per section with text; fixed-size chunks when the body has no headings."""
    settings = {"chunk_size": chunk_size, "overlap": chunk_overlap, "min_size": chunk_min_size}
    rows: list[LayerRow] = []

    def add(section: Section | None, content: str, start: int, end: int, *, opening: bool = True) -> None:
        path, title = (section.section_path, section.title) if section else ("", "")
        # Every piece of a long section carries its heading; only the first opens with the section's text.
        meta = {**doc.meta(), "section_path": path, "section_title": title, "order": len(rows),
                "section_start": opening}
        rows.append(LayerRow("D0", doc.title, content, meta, section_path=path, span_start=start,
                             span_end=end))

    if not any(s.level for s in doc.sections):
        for index, piece in enumerate(chunking.split_text(doc.body, **settings)):
            add(None, piece.content, line_of(doc.body, piece.start, doc.body_line),
                line_of(doc.body, piece.end - 1, doc.body_line), opening=index == 0)
        return rows
    for section in doc.sections:
        text = section.text
        if not text:
            continue
        heading = f"{'#' * section.level} {section.title}\n\n" if section.level else ""
        if len(text) <= chunk_size:
            add(section, heading + text, section.line, section.end_line)
            continue
        # Offsets in `text` map to file lines once the leading blank lines of the body are counted.
        first = section.line + 1 + leading_blank_lines(section.body)
        for index, piece in enumerate(chunking.split_text(text, **settings)):
            add(section, heading + piece.content, line_of(text, piece.start, first),
                line_of(text, piece.end - 1, first), opening=index == 0)
    return rows


# --- D1 ---------------------------------------------------------------------------------------------

def catalog_row(doc: ParsedDoc) -> LayerRow:
    """D1: the document's card; its content is the summary, not the whole document."""
    fm = doc.frontmatter
    summary = next((s.text for s in doc.sections if SUMMARY_TITLE.match(s.title)), "")
    summary = " ".join(summary.split()) or _first_paragraph(doc)
    meta = {
        "document_id": doc.doc_id,
        "type": as_text(fm.get("type")),
        "name": as_text(fm.get("name")),
        "title": doc.title,
        "aliases": as_strings(fm.get("aliases")),  # other names the router recognises (any language)
        "module": as_text(fm.get("module")),
        "domain": as_text(fm.get("domain")),
        "subdomain": as_text(fm.get("subdomain")),
        "layer": as_text(fm.get("layer")),
        "status": as_text(fm.get("status")),
        "updated_at": as_text(fm.get("updated_at")),
        "tags": as_strings(fm.get("tags")),
        "entities": [name for name, _ in frontmatter_entities(fm)],
        "parent": as_text(fm.get("parent")),
        "children": as_strings(fm.get("children")),
        "links": [target for target, _ in relation_links(fm.get("links"))],
        "source_path": doc.path,
        "summary_text": summary,
        "doc_kind": doc.doc_kind,
        "artifact_type": "DOCS",
    }
    content = f"{doc.title}\n\n{summary}" if summary else doc.title
    last_line = doc.body_line + doc.body.rstrip().count("\n")
    return LayerRow("D1", doc.title, content, meta, span_start=1, span_end=last_line)


def says_something(summary: str) -> bool:
    """Whether a card's summary holds a statement (a sentence ended), not only the first words a README had (a
    tagline, a lead-in to an example)."""
    return bool(_SENTENCE_END.search(summary) or _SENTENCE_INSIDE.search(summary))


def _first_paragraph(doc: ParsedDoc) -> str:
    """The document's first paragraph that says something (a blockquote's text): not a line of badges or an HTML
    logo (a README's "[![PyPI version](…)](…)", `<p align="center"><img …></p>`), nor a tagline without a full
    stop before the paragraph that is the summary (itsdangerous' "... so better sign this"; of the first three),
    nor a GitHub alert ("> [!NOTE] uuid@11 is now available"), nor a short one sending the reader to the documentation
    ("For more information checkout the official documentation."), nor code (termcolor's README opens with its
    install command); the first with words otherwise."""
    paragraphs = [" ".join(_QUOTE_MARK.sub("", paragraph).split()) for section in doc.sections
                  for paragraph in re.split(r"\n\s*\n", section.text)]
    said_words = {paragraph: _DECORATION.sub(" ", paragraph).strip() for paragraph in paragraphs}
    worded = [paragraph for paragraph in paragraphs if _WORD.search(said_words[paragraph])
              and not _ALERT.match(said_words[paragraph]) and not sends_to_docs(said_words[paragraph])
              and not paragraph.startswith(("```", "~~~"))]
    said = next((paragraph for paragraph in worded[:3] if _SENTENCE_END.search(paragraph)), None)
    return (said or next(iter(worded), ""))[:500]


def sends_to_docs(paragraph: str) -> bool:
    """Whether a paragraph (or a sentence) only sends the reader to the documentation: short, and saying so from
    its start."""
    return len(paragraph.split()) <= 20 and bool(_POINTER.match(paragraph.lstrip("*_ ")))
