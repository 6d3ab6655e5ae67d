"""Numbered section headings in plain text files ("1.2. Title", "Глава 3") become Markdown headings."""

from pathlib import Path

from knowledge.indexing import parsing
from knowledge.indexing.chunking import split_text
from knowledge.indexing.markdown import scan
from knowledge.indexing.parsing.text import numbered_headings

DOCS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "documents"


def headings(text: str) -> list[tuple[int, str]]:
    return [(heading.level, heading.title) for heading in scan(text)[0]]


def test_a_faq_in_plain_text_gets_its_chapters_and_sections():
    doc = parsing.parse_file(DOCS / "txt/debian-faq.ru.txt")
    assert doc.title == "debian-faq.ru", "a chapter's title is not the document's"
    chunks = split_text(doc.text)
    sentence = doc.text.index("Debian GNU/Linux — это")
    chunk = next(chunk for chunk in chunks if chunk.start <= sentence < chunk.end)
    assert chunk.heading_path == ["Глава 1. Определения и краткий обзор", "1.2. Что такое Debian GNU/Linux?"]
    # A section title wrapped over two lines is one heading.
    assert (2, "1.6. Как соотносятся проект Debian и проект GNU Free Software Foundation?") in headings(doc.text)
    # The table of contents (indented, no blank lines between entries) stays text.
    assert sum(title.startswith("1.1. ") for _, title in headings(doc.text)) == 1
    assert sum(bool(chunk.heading_path) for chunk in chunks) > 0.9 * len(chunks)


def test_keyword_headings_take_the_level_of_their_number():
    text = "Chapter 2\n\nIntro.\n\nSection 3.1: Setup\n\nBody.\n\nГлава IV\n\nТекст.\n\n2.1.3 Details here\n\nMore."
    assert headings(numbered_headings(text)) == [
        (1, "Chapter 2"), (2, "Section 3.1: Setup"), (1, "Глава IV"), (3, "2.1.3 Details here")]


def test_numbered_lists_and_sentences_stay_text():
    text = "\n".join([
        "Steps:",
        "1. Install the package",
        "2. Restart the service",
        "",
        "1. Install the package with apt.",
        "",
        "2. then restart it",
        "",
        "    3. An indented line",
        "",
        "4. Too long " + "word " * 50,
        "",
        "2024. A year is not a section number",
        "",
        "Section 2 describes the setup.",
        "",
        "Chapter 3 is optional",
    ])
    assert numbered_headings(text) == text


def test_text_with_underlined_headings_keeps_only_those():
    doc = parsing.parse_file(DOCS / "txt/flask-quickstart.rst.txt")
    assert doc.title == "Quickstart"
    assert all(not title[:1].isdigit() for _, title in headings(doc.text))
