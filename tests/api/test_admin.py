from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.test import TestCase

from portal.models import ApiKey, hash_token
from tests.api.base import make_key
from tests.factories import make_kb


class ApiKeyAdminTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.admin = get_user_model().objects.create_superuser("admin", "admin@example.com", "pw")
        cls.kb = make_kb()

    def setUp(self):
        self.client.force_login(self.admin)

    def test_a_new_key_is_shown_once_and_stored_as_a_hash(self):
        response = self.client.post("/admin/portal/apikey/add/", {
            "name": "Helpdesk", "owner": self.admin.pk, "scopes": ["read", "search"],
            "knowledge_bases": [self.kb.pk], "allowed_ips": "10.0.0.0/8\n192.0.2.1", "expires_at_0": "",
            "expires_at_1": "",
        }, follow=True)
        self.assertEqual(response.status_code, 200)
        shown = [str(message) for message in get_messages(response.wsgi_request)]
        words = shown[0].replace("<code>", " ").replace("</code>", " ").split()
        token = next(part for part in words if part.startswith("kp_"))
        key = ApiKey.objects.get(name="Helpdesk")
        self.assertEqual((key.hashed_secret, key.scopes, key.allowed_ips), (hash_token(token), ["read", "search"],
                                                                           ["10.0.0.0/8", "192.0.2.1"]))
        self.assertEqual(list(key.knowledge_bases.all()), [self.kb])
        # The key works, and its secret appears nowhere in the admin again.
        api = self.client.get("/api/v1/knowledge-bases", headers={"Authorization": f"Bearer {token}"},
                              REMOTE_ADDR="10.2.3.4")
        self.assertEqual(api.status_code, 200)
        for url in ("/admin/portal/apikey/", f"/admin/portal/apikey/{key.pk}/change/"):
            page = self.client.get(url).content.decode()
            self.assertIn(key.prefix, page)
            self.assertNotIn(token.split("_")[2], page)
            self.assertNotIn(key.hashed_secret, page)

    def test_a_bad_network_is_refused(self):
        response = self.client.post("/admin/portal/apikey/add/", {
            "name": "Bad", "owner": self.admin.pk, "scopes": ["read"], "allowed_ips": "10.0.0.300"})
        self.assertContains(response, "is not an IP address or a CIDR network")
        self.assertFalse(ApiKey.objects.filter(name="Bad").exists())

    def test_the_revoke_action(self):
        key, token = make_key()
        response = self.client.post("/admin/portal/apikey/", {"action": "revoke_keys", "_selected_action": [key.pk]},
                                    follow=True)
        self.assertContains(response, "1 API key revoked")
        key.refresh_from_db()
        self.assertIsNotNone(key.revoked_at)
        self.assertEqual(self.client.get("/api/v1/knowledge-bases", headers={"Authorization": f"Bearer {token}"})
                         .status_code, 401)


class CreateApiKeyCommandTests(TestCase):
    def test_it_prints_a_working_key_once(self):
        from io import StringIO

        from django.core.management import CommandError, call_command

        get_user_model().objects.create_user("ops")
        kb = make_kb(slug="handbook")
        out = StringIO()
        call_command("create_api_key", "CI", "--owner", "ops", "--scope", "search", "--kb", "handbook", stdout=out)
        token = out.getvalue().strip()
        key = ApiKey.objects.get(name="CI")
        self.assertEqual((key.hashed_secret, key.scopes, list(key.knowledge_bases.all())),
                         (hash_token(token), ["search"], [kb]))
        with self.assertRaisesMessage(CommandError, "Unknown knowledge base"):
            call_command("create_api_key", "CI", "--owner", "ops", "--kb", "nope", stdout=StringIO())
        # "0 days" is no "never": refused, not a key that does not expire.
        with self.assertRaisesMessage(CommandError, "--expires-in-days must be at least 1"):
            call_command("create_api_key", "Zero", "--owner", "ops", "--expires-in-days", "0", stdout=StringIO())
        self.assertFalse(ApiKey.objects.filter(name="Zero").exists())
