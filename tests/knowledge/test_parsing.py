"""File parsers against the real documents in ../shared/data/documents (see SOURCES.md there)."""

import csv
import io
from pathlib import Path

import pytest

from knowledge.exceptions import ParseError
from knowledge.indexing import parsing, tables
from knowledge.indexing.parsing.text import split_frontmatter

DOCS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "documents"
SITE = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "site"
MB = 1024 * 1024


def parse(relative: str, **limits):
    return parsing.parse_file(DOCS / relative, **limits)


def copy_bytes(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


# --- public API --------------------------------------------------------------------------------


def test_supported_extensions_are_the_documented_set():
    assert parsing.SUPPORTED_EXTENSIONS == (
        ".md", ".markdown", ".rst", ".txt", ".log", ".csv", ".pdf", ".docx", ".xlsx", ".xls", ".pptx", ".odt", ".ods",
        ".odp", ".html", ".htm", ".png", ".jpg", ".jpeg", ".tif", ".tiff",
    )


@pytest.mark.parametrize("name", ["notes.md", "REPORT.PDF", "Book.Xlsx", "old.xls", Path("a/b/page.htm")])
def test_is_supported_by_extension_case_insensitive(name):
    assert parsing.is_supported(name)


@pytest.mark.parametrize("name", ["letter.doc", "slides.ppt", "photo.gif", "README", "archive.tar.gz"])
def test_is_supported_rejects_other_types(name):
    assert not parsing.is_supported(name)


def test_page_at_maps_offsets_to_pages():
    pages = [(0, 1), (100, 2), (250, 4)]
    assert parsing.page_at(pages, 0) == 1
    assert parsing.page_at(pages, 99) == 1
    assert parsing.page_at(pages, 100) == 2
    assert parsing.page_at(pages, 10_000) == 4
    assert parsing.page_at([], 5) is None
    assert parsing.page_at([(10, 1)], 3) is None


def test_parser_version_is_a_non_empty_string():
    assert isinstance(parsing.PARSER_VERSION, str) and parsing.PARSER_VERSION


# --- Markdown ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "title", "heading"),
    [
        ("en", "Conditional Rendering", "## Conditionally returning JSX"),
        ("ru", "Условный рендеринг", "## Условный возврат JSX"),
    ],
)
def test_markdown_frontmatter_title_and_clean_headings(lang, title, heading):
    doc = parse(f"md/{lang}/react-learn-conditional-rendering.md")
    assert doc.title == title
    assert doc.metadata["frontmatter"] == {"title": title}
    assert doc.mime == "text/markdown"
    assert not doc.text.startswith("---")
    lines = doc.text.splitlines()
    # The `{/*anchor*/}` of react.dev headings is dropped, so heading paths read cleanly.
    assert heading in lines
    assert not any(line.startswith("#") and "{/*" in line for line in lines)
    # MDX wrapper tags go, code inside fences stays as written.
    assert "<Intro>" not in lines
    assert "        <Item" in [line.rstrip() for line in lines]


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_markdown_inline_mdx_components_read_as_their_words(lang):
    text = parse(f"md/{lang}/react-reference-react-useState.md").text
    assert "1. The current state of this state variable, initially set to the initial state you provided." in text
    assert "2. The `set` function that lets you change it" in text
    pure = parse(f"md/{lang}/react-learn-keeping-components-pure.md").text
    assert "Consider this math formula: y = 2x." in pure
    assert "<Math" not in pure and "<CodeStep" not in text


def test_markdown_inline_mdx_leaves_code_spans_and_generics(tmp_path):
    path = copy_bytes(tmp_path, "a.md", b"Wrap `<Suspense>a</Suspense>` as <CodeStep step={1}>**this**</CodeStep>; "
                      b"List<String> stays.\n")
    assert parsing.parse_file(path).text == "Wrap `<Suspense>a</Suspense>` as **this**; List<String> stays."


def test_markdown_blog_frontmatter_is_json_safe_metadata():
    doc = parse("md/en/react-blog-2024-12-05-react-19.md")
    front = doc.metadata["frontmatter"]
    assert doc.title == "React v19"
    assert front["author"] == "The React Team"
    assert front["date"] == "2024/12/05"
    assert "React v19 is now available on npm!" in doc.text


def test_markdown_yaml_dates_become_iso_strings(tmp_path):
    path = copy_bytes(tmp_path, "post.md", b"---\ntitle: Release\ndate: 2024-12-05\n---\n\nBody text.\n")
    doc = parsing.parse_file(path)
    assert doc.metadata["frontmatter"] == {"title": "Release", "date": "2024-12-05"}
    assert doc.text == "Body text."


