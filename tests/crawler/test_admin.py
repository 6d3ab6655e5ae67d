"""The crawler's admin pages of a knowledge base: crawl a site, add a URL."""


from django.urls import reverse

from knowledge.models import Job
from tests.knowledge.admin_base import AdminTestCase


class CrawlFormTests(AdminTestCase):
    def crawler_settings(self, hosts):
        from django.conf import settings

        return self.settings(CRAWLER={**settings.CRAWLER, "ALLOWED_HOSTS": hosts})

    def test_crawl_form_shows_the_crawlers_defaults(self):
        self.login(self.manager)
        response = self.client.get(reverse("admin:crawler_crawledpage_crawl", args=[self.kb.pk]))
        self.assertContains(response, 'name="max_pages" value="100"')
        self.assertContains(response, 'name="max_depth" value="3"')
        self.assertRegex(response.content.decode(), 'name="respect_robots"[^>]* checked')

    def test_launching_a_crawl_creates_the_job_and_goes_to_it(self):
        self.login(self.manager)
        with self.crawler_settings(["127.0.0.1"]):
            response = self.client.post(reverse("admin:crawler_crawledpage_crawl", args=[self.kb.pk]), {
                "seed_url": "http://127.0.0.1:9/docs/", "max_pages": 7, "max_depth": 2, "same_domain": "on",
                "respect_robots": "on"})
        job = Job.objects.get(kind=Job.Kind.CRAWL)
        self.assertRedirects(response, reverse("admin:knowledge_job_change", args=[job.pk]),
                             fetch_redirect_response=False)
        self.assertEqual((job.options["max_pages"], job.options["max_depth"], job.options["follow_docs"]),
                         (7, 2, False))
        self.assertEqual(job.created_by, self.manager)

    def test_a_refused_address_is_shown_on_the_form(self):
        self.login(self.manager)
        with self.crawler_settings([]):
            response = self.client.post(reverse("admin:crawler_crawledpage_crawl", args=[self.kb.pk]), {
                "seed_url": "http://127.0.0.1:9/", "max_pages": 5, "max_depth": 1})
        self.assertEqual(response.status_code, 200)
        self.assertContains(response, "errorlist")
        self.assertFalse(Job.objects.exists())

    def test_add_url_queues_a_single_url_job(self):
        self.login(self.manager)
        with self.crawler_settings(["127.0.0.1"]):
            response = self.client.post(reverse("admin:crawler_crawledpage_add_url", args=[self.kb.pk]),
                                        {"url": "http://127.0.0.1:9/page.html"})
        job = Job.objects.get(kind=Job.Kind.CRAWL)
        self.assertEqual(response.status_code, 302)
        self.assertEqual(job.options, {"seed_url": "http://127.0.0.1:9/page.html", "single_url": True})

    def test_viewer_cannot_crawl_or_add_urls(self):
        self.login(self.viewer)
        for name in ("crawl", "add_url"):
            url = reverse(f"admin:crawler_crawledpage_{name}", args=[self.kb.pk])
            self.assertEqual(self.client.post(url, {"url": "http://example.com/", "seed_url": "http://example.com/",
                                                    "max_pages": 1, "max_depth": 0}).status_code, 403)
        self.assertFalse(Job.objects.exists())
