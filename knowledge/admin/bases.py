"""Knowledge bases in the admin: a base's dashboard, its settings and its custom pages."""

from django.contrib import admin, messages
from django.db.models import Count, Max, Q, Sum
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from knowledge import admin_chunks, admin_entries, admin_views, bases
from knowledge.admin.common import STATUS_CSS, KnowledgeAdminMixin
from knowledge.forms import KnowledgeBaseForm
from knowledge.indexing import calibration
from knowledge.models import Chunk, Document, KnowledgeBase


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
            self.custom_url("write-entry/", admin_entries.write_entry, "write_entry"),
        ] + super().get_urls()
