from django.contrib import admin
from django.urls import path

from portal.api import api

admin.site.site_header = "Knowledge portal"
admin.site.site_title = "Knowledge portal"
admin.site.index_title = "Knowledge bases, documents and tickets"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
]
