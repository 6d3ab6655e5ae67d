import pytest

from crawler import crawling
from crawler.fetching import Fetcher
from crawler.robots import RobotsCache, parse_robots, product_token
from tests.factories import make_kb

UA = "KnowledgePortalBot/0.1 (+https://example.invalid/bot)"

ROBOTS = """
# a comment
User-agent: OtherBot
Disallow: /

User-agent: knowledgeportalbot
User-agent: AnotherBot
Disallow: /private/
Allow: /private/public/
Disallow: /*.json$
Disallow: /tmp*/cache
Crawl-delay: 2

User-agent: *
Disallow: /everything-for-others/

Sitemap: https://example.com/sitemap.xml
"""


def test_the_product_token_picks_the_group():
    assert product_token(UA) == "knowledgeportalbot"
    rules = parse_robots(ROBOTS, UA)
    assert rules.allows("https://example.com/everything-for-others/x")  # not our group
    assert not rules.allows("https://example.com/private/x")
    assert rules.crawl_delay == 2.0
    assert rules.sitemaps == ["https://example.com/sitemap.xml"]


@pytest.mark.parametrize(("path", "allowed"), [
    ("/private/", False), ("/private/public/page", True), ("/private/publicity", False),
    ("/data.json", False), ("/data.json?x=1", True), ("/tmp1/cache/a", False), ("/tmp/other", True),
    ("/robots.txt", True), ("/", True),
])
def test_longest_match_wins_with_wildcards(path, allowed):
    assert parse_robots(ROBOTS, UA).allows(f"https://example.com{path}") is allowed


def test_allow_wins_a_tie_and_the_star_group_is_the_fallback():
    rules = parse_robots("User-agent: *\nDisallow: /a\nAllow: /a\n", "SomeBot/1.0")
    assert rules.allows("https://example.com/a")
    rules = parse_robots("User-agent: *\nDisallow: /\n", "SomeBot/1.0")
    assert not rules.allows("https://example.com/page")


def test_an_empty_disallow_allows_everything():
    assert parse_robots("User-agent: *\nDisallow:\n", UA).allows("https://example.com/anything")


@pytest.mark.django_db
def test_a_missing_robots_txt_allows_everything(flask_site):
    with Fetcher() as fetcher:  # the Flask snapshot has no robots.txt: 404
        assert RobotsCache(fetcher).allows(flask_site.url("/index.html"))


@pytest.mark.django_db
def test_an_unreachable_robots_txt_disallows_everything(site_server):
    site = site_server("flask-docs", robots_status=503)
    kb = make_kb()
    report = crawling.crawl_site(kb, site.url("/index.html"))
    assert site.paths() == ["/robots.txt"]
    assert (report.fetched, report.blocked_by_robots) == (0, 1)


@pytest.mark.django_db
def test_robots_txt_is_fetched_once_per_origin(markdown_site):
    with Fetcher() as fetcher:
        robots = RobotsCache(fetcher)
        for path in ("/index.html", "/search/x", "/install.html"):
            robots.allows(markdown_site.url(path))
    with Fetcher() as fetcher:  # a later crawl reads it from the shared cache
        assert not RobotsCache(fetcher).allows(markdown_site.url("/search/x"))
    assert markdown_site.paths() == ["/robots.txt"]


@pytest.mark.django_db
def test_a_huge_crawl_delay_is_capped(site_server, settings):
    settings.CRAWLER = {**settings.CRAWLER, "MAX_ROBOTS_DELAY_SECONDS": 0.3}
    site = site_server("flask-docs", robots_txt="User-agent: *\nCrawl-delay: 3600\n")
    with Fetcher() as fetcher:
        RobotsCache(fetcher).allows(site.url("/index.html"))
    assert fetcher.host_delays == {site.base_url.removeprefix("http://"): 0.3}
