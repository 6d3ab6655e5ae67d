from django.test import override_settings

from tests.api.base import ApiTestCase, make_key
from tests.factories import make_kb


class ErrorShapeTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        _, cls.token = make_key()

    def test_a_wrong_method_is_a_405_in_the_shape_with_the_allowed_methods(self):
        response = self.api("put", "/search", token=self.token, data={"query": "x"})
        self.assertEqual(response.status_code, 405)
        self.assertEqual(response.json()["error"]["code"], "method_not_allowed")
        self.assertIn("POST", response["Allow"])

    def test_text_postgresql_cannot_store_is_a_422_naming_the_field(self):
        error = self.assertError(self.api("post", "/search", token=self.token, data={"query": "refund\x00"}),
                                 422, "invalid")
        self.assertEqual((error["fields"][0]["field"], error["fields"][0]["location"]), ("query", "body"))
        error = self.assertError(self.api("post", f"/knowledge-bases/{self.kb.pk}/documents/text", token=self.token,
                                          data={"title": "t", "text": "x", "metadata": {"a": ["ok", "\ud800"]}}), 422)
        self.assertEqual(error["fields"][0]["field"], "metadata.a.1")
        error = self.assertError(self.api("get", "/tickets?external_id=%00", token=self.token), 422)
        self.assertEqual((error["fields"][0]["field"], error["fields"][0]["location"]), ("external_id", "query"))

    def test_every_json_body_refuses_fields_it_does_not_take(self):
        schema = self.client.get("/api/v1/openapi.json").json()
        bodies = {}
        for path, operations in schema["paths"].items():
            for method, operation in operations.items():
                content = operation.get("requestBody", {}).get("content", {})
                if "application/json" in content:
                    ref = content["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
                    bodies[f"{method.upper()} {path}"] = schema["components"]["schemas"][ref]
        self.assertGreaterEqual(len(bodies), 20)
        for operation, body in bodies.items():
            with self.subTest(operation):
                self.assertIs(body.get("additionalProperties"), False)
        for path, data in [("/search", {"query": "refund", "topk": 3}), ("/answer", {"question": "refund?", "k": 1}),
                           (f"/knowledge-bases/{self.kb.pk}/documents/text", {"title": "t", "text": "x", "uri": "u"})]:
            with self.subTest(path):
                error = self.assertError(self.api("post", path, token=self.token, data=data), 422, "invalid")
                self.assertEqual([field["type"] for field in error["fields"]], ["extra_forbidden"])

    def test_malformed_json_is_a_400(self):
        response = self.client.post("/api/v1/search", data='{"query": "refund",\n "top_k": }',
                                    content_type="application/json", headers={"Authorization": f"Bearer {self.token}"})
        error = self.assertError(response, 400, "bad_request")
        self.assertEqual(error["message"], "The body is not valid JSON: Expecting value at line 2, column 11")
        response = self.client.post("/api/v1/search", data="{", content_type="application/json",
                                    headers={"Authorization": f"Bearer {self.token}", "Accept-Language": "ru"})
        self.assertIn("не является корректным JSON", self.assertError(response, 400, "bad_request")["message"])

    @override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
    def test_a_body_over_the_request_limit_is_a_413(self):
        response = self.api("post", f"/knowledge-bases/{self.kb.pk}/documents/text", token=self.token,
                            data={"title": "t", "text": "x" * 2000})
        error = self.assertError(response, 413, "payload_too_large")
        self.assertEqual(error["message"], "The request body is over the 1,000 bytes a request may carry")

    def test_unknown_paths_and_ids_are_404_in_the_shape(self):
        self.assertError(self.api("get", "/knowledge-bases/999999", token=self.token), 404, "not_found")
        self.assertError(self.api("get", "/documents/999999/chunks", token=self.token), 404, "not_found")
        self.assertError(self.api("get", "/tickets/999999", token=self.token), 404, "not_found")
        self.assertError(self.api("get", "/no-such-thing", token=self.token), 404, "not_found")
        self.assertError(self.client.get("/api/v2/knowledge-bases"), 404, "not_found")


class RenderingTests(ApiTestCase):
    def test_non_ascii_text_is_sent_as_utf8(self):
        make_kb(name="Справочник")
        _, token = make_key()
        response = self.api("get", "/knowledge-bases", token=token)
        self.assertIn("Справочник".encode(), response.content)
        self.assertEqual(response["Content-Type"], "application/json; charset=utf-8")


class FieldMessageTests(ApiTestCase):
    def test_a_validators_message_is_sent_without_pydantics_prefix(self):
        _, token = make_key()
        error = self.assertError(self.api("post", "/knowledge-bases", token=token, data={"name": "   "}), 422)
        self.assertEqual(error["fields"], [{"field": "name", "location": "body", "message": "must not be blank",
                                            "type": "value_error"}])

    def test_pydantics_checks_are_worded_in_the_requests_language(self):
        _, token = make_key()
        body = {"query": "", "top_k": 500, "mode": "fuzzy"}
        error = self.assertError(self.api("post", "/search", token=token, data=body), 422)
        english = {field["field"]: field["message"] for field in error["fields"]}
        self.assertEqual(english, {"query": "Must be at least 1 characters long.", "top_k": "Must be at most 50.",
                                   "mode": "Must be one of 'hybrid', 'vector', 'keyword'."})
        response = self.client.post("/api/v1/search", body, content_type="application/json",
                                    headers={"Authorization": f"Bearer {token}", "Accept-Language": "ru"})
        russian = {field["field"]: field["message"] for field in self.assertError(response, 422)["fields"]}
        self.assertEqual(russian, {"query": "Должно быть не короче 1 символов.", "top_k": "Должно быть не больше 50.",
                                   "mode": "Должно быть одним из значений: 'hybrid', 'vector', 'keyword'."})
        error = self.assertError(self.api("post", "/search", token=token, data={}), 422)
        self.assertEqual(error["fields"][0]["message"], "This field is required.")
