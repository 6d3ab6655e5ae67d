"""The content manager's admin: knowledge bases, documents, chunks and jobs.

ModelAdmins stay declarative; the pages that are not a model form (uploads, crawls, re-index,
the search playground, job progress) live in `admin_views.py` and are wired here with `get_urls()`.
Every write goes through `knowledge.bases` / `knowledge.jobs`, never through ad-hoc ORM code.
"""

import json
from functools import partial, update_wrapper

from django.contrib import admin, messages
from django.core.paginator import Paginator
from django.db.models import Count, Max, Q, Sum
from django.template.defaultfilters import filesizeformat
from django.urls import path, reverse
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.functional import cached_property
from django.utils.html import format_html, format_html_join
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from knowledge import admin_chunks, admin_documents, admin_views, bases, jobs, quality
from knowledge.forms import LAYERS, ChunkForm, KnowledgeBaseForm
from knowledge.indexing import calibration, edits
from knowledge.indexing.parsing.quality import describe
from knowledge.models import Chunk, Document, Job, KnowledgeBase

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


@admin.register(KnowledgeBase)
class KnowledgeBaseAdmin(KnowledgeAdminMixin, admin.ModelAdmin):
    form = KnowledgeBaseForm
    list_display = ["name", "slug", "embedder", "embedding_dim", "documents_by_status", "chunks", "last_ingestion"]
    search_fields = ["name", "slug", "description"]
    prepopulated_fields = {"slug": ["name"]}
    actions = ["reindex_with_embedder"]

    class Media:
        css = KnowledgeAdminMixin.css
        js = ["knowledge/live_refresh.js"]

    def get_queryset(self, request):
        by_status = {
            f"n_{status}": Count("documents", filter=Q(documents__status=status)) for status in Document.Status.values
        }
        return super().get_queryset(request).filter(shadow_of__isnull=True).annotate(
            **by_status, n_chunks=Sum("documents__chunk_count"), last_ingested=Max("documents__ingested_at"))

    def get_fieldsets(self, request, obj=None):
        index = ["embedder_built", "embedding_dim", "similarity_floor_display"] if obj else ["embedder"]
        index_help = ""
        if obj and self.has_change_permission(request, obj):
            index_help = format_html(_('Fixed while the base is built. '
                                       '<a href="{}">Re-index with another embedder…</a>'),
                                     reverse("admin:knowledge_knowledgebase_reindex", args=[obj.pk]))
        fieldsets = [
            (None, {"fields": ["name", "slug", "description"]}),
            (_("Index"), {"fields": index, "description": index_help}),
            (_("Chunking and language"), {"fields": ["text_search_config", "chunk_size", "chunk_overlap",
                                                   "chunk_min_size", "ocr_languages"],
                                       "description": _("Changing these marks documents for re-indexing.")}),
        ]
        if obj:
            fieldsets.append((_("Dates"), {"fields": ["created_at", "updated_at"], "classes": ["collapse"]}))
        return fieldsets

    def get_readonly_fields(self, request, obj=None):
        # The vectors of a built base belong to its embedder: switching is a re-index job, not an edit.
        if not obj:
            return []
        return ["embedder_built", "embedding_dim", "similarity_floor_display", "created_at", "updated_at"]

    def get_prepopulated_fields(self, request, obj=None):
        return {} if obj else self.prepopulated_fields

    @admin.display(description=_("Similarity floor"))
    def similarity_floor_display(self, kb):
        return calibration.describe_floor(kb)

    @admin.display(description=_("Embedder"))
    def embedder_built(self, kb):
        return format_html("<code>{}</code>", kb.embedder)

    @admin.display(description=_("Documents"))
    def documents_by_status(self, kb):
        url = reverse("admin:knowledge_document_changelist")
        parts = [(f"{url}?knowledge_base__id__exact={kb.pk}&status__exact={status}", STATUS_CSS[status],
                  getattr(kb, f"n_{status}"), label)
                 for status, label in Document.Status.choices if getattr(kb, f"n_{status}", 0)]
        if not parts:
            return "—"
        return format_html_join(" ", '<a href="{}" class="kp-badge kp-{}">{} {}</a>', parts)

    @admin.display(description=_("Chunks"), ordering="n_chunks")
    def chunks(self, kb):
        return kb.n_chunks or 0

    @admin.display(description=_("Last ingestion"), ordering="last_ingested")
    def last_ingestion(self, kb):
        return kb.last_ingested

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
            if {"text_search_config", "chunk_size", "chunk_overlap", "chunk_min_size"} & set(form.changed_data):
                url = reverse("admin:knowledge_knowledgebase_reindex", args=[obj.pk])
                self.message_user(request, format_html(
                    _('Chunking or language settings changed: <a href="{}">re-index</a> to apply them.'), url),
                    messages.WARNING)
            return
        # A new base needs its vector index created in the same transaction: bases.py does both.
        kb = bases.create_knowledge_base(**form.cleaned_data)
        vars(obj).update(vars(kb))

    def delete_model(self, request, obj):
        bases.delete_knowledge_base(obj)

    def delete_queryset(self, request, queryset):
        for kb in queryset:
            bases.delete_knowledge_base(kb)

    def get_deleted_objects(self, objs, request):
        # Listing every chunk would take minutes on a real base; a summary is what a manager needs.
        ids = [kb.pk for kb in objs]
        counts = {"knowledge bases": len(ids),
                  "documents": Document.objects.filter(knowledge_base_id__in=ids).count(),
                  "chunks": Chunk.objects.filter(knowledge_base_id__in=ids).count()}
        perms_needed = set() if self.has_delete_permission(request) else {"knowledge base"}
        return [str(kb) for kb in objs], counts, perms_needed, []

    @admin.action(description=_("Re-index with another embedder…"), permissions=["change"])
    def reindex_with_embedder(self, request, queryset):
        return admin_views.reindex_confirmation(self, request, list(queryset))

    def change_view(self, request, object_id, form_url="", extra_context=None):
        kb = self.get_object(request, object_id)
        extra_context = {**(extra_context or {}), **(admin_views.kb_summary(kb) if kb else {})}
        return super().change_view(request, object_id, form_url, extra_context)

    def get_urls(self):
        return [
            self.custom_url("<int:kb_id>/upload/", admin_views.upload, "upload"),
            self.custom_url("<int:kb_id>/reindex/", admin_views.reindex, "reindex"),
            self.custom_url("<int:kb_id>/preview/", admin_chunks.preview_chunks, "preview"),
            self.custom_url("playground/", admin_views.playground, "playground"),
        ] + super().get_urls()


