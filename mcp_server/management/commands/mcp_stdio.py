"""`manage.py mcp_stdio`: the MCP server over stdin/stdout, for desktop clients that start it."""

import os

from django.core.management.base import BaseCommand, CommandError
from django.http import HttpRequest

from mcp_server import server
from portal.auth import ApiError, authenticate, check_rate

# A process on this machine: IP allow-lists are checked against the loopback address.
LOCAL_ADDRESS = "127.0.0.1"


class Command(BaseCommand):
    help = ("Serve MCP over stdio. The API key comes from PORTAL_MCP_API_KEY and is checked like a REST "
            "request from 127.0.0.1 on every tool call (scopes, bases, allow-list, expiry, rate limit).")

    def handle(self, *args, **options):
        token = os.environ.get("PORTAL_MCP_API_KEY", "").strip()
        if not token:
            raise CommandError("Set PORTAL_MCP_API_KEY to an API key (created in the admin)")
        try:
            authenticate(token, LOCAL_ADDRESS)
        except ApiError as exc:
            raise CommandError(f"{exc.code}: {exc.message}") from None

        def authorize():
            key = authenticate(token, LOCAL_ADDRESS)
            request = HttpRequest()
            request.auth = key
            check_rate(request)
            return key

        server.caller(authorize)
        # stdout belongs to the protocol from here on; Django's logging goes to stderr.
        server.mcp.run("stdio")
