"""Streamable HTTP at /mcp: a Django view that hands each request to the MCP SDK's transport.

The SDK's transport is an ASGI app; the portal is served by WSGI (the dev server, gunicorn). The
server runs stateless with JSON responses, so every POST is complete in itself: the view checks the
API key exactly like the REST API (`portal.auth.authenticate` and `check_rate`), then runs the
SDK's session manager for this one request with `async_to_sync` and returns what it answered.
Only POST is taken: a GET (a server-to-client event stream) is refused with 405 here, before the
SDK, whose stateless transport would open a stream that never ends and hold a server thread with it;
clients that want notifications use stdio. A body that is not JSON is refused with 415.
"""

import anyio
from asgiref.sync import async_to_sync
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.formats import number_format
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from mcp_server import server
from portal.auth import ApiError, authenticate, check_rate

# Tool arguments are short (a question, a ticket body of at most 50,000 characters).
MAX_BODY_BYTES = 1_000_000
# Hop-by-hop and length headers are WSGI's business, not the app's.
SKIPPED_HEADERS = {"content-length", "connection", "transfer-encoding"}


def _error(status: int, code: str, message: str, **headers) -> JsonResponse:
    """The REST API's error shape, plus a JSON-RPC error so MCP clients show the message."""
    response = JsonResponse({"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": f"{code}: {message}"}},
                            status=status)
    for name, value in headers.items():
        response[name.replace("_", "-")] = value
    return response


@csrf_exempt
def endpoint(request: HttpRequest) -> HttpResponse:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return _error(401, "unauthorized", gettext("Send an API key as 'Authorization: Bearer <key>'"),
                      WWW_Authenticate="Bearer")
    try:
        key = authenticate(token, request.META.get("REMOTE_ADDR", ""))
        request.auth = key
        check_rate(request)
    except ApiError as exc:
        extra = {"WWW_Authenticate": "Bearer"} if exc.status_code == 401 else {}
        if exc.retry_after:
            extra["Retry_After"] = str(int(exc.retry_after))
        return _error(exc.status_code, exc.code, exc.message, **extra)
    if request.method != "POST":
        return _error(405, "method_not_allowed", gettext(
            "The MCP endpoint takes JSON-RPC requests by POST; it opens no event stream (use stdio for "
            "notifications)"), Allow="POST")
    if request.content_type != "application/json":
        return _error(415, "unsupported_media_type",
                      gettext("Send the JSON-RPC request with Content-Type: application/json"))
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return _error(400, "bad_request", gettext("The Content-Length header is not a number"))
    if length > MAX_BODY_BYTES:
        return _error(413, "payload_too_large", _too_large())
    try:
        body = request.body
    except RequestDataTooBig:
        return _error(413, "payload_too_large", _too_large())
    status, headers, body = async_to_sync(_handle)(_asgi_scope(request), body, lambda: key)
    response = HttpResponse(body, status=status)
    for name, value in headers:
        if name.lower() not in SKIPPED_HEADERS:
            response[name] = value
    return response


def _too_large() -> str:
    return gettext("An MCP request may be at most %(limit)s bytes") % {
        "limit": number_format(MAX_BODY_BYTES, force_grouping=True)}


def _asgi_scope(request: HttpRequest) -> dict:
    headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in request.headers.items()]
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": request.method,
        "scheme": request.scheme, "path": request.path, "raw_path": request.path.encode(),
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"), "root_path": "",
        "headers": headers, "client": (request.META.get("REMOTE_ADDR", ""), 0),
        "server": (request.get_host(), int(request.get_port())),
    }


async def _handle(scope: dict, body: bytes, authorize) -> tuple[int, list, bytes]:
    status, headers, chunks = 500, [], []
    sent = anyio.Event()

    async def receive():
        if not getattr(receive, "done", False):
            receive.done = True
            return {"type": "http.request", "body": body, "more_body": False}
        await sent.wait()
        return {"type": "http.disconnect"}

    async def send(message):
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status = message["status"]
            headers = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in message["headers"]]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                sent.set()

    token = server.caller(authorize)
    try:
        manager = StreamableHTTPSessionManager(app=server.mcp._mcp_server, json_response=True, stateless=True,
                                               max_request_body_size=MAX_BODY_BYTES)
        async with manager.run():
            await manager.handle_request(scope, receive, send)
    finally:
        server.reset_caller(token)
    return status, headers, b"".join(chunks)
