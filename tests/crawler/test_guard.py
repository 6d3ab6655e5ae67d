import ipaddress

import pytest
from httpcore import ConnectError

from crawler import crawling, guard
from crawler.exceptions import BlockedAddressError
from crawler.fetching import Fetcher
from knowledge.models import Document
from tests.factories import make_kb


@pytest.mark.parametrize(("address", "reason"), [
    ("127.0.0.1", "loopback"), ("::1", "loopback"), ("10.1.2.3", "private"), ("172.16.0.1", "private"),
    ("192.168.1.1", "private"), ("fd12::1", "private"), ("169.254.169.254", "metadata"), ("fe80::1", "link-local"),
    ("169.254.10.10", "link-local"), ("100.64.1.1", "carrier-grade NAT"), ("100.100.100.200", "metadata"),
    ("224.0.0.1", "multicast"), ("0.0.0.0", "unspecified"), ("240.0.0.1", "reserved"),
    ("::ffff:10.0.0.1", "private"),
])
def test_non_public_addresses_are_refused(address, reason):
    assert reason in guard.refusal(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["8.8.8.8", "2001:4860:4860::8888", "1.1.1.1"])
def test_public_addresses_pass(address):
    assert guard.refusal(ipaddress.ip_address(address)) == ""


def test_host_names_are_checked_after_dns_resolution():
    with pytest.raises(BlockedAddressError, match=r"localhost: it resolves to a loopback address") as refused:
        guard.resolve("localhost", 80, guard.AllowList([]))
    # Which internal address the name has is not told to whoever asked for the URL.
    assert "127.0.0.1" not in str(refused.value) and "::1" not in str(refused.value)


def test_a_host_name_that_does_not_resolve_is_said_in_words_not_an_errno():
    # .invalid never resolves (RFC 2606); the resolver answers at once.
    with pytest.raises(ConnectError) as failed:
        guard.resolve("portal-test.invalid", 443, guard.AllowList([]))
    assert str(failed.value).startswith("cannot resolve portal-test.invalid: ")
    assert "Errno" not in str(failed.value)


@pytest.mark.parametrize("entry", ["127.0.0.1", "127.0.0.0/8", "localhost"])
def test_the_allow_list_takes_addresses_networks_and_host_names(entry):
    assert "127.0.0.1" in guard.resolve("localhost", 80, guard.AllowList([entry, "::1"]))


def test_a_metadata_address_needs_an_exact_allow_list_entry():
    with pytest.raises(BlockedAddressError, match="metadata"):
        guard.resolve("169.254.169.254", 80, guard.AllowList(["169.254.0.0/16"]))
    assert guard.resolve("169.254.169.254", 80, guard.AllowList(["169.254.169.254"])) == ["169.254.169.254"]


@pytest.mark.django_db
def test_every_connection_goes_through_the_guard(markdown_site, settings):
    settings.CRAWLER = {**settings.CRAWLER, "ALLOWED_HOSTS": []}
    with Fetcher() as fetcher, pytest.raises(BlockedAddressError, match="loopback"):
        fetcher.get(markdown_site.url("/index.html"))
    assert markdown_site.log == []  # refused before connecting


@pytest.mark.django_db
def test_ingest_url_refuses_a_private_host_unless_allowed(markdown_site, settings):
    settings.CRAWLER = {**settings.CRAWLER, "ALLOWED_HOSTS": []}
    kb = make_kb()
    url = markdown_site.url("/install.html").replace("127.0.0.1", "localhost")
    with pytest.raises(BlockedAddressError, match="PORTAL_CRAWLER_ALLOWED_HOSTS .* restarting"):
        crawling.ingest_url(kb, url)
    assert markdown_site.log == []
    result = crawling.ingest_url(kb, url, allow_hosts=["127.0.0.1", "::1"])
    assert result.outcome == "created"
    assert result.document.source_kind == Document.SourceKind.URL


@pytest.mark.django_db
def test_a_redirect_to_the_metadata_address_is_refused(markdown_site):
    kb = make_kb()
    with pytest.raises(BlockedAddressError, match="169.254.169.254: a cloud metadata address"):
        crawling.ingest_url(kb, markdown_site.url("/_test/to-metadata"))
    assert not Document.objects.filter(knowledge_base=kb).exists()
