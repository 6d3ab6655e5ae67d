"""Text from PDF pages and scans: not Markdown, without running headers, hyphenation rejoined."""

import re
from pathlib import Path

from knowledge.indexing import parsing
from knowledge.indexing.chunking import split_text
from knowledge.indexing.parsing import pdf, quality
from knowledge.indexing.parsing.ocr import page_texts
from knowledge.indexing.parsing.pagetext import tidy_pages

DOCS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "documents"


def parse(relative: str):
    return parsing.parse_file(DOCS / relative)


def squeezed(line: str) -> str:
    return "".join(line.split())


def test_shell_comments_in_a_pdf_are_text_not_headings():
    doc = parse("pdf/ru/debian-maint-guide.ru.pdf")
    comments = [line for line in doc.text.split("\n") if line.lstrip("\\").startswith("# ")]
    assert comments, "the guide's shell examples keep their comments"
    assert any("(C) 2011 Foo Bar, GPL2+" in line for line in comments)
    assert [chunk.heading_path for chunk in split_text(doc.text) if chunk.heading_path] == []


def test_running_headers_and_page_numbers_are_left_out():
    doc = parse("pdf/ru/gost_2.105-95.pdf")
    lines = doc.text.split("\n")
    assert not [line for line in lines if squeezed(line) == "ГОСТ2.105-95"]
    pages = page_texts(doc)
    assert sorted(pages) == list(range(1, doc.metadata["page_count"] + 1))
    letterless_edges = [number for number, text in pages.items() if not re.search(r"[^\W\d_]", text.split("\n")[-1])]
    assert letterless_edges == []
    # The standard's references to itself and other standards inside the text stay.
    assert "ГОСТ 2.301" in doc.text
    assert parsing.page_at(doc.pages, doc.text.index("4.3.1 Количество иллюстраций")) == 10


def test_a_line_repeated_on_a_few_pages_only_stays():
    topics = ["apples", "pears", "plums", "grapes", "melons", "lemons", "limes", "figs"]
    pages = {
        number: f"Annual report 2024\nAll about {topic}.\nWhy {topic} grow.\n- {number} -"
        for number, topic in enumerate(topics, start=1)
    }
    for number in (3, 6):
        pages[number] = pages[number].replace("- ", "Summary\n- ", 1)
    pages[5] = "Note\n" + pages[5]
    tidied = tidy_pages(pages)
    assert tidied[1].split("\n") == ["All about apples.", "Why apples grow."]
    assert tidied[5].startswith("Note\n")
    assert tidied[3].endswith("grow.\nSummary") and tidied[6].endswith("grow.\nSummary")


def test_running_heads_naming_the_section_with_the_page_number_are_left_out():
    sections = ["1.1. SPACES"] * 3 + ["1.2. METRICS"] * 3 + ["1.3. CONTINUITY"] * 2
    topics = ["apples", "pears", "plums", "grapes", "melons", "lemons", "limes", "figs"]
    # Printed numbers are the PDF page's plus 3 (front matter); the number leads or ends the line.
    pages = {
        number: (f"{number + 3} {section}" if number % 2 else f"{section} {number + 3}")
        + f"\n5 {topic} make a figure.\nMore about {topic}."
        for number, (section, topic) in enumerate(zip(sections, topics, strict=True), start=1)
    }
    tidied = tidy_pages(pages)
    assert tidied[1].split("\n") == ["5 apples make a figure.", "More about apples."]
    assert tidied[8].split("\n") == ["5 figs make a figure.", "More about figs."]
    # A numbered line of the page's own text (its number unlike the page's) stays.
    assert tidy_pages({**pages, 4: "2 Chapter two\nText."})[4] == "2 Chapter two\nText."


def test_a_latex_books_section_heads_are_left_out():
    doc = parse("pdf/text/geotopo-de-117pages.pdf")
    heads = re.compile(r"\d+ \d\.\d\. [A-ZÄÖÜ ]+")
    assert not [number for number, text in page_texts(doc).items() if heads.fullmatch(text.split("\n")[0])]
    assert "TOPOLOGISCHE RÄUME" not in doc.text and "Topologische Räume" in doc.text


