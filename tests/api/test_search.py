from tests.api.base import ApiTestCase, make_key
from tests.factories import make_document, make_kb

REFUNDS = ("# Refunds\n\nA refund is paid back to the original card within five working days. "
           "Refunds over 500 euros need a manager's approval.\n\n## Chargebacks\n\n"
           "A refund request after a chargeback is refused; the bank settles it.")


class SearchApiTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        cls.other = make_kb()
        make_document(cls.kb, text=REFUNDS, title="Refund policy", metadata={"team": "billing"})
        make_document(cls.other, text="# Deliveries\n\nParcels arrive in two days.", title="Delivery")
        _, cls.token = make_key()
        _, cls.reader = make_key(scopes=["read"])
        _, cls.limited = make_key(knowledge_bases=[cls.other])

    def test_search_returns_hits_with_their_sources_and_no_vectors(self):
        response = self.api("post", "/search", token=self.token,
                            data={"query": "refund card", "knowledge_bases": [self.kb.pk], "top_k": 3})
        self.assertEqual(response.status_code, 200, response.content)
        body = response.json()
        self.assertEqual(body["mode"], "hybrid")
        self.assertTrue(body["hits"])
        hit = body["hits"][0]
        self.assertEqual((hit["rank"], hit["knowledge_base_id"], hit["document_title"]),
                         (1, self.kb.pk, "Refund policy"))
        self.assertIn("refund", hit["content"].lower())
        self.assertNotIn("embedding", hit)

    def test_search_modes_layers_and_filters(self):
        for mode in ("vector", "keyword"):
            body = self.api("post", "/search", token=self.token, data={"query": "refund", "mode": mode}).json()
            self.assertEqual(body["mode"], mode)
        body = self.api("post", "/search", token=self.token,
                        data={"query": "refund", "filters": {"team": "sales"}}).json()
        self.assertEqual(body["hits"], [])
        body = self.api("post", "/search", token=self.token,
                        data={"query": "refund", "filters": {"team": ["sales", "billing"]}, "layers": ["D0"]}).json()
        self.assertTrue(body["hits"])

    def test_without_bases_a_limited_key_searches_only_its_own(self):
        body = self.api("post", "/search", token=self.limited, data={"query": "refund parcels", "mode": "vector",
                                                                    "top_k": 10}).json()
        self.assertEqual({hit["knowledge_base_id"] for hit in body["hits"]}, {self.other.pk})

    def test_a_base_outside_the_keys_list_is_404(self):
        for path, data in [("/search", {"query": "refund"}), ("/answer", {"question": "refund?"})]:
            with self.subTest(path):
                error = self.assertError(self.api("post", path, token=self.limited,
                                                  data={**data, "knowledge_bases": [self.kb.pk]}), 404, "not_found")
                self.assertEqual(error["fields"][0]["field"], "knowledge_bases")
                self.assertError(self.api("post", path, token=self.token,
                                          data={**data, "knowledge_bases": [987654]}), 404, "not_found")

    def test_invalid_requests_say_which_field(self):
        error = self.assertError(self.api("post", "/search", token=self.token,
                                          data={"query": "x", "mode": "fuzzy", "top_k": 0}), 422, "invalid")
        self.assertEqual(sorted(field["field"] for field in error["fields"]), ["mode", "top_k"])

    def test_answer_cites_its_sources(self):
        response = self.api("post", "/answer", token=self.token,
                            data={"question": "How long does a refund to the card take?",
                                  "knowledge_bases": [self.kb.pk]})
        self.assertEqual(response.status_code, 200, response.content)
        body = response.json()
        self.assertEqual(set(body), {"answer", "refused", "confidence", "reasons", "flags", "citations", "sources",
                                     "dropped_markers", "generator", "unmentioned"})
        self.assertEqual(body["unmentioned"], [])
        self.assertTrue(body["answer"])
        self.assertEqual([source["number"] for source in body["sources"]], list(range(1, len(body["sources"]) + 1)))
        if not body["refused"]:
            self.assertTrue(body["citations"])
            self.assertIn(f"[{body['citations'][0]['number']}]", body["answer"])

    def test_a_refusal_names_what_the_bases_never_mention(self):
        body = self.api("post", "/answer", token=self.token,
                        data={"question": "How long does a refund to the card take with PayPal?",
                              "knowledge_bases": [self.kb.pk]}).json()
        self.assertEqual((body["refused"], body["unmentioned"]), (True, ["PayPal"]), body)
        self.assertIn("unmentioned_name", body["reasons"])

    def test_scope_and_key_are_required(self):
        for path, data in [("/search", {"query": "refund"}), ("/answer", {"question": "refund?"})]:
            with self.subTest(path):
                self.assertError(self.api("post", path, token=self.reader, data=data), 403, "missing_scope")
                self.assertError(self.api("post", path, data=data), 401)


class PlannedSearchApiTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        import tempfile
        from pathlib import Path

        from knowledge.indexing.layers.store import index_repository

        cls.kb = make_kb()
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / "orders.py").write_text(
                "from fastapi import FastAPI\n\napp = FastAPI()\n\n\n@app.post('/orders')\n"
                "def create_order():\n    \"\"\"Create an order.\"\"\"\n    return {}\n")
            index_repository(cls.kb, folder, name="shop")
        _, cls.token = make_key()
        _, cls.reader = make_key(scopes=["read"])

    def test_the_router_plans_entrypoint_questions_and_returns_the_plan_with_the_hits(self):
        response = self.api("post", "/search/planned", token=self.token,
                            data={"question": "where is POST /orders handled", "knowledge_bases": [self.kb.pk]})
        self.assertEqual(response.status_code, 200, response.content)
        body = response.json()
        self.assertEqual(body["plan"]["steps"][0]["layers"], ["C3"])
        self.assertTrue(body["plan"]["trace"])
        self.assertIn("create_order", " ".join(hit["content"] for hit in body["hits"]))

    def test_both_search_endpoints_take_query_and_accept_question(self):
        for path in ("/search", "/search/planned"):
            for field in ("query", "question"):
                with self.subTest(path=path, field=field):
                    response = self.api("post", path, token=self.token,
                                        data={field: "create an order", "knowledge_bases": [self.kb.pk]})
                    self.assertEqual(response.status_code, 200, response.content)
                    self.assertEqual(response.json()["query"], "create an order")
                    self.assertIn("create_order", " ".join(hit["content"] for hit in response.json()["hits"]))
            with self.subTest(path=path, field="both"):  # query wins, question is not an unknown field
                response = self.api("post", path, token=self.token, data={
                    "query": "create an order", "question": "refunds", "knowledge_bases": [self.kb.pk]})
                self.assertEqual(response.json()["query"], "create an order")
        response = self.api("post", "/search/planned", token=self.token, data={"knowledge_bases": [self.kb.pk]})
        self.assertEqual(response.status_code, 422)

    def test_planned_search_needs_the_search_scope(self):
        response = self.api("post", "/search/planned", token=self.reader, data={"question": "refunds"})
        self.assertEqual(response.status_code, 403)
