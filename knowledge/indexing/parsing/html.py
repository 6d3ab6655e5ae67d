"""HTML → Markdown extraction, shared by the `.html` parser and the crawler.

Boilerplate (scripts, styles, navigation, headers, footers, sidebars, forms) is dropped before
conversion so that chunks hold the page's own content; headings, lists, tables and code blocks
survive as Markdown. `generated_page` tells the pages a documentation generator made to list or
search the others (an A–Z index, a search page), which the crawler does not index.
"""

import re
from urllib.parse import urldefrag, urljoin

from bs4 import BeautifulSoup
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from markdownify import MarkdownConverter

from knowledge.exceptions import ParseError

from .html_tables import mark_header_rows, repeat_spanned_columns, shape_tables

DROP_TAGS = ("script", "style", "noscript", "template", "nav", "footer", "aside", "header", "form", "iframe", "svg")
# Common class/role markers of navigation chrome in generated documentation sites.
DROP_ROLES = ("navigation", "banner", "contentinfo", "search", "complementary")
# Chrome that generators emit without a semantic tag: DocBook's navheader/navfooter tables,
# the "¶" permalinks Sphinx and MkDocs append to every heading, breadcrumbs, screen-reader-only text.
DROP_CLASSES = ("navheader", "navfooter", "headerlink", "breadcrumb", "breadcrumbs", "sphinxsidebar",
                "skip-link", "sr-only", "visually-hidden", "toc")  # toc: a page's list of its own sections
_BLANK_LINES = re.compile(r"\n{3,}")
_DEFINITION_INDENT = re.compile(r"^ {4}", re.M)
_HEADING = re.compile(r"h[1-6]")
_CODE_LANGUAGE = re.compile(r"(?:^|\s)(?:language|lang|highlight|brush)-([a-z][\w+#.-]*)", re.IGNORECASE)
_NOT_LANGUAGES = ("default", "none", "text", "plain", "notranslate", "nohighlight")
# A page that lists the others (an A–Z index, a module index, a sitemap page) has under one word of
# its own, outside links and headings, per five links; documentation pages have several per link.
MIN_LISTING_LINKS = 3
OWN_WORDS_PER_LISTING_LINK = 0.2
SEARCH_INPUT_NAMES = ("q", "query", "search", "s", "text")
MAX_SEARCH_PAGE_WORDS = 50  # a search page's own text: how to search, "please activate JavaScript"


def parse_html(html: str | bytes) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


def page_title(soup: BeautifulSoup) -> str:
    if soup.title and soup.title.string:
        return soup.title.string.strip()
    heading = soup.find(["h1", "h2"])
    return heading.get_text(" ", strip=True) if heading else ""


def main_content(soup: BeautifulSoup):
    """The element holding the page's content, with the chrome removed."""
    for tag in soup.find_all(DROP_TAGS):
        if not tag.decomposed and not _is_content(tag):
            tag.decompose()
    for tag in soup.find_all(attrs={"role": DROP_ROLES}):
        if not tag.decomposed:
            tag.decompose()
    for tag in soup.find_all(class_=DROP_CLASSES):
        if not tag.decomposed:
            tag.decompose()
    return soup.find("main") or soup.find(attrs={"role": "main"}) or soup.find("article") or soup.body or soup


def _is_content(tag) -> bool:
    """An article's own header (its title) and footnotes set in <aside> belong to the text."""
    if tag.name == "header":
        return tag.find_parent(["article", "main"]) is not None and tag.find(["h1", "h2", "h3"]) is not None
    if tag.name == "aside":
        return tag.get("role") == "note" or any("footnote" in name for name in tag.get("class") or [])
    return False


def code_language(pre) -> str:
    """The language of a code block from the class names highlighters put on it or its wrappers."""
    for element in (pre, pre.find("code"), pre.parent, pre.parent.parent if pre.parent else None):
        if element is None or not hasattr(element, "get"):
            continue
        match = _CODE_LANGUAGE.search(" ".join(element.get("class") or []))
        if match and match[1].lower() not in _NOT_LANGUAGES:
            return match[1].lower()
    return ""


