"""The crawler's pages in the admin: read-only, permission-checked."""

from django.contrib.auth.models import Permission, User
from django.test import TestCase
from django.urls import reverse

from crawler.models import CrawledPage
from tests.factories import make_kb


class CrawledPageAdminTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        cls.page = CrawledPage.objects.create(knowledge_base=cls.kb, url="https://docs.example.com/<b>x</b>",
                                              status=CrawledPage.Status.FAILED, http_status=404,
                                              error_message="Not found")
        cls.viewer = User.objects.create_user("viewer", password="pw", is_staff=True)
        cls.viewer.user_permissions.set(Permission.objects.filter(codename="view_crawledpage"))
        cls.outsider = User.objects.create_user("outsider", password="pw", is_staff=True)

    def test_list_and_detail_are_read_only(self):
        self.client.force_login(self.viewer)
        response = self.client.get(reverse("admin:crawler_crawledpage_changelist"), {"status__exact": "failed"})
        self.assertContains(response, "https://docs.example.com/&lt;b&gt;x&lt;/b&gt;")
        detail = self.client.get(reverse("admin:crawler_crawledpage_change", args=[self.page.pk]))
        self.assertContains(detail, "Not found")
        self.assertNotContains(detail, 'name="_save"')
        self.assertEqual(self.client.get(reverse("admin:crawler_crawledpage_add")).status_code, 403)

    def test_staff_without_permission_gets_403(self):
        self.client.force_login(self.outsider)
        self.assertEqual(self.client.get(reverse("admin:crawler_crawledpage_changelist")).status_code, 403)