class NeedsAttentionFilter(admin.SimpleListFilter):
    title = _("parse quality")
    parameter_name = "attention"

    def lookups(self, request, model_admin):
        return [("yes", _("Needs attention")), ("accepted", _("Accepted with flags")), ("ok", _("No flags"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.needing_attention()
        if self.value() == "accepted":
            return queryset.filter(needs_attention=True, quality_accepted_at__isnull=False)
        if self.value() == "ok":
            return queryset.filter(needs_attention=False)
        return queryset


@admin.register(Document)
class DocumentAdmin(KnowledgeAdminMixin, admin.ModelAdmin):
    # The problem next to the status, so it is on screen without scrolling.
    list_display = ["title_or_uri", "file_name", "status_badge", "problem", "quality_flags", "chunks", "size",
                    "knowledge_base", "ingested_at"]
    list_filter = [NeedsAttentionFilter, "status", "enabled", "source_kind", "knowledge_base"]
    search_fields = ["title", "path", "source_uri", "error_message"]
    list_select_related = ["knowledge_base"]
    actions = ["reindex_documents", "reparse_with_ocr", "accept_quality", "disable_documents", "enable_documents",
               "delete_documents"]
    fieldsets = [
        (None, {"fields": ["title", "knowledge_base", "status_badge", "error_message_full", "source_kind",
                           "source_link", "path", "mime"]}),
        (_("Size and indexing"), {"fields": ["file_size_display", "char_count", "chunk_count", "ingested_at",
                                          "sha256", "commit_sha", "created_at", "updated_at"]}),
        (_("Parse quality"), {"fields": ["quality_flags", "quality_accepted_at", "quality_display"]}),
        (_("Metadata and frontmatter"), {"fields": ["metadata_display"]}),
    ]
    readonly_fields = ["title", "knowledge_base", "status_badge", "error_message_full", "source_kind",
                       "source_link", "path", "mime", "file_size_display", "char_count", "chunk_count",
                       "ingested_at", "sha256", "commit_sha", "created_at", "updated_at", "metadata_display",
                       "quality_flags", "quality_accepted_at", "quality_display"]

    class Media:
        css = KnowledgeAdminMixin.css
        js = ["knowledge/live_refresh.js"]

    def get_queryset(self, request):
        # The extracted text can be megabytes; lists never need it.
        return super().get_queryset(request).defer("text")

    def has_add_permission(self, request):
        return False  # documents come from uploads, URLs and crawls (the knowledge base's page)

    def has_change_permission(self, request, obj=None):
        return False  # documents are rebuilt by re-indexing, not edited

    def has_reindex_permission(self, request):
        return request.user.has_perm("knowledge.change_document")

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # replaced by a background deletion job
        return actions

    @admin.display(description=_("Document"), ordering="title")
    def title_or_uri(self, doc):
        return doc.title or doc.display_name

    @admin.display(description=_("File"), ordering="path")
    def file_name(self, doc):
        if doc.original_file:
            url = reverse("admin:knowledge_document_download", args=[doc.pk])
            return format_html('<a href="{}" title="{}">{}</a>', url, _("Download the original"),
                               doc.path or _("original"))
        if doc.source_uri.startswith(("http://", "https://")):
            return format_html('<a href="{}" rel="noopener noreferrer" target="_blank">{}</a>',
                               doc.source_uri, Truncator(doc.source_uri).chars(60))
        return doc.path or "—"

    @admin.display(description=_("Status"), ordering="status")
    def status_badge(self, doc):
        badge = status_badge(doc.status, doc.get_status_display())
        if not doc.enabled:
            badge = format_html('{} <span class="kp-badge kp-disabled" title="{}">{}</span>', badge,
                                _("Kept but left out of search"), _("Disabled"))
        return badge

    @admin.display(description=_("Chunks"), ordering="chunk_count")
    def chunks(self, doc):
        if not doc.chunk_count:
            return 0
        url = reverse("admin:knowledge_chunk_changelist")
        return format_html('<a href="{}?document__id__exact={}">{}</a>', url, doc.pk, doc.chunk_count)

    @admin.display(description=_("Size"), ordering="file_size")
    def size(self, doc):
        if doc.file_size is not None:
            return filesizeformat(doc.file_size)
        return ngettext("%(count)s character", "%(count)s characters", doc.char_count) % {
            "count": number_format(doc.char_count, force_grouping=True)}

    @admin.display(description=_("Problem"))
    def problem(self, doc):
        if not doc.error_message:
            return ""
        short = Truncator(doc.error_message).chars(160)
        return format_html('<span class="kp-error-text kp-problem" title="{}">{}</span>', doc.error_message, short)

    @admin.display(description=_("Error message"))
    def error_message_full(self, doc):
        if not doc.error_message:
            return "—"
        return format_html('<pre class="kp-error-text kp-pre">{}</pre>', doc.error_message)

    @admin.display(description=_("Source"))
    def source_link(self, doc):
        if doc.source_uri.startswith(("http://", "https://")):
            return format_html('<a href="{}" rel="noopener noreferrer" target="_blank">{}</a>',
                               doc.source_uri, doc.source_uri)
        return doc.source_uri or "—"

    @admin.display(description=_("File size"))
    def file_size_display(self, doc):
        return filesizeformat(doc.file_size) if doc.file_size is not None else "—"

    @admin.display(description=_("Metadata"))
    def metadata_display(self, doc):
        return pretty_json(doc.metadata)

    @admin.action(description=_("Re-index selected documents"), permissions=["reindex"])
    def reindex_documents(self, request, queryset):
        def start(kb, ids):
            return jobs.start_ingestion(kb, ids, user=request.user)

        started = admin_views.start_per_base(queryset, start)
        self.message_user(request, admin_views.jobs_message(_("Re-index"), started), messages.SUCCESS)

    @admin.action(description=_("Disable selected documents (out of search)"), permissions=["reindex"])
    def disable_documents(self, request, queryset):
        count = queryset.update(enabled=False, updated_at=timezone.now())
        self.message_user(request, ngettext("%(count)d document taken out of search.",
                                            "%(count)d documents taken out of search.", count) % {"count": count},
                          messages.SUCCESS)

    @admin.action(description=_("Enable selected documents (back in search)"), permissions=["reindex"])
    def enable_documents(self, request, queryset):
        count = queryset.update(enabled=True, updated_at=timezone.now())
        self.message_user(request, ngettext("%(count)d document back in search.",
                                            "%(count)d documents back in search.", count) % {"count": count},
                          messages.SUCCESS)

    @admin.display(description=_("Parse quality"))
    def quality_flags(self, doc):
        flags = doc.quality.get("flags") or []
        if not flags:
            return _("OK") if doc.quality else "—"
        label = _("accepted") if doc.quality_accepted_at else _("needs attention")
        return format_html('<span class="kp-error-text" title="{}">{}: {}</span>', describe(flags), label,
                           ", ".join(flag.replace("_", " ") for flag in flags))

    @admin.display(description=_("Report"))
    def quality_display(self, doc):
        return pretty_json(doc.quality) if doc.quality else "—"

    @admin.action(description=_("Re-parse selected documents with OCR (every PDF page)"), permissions=["reindex"])
    def reparse_with_ocr(self, request, queryset):
        started = admin_views.start_per_base(queryset.exclude(original_file=""), lambda kb, ids: jobs.start_ingestion(
            kb, ids, user=request.user, force_ocr=True))
        self.message_user(request, admin_views.jobs_message(_("OCR re-parse"), started), messages.SUCCESS)

    @admin.action(description=_("Accept parse quality of selected documents (allow auto-replies)"),
                  permissions=["reindex"])
    def accept_quality(self, request, queryset):
        count = quality.accept(queryset)
        self.message_user(request, ngettext("%(count)d document accepted as parsed",
                                            "%(count)d documents accepted as parsed", count) % {"count": count},
                          messages.SUCCESS)

    @admin.action(description=_("Delete selected documents"), permissions=["delete"])
    def delete_documents(self, request, queryset):
        started = admin_views.start_per_base(queryset, lambda kb, ids: jobs.start_delete(ids, user=request.user))
        self.message_user(request, admin_views.jobs_message(_("Deletion"), started), messages.SUCCESS)

    def delete_model(self, request, obj):
        jobs.delete_document(obj)

    def get_deleted_objects(self, objs, request):
        counts = {"documents": len(objs), "chunks": Chunk.objects.filter(document__in=objs).count()}
        perms_needed = set() if self.has_delete_permission(request) else {"document"}
        return [str(doc) for doc in objs], counts, perms_needed, []

    def change_view(self, request, object_id, form_url="", extra_context=None):
        doc = self.get_object(request, object_id)
        extra_context = {**(extra_context or {}), **(admin_views.document_detail(doc) if doc else {}),
                         "can_act": self.has_reindex_permission(request)}
        return super().change_view(request, object_id, form_url, extra_context)

    def get_urls(self):
        return [
            self.custom_url("<int:document_id>/original/", admin_documents.download, "download"),
            self.custom_url("<int:document_id>/rerun/", admin_documents.rerun, "rerun"),
            self.custom_url("<int:document_id>/disable/", admin_documents.disable, "disable"),
            self.custom_url("<int:document_id>/enable/", admin_documents.enable, "enable"),
            self.custom_url("<int:document_id>/add-chunk/", admin_chunks.add_chunk, "add_chunk"),
            self.custom_url("<int:object_id>/columns/", admin_views.column_mapping_view, "columns"),
        ] + super().get_urls()


class CappedCountPaginator(Paginator):
    """Counts at most LIMIT rows: `COUNT(*)` over millions of chunks is slow and nobody pages that far."""

    LIMIT = 10_000

    @cached_property
    def count(self) -> int:
        return self.object_list.order_by()[: self.LIMIT].count()


class LayerFilter(admin.SimpleListFilter):
    """The known layers, without the `SELECT DISTINCT layer` over every chunk that the default filter runs."""

    title = _("layer")
    parameter_name = "layer"

    def lookups(self, request, model_admin):
        return LAYERS

    def queryset(self, request, queryset):
        return queryset.filter(layer=self.value()) if self.value() else queryset


@admin.register(Chunk)
class ChunkAdmin(KnowledgeAdminMixin, admin.ModelAdmin):
    list_display = ["__str__", "document", "layer", "position", "section_path", "page", "token_count", "enabled",
                    "preview"]
    list_filter = [LayerFilter, "enabled", "knowledge_base"]
    list_select_related = ["document"]
    raw_id_fields = ["document"]
    search_fields = ["section_path", "title"]
    paginator = CappedCountPaginator
    show_full_result_count = False
    actions = ["disable_chunks", "enable_chunks"]
    form = ChunkForm
    # Never the embedding or the full-text vector; only the text and the switch are editable.
    fields = ["document", "knowledge_base", "layer", "position", "title", "section_path", "parent_heading",
              "page", "span_start", "span_end", "token_count", "language", "metadata_display", "enabled", "content"]
    readonly_fields = [*(name for name in fields if name not in ("enabled", "content")), "content_display"]

    class Media:
        css = KnowledgeAdminMixin.css

    def get_queryset(self, request):
        return super().get_queryset(request).defer("embedding", "search_vector")

    def get_fields(self, request, obj=None):
        if self.has_change_permission(request, obj):
            return self.fields
        # The text as it is, not a textarea turned into HTML.
        return ["content_display" if name == "content" else name for name in self.fields]

    def has_add_permission(self, request):
        return False  # chunks are added to a document, from its page ("Add a chunk")

    def has_delete_permission(self, request, obj=None):
        return False  # disable instead: a deleted chunk would leave a hole that only a re-index fills

    def save_model(self, request, obj, form, change):
        if "content" in form.changed_data:
            edits.edit_chunk(obj, form.cleaned_data["content"])
            self.message_user(request, _("The chunk was re-embedded; search finds its new text now."))
        if "enabled" in form.changed_data:
            obj.set_enabled(form.cleaned_data["enabled"])

    @admin.action(description=_("Disable selected chunks (out of search)"), permissions=["change"])
    def disable_chunks(self, request, queryset):
        self.message_user(request, f"{queryset.update(enabled=False)} chunk(s) taken out of search.")

    @admin.action(description=_("Enable selected chunks (back in search)"), permissions=["change"])
    def enable_chunks(self, request, queryset):
        self.message_user(request, f"{queryset.update(enabled=True)} chunk(s) back in search.")

    @admin.display(description=_("Content"))
    def preview(self, chunk):
        return Truncator(chunk.content).chars(160)

    @admin.display(description=_("Content"))
    def content_display(self, chunk):
        return format_html('<pre class="kp-pre">{}</pre>', chunk.content)

    @admin.display(description=_("Metadata"))
    def metadata_display(self, chunk):
        return pretty_json(chunk.metadata)


@admin.register(Job)
class JobAdmin(KnowledgeAdminMixin, admin.ModelAdmin):
    list_display = ["__str__", "knowledge_base", "status_badge", "progress", "counters_display", "created_by",
                    "created_at", "finished_at"]
    list_filter = ["status", "kind", "knowledge_base"]
    list_select_related = ["knowledge_base", "created_by"]
    actions = ["cancel_jobs"]
    fields = ["kind", "knowledge_base", "status_badge", "created_by", "created_at", "started_at", "finished_at",
              "task_id", "options_display"]
    readonly_fields = fields

    class Media:
        css = KnowledgeAdminMixin.css
        js = ["knowledge/job_progress.js"]

    def has_add_permission(self, request):
        return False  # jobs are started from knowledge bases and documents

    def has_delete_permission(self, request, obj=None):
        return False  # a job is a record of what happened

    @admin.display(description=_("Status"), ordering="status")
    def status_badge(self, job):
        return status_badge(job.status, job.status_label)

    @admin.display(description=_("Progress"))
    def progress(self, job):
        return format_html('<span class="kp-mini-bar" title="{} / {}"><span style="width: {}%"></span></span> {}%',
                           job.progress_done, job.progress_total, job.percent, job.percent)

    @admin.display(description=_("Counters"))
    def counters_display(self, job):
        return ", ".join(f"{admin_views.counter_label(name)}: {value}"
                         for name, value in sorted(job.counters.items())) or "—"

    @admin.display(description=_("Options"))
    def options_display(self, job):
        return pretty_json(job.options)

    @admin.action(description=_("Cancel selected jobs"), permissions=["change"])
    def cancel_jobs(self, request, queryset):
        running = [job for job in queryset if not job.is_finished]
        for job in running:
            job.cancel()
        self.message_user(request, ngettext("Cancellation requested for %(count)d job.",
                                             "Cancellation requested for %(count)d jobs.", len(running))
                          % {"count": len(running)}, messages.SUCCESS)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        job = self.get_object(request, object_id)
        extra_context = {**(extra_context or {}), **(admin_views.job_detail(self, request, job) if job else {})}
        return super().change_view(request, object_id, form_url, extra_context)

    def get_urls(self):
        return [
            self.custom_url("activity/", admin_views.activity, "activity"),
            self.custom_url("<int:job_id>/progress/", admin_views.job_progress, "progress"),
            self.custom_url("<int:job_id>/cancel/", admin_views.job_cancel, "cancel"),
            self.custom_url("<int:job_id>/retry/", admin_views.job_retry, "retry"),
        ] + super().get_urls()
