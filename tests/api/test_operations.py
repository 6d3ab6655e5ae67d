"""Every operation, table-driven: no key → 401, every scope but its own → 403, a key limited to
another knowledge base → 404. The table is the contract; a new operation must be added to it."""

import re

from django.core.files.uploadedfile import SimpleUploadedFile

from knowledge.models import Job
from tests.api.base import ALL_SCOPES, ApiTestCase, make_key
from tests.factories import make_document, make_kb
from webhooks.models import Endpoint

# (method, path, scope, body); {kb}, {document}, {job}, {crawl}, {ticket}, {webhook} are filled in per test, and
# a callable body is called with those ids.
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
    ("get", "/webhooks/{webhook}/deliveries", "read", None),
    ("delete", "/webhooks/{webhook}", "write", None),
]


class OperationAccessTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.other = make_kb(), make_kb()
        cls.ids = {"kb": cls.kb.pk, "document": make_document(cls.kb).pk,
                   "job": Job.objects.create(kind=Job.Kind.INGEST, knowledge_base=cls.kb).pk,
                   "crawl": Job.objects.create(kind=Job.Kind.CRAWL, knowledge_base=cls.kb).pk, "ticket": 999999,
                   "webhook": Endpoint.objects.create(name="x", url="https://example.com/", events=[]).pk}
        _, cls.limited = make_key(knowledge_bases=[cls.other])

    def call(self, method, path, body, token, ids):
        path = path.format(**ids)
        if body == "files":
            return self.api(method, path, token=token, files=[SimpleUploadedFile("a.txt", b"hello")])
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
