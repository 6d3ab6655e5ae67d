"""The pages outside the admin and the API: the root, the favicon, and errors in the admin's look."""

from django.contrib.auth.models import User
from django.test import TestCase


class SitePagesTests(TestCase):
    def test_the_root_redirects_to_the_admin(self):
        response = self.client.get("/")
        self.assertRedirects(response, "/admin/", fetch_redirect_response=False)

    def test_the_favicon_is_served(self):
        response = self.client.get("/favicon.ico")
        self.assertEqual(response.status_code, 200)
        self.assertEqual(response["Content-Type"], "image/svg+xml")
        self.assertIn(b"<svg", b"".join(response.streaming_content))

    def test_admin_pages_link_the_icon(self):
        User.objects.create_superuser("root", password="pw")
        self.client.login(username="root", password="pw")
        self.assertContains(self.client.get("/admin/"), 'rel="icon"')

    def test_an_unknown_page_is_a_styled_404(self):
        response = self.client.get("/no-such-page/")
        self.assertEqual(response.status_code, 404)
        self.assertContains(response, "Page not found", status_code=404)
        self.assertContains(response, "Knowledge portal", status_code=404)  # the admin's header

    def test_a_forbidden_admin_page_is_a_styled_403(self):
        staff = User.objects.create_user("staff", password="pw", is_staff=True)
        self.client.force_login(staff)
        response = self.client.get("/admin/knowledge/knowledgebase/1/upload/")
        self.assertEqual(response.status_code, 403)
        self.assertContains(response, "Ask an administrator", status_code=403)
