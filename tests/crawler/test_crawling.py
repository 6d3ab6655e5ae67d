"""Crawling the real site snapshots served on 127.0.0.1."""

from itertools import pairwise
from urllib.parse import urldefrag, urljoin

import pytest
from bs4 import BeautifulSoup

from crawler import crawling
from crawler.models import CrawledPage
from knowledge.indexing import parsing
from knowledge.indexing.chunks import config_signature
from knowledge.models import Chunk, Document
from tests.crawler.conftest import SITES, SMALL_PDF
from tests.factories import make_kb

pytestmark = pytest.mark.django_db


def local_links(site: str, page: str, base: str) -> set[str]:
    """What a reader sees as same-site links of a page, worked out without the crawler's code."""
    soup = BeautifulSoup((SITES / site / page).read_bytes(), "html.parser")
    links = {urldefrag(urljoin(f"{base}/{page}", a["href"]))[0] for a in soup.find_all("a", href=True)}
    return {link.removeprefix(base) for link in links if link.startswith(base + "/")}


def test_depth_limit_is_exact(flask_site):
    kb = make_kb()
    report = crawling.crawl_site(kb, flask_site.url("/extensions.html"), max_depth=1)
    expected = {"/extensions.html"} | local_links("flask-docs", "extensions.html", flask_site.base_url)
    assert set(flask_site.page_paths()) == expected
    assert len(flask_site.page_paths()) == len(expected)  # nothing fetched twice
    assert report.fetched == len(expected) and report.failed == 0
    assert set(CrawledPage.objects.filter(knowledge_base=kb).values_list("depth", flat=True)) == {0, 1}
    assert report.skipped_by_rule > 0  # the depth-2 links, counted as skipped


def test_depth_zero_fetches_the_seed_only(flask_site):
    report = crawling.crawl_site(make_kb(), flask_site.url("/extensions.html"), max_depth=0)
    assert flask_site.page_paths() == ["/extensions.html"]
    assert (report.fetched, report.ingested) == (1, 1)


def test_page_limit_is_exact_and_spent_on_content_first(flask_site):
    kb = make_kb()
    report = crawling.crawl_site(kb, flask_site.url("/index.html"), max_pages=5)
    # The home page's header links the generated index, search page and module index before its
    # content: they wait until the content pages of their depth are fetched.
    assert flask_site.page_paths() == ["/index.html", "/installation.html", "/quickstart.html",
                                       "/tutorial/index.html", "/patterns/index.html"]
    assert (report.fetched, report.ingested) == (5, 5)
    assert Document.objects.filter(knowledge_base=kb, source_kind="crawl").count() == 5


def test_robots_txt_disallow_is_respected(markdown_site):
    kb = make_kb()
    report = crawling.crawl_site(kb, markdown_site.url("/change_log/index.html"), max_depth=1, use_sitemap=False)
    assert markdown_site.paths()[0] == "/robots.txt"
    assert "/change_log/release-2.0.html" not in markdown_site.paths()
    assert "/change_log/release-2.1.html" in markdown_site.paths()
    assert report.blocked_by_robots == 1
    assert {"item": markdown_site.url("/change_log/release-2.0.html"), "reason": "Disallowed by robots.txt",
            "kind": "blocked_by_robots"} in report.skipped


def test_robots_txt_can_be_ignored_when_asked(markdown_site):
    report = crawling.crawl_site(make_kb(), markdown_site.url("/change_log/index.html"), max_depth=1,
                                 use_sitemap=False, respect_robots=False)
    assert "/robots.txt" not in markdown_site.paths()
    assert "/change_log/release-2.0.html" in markdown_site.paths()
    assert report.blocked_by_robots == 0


@pytest.mark.parametrize("follow_docs", [False, True])
def test_documents_are_followed_only_when_asked(site_server, follow_docs):
    site = site_server("debian-faq-ru")
    kb = make_kb()
    report = crawling.crawl_site(kb, site.url("/_test/with-pdf.html"), max_depth=1, follow_docs=follow_docs)
    pdf_url = site.url(f"/_test/files/{SMALL_PDF}")
    assert "/ru/index.ru.html" in site.page_paths()
    assert (f"/_test/files/{SMALL_PDF}" in site.page_paths()) is follow_docs
    documents = Document.objects.filter(knowledge_base=kb)
    assert documents.filter(source_uri=pdf_url).exists() is follow_docs
    if follow_docs:
        pdf = documents.get(source_uri=pdf_url)
        assert (pdf.source_kind, pdf.mime, pdf.status) == ("crawl", "application/pdf", "ready")
        assert report.ingested == 3
    else:
        assert {"item": pdf_url, "reason": "Document links are not followed (follow_docs is off)",
                "kind": "skipped_by_rule"} in report.skipped
        assert report.ingested == 2


