"""The crawl report: every URL a crawl met with its outcome and reason, in the admin and the API."""

import re

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse

from crawler import guard, jobs
from crawler.exceptions import BlockedAddressError
from crawler.models import CrawlUrl
from knowledge.models import Job
from tests.api.base import make_key
from tests.factories import make_kb
from tests.i18n.helpers import english_words, visible_text

pytestmark = pytest.mark.django_db


def outcomes(job) -> dict[str, str]:
    return dict(CrawlUrl.objects.filter(job=job).values_list("url", "outcome"))


def test_every_url_met_is_reported_with_its_outcome_and_reason(flask_site, django_capture_on_commit_callbacks):
    kb = make_kb()
    with django_capture_on_commit_callbacks(execute=True):
        job = jobs.start_crawl(kb, flask_site.url("/_test/hub.html"), max_depth=1, max_pages=20)
    report = outcomes(job)
    assert report[flask_site.url("/_test/hub.html")] == "fetched"
    assert report[flask_site.url("/_test/missing.html")] == "failed"
    assert report[flask_site.url("/_test/image.html")] == "not_html"
    assert report[flask_site.url("/_test/to-metadata")] == "off_site"  # a redirect to another site
    assert report["https://github.com/pallets/flask/"] == "off_site"
    assert report[flask_site.url("/_test/moved/quickstart.html")] == "rule"
    line = CrawlUrl.objects.get(job=job, url=flask_site.url("/_test/missing.html"))
    assert (line.reason, line.depth) == ("HTTP 404 Not Found", 1)
    assert CrawlUrl.objects.get(job=job, url=flask_site.url("/_test/moved/quickstart.html")).reason == \
        "Deeper than max_depth=1"
    job.refresh_from_db()
    skipped = job.counters["skipped_by_rule"]
    assert CrawlUrl.objects.filter(job=job, outcome__in=["off_site", "rule"]).count() == skipped
    assert (job.progress_done, job.progress_total, job.current_item) == (11, 11, "")


def test_urls_left_by_the_page_budget_are_reported_and_the_total_never_shrinks(markdown_site,
                                                                            django_capture_on_commit_callbacks):
    kb = make_kb()
    totals = []
    job = jobs.create_crawl_job(kb, markdown_site.url("/index.html"), max_depth=1, max_pages=5)
    assert job.progress_total == 0  # unknown until the crawl finds pages, not max_pages
    jobs.run_crawl(job, progress=lambda report: totals.append(Job.objects.get(pk=job.pk).progress_total))
    assert totals == sorted(totals) and totals[-1] == 5
    report = outcomes(job)
    # Content first: sitemap.html, by its name a generated index, waits for it and the budget runs out.
    assert list(report.values()).count("fetched") == 5
    assert list(CrawlUrl.objects.filter(job=job, url=markdown_site.url("/sitemap.html")).values_list(
        "outcome", "reason")) == [("rule", "Not fetched: max_pages=5 reached")]
    assert report[markdown_site.url("/change_log/release-2.0.html")] == "robots"
    budget = CrawlUrl.objects.filter(job=job, reason="Not fetched: max_pages=5 reached")
    assert budget.exists() and set(budget.values_list("outcome", flat=True)) == {"rule"}


def test_a_refused_address_names_the_setting_and_the_restart(crawler_settings):
    crawler_settings.CRAWLER = {**crawler_settings.CRAWLER, "ALLOWED_HOSTS": []}
    with pytest.raises(BlockedAddressError) as refused:
        guard.check_url("http://127.0.0.1:8000/")
    message = str(refused.value)
    assert "PORTAL_CRAWLER_ALLOWED_HOSTS" in message and "restarting" in message
    assert "CRAWLER['ALLOWED_HOSTS']" not in message


@pytest.fixture
def crawl_job(flask_site, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        return jobs.start_crawl(make_kb(), flask_site.url("/_test/hub.html"), max_depth=1, max_pages=20)


def test_the_admin_report_lists_and_filters_urls(client, crawl_job):
    viewer = User.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.set(Permission.objects.filter(codename="view_job"))
    client.force_login(viewer)
    url = reverse("admin:crawler_crawledpage_report", args=[crawl_job.pk])
    page = client.get(url).content.decode()
    assert "Skipped: off-site" in page and "HTTP 404 Not Found" in page
    filtered = client.get(url, {"outcome": "off_site"}).content.decode()
    assert "github.com/pallets/flask/" in filtered and "HTTP 404 Not Found" not in filtered
    job_page = reverse("admin:knowledge_job_change", args=[crawl_job.pk])
    assert client.get(job_page).status_code == 200
    outsider = User.objects.create_user("outsider", password="pw", is_staff=True)
    client.force_login(outsider)
    assert client.get(url).status_code == 403


def test_the_report_reads_in_the_admins_language(admin_client, crawl_job):
    """The crawl wrote its reasons in the portal's language (English here); a Russian admin reads
    them in Russian, the values (max_depth, the status line) kept, and no English reason left."""
    admin_client.cookies["django_language"] = "ru"
    page = admin_client.get(reverse("admin:crawler_crawledpage_report", args=[crawl_job.pk])).content.decode()
    assert "Глубже, чем max_depth=1" in page
    assert "HTTP 404 Not Found" in page  # the server's words stay as they were
    for english in ("Deeper than", "Outside the site", "Not a page or a supported document", "Refused to connect"):
        assert english not in page
    # Around the data (URLs, the servers' own status lines, setting names), nothing of the portal's in English.
    text = re.sub(r"https?://\S+|HTTP \d{3}( [A-Z][a-z]+)*|\b\w+_\w+\b", " ", visible_text(page))
    assert english_words(text) == [], text
    stored = CrawlUrl.objects.filter(job=crawl_job, reason__startswith="Deeper than max_depth=1")
    assert stored.exists()  # the database keeps the words as written


def test_the_api_lists_the_report_by_outcome(client, crawl_job):
    _, token = make_key(scopes=["read"])
    headers = {"Authorization": f"Bearer {token}"}
    body = client.get(f"/api/v1/crawls/{crawl_job.pk}/urls", {"outcome": "failed"}, headers=headers).json()
    assert {item["outcome_label"] for item in body["items"]} == {"Failed"}
    assert {"url": crawl_job.options["seed_url"].replace("hub.html", "missing.html"), "depth": 1,
            "outcome": "failed", "reason": "HTTP 404 Not Found", "outcome_label": "Failed"} in body["items"]
    russian = client.get(f"/api/v1/crawls/{crawl_job.pk}/urls", {"outcome": "off_site"},
                         headers={**headers, "Accept-Language": "ru"}).json()
    assert {item["reason"] for item in russian["items"]} == {
        "За пределами сайта", "Перенаправляет за пределы сайта, на http://169.254.169.254/latest/meta-data/"}
    assert client.get(f"/api/v1/crawls/{crawl_job.pk}/urls", {"outcome": "nope"}, headers=headers).status_code == 422
    assert client.get(f"/api/v1/crawls/{crawl_job.pk}/urls").status_code == 401
