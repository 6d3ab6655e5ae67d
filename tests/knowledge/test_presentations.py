"""Presentations (.pptx, .odp): slide by slide, in reading order, with tables and speaker notes.

The decks are written here the way PowerPoint (python-pptx, which writes PowerPoint's own parts)
and LibreOffice Impress lay them out, from the real bank FAQ workbook in ../shared/data/documents
(SOURCES.md there): a support team's training deck, one question per slide, its answer as bullets.
"""

import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import openpyxl
import pptx
import pytest
from django.test import TestCase
from pptx.enum.shapes import PP_PLACEHOLDER
from pptx.opc.constants import RELATIONSHIP_TYPE
from pptx.opc.package import Part
from pptx.opc.packuri import PackURI
from pptx.oxml import parse_xml
from pptx.util import Cm

from knowledge.exceptions import FileTooLargeError, ParseError, UnsupportedFileError
from knowledge.indexing import ingestion, parsing
from knowledge.indexing.parsing import quality
from knowledge.models import Document
from knowledge.search import retrieval
from tests.factories import make_kb
from tests.knowledge.odf_files import SLIDES_TYPE, TEXT_TYPE, write_package

FAQ = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "documents" / "xlsx" / "ru" / \
    "smart_support_vtb_belarus_faq_final.xlsx"
PPTX_TYPE = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
TITLE_AND_CONTENT, TITLE_ONLY = 1, 5  # python-pptx's default layouts
FOOTER = "ВТБ (Беларусь)"
RELATIONSHIP_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


@dataclass
class SlideSpec:
    title: str
    bullets: list[tuple[int, str]] = field(default_factory=list)  # (level, text)
    caption: str = ""  # a text box below the rest
    table: list[tuple[str, ...]] = field(default_factory=list)
    notes: str = ""
    hidden: bool = False


def faq_slides(count: int) -> list[SlideSpec]:
    """The first `count` questions of the FAQ workbook: the question as the title, the answer's sentences as
    bullets (the first one top level), the category and audience as the speaker's notes."""
    workbook = openpyxl.load_workbook(FAQ, read_only=True, data_only=True)
    rows = list(workbook.worksheets[0].iter_rows(min_row=2, max_row=count + 1, values_only=True))
    workbook.close()
    slides = []
    for category, subcategory, question, _priority, audience, answer, *_ in rows:
        sentences = [part.strip() + "." for part in answer.rstrip(".").split(". ")]
        slides.append(SlideSpec(question, [(0 if n == 0 else 1, s) for n, s in enumerate(sentences)],
                                notes=f"{category} / {subcategory}; для: {audience}"))
    return slides


def write_pptx(path: Path, slides: list[SlideSpec], *, title: str = "") -> Path:
    deck = pptx.Presentation()
    deck.core_properties.title = title
    for spec in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[TITLE_AND_CONTENT if spec.bullets else TITLE_ONLY])
        slide.shapes.title.text = spec.title
        footer = next(p for p in slide.slide_layout.placeholders if p.placeholder_format.type == PP_PLACEHOLDER.FOOTER)
        slide.shapes.clone_placeholder(footer)  # as PowerPoint adds one with "Footer" ticked
        next(p for p in slide.placeholders if p.placeholder_format.type == PP_PLACEHOLDER.FOOTER).text = FOOTER
        if spec.bullets:
            frame = slide.placeholders[1].text_frame
            for n, (level, text) in enumerate(spec.bullets):
                paragraph = frame.paragraphs[0] if n == 0 else frame.add_paragraph()
                paragraph.text, paragraph.level = text, level
        if spec.caption:  # added before the table but placed below it (in a group): reading order is by position
            group = slide.shapes.add_group_shape()
            group.shapes.add_textbox(Cm(2), Cm(15), Cm(20), Cm(2)).text_frame.text = spec.caption
        if spec.table:
            shape = slide.shapes.add_table(len(spec.table), len(spec.table[0]), Cm(2), Cm(5), Cm(20), Cm(6))
            for r, row in enumerate(spec.table):
                for c, value in enumerate(row):
                    shape.table.cell(r, c).text = value
        if spec.notes:
            slide.notes_slide.notes_text_frame.text = spec.notes
        if spec.hidden:
            slide._element.set("show", "0")
    deck.save(path)
    return path


