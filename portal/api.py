"""The REST API root: one NinjaAPI, its error handlers, and one router per app.

Every error leaves in one shape, `{"error": {"code": "...", "message": "...", "fields": [...]}}`,
with `fields` only on validation errors. Domain errors are mapped to HTTP here and nowhere else.
"""

import json
import logging
import re

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFilesSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DatabaseError
from django.http import Http404, HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError
from ninja.parser import Parser
from ninja.renderers import JSONRenderer

from evaluation.exceptions import SwitchRefusedError
from knowledge.exceptions import (
    EmbedderError,
    FileTooLargeError,
    JobStateError,
    KnowledgeError,
    SearchTimeoutError,
    SwitchInProgressError,
    UnsupportedFileError,
)
from portal.auth import READ, ApiError, ApiKeyThrottle
from portal.field_errors import error_message
from portal.middleware import database_unavailable, is_outage

logger = logging.getLogger(__name__)

# NUL characters and unpaired surrogates (JSON allows both) cannot be stored in PostgreSQL text.
UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")


class StrictParser(Parser):
    """The default JSON and form parser, refusing strings PostgreSQL cannot store with a 422."""

    def parse_body(self, request: HttpRequest):
        content_type = request.content_type or ""
        if request.body and content_type != "application/json" and not content_type.endswith("+json"):
            raise ApiError(415, "unsupported_media_type",
                           _("Send the body as JSON with 'Content-Type: application/json', not %(type)s")
                           % {"type": content_type or _("none")})
        try:
            data = super().parse_body(request)
        except json.JSONDecodeError as exc:
            raise ApiError(400, "bad_request", _("The body is not valid JSON: %(error)s at line %(line)s, column "
                                                 "%(column)s") % {"error": exc.msg, "line": exc.lineno,
                                                                  "column": exc.colno}) from exc
        _check_strings(data, "body", [])
        return data

    def parse_querydict(self, data, list_fields, request: HttpRequest):
        result = super().parse_querydict(data, list_fields, request)
        _check_strings(result, "query" if data is request.GET else "form", [])
        return result


def _check_strings(value, location: str, path: list) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _check_strings(key, location, path)
            _check_strings(item, location, [*path, key])
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_strings(item, location, [*path, index])
    elif isinstance(value, str) and UNSTORABLE.search(value):
        message = _("Text must not contain NUL characters or unpaired surrogates")
        field = ".".join(map(str, path))
        raise ApiError(422, "invalid", _("Invalid input: %(fields)s") % {"fields": field or location},
                       [{"field": field, "location": location, "message": message, "type": "invalid_characters"}])


class Utf8Renderer(JSONRenderer):
    # Russian text as text, not \u escapes: readable, and half the bytes.
    json_dumps_params = {"ensure_ascii": False}


api = NinjaAPI(
    title="Knowledge portal API",
    version="1",
    description="Knowledge bases, documents, crawls, search, grounded answers and tickets. "
                "Every operation takes `Authorization: Bearer <API key>`; keys are created in the admin.",
    urls_namespace="api",
    docs_url="/docs",
    auth=READ,
    parser=StrictParser(),
    renderer=Utf8Renderer(),
    throttle=[ApiKeyThrottle()],
)

# Routers carry their full paths (/knowledge-bases, /crawls, /tickets…), so all mount at the root.
api.add_router("/", "knowledge.api.router")
api.add_router("/", "crawler.api.router")
api.add_router("/", "tickets.api.router")
api.add_router("/", "webhooks.api.router")
api.add_router("/", "evaluation.api.router")

# Domain errors that are not "your input cannot be used" (422). An embedder name the caller gives is
# checked by the request schemas (EmbedderName); an EmbedderError past them is the server's (503).
DOMAIN_STATUS = {FileTooLargeError: 413, UnsupportedFileError: 415, EmbedderError: 503, JobStateError: 409,
                 SwitchRefusedError: 409, SwitchInProgressError: 409, SearchTimeoutError: 504}
HTTP_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
              409: "conflict", 413: "payload_too_large", 415: "unsupported_media_type", 422: "invalid",
              429: "rate_limited", 503: "unavailable", 504: "timeout"}


