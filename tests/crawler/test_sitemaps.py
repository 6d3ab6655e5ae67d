import gzip

import pytest

from crawler import sitemaps
from crawler.exceptions import CrawlerError
from crawler.fetching import Fetcher
from tests.crawler.conftest import SITES

URLSET = b"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/a</loc><lastmod>2024-05-20T10:00:00+02:00</lastmod></url>
  <url><loc>https://example.com/b</loc></url>
</urlset>"""


def test_a_urlset_gives_urls_and_aware_lastmods():
    kind, entries = sitemaps.parse_sitemap(URLSET)
    assert kind == "urlset"
    assert [entry.url for entry in entries] == ["https://example.com/a", "https://example.com/b"]
    assert entries[0].lastmod.isoformat() == "2024-05-20T10:00:00+02:00"
    assert entries[1].lastmod is None
    assert sitemaps.parse_lastmod("2024-05-20").isoformat() == "2024-05-20T00:00:00+00:00"
    assert sitemaps.parse_lastmod("yesterday") is None


def test_entity_declarations_are_refused():
    bomb = b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">]><urlset><url><loc>&lol;</loc></url></urlset>'
    with pytest.raises(CrawlerError, match="DTD or entities"):
        sitemaps.parse_sitemap(bomb)


@pytest.mark.django_db
def test_the_snapshot_sitemap_read_from_the_local_server(markdown_site):
    with Fetcher() as fetcher:
        entries = sitemaps.read_sitemaps(fetcher, [markdown_site.url("/sitemap.xml")], accept=lambda url: True)
    assert len(entries) == (SITES / "python-markdown-docs/sitemap.xml").read_text().count("<loc>") == 40
    assert entries[0].url == markdown_site.url("/index.html")  # the real host, mapped to the local server
    assert {entry.lastmod.date().isoformat() for entry in entries} == {"2026-05-20"}


@pytest.mark.django_db
def test_sitemap_indexes_and_gzip_are_followed(site_server, settings):
    site = site_server("flask-docs")
    index = (f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>{site.base_url}'
             f'/maps/pages.xml.gz</loc></sitemap></sitemapindex>').encode()
    pages = URLSET.replace(b"https://example.com", site.base_url.encode())
    site.overrides.update({"/maps/index.xml": index, "/maps/pages.xml.gz": gzip.compress(pages)})
    with Fetcher() as fetcher:
        entries = sitemaps.read_sitemaps(fetcher, [site.url("/maps/index.xml")],
                                         accept=lambda url: url.endswith("/a"))
    assert [entry.url for entry in entries] == [site.url("/a")]
    compressed = site.overrides["/maps/pages.xml.gz"]
    assert len(compressed) + 20 < len(pages)
    settings.CRAWLER = {**settings.CRAWLER, "MAX_DOCUMENT_BYTES": len(compressed) + 10}
    with Fetcher() as fetcher:  # the limit applies to what the .gz expands to, too
        entries = sitemaps.read_sitemaps(fetcher, [site.url("/maps/pages.xml.gz")], accept=lambda url: True)
    assert entries == []