def write_odp(path: Path, slides: list[SlideSpec], *, title: str = "") -> Path:
    pages = []
    for n, spec in enumerate(slides, 1):
        frames = [_frame("title", 1, f"<text:p>{escape(spec.title)}</text:p>")]
        if spec.bullets:
            frames.append(_frame("outline", 4, _odp_list(spec.bullets)))
        if spec.caption:
            frames.append(f'<draw:g>{_frame("", 15, f"<text:p>{escape(spec.caption)}</text:p>")}</draw:g>')
        if spec.table:
            rows = "".join("<table:table-row>" + "".join(f"<table:table-cell><text:p>{escape(v)}</text:p>"
                                                         "</table:table-cell>" for v in row) + "</table:table-row>"
                           for row in spec.table)
            frames.append(f'<draw:frame svg:x="2cm" svg:y="5cm"><table:table>{rows}</table:table></draw:frame>')
        frames.append(_frame("footer", 18, f"<text:p>{FOOTER}</text:p>"))
        notes = (f"<presentation:notes><draw:page-thumbnail presentation:class=\"page\"/>"
                 f"{_frame('notes', 12, f'<text:p>{escape(spec.notes)}</text:p>')}</presentation:notes>"
                 if spec.notes else "")
        style = "dp2" if spec.hidden else "dp1"
        # Frames written in another order than they stand: reading order is by position.
        pages.append(f'<draw:page draw:name="page{n}" draw:style-name="{style}">'
                     f"{''.join(reversed(frames))}{notes}</draw:page>")
    styles = ('<style:style style:name="dp1" style:family="drawing-page"/>'
              '<style:style style:name="dp2" style:family="drawing-page">'
              '<style:drawing-page-properties presentation:visibility="hidden"/></style:style>')
    return write_package(path, SLIDES_TYPE, "".join(pages), styles=styles, title=title)


def _frame(kind: str, top_cm: int, content: str) -> str:
    role = f" presentation:class={quoteattr(kind)}" if kind else ""
    return f'<draw:frame{role} svg:x="2cm" svg:y="{top_cm}cm"><draw:text-box>{content}</draw:text-box></draw:frame>'


def _odp_list(bullets: list[tuple[int, str]]) -> str:
    """Bullets as Impress nests them: a deeper level is a list inside the previous item."""
    def items(level: int, entries: list[tuple[int, str]]) -> str:
        out, n = [], 0
        while n < len(entries):
            text = entries[n][1]
            deeper = []
            n += 1
            while n < len(entries) and entries[n][0] > level:
                deeper.append(entries[n])
                n += 1
            nested = f"<text:list>{items(level + 1, deeper)}</text:list>" if deeper else ""
            out.append(f"<text:list-item><text:p>{escape(text)}</text:p>{nested}</text:list-item>")
        return "".join(out)
    return f"<text:list>{items(0, bullets)}</text:list>"


def add_diagram(slide, steps: list[tuple[str, list[str]]], *, number: int, top: int) -> None:
    """A SmartArt diagram as PowerPoint saves one: a graphic frame naming a data part that holds the nodes
    (`steps`: each a text and its sub-items) and the connections that order and nest them. Listed in
    another order than they are connected, with a connector label that is not content."""
    namespaces = ('xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" '
                  'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"')

    def point(model_id: str, text: str, kind: str = "") -> str:
        role = f' type="{kind}"' if kind else ""
        return (f'<dgm:pt modelId="{model_id}"{role}><dgm:prSet/><dgm:spPr/><dgm:t><a:bodyPr/>'
                f"<a:p><a:r><a:t>{escape(text)}</a:t></a:r></a:p></dgm:t></dgm:pt>")

    points, links = [point("doc", "", "doc"), point("label", "→", "parTrans")], []
    for order, (step, details) in enumerate(steps):
        points.append(point(f"s{order}", step))
        links.append(f'<dgm:cxn modelId="c{order}" srcId="doc" destId="s{order}" srcOrd="{order}" destOrd="0"/>')
        for sub, detail in enumerate(details):
            points.insert(1, point(f"s{order}d{sub}", detail))
            links.append(f'<dgm:cxn modelId="c{order}d{sub}" srcId="s{order}" destId="s{order}d{sub}" '
                         f'srcOrd="{sub}" destOrd="0"/>')
    data = (f"<dgm:dataModel {namespaces}><dgm:ptLst>{''.join(points)}</dgm:ptLst>"
            f"<dgm:cxnLst>{''.join(reversed(links))}</dgm:cxnLst></dgm:dataModel>")
    part = Part(PackURI(f"/ppt/diagrams/data{number}.xml"),
                "application/vnd.openxmlformats-officedocument.drawingml.diagramData+xml", slide.part.package,
                data.encode())
    relationship = slide.part.relate_to(part, RELATIONSHIP_TYPE.DIAGRAM_DATA)
    slide.shapes._spTree.append(parse_xml(
        '<p:graphicFrame xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
        'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
        f'<p:nvGraphicFramePr><p:cNvPr id="{100 + number}" name="Diagram {number}"/><p:cNvGraphicFramePr/><p:nvPr/>'
        f'</p:nvGraphicFramePr><p:xfrm><a:off x="{Cm(2)}" y="{Cm(top)}"/><a:ext cx="{Cm(20)}" cy="{Cm(5)}"/></p:xfrm>'
        '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram">'
        f'<dgm:relIds xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" r:dm="{relationship}"/>'
        "</a:graphicData></a:graphic></p:graphicFrame>"))


