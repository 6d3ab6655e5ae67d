"""The MCP server over real HTTP on 127.0.0.1, driven by the `mcp` SDK's own client."""

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import httpx
from django.test import LiveServerTestCase, override_settings
from django.utils import timezone
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

from portal.models import Scope
from tests.api.base import make_key, start_early_in_a_clock_minute
from tests.factories import make_document, make_kb
from tickets.models import Ticket

TOOLS = {"list_knowledge_bases", "search", "answer", "planned_search", "get_document", "get_chunk",
         "create_ticket", "get_ticket"}



def run_async(coroutine):
    """Run `coroutine` to completion in a thread of its own: Playwright's sync API (the browser tests)
    leaves an event loop running in the main thread, where asyncio.run() refuses to start."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()

def call(url: str, token: str, steps):
    """Open a session as `token`, run `await steps(session)` and return what it returns."""

    async def run():
        async with (httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
                    streamable_http_client(url, http_client=http) as (read, write, _),
                    ClientSession(read, write) as session):
            await session.initialize()
            return await steps(session)

    return run_async(run())


def tool(url: str, token: str, name: str, arguments: dict | None = None):
    return call(url, token, lambda session: session.call_tool(name, arguments or {}))


def payload(result) -> dict:
    assert not result.isError, result.content
    return json.loads(result.content[0].text)


def error_text(result) -> str:
    assert result.isError, result.content
    return result.content[0].text


class McpHttpTests(LiveServerTestCase):
    def setUp(self):
        self.url = f"{self.live_server_url}/mcp"
        self.kb_a = make_kb(name="Alpha", slug="alpha")
        self.kb_b = make_kb(name="Beta", slug="beta")
        self.doc_a = make_document(self.kb_a, title="Refunds", text="# Refunds\n\nRefunds of the alpha plan are "
                                   "paid back within fourteen days to the original card.")
        self.doc_b = make_document(self.kb_b, title="Secret beta", text="# Beta\n\nThe beta launch code word "
                                   "is marmalade; refunds of beta are never paid.")
        self.key, self.token = make_key()
        self.key_a, self.token_a = make_key(name="alpha only", knowledge_bases=[self.kb_a],
                                            scopes=[Scope.READ, Scope.SEARCH, Scope.TICKETS])
        self.read_only, self.token_ro = make_key(name="read only", scopes=[Scope.READ, Scope.SEARCH])

    def test_it_lists_tools_with_both_languages(self):
        listed = call(self.url, self.token, lambda session: session.list_tools())
        tools = {t.name: t for t in listed.tools}
        self.assertEqual(set(tools), TOOLS)
        for item in tools.values():
            self.assertRegex(item.description, r"[a-z]{4}")
            self.assertRegex(item.description, r"[а-я]{4}")
        self.assertNotIn("key", tools["search"].inputSchema["properties"])
        self.assertIn("query", tools["search"].inputSchema["required"])

    def test_it_lists_knowledge_bases_of_the_key(self):
        everything = payload(tool(self.url, self.token, "list_knowledge_bases"))
        self.assertEqual([kb["slug"] for kb in everything["knowledge_bases"]], ["alpha", "beta"])
        limited = payload(tool(self.url, self.token_a, "list_knowledge_bases"))
        self.assertEqual([kb["slug"] for kb in limited["knowledge_bases"]], ["alpha"])
        self.assertEqual(limited["knowledge_bases"][0]["counts"]["documents"], 1)

    def test_it_searches_with_modes_and_bases(self):
        found = payload(tool(self.url, self.token, "search", {"query": "marmalade", "mode": "keyword"}))
        self.assertEqual(found["mode"], "keyword")
        self.assertEqual([hit["document_id"] for hit in found["hits"]], [self.doc_b.pk])
        by_slug = payload(tool(self.url, self.token, "search", {"query": "refunds", "knowledge_bases": ["alpha"]}))
        self.assertTrue(by_slug["hits"])
        self.assertEqual({hit["knowledge_base_id"] for hit in by_slug["hits"]}, {self.kb_a.pk})
        layered = payload(tool(self.url, self.token, "search", {"query": "refunds", "layers": ["C1"]}))
        self.assertEqual(layered["hits"], [])

    def test_it_answers_with_citations_or_refuses(self):
        result = payload(tool(self.url, self.token, "answer",
                              {"question": "How are refunds of the alpha plan paid?", "knowledge_bases": ["alpha"]}))
        self.assertEqual(set(result) >= {"answer", "citations", "confidence", "refused", "sources"}, True)
        if result["refused"]:
            self.assertTrue(result["reasons"])
        else:
            self.assertTrue(result["citations"])
            self.assertEqual(result["citations"][0]["source"]["document_id"], self.doc_a.pk)
        refused = payload(tool(self.url, self.token, "answer", {"question": "zzqx vvplk", "mode": "keyword"}))
        self.assertTrue(refused["refused"])
        self.assertEqual(refused["citations"], [])

    def test_it_reads_documents_chunks_and_resources(self):
        document = payload(tool(self.url, self.token, "get_document", {"document_id": self.doc_a.pk, "limit": 10}))
        self.assertEqual(document["title"], "Refunds")
        self.assertEqual(document["text"], self.doc_a.text[:10])
        self.assertEqual(document["next_offset"], 10)
        chunk_id = self.doc_a.chunks.first().pk
        chunk = payload(tool(self.url, self.token, "get_chunk", {"chunk_id": chunk_id}))
        self.assertIn("fourteen days", chunk["content"])

        async def read(session):
            return await session.read_resource(f"kb://alpha/documents/{self.doc_a.pk}")

        resource = call(self.url, self.token, read)
        self.assertIn("fourteen days", resource.contents[0].text)

    def test_it_plans_a_search(self):
        result = payload(tool(self.url, self.token, "planned_search", {"question": "Which service calls billing?"}))
        self.assertTrue(result["plan"]["intent"])
        self.assertTrue(result["plan"]["steps"])

    def test_planned_search_takes_the_rest_names_query_and_question(self):
        # POST /search/planned takes `query` (and `question`, its old name): the tool takes both too.
        by_query = payload(tool(self.url, self.token, "planned_search", {"query": "Which service calls billing?"}))
        by_question = payload(tool(self.url, self.token, "planned_search",
                                   {"question": "Which service calls billing?"}))
        self.assertEqual(by_query["query"], "Which service calls billing?")
        self.assertEqual(by_query["plan"], by_question["plan"])
        schema = call(self.url, self.token, lambda session: session.list_tools())
        [planned] = [item for item in schema.tools if item.name == "planned_search"]
        self.assertLessEqual({"query", "question"}, set(planned.inputSchema["properties"]))
        self.assertIn("invalid", error_text(tool(self.url, self.token, "planned_search", {})))

    def test_a_key_limited_to_one_base_never_sees_another(self):
        chunk_b = self.doc_b.chunks.first().pk
        for name, arguments in [
            ("search", {"query": "beta launch code word", "mode": "keyword"}),
            ("search", {"query": "beta launch code word"}),
            ("planned_search", {"question": "beta launch code word"}),
            ("planned_search", {"query": "beta launch code word"}),
        ]:
            text = json.dumps(payload(tool(self.url, self.token_a, name, arguments)))
            self.assertNotIn("marmalade", text, name)
        answer = payload(tool(self.url, self.token_a, "answer", {"question": "What is the beta code word?"}))
        self.assertNotIn("marmalade", json.dumps(answer))
        for name, arguments in [
            ("search", {"query": "marmalade", "knowledge_bases": ["beta"]}),
            ("search", {"query": "marmalade", "knowledge_bases": [self.kb_b.pk]}),
            ("answer", {"question": "code word", "knowledge_bases": ["beta"]}),
            ("get_document", {"document_id": self.doc_b.pk}),
            ("get_chunk", {"chunk_id": chunk_b}),
        ]:
            text = error_text(tool(self.url, self.token_a, name, arguments))
            self.assertIn("not_found", text, name)
            self.assertNotIn("marmalade", text)

        async def read(session):
            return await session.read_resource(f"kb://beta/documents/{self.doc_b.pk}")

        with self.assertRaises(Exception) as caught:
            call(self.url, self.token_a, read)
        self.assertNotIn("marmalade", str(caught.exception))
        error = caught.exception
        while isinstance(error, BaseExceptionGroup):  # the client's task group wraps it
            error = error.exceptions[0]
        # MCP's "resource not found", our message once (the SDK's own answer: code 0, its prefix twice).
        self.assertIsInstance(error, McpError)
        self.assertEqual((error.error.code, error.error.message),
                         (-32002, "not_found: no such object, or not one this API key may use"))

    def test_a_key_is_listed_only_the_tools_its_scopes_allow(self):
        listed = {t.name for t in call(self.url, self.token_ro, lambda session: session.list_tools()).tools}
        self.assertEqual(listed, TOOLS - {"create_ticket", "get_ticket"})
        listed = {t.name for t in call(self.url, self.token_a, lambda session: session.list_tools()).tools}
        self.assertEqual(listed, TOOLS)

    def test_tickets_need_the_tickets_scope(self):
        text = error_text(tool(self.url, self.token_ro, "create_ticket", {"body": "Where is my refund?"}))
        self.assertIn("missing_scope", text)
        self.assertFalse(Ticket.objects.exists())
        created = payload(tool(self.url, self.token_a, "create_ticket",
                               {"body": "Where is my refund?", "customer": "ann@example.com"}))
        self.assertEqual(Ticket.objects.get().metadata["api_key_id"], self.key_a.pk)
        read_back = payload(tool(self.url, self.token_a, "get_ticket", {"ticket_id": created["id"]}))
        self.assertEqual(read_back["messages"][0]["body"], "Where is my refund?")
        # A limited key sees only its own tickets, as in REST.
        other = Ticket.objects.create(subject="someone else's")
        self.assertIn("not_found", error_text(tool(self.url, self.token_a, "get_ticket", {"ticket_id": other.pk})))

    def test_bad_arguments_and_unknown_tools_are_mcp_errors(self):
        for name, arguments in [
            ("search", {}),
            ("search", {"query": "x", "top_k": 500}),
            ("search", {"query": "x", "mode": "telepathy"}),
            ("search", {"query": "q" * 5000}),
            ("get_document", {"document_id": "seven"}),
            ("create_ticket", {"body": "x" * 60_000}),
            ("no_such_tool", {}),
        ]:
            result = tool(self.url, self.token, name, arguments)
            self.assertTrue(result.isError, (name, arguments))
        self.assertFalse(Ticket.objects.exists())

    def test_invalid_arguments_are_tool_errors_naming_the_argument(self):
        for name, arguments, expected in [
            ("get_document", {"document_id": "seven"}, "document_id: Must be a whole number."),
            ("get_document", {"document_id": 1, "offset": -1}, "offset: Must be at least 0."),
            ("get_chunk", {"chunk_id": [1]}, "chunk_id: Must be a whole number."),
            ("get_ticket", {"ticket_id": "x"}, "ticket_id: Must be a whole number."),
            ("search", {"query": 5}, "query: Must be a string."),
            ("search", {"query": "x", "top_k": 500}, "top_k: Must be at most 50."),
            ("search", {"query": "x", "layers": ["D0", "x" * 9]}, "layers.1: Must be at most 8 characters long."),
            ("search", {"query": "x", "filters": {"plan": {"a": 1}}}, "filters.plan: Not a value of an accepted"),
            ("answer", {}, "question: This field is required."),
            ("answer", {"question": "x", "knowledge_bases": "alpha"}, "knowledge_bases: Must be a list."),
            ("planned_search", {"query": ""}, "query: Must be at least 1 characters long."),
            ("list_knowledge_bases", {"page": 2}, "page: This argument is not taken by the tool"),
            ("create_ticket", {"body": "Refund?", "costumer": "ann@example.com"}, "costumer: This argument is not"),
            ("create_ticket", {"body": {"text": "Refund?"}}, "body: Must be a string."),
        ]:
            text = error_text(tool(self.url, self.token, name, arguments))
            self.assertTrue(text.startswith("invalid: "), (name, text))
            self.assertIn(expected, text)
            self.assertNotIn("pydantic", text)
        # A typo in an argument does not file the ticket without its customer.
        self.assertFalse(Ticket.objects.exists())

    def test_missing_revoked_expired_and_refused_keys_get_http_errors(self):
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        headers = {"Accept": "application/json, text/event-stream"}
        response = httpx.post(self.url, json=body, headers=headers)
        self.assertEqual(response.status_code, 401)
        self.assertEqual(response.headers["WWW-Authenticate"], "Bearer")
        self.key_a.expires_at = timezone.now() - timedelta(minutes=1)
        self.key_a.save()
        response = httpx.post(self.url, json=body, headers={**headers, "Authorization": f"Bearer {self.token_a}"})
        self.assertEqual(response.status_code, 401)
        self.assertIn("key_expired", response.json()["error"]["message"])
        self.read_only.allowed_ips = ["10.0.0.0/8"]
        self.read_only.save()
        response = httpx.post(self.url, json=body, headers={**headers, "Authorization": f"Bearer {self.token_ro}"})
        self.assertEqual(response.status_code, 403)
        self.read_only.allowed_ips = ["127.0.0.0/8"]
        self.read_only.save()
        response = httpx.post(self.url, json=body, headers={**headers, "Authorization": f"Bearer {self.token_ro}"})
        self.assertEqual(response.status_code, 200, response.text)
        self.key.revoke()
        response = httpx.post(self.url, json=body, headers={**headers, "Authorization": f"Bearer {self.token}"})
        self.assertIn("key_revoked", response.json()["error"]["message"])

    @override_settings(API={"RATE_LIMIT_PER_MINUTE": 3, "PAGE_SIZE": 20, "MAX_PAGE_SIZE": 100})
    def test_it_shares_the_rate_limit_with_rest(self):
        auth = {"Authorization": f"Bearer {self.token}"}
        start_early_in_a_clock_minute(15)
        for _ in range(3):
            self.assertEqual(httpx.get(f"{self.live_server_url}/api/v1/knowledge-bases", headers=auth).status_code,
                             200)
        response = httpx.post(self.url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                              headers={**auth, "Accept": "application/json, text/event-stream"})
        self.assertEqual(response.status_code, 429)
        self.assertTrue(response.headers["Retry-After"])

    def test_malformed_json_rpc_is_a_protocol_error(self):
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json, text/event-stream",
                   "Content-Type": "application/json"}
        for raw in [b"{not json", b'{"jsonrpc": "2.0", "method": 5}', b"[]", b'"hello"']:
            response = httpx.post(self.url, content=raw, headers=headers)
            self.assertIn(response.status_code, (400, 422), (raw, response.status_code, response.text))
            self.assertIn("error", response.json())
        response = httpx.post(self.url, content=b"x" * 2_000_000, headers=headers)
        self.assertEqual(response.status_code, 413)
        response = httpx.post(self.url, content=b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}',
                              headers={**headers, "Content-Type": "text/plain"})
        self.assertEqual(response.status_code, 415)
        self.assertIn("application/json", response.json()["error"]["message"])

    def test_a_get_is_refused_at_once_not_held_open_as_an_event_stream(self):
        # The SDK's stateless transport would answer a GET with a stream that never ends, holding a
        # server thread (and the server's shutdown) for good.
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "text/event-stream"}
        for method in ("GET", "PUT", "DELETE"):
            response = httpx.request(method, self.url, headers=headers, timeout=10)
            self.assertEqual(response.status_code, 405, method)
            self.assertEqual(response.headers["Allow"], "POST")
            self.assertIn("method_not_allowed", response.json()["error"]["message"])
