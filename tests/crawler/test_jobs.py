"""Crawls as jobs: start, progress and failures on the job, cancellation, the `crawl` command."""

from datetime import timedelta
from io import StringIO

import pytest
from django.conf import settings as django_settings
from django.core.management import CommandError, call_command
from django.utils import timezone

from crawler import jobs
from crawler.exceptions import BlockedAddressError, CrawlerError, InvalidURLError
from knowledge.models import Document, Job
from tests.factories import make_kb

pytestmark = pytest.mark.django_db


def test_start_crawl_queues_a_job_that_records_progress_and_failures(flask_site, django_capture_on_commit_callbacks):
    kb = make_kb()
    with django_capture_on_commit_callbacks(execute=True):
        job = jobs.start_crawl(kb, flask_site.url("/_test/hub.html"), max_depth=1, max_pages=4)
    job.refresh_from_db()
    assert (job.kind, job.status) == (Job.Kind.CRAWL, Job.Status.PARTIAL)  # a 404 among the pages
    assert job.options == {"seed_url": flask_site.url("/_test/hub.html"), "max_pages": 4, "max_depth": 1,
                           "same_domain": True, "follow_docs": False, "respect_robots": True,
                           "use_sitemap": True, "allow_hosts": []}
    assert (job.progress_done, job.progress_total) == (4, 4)
    # hub.html, then redirect (ingested), loop-a (redirect loop) and missing.html (404)
    assert {name: job.counters.get(name) for name in ("fetched", "ingested", "failed", "http_4xx", "redirect_error")} \
        == {"fetched": 4, "ingested": 2, "failed": 2, "http_4xx": 1, "redirect_error": 1}
    assert [failure["item"].removeprefix(flask_site.base_url) for failure in job.failures] == [
        "/_test/loop-a", "/_test/missing.html"]
    assert job.failures[1]["reason"] == "HTTP 404 Not Found"
    assert job.started_at and job.finished_at and job.task_id


def test_a_crawl_stops_between_pages_when_cancelled(flask_site):
    kb = make_kb()
    job = jobs.create_crawl_job(kb, flask_site.url("/index.html"), max_pages=20)

    def cancel_after_two_pages(report):
        if report.fetched == 2:
            Job.objects.get(pk=job.pk).cancel()  # as the admin would, from another process

    jobs.run_crawl(job, progress=cancel_after_two_pages)
    job.refresh_from_db()
    assert job.status == Job.Status.CANCELLED
    assert job.progress_done == 2 and job.counters["fetched"] == 2
    assert len(flask_site.page_paths()) == 2
    # The first link of a Sphinx page is its generated index: it waits for the content pages.
    assert flask_site.page_paths()[1] == "/installation.html"
    assert Document.objects.filter(knowledge_base=kb).count() == job.counters["ingested"] == 2


def test_a_redelivered_crawl_starts_its_counters_over(flask_site):
    kb = make_kb()
    job = jobs.create_crawl_job(kb, flask_site.url("/installation.html"), max_depth=0)
    jobs.run_crawl(job)
    # As if the worker died before marking it finished: running, its heartbeat stale.
    job.status = Job.Status.RUNNING
    job.heartbeat_at = timezone.now() - timedelta(seconds=django_settings.PORTAL["JOB_STALE_SECONDS"] + 1)
    job.save(update_fields=["status", "heartbeat_at"])
    jobs.run_crawl(job)
    job.refresh_from_db()
    assert job.counters["fetched"] == 1 and job.counters["unchanged"] == 1 and "ingested" not in job.counters
    assert job.attempts == 2


@pytest.mark.parametrize(("url", "options", "error", "message"), [
    ("ftp://example.com/", {}, InvalidURLError, "not an absolute http"),
    ("http://169.254.169.254/latest/", {}, BlockedAddressError, "metadata"),
    ("http://10.0.0.1/", {}, BlockedAddressError, "a private address"),
    ("https://example.com/", {"max_pages": 0}, CrawlerError, "max_pages must be between"),
    ("https://example.com/", {"depth": 2}, CrawlerError, "Unknown crawl option"),
])
def test_start_crawl_refuses_bad_requests_up_front(crawler_settings, url, options, error, message):
    with pytest.raises(error, match=message):
        jobs.start_crawl(make_kb(), url, **options)
    assert not Job.objects.exists()


def test_the_crawl_command_prints_the_report(flask_site, settings):
    settings.CRAWLER = {**settings.CRAWLER, "ALLOWED_HOSTS": []}
    kb = make_kb()
    out = StringIO()
    call_command("crawl", kb.slug, flask_site.url("/_test/hub.html"), "--max-pages", "4", "--max-depth", "1",
                 "--allow-host", "127.0.0.1", stdout=out, stderr=StringIO())
    text = out.getvalue()
    assert "Completed with 2 failures" in text
    assert "fetched: 4, ingested: 2," in text
    assert "failed  " + flask_site.url("/_test/missing.html") + ": HTTP 404 Not Found" in text
    job = Job.objects.get(kind=Job.Kind.CRAWL)
    assert job.options["allow_hosts"] == ["127.0.0.1"] and job.status == Job.Status.PARTIAL


