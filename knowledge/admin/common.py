"""What the knowledge admin pages share: status badges, JSON display, custom-page wiring, a lazy paginator."""

import json
from functools import partial, update_wrapper

from django.core.paginator import Paginator
from django.urls import path
from django.utils.functional import cached_property
from django.utils.html import format_html

from knowledge.models import Document, Job

STATUS_CSS = {
    Document.Status.PENDING: "pending", Document.Status.INDEXING: "running", Document.Status.READY: "ok",
    Document.Status.ERROR: "error", Job.Status.QUEUED: "pending", Job.Status.RUNNING: "running",
    Job.Status.SUCCEEDED: "ok", Job.Status.PARTIAL: "partial", Job.Status.FAILED: "error",
    Job.Status.CANCELLED: "muted",
}


def status_badge(value: str, label: str) -> str:
    return format_html('<span class="kp-badge kp-{}">{}</span>', STATUS_CSS.get(value, "muted"), label)


def pretty_json(value) -> str:
    if not value:
        return "—"
    return format_html('<pre class="kp-json">{}</pre>', json.dumps(value, indent=2, ensure_ascii=False))


class KnowledgeAdminMixin:
    """Custom admin pages: each view gets the ModelAdmin first and runs inside `admin_view()`."""

    css = {"all": ["knowledge/admin.css"]}

    def custom_url(self, route: str, view, name: str):
        wrapped = self.admin_site.admin_view(partial(view, self))
        return path(route, update_wrapper(wrapped, view), name=f"knowledge_{self.opts.model_name}_{name}")


class CappedCountPaginator(Paginator):
    """Counts at most LIMIT rows: `COUNT(*)` over millions of chunks is slow and nobody pages that far."""

    LIMIT = 10_000

    @cached_property
    def count(self) -> int:
        return self.object_list.order_by()[: self.LIMIT].count()
