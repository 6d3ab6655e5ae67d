"""What one search request costs besides the search: the bases (and the key's limits) in one query."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.api.base import ApiTestCase, make_key
from tests.factories import make_document, make_kb


class SearchOverheadTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kbs = [make_kb() for _ in range(3)]
        for kb in cls.kbs:
            make_document(kb, "# Returns\n\nA refund is possible within thirty days of purchase.", title="Refunds")

    def base_queries(self, token: str, knowledge_bases) -> tuple[int, list[str]]:
        with CaptureQueriesContext(connection) as queries:
            response = self.api("post", "/search", token=token,
                                data={"query": "refund", "mode": "keyword", "knowledge_bases": knowledge_bases})
        return response, [q["sql"] for q in queries.captured_queries
                          if "knowledge_knowledgebase" in q["sql"] or "apikey_knowledge_bases" in q["sql"]]

    def test_the_bases_and_the_keys_limits_are_read_in_one_query(self):
        for limited_to in ([], self.kbs[:2]):
            _, token = make_key(scopes=["search"], knowledge_bases=limited_to, name=f"key {len(limited_to)}")
            for requested in ([kb.pk for kb in self.kbs[:2]], None):
                response, queries = self.base_queries(token, requested)
                self.assertEqual(response.status_code, 200, response.content[:300])
                self.assertEqual(len(queries), 1, queries)
                self.assertEqual({hit["knowledge_base_id"] for hit in response.json()["hits"]},
                                 {kb.pk for kb in (limited_to or self.kbs)} if requested is None else set(requested))

    def test_forbidden_and_missing_bases_are_both_not_found_by_the_same_query(self):
        _, token = make_key(scopes=["search"], knowledge_bases=self.kbs[:1])
        forbidden, missing = self.kbs[2].pk, max(kb.pk for kb in self.kbs) + 1000
        bodies = []
        for other in (forbidden, missing):
            response, queries = self.base_queries(token, [self.kbs[0].pk, other])
            self.assertError(response, 404, "not_found")
            self.assertEqual(len(queries), 1)
            bodies.append(response.json()["error"]["message"].replace(str(other), "N"))
        self.assertEqual(bodies[0], bodies[1])