def test_navigation_and_footer_never_reach_the_chunks(markdown_site):
    kb = make_kb()
    crawling.crawl_site(kb, markdown_site.url("/install.html"), max_depth=1, max_pages=4, use_sitemap=False)
    contents = list(Chunk.objects.filter(knowledge_base=kb).values_list("content", flat=True))
    assert contents
    text = "\n".join(contents)
    assert "pip install markdown" in text  # the page's own content
    for chrome in ("Copyright", "related navigation", "Table Of Contents", "Python-Markdown 3.4.1 documentation »",
                   "Quick search", "previous |", "Edit on GitHub"):
        assert chrome not in text, chrome


def test_politeness_delay_is_observed_on_the_server(markdown_site, settings):
    settings.CRAWLER = {**settings.CRAWLER, "DELAY_SECONDS": 0.3}
    crawling.crawl_site(make_kb(), markdown_site.url("/index.html"), max_pages=4)
    times = [request.at for request in markdown_site.log]
    assert len(times) >= 6  # robots.txt, 4 pages, sitemap.xml
    gaps = [later - earlier for earlier, later in pairwise(times)]
    assert min(gaps) >= 0.3, gaps


def test_a_longer_robots_crawl_delay_is_honoured(site_server):
    site = site_server("flask-docs", robots_txt="User-agent: *\nCrawl-delay: 0.5\nDisallow: /_sources/\n")
    crawling.crawl_site(make_kb(), site.url("/installation.html"), max_pages=3, use_sitemap=False)
    gaps = [later.at - earlier.at for earlier, later in pairwise(site.log)]
    assert len(gaps) == 3 and min(gaps) >= 0.5, gaps


def test_failures_are_reported_per_page_and_never_stop_the_crawl(flask_site, settings):
    settings.CRAWLER = {**settings.CRAWLER, "TIMEOUT_SECONDS": 0.5, "MAX_HTML_BYTES": 200_000}
    kb = make_kb()
    report = crawling.crawl_site(kb, flask_site.url("/_test/hub.html"), max_depth=1)
    reasons = {failure["item"].removeprefix(flask_site.base_url): failure["reason"] for failure in report.failures}
    assert reasons == {
        "/_test/missing.html": "HTTP 404 Not Found",
        "/_test/error.html": "HTTP 500 Internal Server Error",
        "/_test/slow.html": "Timed out after 0.5 s (ReadTimeout)",
        "/_test/huge.html": "The response is larger than the 200,000 bytes limit",
        "/_test/loop-a": reasons["/_test/loop-a"],
        "/_test/image.html": "Content type image/png is neither HTML nor a supported document",
        "/_test/lying.html": "Served as text/html but the content is a PNG image",
        "/_test/empty.html": "No text left after removing navigation and boilerplate",
    }
    assert reasons["/_test/loop-a"].startswith("Redirect loop:")
    counters = report.counters()
    assert {name: counters[name] for name in ("http_4xx", "http_5xx", "too_large", "unsupported", "empty",
                                              "blocked_address", "redirect_error", "failed")} == {
        "http_4xx": 1, "http_5xx": 1, "too_large": 1, "unsupported": 2, "empty": 1, "blocked_address": 0,
        "redirect_error": 1, "failed": 8}
    # The hub and the page behind the redirect were ingested despite all that.
    assert report.ingested == 2
    assert set(Document.objects.filter(knowledge_base=kb).values_list("source_uri", flat=True)) == {
        flask_site.url("/_test/hub.html"), flask_site.url("/_test/moved/index.html")}
    failed = CrawledPage.objects.get(knowledge_base=kb, url=flask_site.url("/_test/missing.html"))
    assert (failed.status, failed.http_status) == ("failed", 404)


def test_a_redirect_off_the_site_is_skipped_like_an_off_site_link(flask_site):
    report = crawling.crawl_site(make_kb(), flask_site.url("/_test/redirects-out.html"), max_depth=1)
    assert (report.failed, report.blocked_address, report.skipped_by_rule, report.ingested) == (0, 0, 2, 1)
    assert {"item": flask_site.url("/_test/to-private"), "reason": "Redirects outside the site, to http://10.0.0.1/admin/",
            "kind": "skipped_by_rule"} in report.skipped
    assert "/_test/to-metadata" in flask_site.page_paths()  # the hop itself was never requested (no such server)


