from django.core.cache import cache
from django.test import override_settings

from knowledge.models import Document, Job
from tests.api.base import ApiTestCase, make_key
from tests.crawler.conftest import SITES, SiteServer
from tests.factories import make_kb


class CrawlApiTests(ApiTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.site = SiteServer(root=SITES / "flask-docs").start()
        cls.addClassCleanup(cls.site.stop)

    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        cls.other = make_kb()
        cls.key, cls.token = make_key()
        _, cls.reader = make_key(scopes=["read"])
        _, cls.limited = make_key(knowledge_bases=[cls.other])

    def setUp(self):
        from django.conf import settings

        cache.clear()  # robots.txt cached by an earlier test
        crawler = {**settings.CRAWLER, "ALLOWED_HOSTS": ["127.0.0.1"], "DELAY_SECONDS": 0.0, "TIMEOUT_SECONDS": 5.0}
        self.enterContext(override_settings(CRAWLER=crawler))

    def test_launch_then_poll_a_crawl(self):
        with self.captureOnCommitCallbacks(execute=True):
            response = self.api("post", "/crawls", token=self.token,
                                data={"knowledge_base": self.kb.pk, "seed_url": self.site.url("/index.html"),
                                      "max_pages": 3, "max_depth": 1})
        self.assertEqual(response.status_code, 202, response.content)
        body = self.api("get", f"/crawls/{response.json()['id']}", token=self.reader).json()
        self.assertEqual((body["kind"], body["status"], body["options"]["max_pages"]), ("crawl", "succeeded", 3))
        # index.html and two content pages it links: its generated index and search pages wait for them.
        self.assertEqual(Document.objects.filter(knowledge_base=self.kb, status="ready").count(), 3)
        self.assertEqual((body["counters"]["fetched"], body["counters"]["ingested"]), (3, 3))
        listed = self.api("get", f"/crawls?knowledge_base={self.kb.pk}", token=self.reader).json()
        self.assertEqual([item["id"] for item in listed["items"]], [body["id"]])

    def test_a_crawl_that_stored_nothing_is_failed_with_the_reason(self):
        site = SiteServer(root=SITES / "flask-docs", robots_status=503).start()
        self.addCleanup(site.stop)
        with self.captureOnCommitCallbacks(execute=True):
            response = self.api("post", "/crawls", token=self.token,
                                data={"knowledge_base": self.kb.pk, "seed_url": site.url("/index.html")})
        body = self.api("get", f"/crawls/{response.json()['id']}", token=self.reader).json()
        self.assertEqual((body["status"], body["status_label"]), ("failed", "Failed"))
        self.assertIn(f"robots.txt of {site.base_url} could not be read (HTTP 503", body["error_message"])
        self.assertEqual(site.paths(), ["/robots.txt"])

    def test_add_one_url(self):
        with self.captureOnCommitCallbacks(execute=True):
            response = self.api("post", f"/knowledge-bases/{self.kb.pk}/documents/url", token=self.token,
                                data={"url": self.site.url("/quickstart.html")})
        self.assertEqual(response.status_code, 202, response.content)
        self.assertEqual(Job.objects.get(pk=response.json()["id"]).status, "succeeded")
        document = Document.objects.get(knowledge_base=self.kb)
        self.assertEqual(document.status, "ready")
        self.assertIn("quickstart", document.source_uri)

    def test_a_blocked_or_bad_seed_is_refused_with_the_error_shape(self):
        with override_settings(CRAWLER={**self.settings_crawler(), "ALLOWED_HOSTS": []}):
            error = self.assertError(self.api("post", "/crawls", token=self.token,
                                              data={"knowledge_base": self.kb.pk, "seed_url": self.site.url("/")}),
                                     422, "blocked_address_error")
        self.assertIn("127.0.0.1", error["message"])
        error = self.assertError(self.api("post", "/crawls", token=self.token,
                                          data={"knowledge_base": self.kb.pk, "seed_url": "ftp://example.com/",
                                                "max_pages": 0}), 422, "invalid")
        self.assertEqual(sorted(field["field"] for field in error["fields"]), ["max_pages", "seed_url"])
        self.assertFalse(Job.objects.filter(kind="crawl").exists())

    def test_cancel(self):
        job = Job.objects.create(kind=Job.Kind.CRAWL, knowledge_base=self.kb, status=Job.Status.RUNNING)
        self.assertError(self.api("post", f"/crawls/{job.pk}/cancel", token=self.reader), 403, "missing_scope")
        response = self.api("post", f"/crawls/{job.pk}/cancel", token=self.token)
        self.assertEqual((response.status_code, response.json()["cancel_requested"]), (202, True))
        ingest = Job.objects.create(kind=Job.Kind.INGEST, knowledge_base=self.kb)
        self.assertError(self.api("get", f"/crawls/{ingest.pk}", token=self.token), 404)

    def test_cancelling_a_finished_crawl_is_a_conflict(self):
        job = Job.objects.create(kind=Job.Kind.CRAWL, knowledge_base=self.kb, status=Job.Status.SUCCEEDED)
        self.assertError(self.api("post", f"/crawls/{job.pk}/cancel", token=self.token), 409, "job_finished")

    def test_another_bases_crawls_are_404_or_hidden_for_a_limited_key(self):
        job = Job.objects.create(kind=Job.Kind.CRAWL, knowledge_base=self.kb)
        self.assertError(self.api("get", f"/crawls/{job.pk}", token=self.limited), 404)
        self.assertError(self.api("post", f"/crawls/{job.pk}/cancel", token=self.limited), 404)
        self.assertError(self.api("post", "/crawls", token=self.limited,
                                  data={"knowledge_base": self.kb.pk, "seed_url": self.site.url("/")}), 404)
        self.assertError(self.api("post", f"/knowledge-bases/{self.kb.pk}/documents/url", token=self.limited,
                                  data={"url": self.site.url("/")}), 404)
        self.assertEqual(self.api("get", "/crawls", token=self.limited).json()["count"], 0)

    def test_scopes_and_missing_keys(self):
        job = Job.objects.create(kind=Job.Kind.CRAWL, knowledge_base=self.kb)
        self.assertError(self.api("post", "/crawls", token=self.reader,
                                  data={"knowledge_base": self.kb.pk, "seed_url": self.site.url("/")}), 403)
        self.assertError(self.api("post", f"/knowledge-bases/{self.kb.pk}/documents/url", token=self.reader,
                                  data={"url": self.site.url("/")}), 403)
        for method, path in [("post", "/crawls"), ("get", "/crawls"), ("get", f"/crawls/{job.pk}"),
                             ("post", f"/crawls/{job.pk}/cancel"),
                             ("post", f"/knowledge-bases/{self.kb.pk}/documents/url")]:
            with self.subTest(f"{method} {path}"):
                self.assertError(self.api(method, path), 401)

    def settings_crawler(self):
        from django.conf import settings

        return settings.CRAWLER
