import pytest

from crawler import urlnorm
from crawler.exceptions import InvalidURLError
from crawler.fetching import DOCUMENT_TYPES
from knowledge.indexing.parsing import SUPPORTED_EXTENSIONS


@pytest.mark.parametrize(("raw", "normal"), [
    ("HTTP://Example.COM:80/a/./b/../c.html#part", "http://example.com/a/c.html"),
    ("https://example.com:443", "https://example.com/"),
    ("https://example.com:8443/x", "https://example.com:8443/x"),
    ("https://example.com/docs/", "https://example.com/docs/"),
    ("https://example.com//a//b", "https://example.com/a/b"),
    ("https://example.com/p?utm_source=x&b=2&fbclid=y&a=1&gclid=z", "https://example.com/p?a=1&b=2"),
    ("https://example.com/%7euser/a%2fb/%c3%a9 x", "https://example.com/~user/a%2Fb/%C3%A9%20x"),
    ("https://пример.рф/путь", "https://xn--e1afmkfd.xn--p1ai/%D0%BF%D1%83%D1%82%D1%8C"),
    ("http://[::1]:8000/a", "http://[::1]:8000/a"),
])
def test_normalize_url(raw, normal):
    assert urlnorm.normalize_url(raw) == normal


def test_relative_links_resolve_against_the_page():
    assert urlnorm.normalize_url("../b.html#x", "https://example.com/a/c/index.html") == "https://example.com/a/b.html"


@pytest.mark.parametrize("raw", ["mailto:a@example.com", "javascript:void(0)", "ftp://example.com/f",
                                 "/relative", "http://", "https://example.com:99999/"])
def test_unfollowable_urls_are_refused(raw):
    with pytest.raises(InvalidURLError):
        urlnorm.normalize_url(raw)
    assert urlnorm.try_normalize(raw) is None


def test_a_trailing_slash_does_not_make_another_page():
    assert urlnorm.url_key("https://example.com/docs/") == urlnorm.url_key("https://example.com/docs")
    assert urlnorm.url_key("https://example.com/") == "https://example.com/"


def test_same_site_ignores_www_and_scheme_but_not_port_or_subdomain():
    assert urlnorm.same_site("https://www.example.com/a", "http://example.com/")
    assert not urlnorm.same_site("https://example.com:8000/a", "https://example.com/")
    assert not urlnorm.same_site("https://docs.example.com/a", "https://example.com/")


def test_file_kinds_by_extension():
    assert urlnorm.is_document_url("https://example.com/files/Manual.PDF")
    assert urlnorm.is_document_url("https://example.com/files/prices.ods")
    assert urlnorm.is_document_url("https://example.com/files/Training.pptx")
    assert not urlnorm.is_asset_url("https://example.com/files/Training.pptx")
    assert urlnorm.is_asset_url("https://example.com/static/logo.png")
    assert not urlnorm.is_asset_url("https://example.com/docs/v1.2")
    assert not urlnorm.is_document_url("https://example.com/docs/page.html")


def test_every_document_the_crawler_follows_is_one_the_parser_reads():
    assert set(urlnorm.DOCUMENT_EXTENSIONS) <= set(SUPPORTED_EXTENSIONS)
    assert set(DOCUMENT_TYPES.values()) <= set(urlnorm.DOCUMENT_EXTENSIONS)
    office = {".pdf", ".docx", ".xlsx", ".xls", ".pptx", ".odt", ".ods", ".odp"}
    # A link to a document is never skipped as an asset (the crawler asks that first).
    assert not set(urlnorm.DOCUMENT_EXTENSIONS) & urlnorm.ASSET_EXTENSIONS
    assert office <= set(urlnorm.DOCUMENT_EXTENSIONS) and office <= set(DOCUMENT_TYPES.values())
