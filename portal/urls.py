from django.contrib import admin
from django.urls import path, re_path
from django.views.generic import RedirectView
from ninja.openapi.views import openapi_view

from mcp_server.views import endpoint as mcp_endpoint
from portal import views
from portal.api import api, unknown_path
from portal.health import readyz

admin.site.site_header = "Knowledge portal"
admin.site.site_title = "Knowledge portal"
admin.site.index_title = "Knowledge bases, documents and tickets"

handler403 = views.permission_denied
handler404 = views.page_not_found

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="admin:index"), name="home"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("readyz", readyz, name="readyz"),
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    re_path(r"^mcp/?$", mcp_endpoint, name="mcp"),
    # The interactive docs also live at the version-less address the README gives.
    path("api/docs", openapi_view, {"api": api}, name="api-docs"),
    # The schema at the version-less address too, as the docs give both.
    path("api/openapi.json", RedirectView.as_view(url="/api/v1/openapi.json", permanent=False)),
    re_path(r"^api/(?P<path>.*)$", unknown_path),
]

# A database outage is a 503 with Retry-After on every page, not a 500.
handler500 = "portal.middleware.server_error"
