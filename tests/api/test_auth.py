from datetime import timedelta

from django.utils import timezone

from portal.models import ApiKey, hash_token
from tests.api.base import ApiTestCase, make_key
from tests.factories import make_kb


class ApiKeyAuthTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        cls.key, cls.token = make_key()

    def test_a_request_without_a_key_is_401_with_the_error_shape(self):
        response = self.api("get", "/knowledge-bases")
        self.assertError(response, 401, "unauthorized")
        self.assertEqual(response["WWW-Authenticate"], "Bearer")

    def test_a_wrong_scheme_or_unknown_key_is_401(self):
        self.assertError(self.client.get("/api/v1/knowledge-bases", headers={"Authorization": f"Token {self.token}"}),
                         401, "unauthorized")
        self.assertError(self.api("get", "/knowledge-bases", token=self.token + "x"), 401, "invalid_key")
        self.assertError(self.api("get", "/knowledge-bases", token="kp_nothing_here"), 401, "invalid_key")
        self.assertError(self.api("get", "/knowledge-bases", token="garbage"), 401, "invalid_key")

    def test_only_a_hash_of_the_key_is_stored(self):
        self.assertEqual(self.key.hashed_secret, hash_token(self.token))
        stored = ApiKey.objects.filter(pk=self.key.pk).values_list("prefix", "hashed_secret").get()
        self.assertNotIn(self.token.split("_")[2], "".join(stored))

    def test_a_revoked_key_is_refused(self):
        key, token = make_key()
        key.revoke()
        self.assertError(self.api("get", "/knowledge-bases", token=token), 401, "key_revoked")

    def test_an_expired_key_is_refused(self):
        _, token = make_key(expires_at=timezone.now() - timedelta(seconds=1))
        self.assertError(self.api("get", "/knowledge-bases", token=token), 401, "key_expired")
        _, token = make_key(expires_at=timezone.now() + timedelta(days=1))
        self.assertEqual(self.api("get", "/knowledge-bases", token=token).status_code, 200)

    def test_the_ip_allow_list_accepts_addresses_and_networks(self):
        _, token = make_key(allowed_ips=["10.0.0.0/8", "192.0.2.7"])
        self.assertError(self.api("get", "/knowledge-bases", token=token), 403, "ip_not_allowed")
        self.assertEqual(self.api("get", "/knowledge-bases", token=token, REMOTE_ADDR="10.1.2.3").status_code, 200)
        self.assertEqual(self.api("get", "/knowledge-bases", token=token, REMOTE_ADDR="192.0.2.7").status_code, 200)

    def test_use_is_recorded_at_most_once_a_minute(self):
        key, token = make_key()
        self.api("get", "/knowledge-bases", token=token)
        key.refresh_from_db()
        first = key.last_used_at
        self.assertIsNotNone(first)
        self.api("get", "/knowledge-bases", token=token)
        key.refresh_from_db()
        self.assertEqual(key.last_used_at, first)

    def test_a_missing_scope_is_403(self):
        _, token = make_key(scopes=["search"])
        error = self.assertError(self.api("get", "/knowledge-bases", token=token), 403, "missing_scope")
        self.assertIn("'read'", error["message"])

    def test_docs_and_schema_need_no_key(self):
        self.assertEqual(self.client.get("/api/v1/openapi.json").status_code, 200)
        self.assertEqual(self.client.get("/api/v1/docs").status_code, 200)
        self.assertEqual(self.client.get("/api/docs").status_code, 200)

    def test_every_operation_requires_the_bearer_key(self):
        schema = self.client.get("/api/v1/openapi.json").json()
        operations = [(path, method, op) for path, item in schema["paths"].items() for method, op in item.items()]
        self.assertGreater(len(operations), 10)
        for path, method, op in operations:
            with self.subTest(f"{method.upper()} {path}"):
                self.assertEqual(op.get("security"), [{"ApiKeyAuth": []}])