PLANS = SlideSpec("Тарифы", table=[("Пакет", "Цена, BYN"), ("Базовый", "0"), ("Премиум", "25")],
                  caption="Цены действуют с 1 декабря", notes="Скидка для зарплатных клиентов")


def test_each_slide_is_a_section_its_bullets_table_and_notes_in_reading_order(tmp_path):
    slides = [*faq_slides(2), PLANS]
    parsed = parsing.parse_file(write_pptx(tmp_path / "training.pptx", slides, title="Обучение поддержки"))
    assert parsed.title == "Обучение поддержки" and parsed.mime == PPTX_TYPE
    first = slides[0]
    assert parsed.text.startswith(
        f"## Slide 1: {first.title}\n\n- {first.bullets[0][1]}\n\n  - {first.bullets[1][1]}\n")
    assert f"- {first.bullets[-1][1]}\n\n{first.notes}\n\n## Slide 2: {slides[1].title}\n\n" in parsed.text
    assert parsed.text.endswith("## Slide 3: Тарифы\n\n| Пакет | Цена, BYN |\n| --- | --- |\n| Базовый | 0 |\n"
                                "| Премиум | 25 |\n\nЦены действуют с 1 декабря\n\n"
                                "Скидка для зарплатных клиентов")
    # Each slide's section starts at its page: a citation names the slide.
    assert [number for _, number in parsed.pages] == [1, 2, 3]
    assert [parsed.text[offset:].split("\n", 1)[0][:10] for offset, _ in parsed.pages] == ["## Slide 1",
                                                                                         "## Slide 2", "## Slide 3"]


def test_an_impress_deck_reads_as_the_same_deck_saved_from_powerpoint(tmp_path):
    slides = [*faq_slides(6), PLANS]
    odp = parsing.parse_file(write_odp(tmp_path / "training.odp", slides, title="Обучение"))
    pptx_text = parsing.parse_file(write_pptx(tmp_path / "training.pptx", slides)).text
    assert odp.text == pptx_text
    assert odp.title == "Обучение" and odp.mime == SLIDES_TYPE
    assert FOOTER not in pptx_text.split("\n\n")  # the footer every slide repeats from its master
    assert [number for _, number in odp.pages] == list(range(1, 8))


def test_hidden_slides_are_kept_and_marked_and_an_untitled_deck_takes_its_first_slides_title(tmp_path):
    slides = [*faq_slides(1), SlideSpec("Внутреннее", [(0, "Только для сотрудников")], hidden=True)]
    for path in (write_pptx(tmp_path / "deck.pptx", slides), write_odp(tmp_path / "deck.odp", slides)):
        parsed = parsing.parse_file(path)
        assert "## Slide 2: Внутреннее (hidden)\n\n- Только для сотрудников" in parsed.text, path.name
        assert parsed.title == slides[0].title, path.name


def test_a_smartart_diagrams_steps_are_items_in_its_order_and_nesting(tmp_path):
    question = faq_slides(4)[3].title  # the first log-in to the Internet bank: its answer's steps as a diagram
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[TITLE_ONLY])
    slide.shapes.title.text = question
    slide.shapes.add_textbox(Cm(2), Cm(12), Cm(20), Cm(2)).text_frame.text = "Подробнее — в разделе «Безопасность»"
    add_diagram(slide, [("Получите логин", ["Логин приходит в SMS"]), ("Войдите", []), ("Смените пароль", [])],
                number=1, top=5)
    deck.save(tmp_path / "first_login.pptx")
    parsed = parsing.parse_file(tmp_path / "first_login.pptx")
    assert parsed.text == (f"## Slide 1: {question}\n\n- Получите логин\n\n  - Логин приходит в SMS\n\n"
                           "- Войдите\n\n- Смените пароль\n\nПодробнее — в разделе «Безопасность»")
    # A diagram whose data part is missing costs that diagram, not the deck.
    relation = next(slide.shapes._spTree[-1].iter("{http://schemas.openxmlformats.org/drawingml/2006/diagram}relIds"))
    relation.set(f"{{{RELATIONSHIP_NS}}}dm", "rId99")
    deck.save(tmp_path / "missing_part.pptx")
    assert parsing.parse_file(tmp_path / "missing_part.pptx").text == (
        f"## Slide 1: {question}\n\nПодробнее — в разделе «Безопасность»")


