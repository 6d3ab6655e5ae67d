"""HTML extraction (knowledge/indexing/parsing/html.py, shared with the .html parser) and what the crawler reads
from a page: links, canonical URL, robots directives."""

import pytest

from crawler.extraction import extract_page
from crawler.fetching import Response
from knowledge.indexing.parsing.html import html_to_markdown
from tests.crawler.conftest import SITES


def response(html: str | bytes, url: str = "https://example.com/docs/page.html", **fields) -> Response:
    body = html.encode() if isinstance(html, str) else html
    return Response(url=url, final_url=url, status=200, content_type="text/html", body=body, kind="html", **fields)


def test_a_sphinx_page_keeps_headings_lists_and_code_and_drops_the_chrome():
    title, text = html_to_markdown((SITES / "flask-docs/quickstart.html").read_bytes())
    assert title == "Quickstart — Flask Documentation (2.2.x)"
    assert text.startswith("# Quickstart\n")
    assert "\n## A Minimal Application\n" in text
    assert '```python\nfrom flask import Flask\n\napp = Flask(__name__)' in text
    assert "\n1. First we imported the `Flask` class." in text
    for chrome in ("¶", "Quick search", "Navigation", "Contents", "© Copyright", "Created using Sphinx",
                   "Previous:", "var DOCUMENTATION_OPTIONS", "display: none"):
        assert chrome not in text, chrome


def test_each_tab_panel_opens_with_its_tabs_name():
    # Flask's installation page shows the commands for macOS/Linux and Windows side by side, as tabs; the
    # buttons ran together ("macOS/LinuxWindows") above two code blocks nobody could tell apart.
    text = html_to_markdown((SITES / "flask-docs/installation.html").read_bytes())[1]
    assert "macOS/LinuxWindows" not in text
    assert ("activate the corresponding environment:\n\nmacOS/Linux:\n\n```\n$ . venv/bin/activate\n```\n\n"
            "Windows:\n\n```\n> venv\\Scripts\\activate\n```") in text
    # A panel named by aria-labelledby only (Docusaurus); a tab without a panel leaves its row as it was.
    text = html_to_markdown('<main><div role="tablist"><button role="tab" id="t1">npm</button><button role="tab" '
                            'id="t2">Yarn</button></div><div role="tabpanel" aria-labelledby="t1"><pre>npm i x</pre>'
                            '</div><div role="tabpanel" aria-labelledby="t2" hidden><pre>yarn add x</pre></div>'
                            '<ul role="tablist"><li role="tab">Menu</li></ul></main>')[1]
    assert text == "npm:\n\n```\nnpm i x\n```\n\nYarn:\n\n```\nyarn add x\n```\n\n- Menu", text


def test_a_docbook_page_loses_its_navigation_tables():
    text = html_to_markdown((SITES / "debian-faq-ru/ru/basic-defs.ru.html").read_bytes())[1]
    assert text.startswith("# Глава 1. Определения и краткий обзор")
    assert "## 1.2. Что такое Debian GNU/Linux?" in text
    assert "Пред." not in text and "След." not in text and "| --- |" not in text


def test_a_pages_own_table_of_contents_is_navigation_not_text():
    text = html_to_markdown((SITES / "debian-faq-ru/ru/support.ru.html").read_bytes())[1]
    assert "Содержание" not in text  # the chapter's list of its sections, each a bare question
    assert text.count("12.1. Какая ещё документация существует по системе Debian?") == 1  # its heading, once


def test_tables_become_markdown_tables():
    html = ("<main><h1>Limits</h1><table><tr><td>Kind</td><td>Limit</td></tr>"
            "<tr><td>HTML</td><td>10 MB</td></tr></table></main>")
    assert html_to_markdown(html)[1] == "# Limits\n\n| Kind | Limit |\n| --- | --- |\n| HTML | 10 MB |"


def test_an_articles_own_header_and_footnotes_are_content():
    html = """<body><header><a href="/">Site</a> Menu</header><article><header><h1>Release notes</h1></header>
    <p>Version 2 is out.<a href="#fn1">1</a></p><aside class="footnote" id="fn1">Since May.</aside>
    <aside class="related-posts">Read also: other posts</aside></article><footer>Copyright</footer></body>"""
    text = html_to_markdown(html)[1]
    assert text.startswith("# Release notes")
    assert "Since May." in text
    assert "Menu" not in text and "Read also" not in text and "Copyright" not in text