def test_rows_of_numbers_under_a_running_header_stay():
    topics = ["apples", "pears", "plums", "grapes", "melons", "lemons"]
    pages = {
        number: f"Price list\n{100 + number} {200 + number} {300 + number}\nAll about {topic}.\n{number}"
        for number, topic in enumerate(topics, start=1)
    }
    tidied = tidy_pages(pages)
    assert tidied[2].split("\n") == ["102 202 302", "All about pears."]


def test_soft_hyphens_are_rejoined_and_removed():
    doc = parse("pdf/ru/gost_2.105-95.pdf")
    assert "\u00ad" not in doc.text
    assert "стандартизации и сертификации в машиностроении" in " ".join(doc.text.split())
    tidied = tidy_pages({1: "в случае необхо\u00ad димости, и разде\u00ad\nлов"})
    assert tidied == {1: "в случае необходимости, и разделов"}


def test_words_hyphenated_at_line_ends_are_rejoined():
    doc = parse("pdf/ru/debian-maint-guide.ru.pdf")
    assert "Руководство начинающего разработчика Debian" in doc.text
    assert "начинающего разработчика. Он написан простым языком" in doc.text


def test_only_words_that_are_clearly_one_word_are_rejoined():
    text = (
        "Если необхо-\nдимости нет, какой-\nто текст. Научно-технические и научно-\n"
        "исследовательские работы, Санкт-\nПетербург, на северо-\nзапад; запад, то есть."
    )
    assert tidy_pages({1: text})[1] == (
        "Если необходимости нет, какой-\nто текст. Научно-технические и научно-\n"
        "исследовательские работы, Санкт-\nПетербург, на северо-\nзапад; запад, то есть."
    )


def test_a_short_word_cut_off_a_longer_one_is_rejoined_but_not_a_compounds_particle():
    text = ("Пакет со-\nпровождаемых программ, но не все; имя зарезервирова-\nно; со мной. Сказано по-\n"
            "русски и кое-\nгде, но по делу.")
    assert tidy_pages({1: text})[1] == ("Пакет сопровождаемых программ, но не все; имя зарезервировано; со мной. "
                                        "Сказано по-\nрусски и кое-\nгде, но по делу.")


def test_po_and_vo_keep_their_hyphen_only_before_the_endings_that_take_one():
    text = ("Опишите по-\nдробно, по-\nмоему и по-\nновому; во-\nвторых, по-\nнемецки и по-\nволчьи; "
            "пришёл во-\nвремя.")
    assert tidy_pages({1: text})[1] == ("Опишите подробно, по-\nмоему и по-\nновому; во-\nвторых, по-\nнемецки "
                                        "и по-\nволчьи; пришёл вовремя.")


def test_words_hyphenated_after_a_short_prefix_are_rejoined_in_a_real_guide():
    text = parse("pdf/ru/debian-maint-guide.ru.pdf").text
    for word in ["сопровождаемых", "обслуживания", "зарезервировано", "приведён"]:
        assert word in text
    assert "что-нибудь" in text and "из-за" in text


def test_a_word_hyphenated_across_pages_is_rejoined_on_the_first_page():
    tidied = tidy_pages({1: "Это очень необхо-", 2: "димое условие.", 3: "Третья страница"})
    assert tidied == {1: "Это очень необходимое", 2: "условие.", 3: "Третья страница"}


def test_a_fonts_private_glyphs_are_left_out_and_its_bullets_read_as_bullets():
    text = "Indonesia\n\U000f03d9\nGermany \ue001 \nSteps:\n\uf0b7 Open the lid\n\uf0a7 Press"
    assert tidy_pages({1: text})[1] == "Indonesia\nGermany  \nSteps:\n• Open the lid\n• Press"