def error_response(request: HttpRequest, status: int, code: str, message: str,
                   fields: list[dict] | None = None) -> HttpResponse:
    body = {"code": code, "message": message}
    if fields is not None:
        body["fields"] = fields
    response = api.create_response(request, {"error": body}, status=status)
    if status == 401:
        response["WWW-Authenticate"] = "Bearer"
    return response


def snake_case(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@api.exception_handler(HttpError)
def http_error(request, exc: HttpError):
    # ninja turns any error while reading a JSON body into a 400; keep the precise ones.
    if isinstance(exc.__cause__, ApiError):  # from StrictParser
        exc = exc.__cause__
    elif isinstance(exc.__cause__, RequestDataTooBig):
        return request_too_big(request, exc.__cause__)
    if isinstance(exc, ApiError):
        return error_response(request, exc.status_code, exc.code, exc.message, exc.fields)
    if isinstance(exc, Throttled):
        return error_response(request, 429, "rate_limited", _("Too many requests for this API key; retry later"))
    if isinstance(exc, AuthenticationError):
        return error_response(request, 401, "unauthorized", _("Send an API key as 'Authorization: Bearer <key>'"))
    return error_response(request, exc.status_code, HTTP_CODES.get(exc.status_code, "error"), str(exc))


@api.exception_handler(ValidationError)
def validation_error(request, exc: ValidationError):
    fields = [_field_error(error) for error in exc.errors]
    names = ", ".join(sorted({field["field"] or field["location"] for field in fields}))
    return error_response(request, 422, "invalid", _("Invalid input: %(fields)s") % {"fields": names}, fields)


def _field_error(error: dict) -> dict:
    location, *path = [str(part) for part in error.get("loc", ())] or ["body"]
    if location == "body" and len(path) > 1:
        path = path[1:]  # drop the endpoint's parameter name ("payload"), keep the JSON path
    return {"field": ".".join(path), "location": location, "message": error_message(error),
            "type": error.get("type", "")}


@api.exception_handler(DjangoValidationError)
def model_validation_error(request, exc: DjangoValidationError):
    if hasattr(exc, "error_dict"):
        fields = [{"field": "" if name == "__all__" else name, "location": "body", "message": message,
                   "type": "invalid"}
                  for name, messages in exc.message_dict.items() for message in messages]
    else:
        fields = [{"field": "", "location": "body", "message": message, "type": "invalid"} for message in exc.messages]
    return error_response(request, 422, "invalid", " ".join(field["message"] for field in fields), fields)


@api.exception_handler(KnowledgeError)
def knowledge_error(request, exc: KnowledgeError):
    status = next((code for cls, code in DOMAIN_STATUS.items() if isinstance(exc, cls)), 422)
    code = getattr(exc, "code", "") or snake_case(type(exc).__name__)
    return error_response(request, status, code, str(exc))


@api.exception_handler(Http404)
def not_found(request, exc: Http404):
    return error_response(request, 404, "not_found", _("Not found"))


def unknown_path(request: HttpRequest, path: str = "") -> HttpResponse:
    """Paths under /api/ that match no operation get the API's 404, not the HTML page."""
    return error_response(request, 404, "not_found", _("No API operation at %(path)s") % {"path": request.path})


@api.exception_handler(RequestDataTooBig)
def request_too_big(request, exc: Exception):
    # Django's own message names its setting; the caller needs the limit.
    limit = number_format(settings.DATA_UPLOAD_MAX_MEMORY_SIZE, force_grouping=True)
    return error_response(request, 413, "payload_too_large",
                          _("The request body is over the %(limit)s bytes a request may carry") % {"limit": limit})


@api.exception_handler(MultiPartParserError)
def malformed_multipart(request, exc: Exception):
    return error_response(request, 400, "bad_request",
                          _("The multipart body cannot be read: %(error)s") % {"error": exc})


@api.exception_handler(TooManyFilesSent)
def too_many_files(request, exc: Exception):
    return error_response(request, 413, "too_many_files", str(exc) or _("Too many files in one request"))


@api.exception_handler(Exception)
def server_error(request, exc: Exception):
    if isinstance(exc, DatabaseError) and is_outage(exc):
        return database_unavailable(request, exc)
    logger.exception("Unhandled error in %s %s", request.method, request.path)
    return error_response(request, 500, "server_error", _("Internal server error"))