def test_slides_without_text_are_skipped_and_a_deck_without_any_is_refused(tmp_path):
    deck = pptx.Presentation()
    deck.slides.add_slide(deck.slide_layouts[6])  # blank
    deck.slides.add_slide(deck.slide_layouts[TITLE_ONLY]).shapes.title.text = "Итоги"
    deck.save(tmp_path / "mostly_blank.pptx")
    parsed = parsing.parse_file(tmp_path / "mostly_blank.pptx")
    assert parsed.text == "## Slide 2: Итоги" and parsed.pages == [(0, 2)]
    report = quality.assess(parsed)  # what the document's page shows: one slide of two has no text
    assert (report["pages"], report["pages_without_text"]) == (2, [1])
    deck = pptx.Presentation()
    deck.slides.add_slide(deck.slide_layouts[6])
    deck.save(tmp_path / "blank.pptx")
    with pytest.raises(ParseError, match="blank.pptx is empty: no slide has any text"):
        parsing.parse_file(tmp_path / "blank.pptx")


def test_mislabelled_damaged_and_oversized_decks_end_as_clear_errors(tmp_path):
    with zipfile.ZipFile(tmp_path / "report.pptx", "w") as package:
        package.writestr("word/document.xml", "<w/>")
    with pytest.raises(UnsupportedFileError, match="report.pptx is named .pptx but is not a PowerPoint presentation"):
        parsing.parse_file(tmp_path / "report.pptx")
    with zipfile.ZipFile(tmp_path / "broken.pptx", "w") as package:
        package.writestr("ppt/presentation.xml", "<p:presentation")
    with pytest.raises(ParseError, match="broken.pptx is damaged or not a PowerPoint presentation"):
        parsing.parse_file(tmp_path / "broken.pptx")
    path = write_package(tmp_path / "notes.odp", TEXT_TYPE, "<text:p>x</text:p>")
    with pytest.raises(UnsupportedFileError, match="notes.odp is named .odp but its content is an OpenDocument text"):
        parsing.parse_file(path)
    frame = "<draw:frame><draw:text-box><text:p>x</text:p></draw:text-box></draw:frame>"
    path = write_package(tmp_path / "deep.odp", SLIDES_TYPE,
                         f"<draw:page>{'<draw:g>' * 50_000}{frame}{'</draw:g>' * 50_000}</draw:page>")
    with pytest.raises(ParseError, match="deep.odp is damaged or not an OpenDocument file"):
        parsing.parse_file(path)  # groups nested beyond reason: no editor writes that
    path = write_package(tmp_path / "secret.odp", SLIDES_TYPE, "", encrypted=True)
    with pytest.raises(ParseError, match="secret.odp is password-protected"):
        parsing.parse_file(path)
    # The text of every slide and its notes is counted as a stream before python-pptx parses any.
    path = write_pptx(tmp_path / "long.pptx", faq_slides(40))
    with pytest.raises(FileTooLargeError, match="long.pptx holds more than 5,000 characters"):
        parsing.parse_file(path, max_chars=5_000)
    path = write_odp(tmp_path / "long.odp", faq_slides(40))
    with pytest.raises(FileTooLargeError, match="long.odp holds more than 5,000 characters"):
        parsing.parse_file(path, max_chars=5_000)


class PresentationIngestionTests(TestCase):
    def test_a_question_finds_its_slide_and_the_hit_names_the_slide(self):
        slides = faq_slides(30)
        with tempfile.TemporaryDirectory() as folder:
            document = ingestion.ingest_file(make_kb(), write_pptx(Path(folder) / "training.pptx", slides)).document
        self.assertEqual(document.status, Document.Status.READY, document.error_message)
        self.assertGreaterEqual(document.chunks.count(), len(slides))
        for number in (3, 17, 30):
            with self.subTest(slide=number):
                question = slides[number - 1].title
                hits = retrieval.search(question, [document.knowledge_base_id], top_k=3, mode="keyword")
                self.assertEqual(hits[0].page, number)
                self.assertIn(f"Slide {number}: {question}", hits[0].section_path)