def test_a_redirect_to_a_private_address_fails_when_other_sites_are_followed(flask_site):
    kb = make_kb()
    report = crawling.crawl_site(kb, flask_site.url("/_test/redirects-out.html"), max_depth=1, same_domain=False,
                                 use_sitemap=False)
    reasons = {failure["item"].removeprefix(flask_site.base_url): failure["reason"] for failure in report.failures}
    assert set(reasons) == {"/_test/to-metadata", "/_test/to-private"}
    assert "169.254.169.254: a cloud metadata address" in reasons["/_test/to-metadata"]
    assert "10.0.0.1: a private address" in reasons["/_test/to-private"]
    assert (report.blocked_address, report.skipped_by_rule, report.ingested) == (2, 0, 1)
    assert CrawledPage.objects.get(url=flask_site.url("/_test/to-private")).status == CrawledPage.Status.FAILED


def test_generated_index_and_search_pages_are_followed_not_indexed(flask_site):
    kb = make_kb()
    report = crawling.crawl_site(kb, flask_site.url("/404.html"), max_depth=1, max_pages=40)
    # Fetched all the same, after the content page the seed links.
    assert flask_site.page_paths()[:2] == ["/404.html", "/index.html"]
    assert {"/genindex.html", "/py-modindex.html", "/search.html"} <= set(flask_site.page_paths())
    skipped = {skip["item"].removeprefix(flask_site.base_url): skip["reason"] for skip in report.skipped}
    assert skipped["/genindex.html"] == skipped["/py-modindex.html"] == (
        "A generated index of the site's pages (almost all links): not indexed, its links followed")
    assert skipped["/search.html"] == "The site's search page: not indexed"
    uris = set(Document.objects.filter(knowledge_base=kb).values_list("source_uri", flat=True))
    assert flask_site.url("/index.html") in uris and len(uris) == report.ingested
    assert not {flask_site.url(path) for path in ("/genindex.html", "/py-modindex.html", "/search.html")} & uris
    assert report.failed == 0


def test_an_index_page_indexed_before_loses_its_document(flask_site):
    kb = make_kb()
    flask_site.overrides["/genindex.html"] = b"<html><body><h1>Index</h1><p>The index is being rebuilt.</p></html>"
    crawling.crawl_site(kb, flask_site.url("/genindex.html"), max_depth=0)
    assert Document.objects.filter(knowledge_base=kb, source_uri=flask_site.url("/genindex.html")).exists()
    del flask_site.overrides["/genindex.html"]  # the page is the generated index again
    report = crawling.crawl_site(kb, flask_site.url("/genindex.html"), max_depth=0)
    assert (report.removed, report.ingested) == (1, 0)
    assert flask_site.url("/genindex.html") in {skip["item"] for skip in report.skipped}
    assert not Document.objects.filter(knowledge_base=kb).exists()
    assert CrawledPage.objects.get(knowledge_base=kb).status == CrawledPage.Status.GONE


def test_a_page_that_asks_not_to_be_indexed_since_loses_its_document(flask_site):
    kb = make_kb()
    crawling.crawl_site(kb, flask_site.url("/quickstart.html"), max_depth=0)
    assert Document.objects.filter(knowledge_base=kb).count() == 1
    flask_site.overrides["/quickstart.html"] = (b'<html><head><meta name="robots" content="noindex"></head>'
                                                b"<body><h1>Quickstart</h1><p>Moved to the new guide.</p></html>")
    report = crawling.crawl_site(kb, flask_site.url("/quickstart.html"), max_depth=0)
    assert (report.removed, report.ingested) == (1, 0)
    assert not Document.objects.filter(knowledge_base=kb).exists()
    assert CrawledPage.objects.get(knowledge_base=kb).status == CrawledPage.Status.GONE


def test_the_same_page_under_two_urls_is_ingested_once(flask_site):
    kb = make_kb()
    report = crawling.crawl_site(kb, flask_site.url("/_test/twins/quickstart.html"), max_depth=1)
    assert set(flask_site.page_paths()) == {"/_test/twins/quickstart.html", "/quickstart.html",
                                            "/_test/mirror/quickstart.html"}
    assert (report.ingested, report.duplicate) == (2, 1)
    twin = CrawledPage.objects.get(knowledge_base=kb, url=flask_site.url("/_test/mirror/quickstart.html"))
    assert twin.status == CrawledPage.Status.DUPLICATE
    assert twin.document.source_uri == flask_site.url("/quickstart.html")


