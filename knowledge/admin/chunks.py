"""Chunks in the admin: read, edit (re-embeds that chunk), disable, enable; a list that never counts the table."""

from django.contrib import admin
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from knowledge.admin.common import CappedCountPaginator, KnowledgeAdminMixin, pretty_json
from knowledge.forms import LAYERS, ChunkForm
from knowledge.indexing import edits
from knowledge.models import Chunk


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