class _Converter(MarkdownConverter):
    """markdownify, but the paragraphs, headings, list items and line breaks in a table cell stay lines of
    the cell, joined by `<br>` as `tables.escape_cell` writes a spreadsheet cell's lines, where markdownify
    runs them together with spaces ("First.  Second", "- one - two"); a nested list's items keep their indent, and
    a code block is its lines, without fences."""

    def convert_p(self, el, text, parent_tags):
        return f"\n{text.strip()}\n" if _in_cell(parent_tags) else super().convert_p(el, text, parent_tags)

    def convert_div(self, el, text, parent_tags):
        return f"\n{text.strip()}\n" if _in_cell(parent_tags) else super().convert_div(el, text, parent_tags)

    convert_article = convert_section = convert_dl = convert_div

    def convert_hN(self, n, el, text, parent_tags):
        return f"\n{text.strip()}\n" if _in_cell(parent_tags) else super().convert_hN(n, el, text, parent_tags)

    def convert_pre(self, el, text, parent_tags):
        # A code block in a cell is its lines: fences would be cell lines of their own ("```<br>make<br>```").
        return f"\n{text.strip(chr(10))}\n" if _in_cell(parent_tags) else super().convert_pre(el, text, parent_tags)

    def convert_br(self, el, text, parent_tags):
        return "\n" if _in_cell(parent_tags) else super().convert_br(el, text, parent_tags)

    def convert_dd(self, el, text, parent_tags):
        # markdownify indents a definition's every line by four spaces (PHP Markdown Extra): a fence so indented is no
        # fence to a Markdown reader (CommonMark allows three), so a definition's code was read as prose. Its first
        # line keeps the ":   " marker, the others start at the margin; a definition opening on code loses the marker.
        converted = super().convert_dd(el, text, parent_tags)
        if "_inline" in parent_tags or not converted.strip():
            return converted
        first, _, rest = converted.partition("\n")
        if first[4:].startswith(("```", "~~~")):
            first = "\n\n" + first[4:]
        return f"{first}\n{_DEFINITION_INDENT.sub('', rest)}"

    def convert_td(self, el, text, parent_tags):
        return super().convert_td(el, _cell_lines(text), parent_tags)

    def convert_th(self, el, text, parent_tags):
        return super().convert_th(el, _cell_lines(text), parent_tags)


def _in_cell(parent_tags) -> bool:
    """Inside a table cell, not inside a heading (whose text markdownify keeps on one line)."""
    return not parent_tags.isdisjoint(("td", "th")) and not any(_HEADING.fullmatch(tag) for tag in parent_tags)


def _cell_lines(text: str) -> str:
    """The cell's lines joined by `<br>`, spaces within each collapsed; an indent of two spaces or more (a nested
    list's item, a line of code) stays, where the page's own spacing leaves one space at most."""
    lines = []
    for line in text.split("\n"):
        if line.strip():
            indent = len(line) - len(line.lstrip(" "))
            lines.append(" " * indent * (indent >= 2) + " ".join(line.split()))
    return "<br>".join(lines)


def soup_to_markdown(element, *, header_by_default: bool = False) -> str:
    """Markdown of `element`; `header_by_default`: a table's plain first row that may be a header is one."""
    # Each table's cells are lined up with its columns and its header row decided first (html_tables), so
    # the converter infers none.
    label_tab_panels(element)
    shape_tables(element)
    mark_header_rows(element, header_by_default=header_by_default)
    repeat_spanned_columns(element)
    # wrap with no width: a line break in the page's source is a space, as a browser shows it (a page written
    # at 80 columns, as DocBook's are, made every answer quoting it break mid-sentence); <br> and code keep theirs.
    converter = _Converter(heading_style="ATX", bullets="-", strip=["a", "img"], table_infer_header=False,
                           code_language_callback=code_language, wrap=True, wrap_width=None)
    try:
        markdown = converter.convert_soup(element)
    except RecursionError:
        # The converter walks the tree recursively; a page nested thousands of levels deep is hostile.
        raise ParseError(_("the HTML nests elements %(depth)s levels deep, too deep to read; real pages nest a few "
                           "dozen levels") % {"depth": number_format(_depth(element), force_grouping=True)}) from None
    return _BLANK_LINES.sub("\n\n", markdown).strip()