def test_links_come_from_the_whole_page_including_navigation():
    url = "http://127.0.0.1:8000/quickstart.html"
    page = extract_page(response((SITES / "flask-docs/quickstart.html").read_bytes(), url))
    assert "http://127.0.0.1:8000/index.html" in page.links  # from the sidebar, which is not in the text
    assert "http://127.0.0.1:8000/installation.html" in page.links
    assert not any("#" in link for link in page.links)
    assert len(page.links) == len(set(page.links))


def test_canonical_base_href_nofollow_and_robots_meta():
    html = """<html><head><base href="https://example.com/v2/"><link rel="canonical" href="guide.html">
    <meta name="robots" content="noindex, nofollow"></head><body><p>Text</p>
    <a href="intro.html">Intro</a><a rel="nofollow" href="login.html">Log in</a><a href="mailto:x@example.com">Mail</a>
    </body></html>"""
    page = extract_page(response(html))
    assert page.canonical == "https://example.com/v2/guide.html"
    assert page.links == ["https://example.com/v2/intro.html"]
    assert page.noindex and page.nofollow


def test_an_x_robots_tag_header_counts_like_the_meta_tag():
    page = extract_page(response("<p>Text</p>", x_robots_tag="noindex"))
    assert page.noindex and not page.nofollow


@pytest.mark.parametrize(("charset", "encoded"), [("windows-1251", "Привет, мир".encode("cp1251")),
                                                  ("", "<meta charset='koi8-r'><p>Привет, мир</p>".encode("koi8-r"))])
def test_the_charset_comes_from_the_header_or_the_page(charset, encoded):
    body = encoded if charset == "" else b"<p>" + encoded + b"</p>"
    assert extract_page(response(body, charset=charset)).text == "Привет, мир"


@pytest.mark.parametrize(("page", "generated"), [
    ("flask-docs/genindex.html", "index"),  # Sphinx: <link rel="index" href="#">, an A–Z jump bar
    ("flask-docs/py-modindex.html", "index"),  # a table of module names, all links
    ("flask-docs/search.html", "search"),  # Sphinx: <link rel="search" href="#">
    ("python-markdown-docs/search.html", "search"),  # rel="search" naming the page itself
    ("python-markdown-docs/sitemap.html", "index"),  # a list of every page's title, nothing else
    # Pages with text of their own, even when most of it is links: a docs home, a section's contents.
    ("flask-docs/index.html", ""),
    ("flask-docs/patterns/index.html", ""),
    ("flask-docs/quickstart.html", ""),
    ("python-markdown-docs/index.html", ""),
    ("python-markdown-docs/extensions/index.html", ""),
    ("debian-faq-ru/ru/index.ru.html", ""),
])
def test_generated_index_and_search_pages_are_recognised(page, generated):
    site, path = page.split("/", 1)
    assert extract_page(response((SITES / page).read_bytes(), url=f"https://{site}.example/{path}")).generated \
        == generated


def test_a_search_form_to_the_page_itself_makes_a_search_page_only_without_text():
    form = '<form action="" method="get"><input type="search" name="term"></form>'
    assert extract_page(response(f"<h1>Search</h1>{form}<p>Type words.</p>")).generated == "search"
    essay = " ".join(["Words of an article about searching."] * 20)
    assert extract_page(response(f"<h1>Search</h1>{form}<p>{essay}</p>")).generated == ""
    elsewhere = '<form action="/search.html"><input name="q"></form>'  # the site's search box in the sidebar
    assert extract_page(response(f"<h1>Tiny</h1>{elsewhere}<p>Type words.</p>")).generated == ""


def test_a_definitions_code_is_fenced_at_the_margin():
    # Python-Markdown's library reference defines each argument in a <dl>; markdownify indented a definition's lines
    # by four spaces, fences too, so the code was read as prose and quoted as "`` with open(…) ` [3] `".
    text = html_to_markdown((SITES / "python-markdown-docs/reference.html").read_bytes())[1]
    assert "**text**\n:   The source Unicode string. (required)\n" in text
    assert ('\n```\nwith open("some_file.txt", "r", encoding="utf-8") as input_file:\n    text = input_file.read()\n'
            'html = markdown.markdown(text)\n```\n') in text
    assert "\n    ```" not in text
    text = html_to_markdown("<main><dl><dt>run</dt><dd><pre>make run</pre><p>Starts it.</p></dd></dl></main>")[1]
    assert text == "run\n\n```\nmake run\n```\n\nStarts it.", text
