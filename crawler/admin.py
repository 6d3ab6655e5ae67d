"""What the crawler fetched, read-only: the crawler writes these rows, people only look at them."""

from django.contrib import admin
from django.utils.html import format_html

from crawler.models import CrawledPage


@admin.register(CrawledPage)
class CrawledPageAdmin(admin.ModelAdmin):
    list_display = ["url_link", "knowledge_base", "status", "http_status", "depth", "document", "last_crawled_at",
                    "last_changed_at"]
    list_filter = ["status", "knowledge_base"]
    search_fields = ["url", "final_url", "canonical_url", "error_message"]
    list_select_related = ["knowledge_base", "document"]
    show_full_result_count = False
    readonly_fields = [field.name for field in CrawledPage._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="URL", ordering="url")
    def url_link(self, page):
        return format_html('<span title="{}">{}</span>', page.url, page.url[:100])
