"""API edge cases found by attacking the portal: bad bodies, the schema's honesty, ticket id privacy."""

from tests.api.base import ApiTestCase, make_key, make_user
from tests.factories import make_kb


class RequestBodyTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        _, cls.token = make_key()

    def test_multipart_without_a_boundary_is_a_400(self):
        response = self.client.post(f"/api/v1/knowledge-bases/{self.kb.pk}/documents", data=b"--x\r\n",
                                    content_type="multipart/form-data",
                                    headers={"Authorization": f"Bearer {self.token}"})
        error = self.assertError(response, 400, "bad_request")
        self.assertIn("multipart", error["message"])

    def test_json_sent_as_text_plain_is_refused(self):
        response = self.client.post("/api/v1/search", data='{"query": "refund"}', content_type="text/plain",
                                    headers={"Authorization": f"Bearer {self.token}"})
        error = self.assertError(response, 415, "unsupported_media_type")
        self.assertIn("application/json", error["message"])

    def test_json_with_a_charset_is_accepted(self):
        response = self.client.post("/api/v1/search", data='{"query": "refund"}',
                                    content_type="application/json; charset=utf-8",
                                    headers={"Authorization": f"Bearer {self.token}"})
        self.assertEqual(response.status_code, 200, response.content[:300])


class SchemaTests(ApiTestCase):
    def test_the_versionless_schema_address_redirects(self):
        response = self.client.get("/api/openapi.json")
        self.assertEqual((response.status_code, response["Location"]), (302, "/api/v1/openapi.json"))

    def test_job_failures_are_a_list_in_the_schema(self):
        schema = self.client.get("/api/v1/openapi.json").json()
        failures = schema["components"]["schemas"]["JobOut"]["properties"]["failures"]
        self.assertEqual(failures["type"], "array")
        self.assertEqual(failures["items"]["$ref"], "#/components/schemas/JobFailure")


class TicketExternalIdTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        _, cls.mine = make_key(owner=make_user("crm"))
        _, cls.mine_too = make_key(owner=make_user("crm"), name="rotated key")
        _, cls.theirs = make_key(owner=make_user("helpdesk"))

    def submit(self, token, external_id):
        return self.api("post", "/tickets", token=token,
                        data={"body": "Where is my parcel?", "external_id": external_id})

    def test_another_owner_may_use_the_same_id_and_learns_nothing(self):
        self.assertEqual(self.submit(self.mine, "crm-1").status_code, 202)
        # Before: a 409 told this key that someone else had used "crm-1".
        self.assertEqual(self.submit(self.theirs, "crm-1").status_code, 202)

    def test_an_owner_cannot_reuse_its_own_id_with_any_of_its_keys(self):
        self.assertEqual(self.submit(self.mine, "crm-2").status_code, 202)
        error = self.assertError(self.submit(self.mine_too, "crm-2"), 409, "duplicate_external_id")
        self.assertEqual(error["message"],
                         "A ticket with this external_id was already submitted with a key of your account")