def test_a_canonical_url_names_the_document(markdown_site):
    kb = make_kb()
    report = crawling.crawl_site(kb, markdown_site.url("/_test/twins/install.html"), max_depth=1, use_sitemap=False)
    mirror = CrawledPage.objects.get(knowledge_base=kb, url=markdown_site.url("/_test/mirror/install.html"))
    # The snapshot's canonical link names https://Python-Markdown.github.io/, mapped to the local server.
    assert mirror.canonical_url == markdown_site.url("/install.html")
    assert (report.ingested, report.duplicate) == (2, 1)
    assert Document.objects.filter(knowledge_base=kb, source_uri=markdown_site.url("/install.html")).count() == 1


def test_the_page_a_canonical_url_names_owns_its_document_even_when_reached_last(markdown_site):
    kb = make_kb()
    report = crawling.crawl_site(kb, markdown_site.url("/_test/twins-mirror-first/install.html"), max_depth=1,
                                 use_sitemap=False)
    assert markdown_site.page_paths()[1:] == ["/_test/mirror/install.html", "/install.html"]
    assert (report.ingested, report.unchanged, report.duplicate) == (2, 1, 0)
    original = CrawledPage.objects.get(knowledge_base=kb, url=markdown_site.url("/install.html"))
    assert original.status == CrawledPage.Status.INDEXED
    assert original.document.source_uri == markdown_site.url("/install.html")


def test_sitemap_urls_are_crawled_with_their_lastmod(markdown_site):
    kb = make_kb()
    report = crawling.crawl_site(kb, markdown_site.url("/authors.html"), max_depth=1, max_pages=3)
    assert "/sitemap.xml" in markdown_site.paths()  # named in robots.txt
    linked = local_links("python-markdown-docs", "authors.html", markdown_site.base_url)
    assert report.queued >= 39 > len(linked)  # 40 sitemap URLs, less the one robots.txt disallows
    page = CrawledPage.objects.get(knowledge_base=kb, url=markdown_site.url("/authors.html"))
    assert page.sitemap_lastmod.isoformat() == "2026-05-20T00:00:00+00:00"


@pytest.mark.parametrize("conditional", [True, False], ids=["etag", "content-hash"])
def test_a_recrawl_reindexes_only_the_changed_page_and_removes_the_gone_one(site_server, conditional):
    site = site_server("python-markdown-docs", rewrite={"https://Python-Markdown.github.io": "{base}"},
                       conditional=conditional)
    kb = make_kb()
    options = {"max_depth": 1, "use_sitemap": False}
    first = crawling.crawl_site(kb, site.url("/extensions/index.html"), **options)
    assert first.failed == 0 and first.ingested >= 10
    before = dict(Document.objects.filter(knowledge_base=kb).values_list("source_uri", "ingested_at"))

    original = (SITES / "python-markdown-docs/extensions/tables.html").read_text()
    site.overrides["/extensions/tables.html"] = original.replace(
        "<h1 id=\"tables\">", "<p>Tables now support alignment rows.</p><h1 id=\"tables\">").encode()
    site.gone.add("/extensions/toc.html")
    site.log.clear()
    second = crawling.crawl_site(kb, site.url("/extensions/index.html"), **options)

    assert (second.ingested, second.removed, second.http_4xx) == (1, 1, 1)
    assert second.unchanged == first.ingested - 2
    after = dict(Document.objects.filter(knowledge_base=kb).values_list("source_uri", "ingested_at"))
    changed = {uri for uri in after if after[uri] != before[uri]}
    assert changed == {site.url("/extensions/tables.html")}
    assert set(before) - set(after) == {site.url("/extensions/toc.html")}
    assert Chunk.objects.filter(knowledge_base=kb, content__contains="alignment rows").exists()
    sent_validators = [r for r in site.log if "If-None-Match" in r.headers]
    assert bool(sent_validators) and len(sent_validators) == first.ingested


