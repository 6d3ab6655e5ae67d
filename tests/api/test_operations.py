"""Every operation, table-driven: no key → 401, every scope but its own → 403, a key limited to
another knowledge base → 404. The table is the contract; a new operation must be added to it."""

import re

from django.core.files.uploadedfile import SimpleUploadedFile

from evaluation.models import EvalRun, GoldenQuestion, GoldenSet, ShadowSwitch
from knowledge.models import Job
from tests.api.base import ALL_SCOPES, ApiTestCase, make_key
from tests.factories import make_document, make_kb
from webhooks.models import Endpoint

# (method, path, scope, body); {kb}, {document}, {job}, {crawl}, {ticket}, {webhook}, {set}, {question},
# {run}, {switch} are filled in per test, and a callable body is called with those ids.
OPERATIONS = [
    ("get", "/knowledge-bases", "read", None),
    ("post", "/knowledge-bases", "write", {"name": "New"}),
    ("get", "/knowledge-bases/{kb}", "read", None),
    ("patch", "/knowledge-bases/{kb}", "write", {"name": "Renamed"}),
    ("delete", "/knowledge-bases/{kb}", "write", None),
    ("post", "/knowledge-bases/{kb}/reindex", "write", {}),
    ("get", "/knowledge-bases/{kb}/documents", "read", None),
    ("post", "/knowledge-bases/{kb}/documents", "write", "files"),
    ("post", "/knowledge-bases/{kb}/documents/text", "write", {"title": "t", "text": "x"}),
    ("post", "/knowledge-bases/{kb}/documents/url", "write", {"url": "http://127.0.0.1:9/"}),
    ("get", "/documents/{document}", "read", None),
    ("delete", "/documents/{document}", "write", None),
    ("post", "/documents/{document}/reindex", "write", None),
    ("post", "/documents/{document}/disable", "write", None),
    ("post", "/documents/{document}/enable", "write", None),
    ("get", "/documents/{document}/chunks", "read", None),
    ("put", "/documents/{document}/column-mapping", "write", {"mapping": {}}),
    ("get", "/jobs/{job}", "read", None),
    ("post", "/jobs/{job}/cancel", "write", None),
    ("post", "/crawls", "write", lambda ids: {"knowledge_base": ids["kb"], "seed_url": "http://127.0.0.1:9/"}),
    ("get", "/crawls", "read", None),
    ("get", "/crawls/{crawl}", "read", None),
    ("get", "/crawls/{crawl}/urls", "read", None),
    ("post", "/crawls/{crawl}/cancel", "write", None),
    ("post", "/search", "search", lambda ids: {"query": "x", "knowledge_bases": [ids["kb"]]}),
    ("post", "/search/planned", "search", lambda ids: {"question": "x", "knowledge_bases": [ids["kb"]]}),
    ("post", "/answer", "search", lambda ids: {"question": "x", "knowledge_bases": [ids["kb"]]}),
    ("post", "/tickets", "tickets", {"body": "x"}),
    ("get", "/tickets", "tickets", None),
    ("get", "/tickets/{ticket}", "tickets", None),
    ("post", "/webhooks", "write", {"name": "x", "url": "http://127.0.0.1:9/", "events": ["ticket.created"]}),
    ("get", "/webhooks", "read", None),
    ("get", "/webhooks/{webhook}", "read", None),
    ("get", "/webhooks/{webhook}/deliveries", "read", None),
    ("patch", "/webhooks/{webhook}", "write", {"name": "renamed"}),
    ("delete", "/webhooks/{webhook}", "write", None),
    ("get", "/knowledge-bases/{kb}/golden-sets", "read", None),
    ("post", "/knowledge-bases/{kb}/golden-sets", "write", {"name": "New set"}),
    ("get", "/golden-sets/{set}/questions", "read", None),
    ("post", "/golden-sets/{set}/questions", "write", {"question": "q?", "should_refuse": True}),
    ("post", "/golden-sets/{set}/import", "write", "file"),
    ("post", "/golden-sets/{set}/proposals", "write", {"source": "feedback"}),
    ("post", "/golden-questions/{question}/confirm", "write", None),
    ("post", "/golden-questions/{question}/dismiss", "write", None),
    ("post", "/golden-sets/{set}/runs", "write", {}),
    ("get", "/knowledge-bases/{kb}/eval-runs", "read", None),
    ("get", "/eval-runs/{run}", "read", None),
    ("get", "/eval-runs/{run}/diff/{run}", "read", None),
    ("post", "/knowledge-bases/{kb}/feedback", "search", {"question": "q", "rating": "down"}),
    ("post", "/knowledge-bases/{kb}/switches", "write", {"chunk_size": 300}),
    ("get", "/knowledge-bases/{kb}/switches", "read", None),
    ("get", "/switches/{switch}", "read", None),
    ("post", "/switches/{switch}/cut-over", "write", {}),
    ("post", "/switches/{switch}/confirm", "write", None),
    ("post", "/switches/{switch}/rollback", "write", None),
    ("post", "/switches/{switch}/resume", "write", None),
    ("post", "/switches/{switch}/cancel", "write", None),
]


class OperationAccessTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.other = make_kb(), make_kb()
        cls.ids = {"kb": cls.kb.pk, "document": make_document(cls.kb).pk,
                   "job": Job.objects.create(kind=Job.Kind.INGEST, knowledge_base=cls.kb).pk,
                   "crawl": Job.objects.create(kind=Job.Kind.CRAWL, knowledge_base=cls.kb).pk, "ticket": 999999,
                   "webhook": Endpoint.objects.create(name="x", url="https://example.com/", events=[]).pk}
        golden_set = GoldenSet.objects.create(knowledge_base=cls.kb, name="Set")
        cls.ids.update(
            set=golden_set.pk,
            question=GoldenQuestion.objects.create(golden_set=golden_set, question="q?", should_refuse=True).pk,
            run=EvalRun.objects.create(golden_set=golden_set, knowledge_base=cls.kb).pk,
            switch=ShadowSwitch.objects.create(knowledge_base=cls.kb, target={"chunk_size": 300}).pk)
        _, cls.limited = make_key(knowledge_bases=[cls.other])

    def call(self, method, path, body, token, ids):
        path = path.format(**ids)
        if body == "files":
            return self.api(method, path, token=token, files=[SimpleUploadedFile("a.txt", b"hello")])
        if body == "file":
            upload = SimpleUploadedFile("set.jsonl", b'{"question": "q2?", "should_refuse": true}\n')
            return self.client.post(f"/api/v1{path}", {"file": upload},
                                    headers={"Authorization": f"Bearer {token}"} if token else {})
        return self.api(method, path, token=token, data=body(ids) if callable(body) else body)

    def test_the_table_covers_every_operation_in_the_schema(self):
        schema = self.client.get("/api/v1/openapi.json").json()
        documented = {(method, re.sub(r"\{\w+\}", "{}", path.removeprefix("/api/v1")))
                      for path, item in schema["paths"].items() for method in item}
        self.assertEqual(documented, {(method, re.sub(r"\{\w+\}", "{}", path)) for method, path, _, _ in OPERATIONS})

    def test_without_a_key_every_operation_is_401(self):
        for method, path, _, body in OPERATIONS:
            with self.subTest(f"{method} {path}"):
                self.assertError(self.call(method, path, body, None, self.ids), 401, "unauthorized")

    def test_a_key_without_the_operations_scope_is_403(self):
        keys = {scope: make_key(scopes=[s for s in ALL_SCOPES if s != scope])[1] for scope in ALL_SCOPES}
        for method, path, scope, body in OPERATIONS:
            with self.subTest(f"{method} {path}"):
                self.assertError(self.call(method, path, body, keys[scope], self.ids), 403, "missing_scope")

    def test_a_key_with_only_the_operations_scope_gets_past_auth(self):
        keys = {scope: make_key(scopes=[scope])[1] for scope in ALL_SCOPES}
        missing = dict.fromkeys(self.ids, 999999)  # nothing is changed: the objects do not exist
        for method, path, scope, body in OPERATIONS:
            with self.subTest(f"{method} {path}"):
                response = self.call(method, path, body, keys[scope], missing)
                self.assertNotIn(response.status_code, (401, 403, 500), response.content)

    def test_a_key_limited_to_another_base_gets_404(self):
        for method, path, _, body in OPERATIONS:
            if "{ticket}" in path or ("{" not in path and not callable(body)):
                continue  # not about one base (tickets: a limited key sees the ones it submitted)
            with self.subTest(f"{method} {path}"):
                self.assertError(self.call(method, path, body, self.limited, self.ids), 404, "not_found")