def test_the_crawl_command_names_a_missing_base(crawler_settings):
    with pytest.raises(CommandError, match="No knowledge base with slug 'nope'"):
        call_command("crawl", "nope", "https://example.com/", stdout=StringIO())


def test_start_ingest_url_runs_one_url_as_a_job(flask_site, django_capture_on_commit_callbacks):
    kb = make_kb()
    with django_capture_on_commit_callbacks(execute=True):
        job = jobs.start_ingest_url(kb, flask_site.url("/installation.html"))
        missing = jobs.start_ingest_url(kb, flask_site.url("/_test/missing.html"))
    job.refresh_from_db()
    missing.refresh_from_db()
    assert (job.status, job.progress_done, job.counters) == (Job.Status.SUCCEEDED, 1, {"fetched": 1, "ingested": 1})
    document = Document.objects.get(knowledge_base=kb, source_uri=flask_site.url("/installation.html"))
    assert document.source_kind == Document.SourceKind.URL
    assert flask_site.page_paths() == ["/installation.html", "/_test/missing.html"]  # no links, no robots.txt
    assert (missing.status, missing.error_message) == (Job.Status.FAILED, "HTTP 404 Not Found")
    assert missing.failures == [{"item": flask_site.url("/_test/missing.html"), "reason": "HTTP 404 Not Found"}]
    with pytest.raises(BlockedAddressError):
        jobs.start_ingest_url(kb, "http://192.168.0.1/")


def test_a_knowledge_base_recrawl_repeats_its_crawls_and_reindexes_only_changes(
        flask_site, django_capture_on_commit_callbacks):
    kb = make_kb()
    with django_capture_on_commit_callbacks(execute=True):
        jobs.start_crawl(kb, flask_site.url("/installation.html"), max_depth=0)
        jobs.start_crawl(kb, flask_site.url("/extensions.html"), max_depth=1, max_pages=3)
        jobs.start_crawl(kb, flask_site.url("/extensions.html"), max_depth=1, max_pages=2)  # the latest options win
        jobs.start_ingest_url(kb, flask_site.url("/_test/files/pdf/text/pdflatex-4-pages.pdf"))
    flask_site.overrides["/installation.html"] = b"<html><body><h1>Installation</h1><p>pip install flask</p></html>"
    with django_capture_on_commit_callbacks(execute=True):
        recrawls = jobs.start_recrawl(kb)
    assert [job.options["seed_url"].removeprefix(flask_site.base_url) for job in recrawls] == [
        "/installation.html", "/extensions.html", "/_test/files/pdf/text/pdflatex-4-pages.pdf"]
    counters = [Job.objects.get(pk=job.pk).counters for job in recrawls]
    assert [c.get("ingested", 0) for c in counters] == [1, 0, 0]
    assert [c.get("unchanged", 0) for c in counters] == [0, 2, 1]  # extensions.html and cli.html
    assert Job.objects.get(pk=recrawls[1].pk).options["max_pages"] == 2


def test_a_crawl_whose_only_url_is_refused_ends_failed(flask_site, django_capture_on_commit_callbacks):
    kb = make_kb()
    with django_capture_on_commit_callbacks(execute=True):
        # The seed is allowed, but it redirects to the cloud metadata address, which is not.
        job = jobs.start_crawl(kb, flask_site.url("/_test/to-metadata"), max_depth=0, use_sitemap=False)
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert job.error_message.startswith("Nothing was crawled: all 1 URL(s) failed or were refused; the first: ")
    assert "metadata" in job.error_message
    assert not Document.objects.filter(knowledge_base=kb).exists()


@pytest.mark.parametrize(("robots", "reason"), [
    ({"robots_status": 503}, "robots.txt of {base} could not be read (HTTP 503 Service Unavailable), so none of "
                             "the site may be crawled until it can"),
    ({"robots_txt": "User-agent: *\nDisallow: /\n"}, "Disallowed by robots.txt"),
], ids=["unreachable", "disallowed"])
def test_a_crawl_that_fetched_nothing_ends_failed_with_the_reason(site_server, robots, reason,
                                                                   django_capture_on_commit_callbacks):
    site = site_server("flask-docs", **robots)
    kb = make_kb()
    with django_capture_on_commit_callbacks(execute=True):
        job = jobs.start_crawl(kb, site.url("/index.html"))
    job.refresh_from_db()
    assert site.paths() == ["/robots.txt"]
    assert (job.status, job.failures, job.counters["blocked_by_robots"]) == (Job.Status.FAILED, [], 1)
    assert job.error_message == ("Nothing was crawled: all 1 URL(s) failed or were refused; the first: "
                                 + reason.format(base=site.base_url))
    line = job.crawl_urls.get()
    assert (line.outcome, line.reason) == ("robots", reason.format(base=site.base_url))
