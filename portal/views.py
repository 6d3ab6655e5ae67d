"""The few pages outside the admin and the API: the site root, the favicon and the error pages."""

from django.contrib.staticfiles import finders
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

FAVICON = "portal/favicon.svg"


@require_safe
@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> FileResponse:
    """The portal's icon at the address browsers ask for on every page."""
    return FileResponse(open(finders.find(FAVICON), "rb"), content_type="image/svg+xml")


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """404 in the admin's look (Django's default is an unstyled page)."""
    return _error_page(request, 404, _("Page not found"), _("There is nothing at this address."))


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    """403 in the admin's look, saying what to ask for."""
    return _error_page(request, 403, _("Permission denied"),
                       _("Your account may not open this page. Ask an administrator for the permission it needs."))


def _error_page(request: HttpRequest, status: int, title: str, message: str) -> HttpResponse:
    return render(request, "portal/error.html", {"title": title, "message": message, "status": status},
                  status=status)
