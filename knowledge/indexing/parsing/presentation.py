"""Presentations: PowerPoint (.pptx, with python-pptx) and the slides `opendocument.parse_odp` reads.

Each slide becomes a `## Slide <n>: <title>` section (its number in the file, hidden slides marked
and kept: a presenter hides what the audience need not see, not what is wrong), holding what its
shapes say in reading order — top to bottom, then left to right, groups opened: a text box's
paragraphs, a content placeholder's as `- ` items indented by level, a table as a pipe table, a
SmartArt diagram's nodes as `- ` items in the diagram's own order and hierarchy (process steps,
org charts: python-pptx does not read them, so its data part is read here) — and the speaker's
notes last, which often hold what the slide only names: a paragraph without a label, so an answer
quoting them reads as the deck's own text in whatever language it is written.
Charts and pictures carry no text we can read. A slide's number is its page: a citation says which
slide it came from, as a PDF's says which page.
"""

import re
import zipfile
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

import pptx
from django.utils.translation import gettext as _
from pptx.enum.shapes import MSO_SHAPE_TYPE, PP_PLACEHOLDER

from knowledge.documents import ParsedDocument
from knowledge.exceptions import KnowledgeError, ParseError
from knowledge.indexing.tables import table_lines

from . import spreadsheet
from .packages import check_body_text
from .text import short_reason, text_too_long

TITLES = frozenset({PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE, PP_PLACEHOLDER.VERTICAL_TITLE})
# Placeholders whose paragraphs are a slide's bullet points; a text box's are paragraphs.
BULLETED = frozenset({PP_PLACEHOLDER.BODY, PP_PLACEHOLDER.OBJECT, PP_PLACEHOLDER.VERTICAL_BODY,
                      PP_PLACEHOLDER.VERTICAL_OBJECT})
# Placeholders repeated from the layout on every slide: nothing of the slide's own.
FURNITURE = frozenset({PP_PLACEHOLDER.DATE, PP_PLACEHOLDER.FOOTER, PP_PLACEHOLDER.SLIDE_NUMBER,
                       PP_PLACEHOLDER.HEADER})
# The parts text is read from: slides, their notes pages and SmartArt diagrams' data.
TEXT_PARTS = re.compile(r"ppt/(slides/slide|notesSlides/notesSlide|diagrams/data)\d+\.xml")
DIAGRAM_URI = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
DGM = "{http://schemas.openxmlformats.org/drawingml/2006/diagram}"
DRAWING_TEXT = "{http://schemas.openxmlformats.org/drawingml/2006/main}t"
# A diagram's points that are its content: nodes (the default type) and assistants; the others are
# the document root, connector labels and presentation-only points.
CONTENT_POINTS = frozenset({"node", "asst"})


@dataclass
class Slide:
    """What a presentation reader hands to `slides_document`: one slide's text, blocks in reading order."""

    number: int
    title: str = ""
    blocks: list[str] = field(default_factory=list)
    notes: str = ""
    hidden: bool = False


def parse_pptx(path: Path, *, max_chars: int) -> ParsedDocument:
    """Every slide of a PowerPoint presentation; title from the core properties or the first slide's."""
    try:
        with zipfile.ZipFile(path) as archive:
            parts = tuple(name for name in archive.namelist() if TEXT_PARTS.fullmatch(name))
    except (zipfile.BadZipFile, OSError) as exc:
        raise _damaged(path, exc) from exc
    # python-pptx parses every part whole: what it would hold is counted first, as a stream.
    check_body_text(path, max_chars, members=parts)
    try:
        presentation = pptx.Presentation(str(path))
    except Exception as exc:  # noqa: BLE001 - python-pptx raises KeyError/ValueError/XML errors on bad parts
        raise _damaged(path, exc) from exc
    try:
        document = slides_document(path, (_pptx_slide(slide, n) for n, slide in enumerate(presentation.slides, 1)),
                                   max_chars)
    except KnowledgeError:
        raise
    except Exception as exc:  # noqa: BLE001 - slides are read lazily, while we iterate
        raise _damaged(path, exc) from exc
    title = " ".join((presentation.core_properties.title or "").split())
    document.title = title or document.title
    return document


def slides_document(path: Path, slides: Iterable[Slide], max_chars: int) -> ParsedDocument:
    """One `## Slide <n>` section per slide with text; each section's offset is the slide's page, and every
    slide counts as one (`page_count`): the quality report lists those without text (pictures only?)."""
    text, pages, size, first_title, count = [], [], 0, "", 0
    for slide in slides:
        count += 1
        section = _section(slide)
        if not section:
            continue
        offset = size + (2 if text else 0)
        size = offset + len(section)
        if size > max_chars:
            raise text_too_long(path.name, max_chars)
        text.append(section)
        pages.append((offset, slide.number))
        first_title = first_title or slide.title
    if not text:
        raise ParseError(_("%(name)s is empty: no slide has any text") % {"name": path.name})
    return ParsedDocument(text="\n\n".join(text), title=first_title or path.stem, mime="", pages=pages,
                          metadata={"page_count": count})


