"""What the crawler reads from an HTML page: text (via the shared HTML parser), links, canonical URL,
robots meta directives, and whether a documentation generator made it to list or search the others."""

import re
from dataclasses import dataclass, field

from crawler import urlnorm
from crawler.fetching import Response
from knowledge.indexing.parsing.html import generated_page, main_content, page_title, parse_html, soup_to_markdown

MAX_LINKS = 2000


@dataclass
class Page:
    title: str
    text: str
    links: list[str] = field(default_factory=list)
    canonical: str = ""
    noindex: bool = False
    nofollow: bool = False
    generated: str = ""  # "index" or "search": a page that lists or searches the others (generated_page)


def extract_page(response: Response) -> Page:
    """Title, Markdown text, normalised links and canonical URL of a fetched HTML page."""
    soup = parse_html(_decoded(response))
    base = response.final_url
    base_tag = soup.find("base", href=True)
    if base_tag:
        base = urlnorm.try_normalize(base_tag["href"], base) or base
    # Links and directives come from the whole page, navigation included, before the chrome is dropped.
    links = list(dict.fromkeys(
        link for link in (urlnorm.try_normalize(a["href"], base) for a in soup.find_all("a", href=True)
                          if "nofollow" not in (a.get("rel") or []))
        if link
    ))[:MAX_LINKS]
    canonical_tag = soup.find("link", rel="canonical", href=True)
    canonical = urlnorm.try_normalize(canonical_tag["href"], base) if canonical_tag else None
    metas = soup.find_all("meta", attrs={"name": "robots"})
    directives = " ".join(meta.get("content", "").lower() for meta in metas)
    tokens = set(re.split(r"[\s,]+", f"{directives} {response.x_robots_tag}"))
    title = page_title(soup)
    generated = generated_page(soup, response.final_url)
    return Page(title=" ".join(title.split()), text=soup_to_markdown(main_content(soup)), links=links,
                canonical=canonical or "", noindex=bool(tokens & {"noindex", "none"}),
                nofollow=bool(tokens & {"nofollow", "none"}), generated=generated)


def _decoded(response: Response) -> str | bytes:
    """The body as text when the server named a charset we know; otherwise bytes for bs4 to sniff."""
    if response.charset:
        try:
            return response.body.decode(response.charset, errors="replace")
        except LookupError:
            pass
    return response.body
