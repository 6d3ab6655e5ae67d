"""Documents in the admin: status, problems, parse quality, download of the original, re-run, disable and enable."""

from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from knowledge import admin_chunks, admin_documents, admin_views, jobs, quality
from knowledge.admin.common import KnowledgeAdminMixin, pretty_json, status_badge
from knowledge.indexing.parsing.quality import describe
from knowledge.models import Chunk, Document
from portal.stored_text import translated


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
               "delete_selected"]
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
        message = translated(doc.error_message)
        return format_html('<span class="kp-error-text kp-problem" title="{}">{}</span>', message,
                           Truncator(message).chars(160))

    @admin.display(description=_("Error message"))
    def error_message_full(self, doc):
        if not doc.error_message:
            return "—"
        return format_html('<pre class="kp-error-text kp-pre">{}</pre>', translated(doc.error_message))

    @admin.display(description=_("Source"))
    def source_link(self, doc):
        if doc.source_uri.startswith(("http://", "https://")):
            return format_html('<a href="{}" rel="noopener noreferrer" target="_blank">{}</a>',
                               doc.source_uri, doc.source_uri)
        if doc.source_kind == Document.SourceKind.UPLOAD:
            return self.file_name(doc)  # the file by its name ("upload:<name>" is the identity, not for people)
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
        # What is wrong in the reader's language; the flags' codes (for the API and filters) in the title.
        return format_html('<span class="kp-error-text" title="{}">{}: {}</span>', ", ".join(flags), label,
                           describe(flags))

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
    def delete_selected(self, request, queryset):
        """Django's delete action (its name, its confirmation page); the deletion itself is a background job."""
        if not request.POST.get("post"):
            return delete_selected(self, request, queryset)  # the confirmation page, which posts back "post"
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