def test_markdown_without_frontmatter_takes_first_heading_then_stem(tmp_path):
    source = (DOCS / "md/en/react-learn-installation.md").read_text()
    body = source.split("---\n", 2)[2]
    doc = parsing.parse_file(copy_bytes(tmp_path, "install.markdown", f"# Install React\n{body}".encode()))
    assert doc.title == "Install React"
    assert doc.metadata == {}
    doc = parsing.parse_file(copy_bytes(tmp_path, "no-heading.md", body.encode()))
    assert doc.title == "no-heading"


def test_markdown_broken_frontmatter_is_kept_as_text(tmp_path):
    broken = b"---\ntitle: [unclosed\n  - : :\n---\n# Real heading\n\nText.\n"
    path = copy_bytes(tmp_path, "broken.md", broken)
    doc = parsing.parse_file(path)
    assert doc.metadata == {}
    assert "title: [unclosed" in doc.text
    assert doc.title == "Real heading"


def test_split_frontmatter_keeps_the_body_as_a_suffix_of_raw_text():
    raw = (DOCS / "md/ru/react-learn-installation.md").read_text().replace("\n", "\r\n")
    body, frontmatter = split_frontmatter(raw)
    assert frontmatter == {"title": "Установка"}
    assert raw.endswith(body) and not body.startswith("---")


def test_markdown_frontmatter_with_yaml_aliases_is_kept_as_text(tmp_path):
    # Aliases nest into exponential copies (a "billion laughs") once turned into JSON.
    laughs = "---\na: &a [lol, lol, lol]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n---\n# Laughs\n"
    doc = parsing.parse_file(copy_bytes(tmp_path, "laughs.md", laughs.encode()))
    assert doc.metadata == {}
    assert doc.title == "Laughs"
    assert "c: [*b, *b, *b]" in doc.text


# --- plain text, logs, CSV ---------------------------------------------------------------------


def test_txt_utf8_russian_book():
    doc = parse("txt/debian-faq.ru.txt")
    assert doc.mime == "text/plain"
    assert doc.title == "debian-faq.ru"
    assert "Часто задаваемые вопросы о Debian GNU/Linux" in doc.text


def test_txt_rst_underlined_titles_become_markdown_headings():
    doc = parse("txt/flask-quickstart.rst.txt")
    lines = doc.text.splitlines()
    assert doc.title == "Quickstart"
    assert lines[0] == "# Quickstart"
    assert "## A Minimal Application" in lines
    assert not any(set(line) == {"-"} and len(line) > 3 for line in lines[:12])


def test_txt_cp1251_is_decoded(tmp_path):
    original = (DOCS / "txt/debian-faq.ru.txt").read_text()[:4000]
    legacy = original.replace("©", "(c)").encode("cp1251", errors="ignore")
    doc = parsing.parse_file(copy_bytes(tmp_path, "faq-cp1251.txt", legacy))
    assert "Часто задаваемые вопросы о Debian GNU/Linux" in doc.text


def test_txt_western_legacy_encoding_is_decoded(tmp_path):
    original = (DOCS / "csv/roo-Bibelbund-de.csv").read_text()[:3000]
    doc = parsing.parse_file(copy_bytes(tmp_path, "bibel.txt", original.encode("cp1252")))
    assert "Kindergebären" in doc.text


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_txt_byte_order_mark_is_honoured(tmp_path, encoding):
    original = (DOCS / "txt/debian-faq.ru.txt").read_text()[:2000]
    doc = parsing.parse_file(copy_bytes(tmp_path, "faq.txt", original.encode(encoding)))
    assert not doc.text.startswith("\ufeff")
    assert "Часто задаваемые вопросы о Debian GNU/Linux" in doc.text


def test_log_file_is_plain_text(tmp_path):
    lines = (DOCS / "txt/debian-maint-guide.ru.txt").read_text().splitlines()[:50]
    log = "\r\n".join(f"2026-11-29 10:00:{i:02d} INFO {line}" for i, line in enumerate(lines))
    doc = parsing.parse_file(copy_bytes(tmp_path, "build.log", log.encode()))
    assert doc.title == "build"
    assert "\r" not in doc.text
    assert "INFO" in doc.text and doc.text.count("\n") >= 49


def test_csv_rows_are_a_table_under_its_header():
    doc = parse("csv/hflabs-city-ru.csv")
    assert doc.mime == "text/csv"
    [table] = tables.read_tables(doc.text)
    assert table.columns[:2] == ["address", "postal_code"]
    assert table.rows[0][:2] == ["Респ Адыгея, г Адыгейск", "385200"]
    assert len(table.rows) == 1117


def test_csv_semicolon_delimiter_is_sniffed(tmp_path):
    rows = (DOCS / "csv/roo-Bibelbund-de.csv").read_text().splitlines()[:20]
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";")
    writer.writerows(csv.reader(rows))
    doc = parsing.parse_file(copy_bytes(tmp_path, "bibel.csv", buffer.getvalue().encode()))
    [table] = tables.read_tables(doc.text)
    assert table.columns[:3] == ["TITEL", "VERFASSER", "OBJEKT"]
    assert table.rows[0][:3] == ["Was bedeutet 1Timotheus 2,15 selig durch Kindergebären?", "A. K.", "Bibel+Gem"]


