"""`manage.py mcp_stdio` started as a real subprocess and driven by the `mcp` SDK's stdio client."""

import asyncio
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from django.test import TransactionTestCase
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from portal.models import Scope
from tests.api.base import make_key
from tests.e2e.worker import _environment
from tests.factories import make_document, make_kb
from tickets.models import Ticket

ROOT = Path(__file__).resolve().parents[2]



def run_async(coroutine):
    """Run `coroutine` to completion in a thread of its own: Playwright's sync API (the browser tests)
    leaves an event loop running in the main thread, where asyncio.run() refuses to start."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()

def run_stdio(token: str, steps, **env):
    # The subprocess must use the test database the test case writes to.
    params = StdioServerParameters(
        command=sys.executable, args=[str(ROOT / "manage.py"), "mcp_stdio"], cwd=str(ROOT),
        env=_environment({"PORTAL_MCP_API_KEY": token, **env}))

    async def run():
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await steps(session)

    return run_async(run())


def payload(result) -> dict:
    assert not result.isError, result.content
    return json.loads(result.content[0].text)


class McpStdioTests(TransactionTestCase):
    def setUp(self):
        self.kb_a = make_kb(name="Alpha", slug="alpha")
        self.kb_b = make_kb(name="Beta", slug="beta")
        self.doc_a = make_document(self.kb_a, title="Refunds",
                                   text="# Refunds\n\nRefunds are paid within fourteen days.")
        make_document(self.kb_b, title="Beta", text="# Beta\n\nThe beta launch code word is marmalade.")
        self.key_a, self.token_a = make_key(knowledge_bases=[self.kb_a], scopes=[Scope.READ, Scope.SEARCH])

    def test_it_serves_tools_over_stdio_with_the_keys_limits(self):
        async def steps(session):
            tools = await session.list_tools()
            bases = await session.call_tool("list_knowledge_bases", {})
            found = await session.call_tool("search", {"query": "beta launch code word"})
            beta = await session.call_tool("search", {"query": "code word", "knowledge_bases": ["beta"]})
            ticket = await session.call_tool("create_ticket", {"body": "Help"})
            document = await session.call_tool("get_document", {"document_id": self.doc_a.pk})
            return tools, bases, found, beta, ticket, document

        tools, bases, found, beta, ticket, document = run_stdio(self.token_a, steps)
        self.assertIn("planned_search", {tool.name for tool in tools.tools})
        self.assertEqual([kb["slug"] for kb in payload(bases)["knowledge_bases"]], ["alpha"])
        self.assertNotIn("marmalade", json.dumps(payload(found)))
        self.assertTrue(beta.isError)
        self.assertTrue(ticket.isError)
        self.assertIn("missing_scope", ticket.content[0].text)
        self.assertFalse(Ticket.objects.exists())
        self.assertIn("fourteen days", payload(document)["text"])

    def test_a_key_revoked_while_running_is_refused_on_the_next_call(self):
        async def steps(session):
            before = await session.call_tool("list_knowledge_bases", {})
            await asyncio.to_thread(self.key_a.revoke)
            after = await session.call_tool("list_knowledge_bases", {})
            return before, after

        before, after = run_stdio(self.token_a, steps)
        self.assertFalse(before.isError)
        self.assertTrue(after.isError)
        self.assertIn("key_revoked", after.content[0].text)

    def test_it_refuses_to_start_without_a_valid_key(self):
        from tests.e2e.worker import run_manage

        with self.assertRaisesRegex(AssertionError, "invalid_key"):
            run_manage("mcp_stdio", PORTAL_MCP_API_KEY="kp_nope_nope")
        with self.assertRaisesRegex(AssertionError, "PORTAL_MCP_API_KEY"):
            run_manage("mcp_stdio", PORTAL_MCP_API_KEY="")