def test_a_real_google_doc_keeps_no_icon_glyphs():
    text = parse("pdf/text/google-doc-document.pdf").text
    assert not re.search("[\ue000-\uf8ff\U000f0000-\U0010ffff]", text)
    assert "Indonesia \nGermany \nAustria \nFrance\nVatican \n" in text


def test_markdown_syntax_in_page_text_is_escaped():
    tidied = tidy_pages({1: "# comment\n  ## two\n```sh\nls\n```\nC# and #tags stay"})[1]
    assert split_text(tidied)[0].heading_path == []
    assert tidied.split("\n") == ["\\# comment", "  \\## two", "\\```sh", "ls", "\\```", "C# and #tags stay"]


def test_running_heads_naming_the_section_without_a_page_number_are_left_out():
    def page(head: str, topic: str) -> str:
        return (head + "\n" if head else "") + f"All about {topic}.\nWhy {topic} grow.\n{len(topic)}"

    heads = [
        "",
        "",
        "CHAPTER 1. FRUIT 1.1. APPLES AND …",
        "CHAPTER 1. FRUIT 1.2. PEARS",
        "",
        "CHAPTER 2. VEGETABLES 2.1. BEANS",
        "",
        "CHAPTER 3. NUTS AND SEEDS 3.1. ALMONDS",
        "CHAPTER 3. NUTS AND SEEDS 3.2. WALNUTS",
        "CHAPTER 3. NUTS AND SEEDS 3.4. PECANS",
    ]
    topics = [
        "the title",
        "the contents",
        "apples",
        "pears",
        "vegetables",
        "beans",
        "nuts",
        "almonds",
        "walnuts",
        "pecans",
    ]
    pages = {number: page(head, topic) for number, (head, topic) in enumerate(zip(heads, topics), start=1)}
    pages[1] = "Fruit and Nuts\n" + pages[1]
    pages[2] = "Fruit and Nuts\nContents\n" + pages[2]
    pages[5] = "Chapter 2\nVegetables\n" + pages[5]
    pages[7] = "Chapter 3\nNuts and seeds\n" + pages[7]
    tidied = tidy_pages(pages)
    assert [number for number, text in tidied.items() if text.startswith("CHAPTER")] == []
    # The lone head of chapter 2 goes too: it opens as the others do.
    assert tidied[6].split("\n") == ["All about beans.", "Why beans grow."]
    # A chapter's title on its first page and the title page stay.
    assert tidied[5].startswith("Chapter 2\nVegetables\n") and tidied[7].startswith("Chapter 3\nNuts and seeds\n")
    assert tidied[1].startswith("Fruit and Nuts\n")


def test_a_sphinx_books_chapter_heads_are_left_out():
    doc = parsing.parse_file(DOCS.parent / "site" / "debian-faq-ru" / "debian-faq.ru.pdf")
    assert not [line for line in doc.text.split("\n") if line.startswith("ГЛАВА ")]
    assert "Глава 3\nВыбор дистрибутива Debian" in doc.text
    assert doc.text.startswith("Часто задаваемые вопросы о Debian GNU/Linux")


def test_front_matter_heads_with_roman_page_numbers_are_left_out_as_the_bodys_are():
    doc = parse("pdf/ru/debian-maint-guide.ru.pdf")
    # The heads' words run together ("…Debian ii", "…Debian 7 / 63"); the guide's title has its spaces.
    assert not [line for line in doc.text.split("\n") if line.startswith("РуководствоначинающегоразработчикаDebian")]
    topics = ["apples", "pears", "plums", "grapes", "melons", "lemons", "limes", "figs"]
    numerals = ["ii", "iii", "iv", "1 / 9", "2 / 9", "3 / 9", "4 / 9", "5 / 9"]
    pages = {
        number: f"Guide {numeral}\nAll about {topic}."
        for number, (numeral, topic) in enumerate(zip(numerals, topics, strict=True), start=1)
    }
    tidied = tidy_pages(pages)
    assert [tidied[number] for number in sorted(tidied)] == [f"All about {topic}." for topic in topics]


