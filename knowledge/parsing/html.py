"""HTML → Markdown extraction, shared by the `.html` parser and the crawler.

Boilerplate (scripts, styles, navigation, headers, footers, sidebars, forms) is dropped before
conversion so that chunks hold the page's own content; headings, lists, tables and code blocks
survive as Markdown.
"""

import re

from bs4 import BeautifulSoup
from markdownify import MarkdownConverter

DROP_TAGS = ("script", "style", "noscript", "template", "nav", "footer", "aside", "header", "form", "iframe", "svg")
# Common class/role markers of navigation chrome in generated documentation sites.
DROP_ROLES = ("navigation", "banner", "contentinfo", "search", "complementary")
_BLANK_LINES = re.compile(r"\n{3,}")


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
        tag.decompose()
    for tag in soup.find_all(attrs={"role": DROP_ROLES}):
        tag.decompose()
    return soup.find("main") or soup.find(attrs={"role": "main"}) or soup.find("article") or soup.body or soup


def soup_to_markdown(element) -> str:
    markdown = MarkdownConverter(heading_style="ATX", bullets="-", strip=["a", "img"]).convert_soup(element)
    return _BLANK_LINES.sub("\n\n", markdown).strip()


def html_to_markdown(html: str | bytes) -> tuple[str, str]:
    """Return `(title, markdown)` of an HTML page with navigation and boilerplate dropped."""
    soup = parse_html(html)
    title = page_title(soup)
    return title, soup_to_markdown(main_content(soup))