def label_tab_panels(element) -> None:
    """Tabs (ARIA's tablist, as sphinx-tabs and Docusaurus write them) show one panel at a time under a row
    of buttons naming them, often alternatives side by side ("macOS/Linux" and "Windows", each a code
    block). As text the buttons ran together ("macOS/LinuxWindows") above panels nobody could tell apart:
    each panel now opens with its tab's name as a paragraph of its own ("Windows:"), and the row goes."""
    for tablist in element.find_all(attrs={"role": "tablist"}):
        labelled = False
        for tab in tablist.find_all(attrs={"role": "tab"}):
            name = " ".join(tab.get_text(" ", strip=True).split())
            panel = (element.find(id=tab["aria-controls"]) if tab.get("aria-controls") else None) or (
                element.find(attrs={"role": "tabpanel", "aria-labelledby": tab["id"]}) if tab.get("id") else None)
            if name and panel is not None:
                label = parse_html("<p></p>").p
                label.string = f"{name}:"
                panel.insert(0, label)
                labelled = True
        if labelled:
            tablist.decompose()


def _depth(element) -> int:
    """How deep the tree under `element` goes, without recursion."""
    deepest, stack = 0, [(element, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in getattr(node, "contents", ()))
    return deepest


def html_to_markdown(html: str | bytes) -> tuple[str, str]:
    """Return `(title, markdown)` of an HTML page with navigation and boilerplate dropped."""
    soup = parse_html(html)
    title = page_title(soup)
    return title, soup_to_markdown(main_content(soup))



def generated_page(soup: BeautifulSoup, url: str) -> str:
    """What a documentation generator made the page for: "index" (an A–Z or module index, a sitemap
    page: almost all links), "search" (a search page), or "" for a page with content of its own.

    A page may say so itself, as Sphinx's do: `<link rel="index" href="#">` on its general index,
    `<link rel="search" href="#">` on its search page. Otherwise a search form that submits to the
    page itself with next to no text is a search page, and content of links, letters and headings
    with under one word of its own per five links is an index. Call it after reading the page's
    links: it drops the chrome as `main_content` does (and `main_content` then finds it gone).
    """
    for role in ("index", "search"):
        if any(_is_self(link["href"], url) for link in soup.find_all("link", rel=role, href=True)):
            return role
    searches_itself = any(_searches(form, url) for form in soup.find_all("form"))  # before forms are dropped
    content = main_content(soup)
    if searches_itself and len(_words(content)) <= MAX_SEARCH_PAGE_WORDS:
        return "search"
    links = content.find_all("a", href=True)
    if len(links) < MIN_LISTING_LINKS:
        return ""
    linked = sum(len(_words(a)) for a in links)
    headings = sum(len(_words(heading)) for heading in content.find_all(["h1", "h2", "h3", "h4", "h5", "h6"]))
    own = len(_words(content)) - linked - headings
    return "index" if own <= len(links) * OWN_WORDS_PER_LISTING_LINK else ""


def _words(element) -> list[str]:
    """Words of more than one character: the letters of an A–Z jump bar and "|" separators do not count."""
    return [word for word in element.get_text(" ", strip=True).split() if len(word) > 1]


def _searches(form, url: str) -> bool:
    """A GET form with a search field whose results come back to this very page."""
    fields = form.find_all("input")
    searches = any(field.get("type") == "search" or field.get("name") in SEARCH_INPUT_NAMES for field in fields)
    return searches and form.get("method", "get").lower() == "get" and _is_self(form.get("action", ""), url)


def _is_self(href: str, url: str) -> bool:
    return urldefrag(urljoin(url, href.strip()))[0] == urldefrag(url)[0]
