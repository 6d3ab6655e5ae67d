"""sitemap.xml discovery: the sitemaps robots.txt names, else `/sitemap.xml`, with `lastmod`.

Sitemap indexes are followed (up to MAX_SITEMAP_FILES files); gzip-compressed sitemaps are read;
documents declaring a DTD or entities are refused outright, so no entity expansion can happen.
"""

import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from xml.etree import ElementTree

from django.conf import settings
from django.utils.translation import gettext as _

from crawler import urlnorm
from crawler.exceptions import CrawlerError
from crawler.fetching import Fetcher

MAX_SITEMAP_FILES = 50
_DECLARATIONS = re.compile(rb"<!(DOCTYPE|ENTITY)", re.IGNORECASE)


@dataclass
class SitemapEntry:
    url: str
    lastmod: datetime | None = None


def read_sitemaps(fetcher: Fetcher, sitemap_urls: list[str], *, accept: Callable[[str], bool]) -> list[SitemapEntry]:
    """Page URLs (those `accept` lets through) listed by the sitemaps, following indexes."""
    limit = settings.CRAWLER["MAX_SITEMAP_URLS"]
    pending, visited, entries, seen = list(sitemap_urls), set(), [], set()
    while pending and len(visited) < MAX_SITEMAP_FILES and len(entries) < limit:
        url = pending.pop(0)
        if url in visited:
            continue
        visited.add(url)
        try:
            kind, items = parse_sitemap(_fetch(fetcher, url))
        except (CrawlerError, ElementTree.ParseError):
            continue  # a missing or broken sitemap only means fewer hints
        for item in items:
            target = urlnorm.try_normalize(item.url, url)
            if target is None:
                continue
            if kind == "sitemapindex":
                pending.append(target)
            elif target not in seen and accept(target):
                seen.add(target)
                entries.append(SitemapEntry(target, item.lastmod))
    return entries[:limit]


def parse_sitemap(data: bytes) -> tuple[str, list[SitemapEntry]]:
    """`("urlset" | "sitemapindex", entries)` of one sitemap file."""
    if _DECLARATIONS.search(data[:4096]):
        raise CrawlerError(_("Sitemap declares a DTD or entities; refused"))
    root = ElementTree.fromstring(data)
    kind = _local(root.tag)
    entries = []
    for element in root:
        fields = {_local(child.tag): (child.text or "").strip() for child in element}
        if fields.get("loc"):
            entries.append(SitemapEntry(fields["loc"], parse_lastmod(fields.get("lastmod", ""))))
    return kind, entries


def parse_lastmod(value: str) -> datetime | None:
    """A W3C datetime (`2024-05-20`, `2024-05-20T10:00:00+02:00`…) as an aware datetime."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _fetch(fetcher: Fetcher, url: str) -> bytes:
    max_bytes = settings.CRAWLER["MAX_DOCUMENT_BYTES"]
    body = fetcher.get(url, mode="raw", max_bytes=max_bytes).body
    if body[:2] == b"\x1f\x8b":
        # Bounded decompression: a small .gz must not expand into gigabytes.
        decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
        body = decompressor.decompress(body, max_bytes)
        if decompressor.unconsumed_tail:
            raise CrawlerError(_("%(url)s expands beyond the size limit") % {"url": url})
    return body


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]

