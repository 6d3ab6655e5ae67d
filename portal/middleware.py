"""Keep the API's one error shape for the responses django-ninja builds outside our handlers."""

import json

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _


class ApiMethodNotAllowedMiddleware:
    """A 405 under /api/ (ninja's plain "Method not allowed") becomes the API's JSON error."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code != 405 or not request.path.startswith("/api/"):
            return response
        if response.get("Content-Type", "").startswith("application/json"):
            return response
        allowed = response.get("Allow", "")
        body = {"error": {"code": "method_not_allowed",
                          "message": _("%(method)s is not allowed here; allowed: %(allowed)s")
                          % {"method": request.method, "allowed": allowed or _("none")}}}
        replacement = HttpResponse(json.dumps(body), status=405, content_type="application/json; charset=utf-8")
        if allowed:
            replacement["Allow"] = allowed
        return replacement