def _section(slide: Slide) -> str:
    blocks = [block for block in slide.blocks if block.strip()]
    notes = " ".join(slide.notes.split())
    if not (slide.title or blocks or notes):
        return ""
    heading = f"## Slide {slide.number}" + (f": {slide.title}" if slide.title else "")
    heading += " (hidden)" if slide.hidden else ""
    return "\n\n".join([heading, *blocks, *([notes] if notes else [])])


def _pptx_slide(slide, number: int) -> Slide:
    read = Slide(number=number, hidden=slide.element.get("show") in ("0", "false"))
    for shape in _reading_order(slide.shapes):
        kind = shape.placeholder_format.type if shape.is_placeholder else None
        if kind in FURNITURE:
            continue
        if kind in TITLES and not read.title and shape.has_text_frame:
            read.title = " ".join(shape.text_frame.text.split())
        elif _graphic_uri(shape) == DIAGRAM_URI:
            read.blocks.append("\n\n".join(_diagram_items(shape)))
        elif getattr(shape, "has_table", False):
            rows = ([spreadsheet.format_cell(cell.text) for cell in row.cells] for row in shape.table.rows)
            read.blocks.append("\n".join(table_lines(rows)))
        elif shape.has_text_frame:
            # Paragraphs and items apart, as a Word or OpenDocument text's are.
            read.blocks.append("\n\n".join(_paragraphs(shape.text_frame, bulleted=kind in BULLETED)))
    if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
        read.notes = slide.notes_slide.notes_text_frame.text
    return read


def _reading_order(shapes) -> Iterator:
    """`shapes` top to bottom, then left to right (unplaced ones where they stand), groups opened."""
    placed = sorted(enumerate(shapes), key=lambda item: (item[1].top or 0, item[1].left or 0, item[0]))
    for _index, shape in placed:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _reading_order(shape.shapes)
        else:
            yield shape


def _paragraphs(frame, *, bulleted: bool) -> Iterator[str]:
    for paragraph in frame.paragraphs:
        # A line break inside a paragraph (Shift+Enter) arrives as a vertical tab.
        line = " ".join(paragraph.text.replace("\v", " ").split())
        if line:
            yield ("  " * paragraph.level + "- " + line) if bulleted else line


def _graphic_uri(shape) -> str | None:
    uris = shape.element.xpath("./a:graphic/a:graphicData/@uri") if shape.shape_type is None else []
    return uris[0] if uris else None


def _diagram_items(frame) -> Iterator[str]:
    """A SmartArt diagram's node texts as `- ` items, nested as its connections nest them, in their order."""
    ids = frame.element.xpath("./a:graphic/a:graphicData/*/@r:dm")
    if not ids:
        return
    try:
        model = ElementTree.fromstring(frame.part.related_part(ids[0]).blob)
    except (KeyError, ElementTree.ParseError):  # a missing or damaged diagram costs that diagram, not the deck
        return
    texts, root = {}, None
    for point in model.iter(f"{DGM}pt"):
        kind = point.get("type", "node")
        if kind == "doc":
            root = point.get("modelId")
        elif kind in CONTENT_POINTS:
            body = point.find(f"{DGM}t")
            paragraphs = [] if body is None else ["".join(run.text or "" for run in paragraph.iter(DRAWING_TEXT))
                                                  for paragraph in body]
            texts[point.get("modelId")] = " ".join(" ".join(paragraphs).split())
    children = defaultdict(list)
    for link in model.iter(f"{DGM}cxn"):
        if link.get("type", "parOf") == "parOf":
            children[link.get("srcId")].append((_order(link.get("srcOrd")), link.get("destId")))
    seen = set()

    def walk(parent, level):
        for child in (point for _rank, point in sorted(children.get(parent, []))):
            if child in seen or level > 20:  # a damaged model may connect in circles
                continue
            seen.add(child)
            if texts.get(child):
                yield "  " * level + "- " + texts[child]
                yield from walk(child, level + 1)
            else:
                yield from walk(child, level)

    items = list(walk(root, 0))
    # Without a root or connections (a damaged or hand-made model): the nodes in the order they are listed.
    yield from items or ("- " + text for text in texts.values() if text)


def _order(value: str | None) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _damaged(path: Path, exc: Exception) -> ParseError:
    return ParseError(_("%(name)s is damaged or not a PowerPoint presentation that we can read (%(reason)s)")
                      % {"name": path.name, "reason": short_reason(exc)})