def test_a_recrawl_after_a_parser_change_reads_every_page_anew(site_server, monkeypatch):
    # A new parser (PARSER_VERSION) marks documents for re-indexing, but a crawled page's HTML is not kept: its
    # conditional request got a 304 ("Not modified since the last crawl") and the page kept the old parser's text.
    site = site_server("python-markdown-docs", rewrite={"https://Python-Markdown.github.io": "{base}"})
    kb = make_kb()
    options = {"max_depth": 1, "use_sitemap": False}
    first = crawling.crawl_site(kb, site.url("/extensions/index.html"), **options)
    monkeypatch.setattr(parsing, "PARSER_VERSION", f"{parsing.PARSER_VERSION}-next")
    site.log.clear()
    second = crawling.crawl_site(kb, site.url("/extensions/index.html"), **options)
    assert not [r for r in site.log if "If-None-Match" in r.headers]
    assert (second.ingested, second.unchanged) == (first.ingested, 0)
    assert set(Document.objects.filter(knowledge_base=kb).values_list("config_signature", flat=True)) == {
        config_signature(kb)}
    site.log.clear()
    third = crawling.crawl_site(kb, site.url("/extensions/index.html"), **options)
    assert (third.ingested, third.unchanged) == (0, first.ingested)  # and conditional again
    assert len([r for r in site.log if "If-None-Match" in r.headers]) == first.ingested

def test_a_known_page_no_longer_linked_is_revisited(flask_site):
    kb = make_kb()
    crawling.crawl_site(kb, flask_site.url("/installation.html"), max_depth=1)
    page = (SITES / "flask-docs/installation.html").read_text()
    flask_site.overrides["/installation.html"] = page.replace('href="signals.html', 'href="#').encode()
    flask_site.gone.add("/signals.html")
    flask_site.log.clear()
    report = crawling.crawl_site(kb, flask_site.url("/installation.html"), max_depth=1)
    assert flask_site.page_paths()[-1] == "/signals.html"  # after the links ran out
    assert (report.ingested, report.removed) == (0, 1)  # the link's text is still there: same text
    assert not Document.objects.filter(source_uri=flask_site.url("/signals.html")).exists()
    assert CrawledPage.objects.get(url=flask_site.url("/signals.html")).status == CrawledPage.Status.GONE


def test_a_page_another_job_stored_meanwhile_is_updated_not_a_failed_crawl():
    # A crawl holds the pages it knew when it started; "Add URL" of one of its pages stores the row
    # first. The crawl's fetch of that page then updates the row instead of failing on its URL.
    kb = make_kb()
    url = "https://docs.example.com/guide/"
    added = CrawledPage.objects.create(knowledge_base=kb, url=url, seed_url=url)
    crawls = CrawledPage(knowledge_base=kb, url=url, seed_url="https://docs.example.com/", depth=1)
    crawls.record_fetch(final_url=url, http_status=200, content_type="text/html", etag='"v2"', last_modified="",
                        status=CrawledPage.Status.INDEXED, document=None, content_sha256="ab" * 32,
                        canonical_url=url, links=["https://docs.example.com/next/"])
    [page] = CrawledPage.objects.filter(knowledge_base=kb, url=url)
    assert (page.pk, crawls.pk, page.etag, page.links) == (added.pk, added.pk, '"v2"', ["https://docs.example.com/next/"])
    again = CrawledPage(knowledge_base=kb, url=url, seed_url=url)
    again.mark_failed("HTTP 503 Service Unavailable", http_status=503)
    page.refresh_from_db()
    assert (CrawledPage.objects.filter(knowledge_base=kb).count(), page.http_status) == (1, 503)


def test_a_page_that_becomes_a_copy_of_another_stops_serving_its_old_text(markdown_site):
    kb = make_kb()
    options = {"max_depth": 1, "use_sitemap": False}
    crawling.crawl_site(kb, markdown_site.url("/extensions/index.html"), **options)
    extra = Document.objects.get(knowledge_base=kb, source_uri=markdown_site.url("/extensions/extra.html"))
    # The page now holds another page's text (a copy, the site's editors' mistake): a duplicate.
    markdown_site.overrides["/extensions/extra.html"] = (SITES / "python-markdown-docs/extensions/tables.html"
                                                         ).read_bytes()
    crawling.crawl_site(kb, markdown_site.url("/extensions/index.html"), **options)
    page = CrawledPage.objects.get(knowledge_base=kb, url=markdown_site.url("/extensions/extra.html"))
    tables = Document.objects.get(knowledge_base=kb, source_uri=markdown_site.url("/extensions/tables.html"))
    assert page.document == tables  # the copy names the tables page as its own (canonical URL)
    assert not Document.objects.filter(pk=extra.pk).exists()  # its old text is no longer searchable