# --- PDF ---------------------------------------------------------------------------------------


def test_pdf_pages_are_recorded():
    doc = parse("pdf/text/pdflatex-4-pages.pdf")
    assert doc.mime == "application/pdf"
    assert [number for _, number in doc.pages] == [1, 2, 3, 4]
    assert doc.metadata["page_count"] == 4
    assert doc.title == "pdflatex-4-pages"  # no /Title in the file
    start_of_page_2 = doc.pages[1][0]
    assert doc.text[start_of_page_2 - 2:start_of_page_2] == "\n\n"
    assert parsing.page_at(doc.pages, start_of_page_2) == 2
    assert parsing.page_at(doc.pages, start_of_page_2 - 3) == 1


def test_pdf_russian_standard_page_numbers_for_citations():
    doc = parse("pdf/ru/gost_r_7.0.11-2011.pdf")
    assert len(doc.pages) == 15
    assert doc.title.startswith("Скачать ГОСТ Р 7.0.11-2011")  # the file's own /Title
    offset = doc.text.index("ФЕДЕРАЛЬНОЕ АГЕНТСТВО")
    assert parsing.page_at(doc.pages, offset) == 1
    last_start, last_page = doc.pages[-1]
    assert last_page == 15
    assert parsing.page_at(doc.pages, len(doc.text) - 1) == 15 > 1
    assert parsing.page_at(doc.pages, last_start - 10) == 14


def test_pdf_title_from_metadata():
    doc = parse("pdf/text/google-doc-document.pdf")
    assert doc.title == "PDF Example Document"
    assert "Beautiful is better than ugly." in doc.text


@pytest.mark.parametrize("name", sorted(p.name for p in (DOCS / "pdf/malformed").iterdir()))
def test_pdf_malformed_is_a_parse_error(name):
    with pytest.raises(ParseError, match="damaged"):
        parse(f"pdf/malformed/{name}")


def test_pdf_encrypted_is_a_parse_error():
    with pytest.raises(ParseError, match="PDF is encrypted; remove the password and upload it again"):
        parse("pdf/encrypted/libreoffice-writer-password.pdf")


@pytest.mark.parametrize("name", sorted(p.name for p in (DOCS / "pdf/scanned").iterdir()))
def test_pdf_scanned_without_text_layer_leaves_its_pages_to_ocr(name):
    # The worker reads them with Tesseract (ocr.recognise_pages, tests/knowledge/test_ocr.py).
    parsed = parse(f"pdf/scanned/{name}")
    assert (parsed.text, parsed.metadata["ocr_wanted"]) == ("", [1])


# --- DOCX --------------------------------------------------------------------------------------


def test_docx_headings_become_markdown():
    doc = parse("docx/en/pandoc-headers.docx")
    lines = doc.text.splitlines()
    assert doc.title == "A Test of Headers"
    assert "# A Test of Headers" in lines
    assert "## Second Level" in lines
    assert "### Third level" in lines
    assert doc.mime.endswith("wordprocessingml.document")


def test_docx_russian_headings_lists_and_table():
    doc = parse("docx/ru/bank-faq-ru-generated.docx")
    lines = doc.text.splitlines()
    assert doc.title == "База знаний: частые вопросы клиентов банка"
    assert "# Категории обращений" in lines
    assert "- Новые клиенты" in lines
    assert "| Новые клиенты | Регистрация и онбординг | 3 |" in lines


def test_docx_word_title_style_is_a_heading():
    doc = parse("docx/en/pandoc-metadata.docx")
    assert doc.title == "This Is the Title"
    assert doc.text.startswith("# This Is the Title")


def test_docx_iso_strict_and_tables():
    assert parse("docx/en/mammoth-strict-format.docx").text == "Test"
    tables = parse("docx/en/mammoth-tables.docx").text
    assert "| Top left | Top right |" in tables


def test_docx_footnote_backlinks_are_dropped():
    doc = parse("docx/en/mammoth-footnotes.docx")
    assert "A tachyon walks into a bar." in doc.text
    assert "↑" not in doc.text


@pytest.mark.parametrize("name", ["mammoth-empty.docx", "python-docx-having-images.docx"])
def test_docx_without_text_is_empty(name):
    with pytest.raises(ParseError, match="is empty"):
        parse(f"docx/en/{name}")