def test_a_title_page_keeps_the_title_its_numbered_heads_repeat():
    doc = parse("pdf/ru/debian-maint-guide.ru.pdf")
    assert doc.text.startswith("Руководство начинающего разработчика Debian\nДжосип Родин"), doc.text[:80]
    topics = ["apples", "pears", "plums", "grapes", "melons"]
    pages = {number: f"Fruit Guide {number - 1} / 4\nAll about {topic}." for number, topic in enumerate(topics, 1)}
    pages[1] = "Fruit Guide\nBy A. Grower"
    tidied = tidy_pages(pages)
    assert tidied[1] == "Fruit Guide\nBy A. Grower"
    assert [tidied[number] for number in range(2, 6)] == [f"All about {topic}." for topic in topics[1:]]


def test_a_running_head_without_a_page_number_goes_from_the_first_page_too():
    pages = {number: f"ACME-STD 12-2024\nAll about {topic}." for number, topic in enumerate(["a", "b", "c", "d"], 1)}
    pages[1] = "ACME-STD 12 - 2024\nStandard for fruit"
    assert tidy_pages(pages)[1] == "Standard for fruit"


def test_a_page_whose_words_run_together_is_read_again_with_its_spaces():
    # pypdf reads the guide's pages without their spaces ("Социальнаядинамика Debian"); pdfium finds them.
    doc = parse("pdf/ru/debian-maint-guide.ru.pdf")
    assert "1.1 Социальная динамика Debian . . ." in doc.text
    assert "Copyright © 1998-2002 Josip Rodin" in doc.text
    assert parsing.page_at(doc.pages, doc.text.index("Copyright © 1998-2002 Josip Rodin")) == 2
    # A word pdfium marks as hyphenated at a line end is rejoined as pypdf's are ("разработчи-" + "ка").
    assert "разработчи-" not in doc.text and "Руководство начинающего разработчика Debian\nACTION" in doc.text
    assert quality.assess(doc)["flags"] == []
    faq = parsing.parse_file(DOCS.parent / "site" / "debian-faq-ru" / "debian-faq.ru.pdf")
    assert quality.long_word_share(faq.text) < quality.MAX_LONG_WORD_SHARE


def test_a_word_whose_letter_spacing_read_as_a_space_is_one_word_where_pdfium_reads_one():
    # pypdf reads a title set with wide letter spacing as "докум ентации. Общ ие требования".
    text = parse("pdf/ru/gost_2.105-95.pdf").text
    assert "конструкторской документации. Общие требования" in text
    assert "допускается заключать в скобки те значения, которые не" in text
    assert "Руководитель ОКБА (подпись)" in text
    assert "докум ентации" not in text and "прим енению" not in text
    assert "С Пб." not in parse("pdf/ru/gost_r_7.0.11-2011.pdf").text


def test_two_words_are_joined_only_where_the_other_reading_has_one_word():
    # pdfium reads the first "по тому" apart too, and "докум ентации" as one word.
    reference = "Он по тому и пришёл. Это потому что. Сказано документации."
    assert pdf._gaps_closed("Он по тому и пришёл. Это потому что. Сказано докум ентации.", reference) == (
        "Он по тому и пришёл. Это потому что. Сказано документации.")
    # Both readings have the pair: a real gap.
    assert pdf._gaps_closed("Сказано докум ентации", "Сказано докум ентации и документации") == (
        "Сказано докум ентации")


def test_ligatures_are_spelled_out():
    doc = parse("pdf/text/geotopo-de-117pages.pdf")
    assert not [char for char in doc.text if "\ufb00" <= char <= "\ufb06"]
    assert "Definition" in doc.text and "Begriff" in doc.text and "Oberfläche" in doc.text
    assert tidy_pages({1: "the ﬁrst oﬃce"})[1] == "the first office"
