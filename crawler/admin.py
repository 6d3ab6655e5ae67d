"""The crawler's admin: what it fetched (read-only), and the pages that start crawls and URL fetches.

`CrawledPage` rows are written by the crawler; people only look at them. The "Add URL" and "Crawl
site" pages of a knowledge base are wired here with `get_urls()` (views in `admin_views.py`).
"""

from functools import partial, update_wrapper

from django.contrib import admin
from django.urls import path
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from crawler import admin_views
from crawler.models import CrawledPage
from portal.stored_text import translated


@admin.register(CrawledPage)
class CrawledPageAdmin(admin.ModelAdmin):
    list_display = ["url_link", "knowledge_base", "status", "http_status", "depth", "document", "last_crawled_at",
                    "last_changed_at"]
    list_filter = ["status", "knowledge_base"]
    search_fields = ["url", "final_url", "canonical_url", "error_message"]
    list_select_related = ["knowledge_base", "document"]
    show_full_result_count = False
    # The error as a worker wrote it, shown in the reader's language.
    fields = readonly_fields = [field.name if field.name != "error_message" else "error_message_text"
                                for field in CrawledPage._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=_("error message"))
    def error_message_text(self, page):
        return translated(page.error_message) or "—"

    @admin.display(description=_("URL"), ordering="url")
    def url_link(self, page):
        return format_html('<span title="{}">{}</span>', page.url, page.url[:100])

    def get_urls(self):
        return [
            self.custom_url("knowledge-base/<int:kb_id>/add-url/", admin_views.add_url, "add_url"),
            self.custom_url("knowledge-base/<int:kb_id>/crawl/", admin_views.crawl, "crawl"),
            self.custom_url("report/<int:job_id>/", admin_views.crawl_report, "report"),
        ] + super().get_urls()

    def custom_url(self, route: str, view, name: str):
        wrapped = self.admin_site.admin_view(partial(view, self))
        return path(route, update_wrapper(wrapped, view), name=f"crawler_crawledpage_{name}")
