from django.core.cache import caches

from knowledge.models import Job
from tests.api.base import ApiTestCase, make_key
from tests.factories import make_document, make_kb


class PaginationTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        for n in range(5):
            make_document(cls.kb, text=f"# Part {n}\n\nText number {n}.")
        _, cls.token = make_key()

    def test_pages_carry_count_and_next_links(self):
        first = self.api("get", f"/knowledge-bases/{self.kb.pk}/documents?page_size=2&status=ready",
                         token=self.token).json()
        self.assertEqual((first["count"], first["page"], first["page_size"], len(first["items"])), (5, 1, 2, 2))
        self.assertIsNone(first["previous"])
        self.assertIn("page=2", first["next"])
        self.assertIn("status=ready", first["next"])
        self.assertTrue(first["next"].startswith("http://testserver/api/v1/"))
        second = self.client.get(first["next"], headers={"Authorization": f"Bearer {self.token}"}).json()
        third = self.client.get(second["next"], headers={"Authorization": f"Bearer {self.token}"}).json()
        self.assertEqual(len(third["items"]), 1)
        self.assertIsNone(third["next"])
        ids = [item["id"] for page in (first, second, third) for item in page["items"]]
        self.assertEqual(len(set(ids)), 5)

    def test_a_page_past_the_end_is_empty_and_bad_sizes_are_422(self):
        body = self.api("get", f"/knowledge-bases/{self.kb.pk}/documents?page=9&page_size=2", token=self.token).json()
        self.assertEqual((body["count"], body["items"], body["next"]), (5, [], None))
        self.assertTrue(body["previous"].endswith("page=3&page_size=2"))  # the last page there is, not page 8
        error = self.assertError(self.api("get", "/knowledge-bases?page_size=1000", token=self.token), 422)
        self.assertEqual(error["fields"][0]["field"], "page_size")
        self.assertError(self.api("get", "/knowledge-bases?page=0", token=self.token), 422)


class QueryCountTests(ApiTestCase):
    """List endpoints cost a fixed number of queries whatever the page holds."""

    @classmethod
    def setUpTestData(cls):
        cls.kbs = [make_kb() for _ in range(3)]
        cls.documents = [make_document(cls.kbs[0],
                                       text=f"# T{n}\n\nBody {n}.\n\n# U{n}\n\nMore {n}.") for n in range(4)]
        for kb in cls.kbs:
            Job.objects.create(kind=Job.Kind.INGEST, knowledge_base=kb)
        cls.key, cls.token = make_key()
        _, cls.limited = make_key(knowledge_bases=cls.kbs[:2])

    def setUp(self):
        caches["api"].clear()

    def assertQueries(self, count: int, path: str, token: str) -> None:
        # The first request of a minute starts the key's rate counter, and the first of a key the
        # process remembers prepares its count on this connection; measure a later one.
        self.api("get", path, token=token)
        self.api("get", path, token=token)
        with self.assertNumQueries(count):
            response = self.api("get", path, token=token)
        self.assertEqual(response.status_code, 200, response.content)

    def test_list_endpoints_have_constant_query_counts(self):
        # Every request of a key the process remembers with its limits (portal/access.py, the request
        # before this one): the atomic rate counter, which reads the access version too (1), its audit
        # entry (1); then the endpoint's own queries.
        auth = 2
        for path, own in [("/knowledge-bases", 2), ("/knowledge-bases?page_size=1", 2),
                          (f"/knowledge-bases/{self.kbs[0].pk}/documents", 3),
                          (f"/documents/{self.documents[0].pk}/chunks", 3), ("/crawls", 2), ("/tickets", 2)]:
            with self.subTest(path):
                self.assertQueries(auth + own, path, self.token)
                self.assertQueries(auth + own, path, self.limited)
