"""Fetching against the local site: redirects, errors, timeouts, limits and content checks."""

import pytest

from crawler import crawling
from crawler.exceptions import (
    FetchError,
    HTTPStatusError,
    RedirectError,
    SkipError,
    TooLargeError,
    UnsupportedContentError,
)
from crawler.fetching import Fetcher
from crawler.models import CrawledPage
from knowledge.models import Document
from tests.crawler.conftest import SITES, SMALL_PDF
from tests.factories import make_kb

pytestmark = pytest.mark.django_db


def test_a_redirect_is_followed_and_the_page_is_stored_under_where_it_ended(flask_site):
    kb = make_kb()
    result = crawling.ingest_url(kb, flask_site.url("/_test/redirect"))
    assert result.outcome == "created"
    assert result.document.source_uri == flask_site.url("/_test/moved/index.html")
    page = CrawledPage.objects.get(knowledge_base=kb)
    assert (page.url, page.final_url) == (flask_site.url("/_test/redirect"), flask_site.url("/_test/moved/index.html"))
    assert flask_site.page_paths() == ["/_test/redirect", "/_test/moved/index.html"]


def test_a_redirect_loop_is_detected(flask_site):
    with Fetcher() as fetcher, pytest.raises(RedirectError, match="Redirect loop: .*loop-a → .*loop-b → .*loop-a"):
        fetcher.get(flask_site.url("/_test/loop-a"))


def test_too_many_redirects(flask_site, settings):
    settings.CRAWLER = {**settings.CRAWLER, "MAX_REDIRECTS": 0}
    with Fetcher() as fetcher, pytest.raises(RedirectError, match="More than 0 redirects"):
        fetcher.get(flask_site.url("/_test/redirect"))


@pytest.mark.parametrize(("path", "status", "kind"), [("/_test/missing.html", 404, "http_4xx"),
                                                      ("/_test/error.html", 500, "http_5xx")])
def test_http_errors_carry_their_status(flask_site, path, status, kind):
    with Fetcher() as fetcher, pytest.raises(HTTPStatusError) as caught:
        fetcher.get(flask_site.url(path))
    assert (caught.value.status, caught.value.kind) == (status, kind)


def test_a_404_from_ingest_url_is_a_failed_document_with_the_reason(flask_site):
    kb = make_kb()
    result = crawling.ingest_url(kb, flask_site.url("/_test/missing.html"))
    assert result.outcome == "failed"
    assert result.document.status == Document.Status.ERROR
    assert "HTTP 404" in result.document.error_message


def test_a_slow_page_times_out(flask_site, settings):
    settings.CRAWLER = {**settings.CRAWLER, "TIMEOUT_SECONDS": 0.5}
    with Fetcher() as fetcher, pytest.raises(FetchError, match="Timed out after 0.5 s"):
        fetcher.get(flask_site.url("/_test/slow.html"))


def test_an_oversized_page_is_abandoned_while_streaming(flask_site, settings):
    settings.CRAWLER = {**settings.CRAWLER, "MAX_HTML_BYTES": 100_000}
    with Fetcher() as fetcher, pytest.raises(TooLargeError, match="larger than the 100,000 bytes limit"):
        fetcher.get(flask_site.url("/_test/huge.html"))


def test_a_declared_length_over_the_limit_is_refused_before_reading(flask_site, settings):
    settings.CRAWLER = {**settings.CRAWLER, "MAX_HTML_BYTES": 10_000}
    size = (SITES / "flask-docs" / "quickstart.html").stat().st_size
    with Fetcher() as fetcher, pytest.raises(TooLargeError, match=f"is {size:,} bytes; the limit is 10,000 bytes"):
        fetcher.get(flask_site.url("/quickstart.html"))


@pytest.mark.parametrize(("path", "message"), [
    ("/_test/image.html", "Content type image/png is neither HTML nor a supported document"),
    ("/_test/lying.html", "Served as text/html but the content is a PNG image"),
])
def test_non_html_content_under_an_html_name_is_refused(flask_site, path, message):
    with Fetcher() as fetcher, pytest.raises(UnsupportedContentError, match=message):
        fetcher.get(flask_site.url(path))


def test_documents_are_skipped_when_not_wanted(flask_site):
    with Fetcher() as fetcher, pytest.raises(SkipError, match="document links are not followed"):
        fetcher.get(flask_site.url(f"/_test/files/{SMALL_PDF}"), documents=False)


def test_conditional_requests_get_304(flask_site):
    with Fetcher() as fetcher:
        first = fetcher.get(flask_site.url("/quickstart.html"))
        again = fetcher.get(flask_site.url("/quickstart.html"), headers={"If-None-Match": first.etag})
    assert first.status == 200 and first.etag and first.last_modified
    assert again.not_modified and again.body == b""


def test_the_user_agent_identifies_the_crawler(flask_site, settings):
    settings.CRAWLER = {**settings.CRAWLER, "USER_AGENT": "AcmeDocsBot/2.0 (+https://acme.example/bot)"}
    with Fetcher() as fetcher:
        fetcher.get(flask_site.url("/quickstart.html"))
    assert flask_site.log[0].headers["User-Agent"] == "AcmeDocsBot/2.0 (+https://acme.example/bot)"


def test_ingest_url_of_a_document_uses_the_shared_parsers(flask_site):
    kb = make_kb()
    url = flask_site.url(f"/_test/files/{SMALL_PDF}")
    result = crawling.ingest_url(kb, url)
    assert result.outcome == "created", result.error
    document = result.document
    assert (document.source_kind, document.source_uri, document.mime) == ("url", url, "application/pdf")
    assert document.chunks.exclude(page=None).exists()  # page numbers kept for citations
    assert crawling.ingest_url(kb, url).outcome == "unchanged"
    assert flask_site.log[-1].headers.get("If-None-Match")  # the second fetch was conditional


def test_ingest_url_of_an_image_reads_it_with_ocr_like_an_upload(flask_site, settings):
    kb = make_kb()
    url = flask_site.url("/_images/flaskr_login.png")
    result = crawling.ingest_url(kb, url)
    assert result.outcome == "created", result.error
    document = Document.objects.get(pk=result.document.pk)
    assert (document.source_kind, document.source_uri, document.mime, document.status) == (
        "url", url, "image/png", "ready")
    assert "Username" in document.text and "Password" in document.text
    # Within the crawler's document size limit, as any fetched file.
    settings.CRAWLER = {**settings.CRAWLER, "MAX_DOCUMENT_BYTES": 4096}
    big = crawling.ingest_url(kb, flask_site.url("/_images/flaskr_edit.png"))
    assert (big.outcome, big.error) == ("failed", "The response is 13,259 bytes; the limit is 4,096 bytes")


def test_a_crawl_still_leaves_images_alone(flask_site):
    with Fetcher() as fetcher, pytest.raises(UnsupportedContentError, match="image/png is neither HTML"):
        fetcher.get(flask_site.url("/_test/image.html"))  # a crawl's fetch: no images