def test_docx_truncated_zip_is_a_parse_error(tmp_path):
    data = (DOCS / "docx/en/pandoc-headers.docx").read_bytes()
    with pytest.raises(ParseError, match="damaged"):
        parsing.parse_file(copy_bytes(tmp_path, "cut.docx", data[: len(data) // 2]))


# --- XLSX / XLS --------------------------------------------------------------------------------


def test_xlsx_sheets_headers_and_uncached_formulas():
    doc = parse("xlsx/ru/russian-cities-by-district-generated.xlsx")
    sections = doc.text.split("## Sheet: ")[1:]
    names = [section.split("\n", 1)[0] for section in sections]
    assert names[:2] == ["Сводка", "Южный"]
    assert doc.metadata["sheets"] == names
    summary, south = tables.read_tables(doc.text)[:2]
    assert (south.section, south.columns[:4]) == ("Sheet: Южный", ["address", "region", "city", "population"])
    assert south.rows[0][:4] == ["Респ Адыгея, г Адыгейск", "Адыгея", "Адыгейск", "12689"]
    # COUNTA/SUM without cached values: the empty cells are simply absent.
    assert summary.columns == ["Федеральный округ", "Число городов", "Население (сумма)"]
    assert summary.rows[0] == ["Южный"]
    assert doc.mime.endswith("spreadsheetml.sheet")


def test_xlsx_hidden_sheets_are_marked():
    text = parse("xlsx/en/roo-hidden_sheets.xlsx").text
    assert "## Sheet: HiddenSheet1 (hidden)\n\nhidden sheet 1" in text
    assert "## Sheet: VisibleSheet1\n\nvisible sheet 1" in text


def test_xlsx_without_header_keeps_values_in_order():
    text = parse("xlsx/en/roo-numbers1.xlsx").text
    assert "## Sheet: Tabelle1\n\n1 2 3 4 10\n\n5 6 7 8 9 test 11" in text
    assert "| 2007-06-16 | 10 | 10 | 10 | 10 |" in text


def test_xls_sheets_dates_and_umlauts():
    doc = parse("xls/xlrd-Formate.xls")
    assert doc.mime == "application/vnd.ms-excel"
    assert doc.metadata["sheets"] == ["Blätt1", "ÖÄÜ", "Blätt3", "Formate"]
    first = tables.read_tables(doc.text)[0]
    assert first.columns == ["Column A", "Column B"]
    assert first.rows[:1] == [["Huber", "1907-07-03"]] and ["Morgen", "06:34:00"] in first.rows
    assert "## Sheet: ÖÄÜ" in doc.text


def test_xls_header_row_labels_values():
    [table] = tables.read_tables(parse("xls/xlrd-profiles.xls").text)[:1]
    assert (table.section, table.columns[:3], table.rows[0][:3]) == ("Sheet: PROFILEDEF", ["PROFIL", "a", "b"],
                                                                    ["P8.2", "100", "101"])


def test_xls_biff4_without_ole_container():
    [table] = tables.read_tables(parse("xls/xlrd-biff4_no_format_no_window2.xls").text)
    assert table.columns == ["ID", "TOTAL", "MAIN", "SUB"]
    assert table.rows[0] == ["A", "DOG & CAT PRODUCTS", "Dog & Cat Product"]


def test_xls_corrupt_is_a_parse_error():
    with pytest.raises(ParseError, match="damaged"):
        parse("xls/xlrd-corrupted_error.xls")


# --- HTML --------------------------------------------------------------------------------------


def test_htm_extension_is_parsed_as_html(tmp_path):
    path = copy_bytes(tmp_path, "upload.htm", (DOCS / "html/ru/upload.ru.html").read_bytes())
    doc = parsing.parse_file(path)
    assert doc.mime == "text/html"
    assert doc.title == "Глава 9. Отправка пакета"


def test_html_page_becomes_markdown():
    doc = parse("html/ru/start.ru.html")
    assert doc.mime == "text/html"
    assert doc.title == "Глава 1. Хорошее начало — половина дела"
    assert "# Глава 1. Хорошее начало — половина дела" in doc.text.splitlines()


def test_a_line_break_in_an_html_page_s_source_is_a_space_as_a_browser_shows_it():
    # DocBook writes its pages at 80 columns: every answer quoting the Debian FAQ broke mid-sentence.
    doc = parsing.parse_file(DOCS.parent / "site" / "debian-faq-ru" / "ru" / "uptodate.ru.html")
    assert ("Нет. Пакеты можно обновлять сразу, даже на работающей системе. Если во время обновления пакета "
            "требуется остановка процесса, то на этот случай в Debian") in doc.text
    # A line break the page makes (<br>) and a code block's lines stay.
    text = parsing.html.html_to_markdown("<main><p>Адрес:<br>ул. Ленина,\n1</p><pre>apt-get update\n"
                                         "apt-get dist-upgrade</pre></main>")[1]
    assert "ул. Ленина, 1" in text and "Адрес:  \nул." in text
    assert "apt-get update\napt-get dist-upgrade" in text
