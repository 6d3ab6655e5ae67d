"""Forms of the content manager's admin pages: knowledge bases, uploads, re-index, playground.

The crawl and "add a URL" forms are the crawler's (`crawler/forms.py`)."""

import json

from django import forms
from django.conf import settings
from django.utils.formats import number_format
from django.utils.text import format_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from knowledge.indexing import edits, parsing
from knowledge.indexing.embedding import REGISTRY
from knowledge.indexing.layers import LAYER_NAMES
from knowledge.indexing.parsing import ocr
from knowledge.models import Chunk, KnowledgeBase
from knowledge.search.retrieval import MODES

LAYERS = [(layer, format_lazy("{} · {}", layer, name)) for layer, name in LAYER_NAMES.items()]


def embedder_field(**kwargs) -> forms.ChoiceField:
    # Names only: instantiating an embedder to read its description could load a model.
    return forms.ChoiceField(label=_("Embedder"), choices=[(name, name) for name in REGISTRY], **kwargs)


class KnowledgeBaseForm(forms.ModelForm):
    """Creating a base picks its embedder; once built, the embedder changes only through a re-index."""

    class Meta:
        model = KnowledgeBase
        fields = ["name", "slug", "description", "embedder", "text_search_config",
                  "chunk_size", "chunk_overlap", "chunk_min_size", "ocr_languages"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "embedder" in self.fields:
            self.fields["embedder"] = embedder_field(
                initial=settings.PORTAL["DEFAULT_EMBEDDER"],
                help_text=_("Fixed once the base is built; switch it later with “Re-index with another embedder”."),
            )
        if "ocr_languages" in self.fields:
            self.fields["ocr_languages"].required = False
        if not self.instance.pk:
            defaults = {
                "text_search_config": settings.PORTAL["TEXT_SEARCH_CONFIG"],
                "chunk_size": settings.PORTAL["CHUNK_SIZE"],
                "chunk_overlap": settings.PORTAL["CHUNK_OVERLAP"],
                "chunk_min_size": settings.PORTAL["CHUNK_MIN_SIZE"],
            }
            for name, value in defaults.items():
                if name in self.fields:
                    self.fields[name].initial = value

    def clean_ocr_languages(self) -> str:
        # Optional in the form: a base created without it reads scans in the default languages.
        return self.cleaned_data.get("ocr_languages") or ocr.DEFAULT_LANGUAGES

    def clean(self):
        cleaned = super().clean()
        size, overlap = cleaned.get("chunk_size"), cleaned.get("chunk_overlap")
        if size is not None and overlap is not None and overlap * 2 >= size:
            self.add_error("chunk_overlap", _("The overlap must be less than half the chunk size."))
        return cleaned


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """A file field that accepts several files (Django's documented recipe)."""

    def __init__(self, *args, **kwargs):
        accept = ",".join((*parsing.SUPPORTED_EXTENSIONS, ".zip"))
        kwargs.setdefault("widget", MultipleFileInput(attrs={"accept": accept}))
        # An empty file is refused by name with the others' reasons (knowledge/uploads.py), not by a
        # form error that names no file and accepts none.
        kwargs.setdefault("allow_empty_file", True)
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        if isinstance(data, (list, tuple)):
            return [super(MultipleFileField, self).clean(item, initial) for item in data]
        return [super().clean(data, initial)] if data else super().clean(data, initial)


class UploadForm(forms.Form):
    files = MultipleFileField(
        label=_("Files"),
        help_text=format_lazy(_("Supported: {}, and .zip archives of them (folders kept as the document's path). "
                                "Other files are refused."), ", ".join(parsing.SUPPORTED_EXTENSIONS)),
    )


class ReindexForm(forms.Form):
    embedder = embedder_field(help_text=_("Another embedder rebuilds every vector of the base."))
    force = forms.BooleanField(required=False, label=_("Rebuild every document"),
                               help_text=_("Otherwise only documents whose settings changed are rebuilt."))


class PlaygroundForm(forms.Form):
    query = forms.CharField(label=_("Query"), max_length=2000,
                            widget=forms.TextInput(attrs={"size": 80, "autofocus": True}))
    knowledge_bases = forms.ModelMultipleChoiceField(
        queryset=KnowledgeBase.objects.order_by("name"), widget=forms.CheckboxSelectMultiple,
        label=_("Knowledge bases"))
    mode = forms.ChoiceField(label=_("Mode"), choices=list(MODES.items()), initial="hybrid")
    top_k = forms.IntegerField(min_value=1, max_value=50, initial=6, label=_("Top k"))
    max_distance = forms.FloatField(label=_("Max distance"), min_value=0, max_value=2, required=False,
                                    help_text=_("Cosine distance cut-off (0 = identical, 2 = opposite)."))
    layers = forms.MultipleChoiceField(label=_("Layers"), choices=LAYERS, required=False,
                                       widget=forms.CheckboxSelectMultiple, help_text=_("None checked: every layer."))
    filters = forms.CharField(
        label=_("Filters"), required=False, widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text=_('Metadata filters as JSON, e.g. {"doc_kind": "guide"}.'))
    with_answer = forms.BooleanField(required=False, label=_("Also draft a grounded answer with citations"))

    def clean_filters(self) -> dict | None:
        raw = self.cleaned_data["filters"].strip()
        if not raw:
            return None
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(_("Not valid JSON: %(error)s") % {"error": exc.msg}) from exc
        if not isinstance(value, dict):
            raise forms.ValidationError(_("Filters must be a JSON object."))
        return value



class ChunkForm(forms.ModelForm):
    """One chunk's editable part: its text (re-embedded on save) and whether search serves it."""

    class Meta:
        model = Chunk
        fields = ["enabled", "content"]
        widgets = {"content": forms.Textarea(attrs={"rows": 14, "class": "vLargeTextField"})}
        help_texts = {"content": _("Saving re-embeds this chunk alone; search reflects it at once. Tickets "
                                   "keep the text they cited.")}

    def clean_content(self):
        content = self.cleaned_data["content"].strip()
        if len(content) > edits.MAX_CHUNK_CHARS:
            raise forms.ValidationError(gettext("A chunk holds at most %(limit)s characters.")
                                        % {"limit": number_format(edits.MAX_CHUNK_CHARS, force_grouping=True)})
        return content


class ChunkAddForm(forms.Form):
    section_path = forms.CharField(
        label=_("Heading path"), required=False, max_length=1000,
        help_text=_("Where the entry belongs, e.g. “Billing > Refunds”; search weighs it like a heading."))
    content = forms.CharField(
        label=_("Content"), widget=forms.Textarea(attrs={"rows": 8, "class": "vLargeTextField"}),
        help_text=_("The text search should find, e.g. a question and its answer."))


class PreviewForm(forms.Form):
    file = forms.FileField(help_text=_("Parsed and cut with this base's chunking settings; nothing is stored."))


ROLE_CHOICES = [
    ("question", _("Question (matched against incoming questions)")),
    ("answer", _("Answer (the text that is cited and sent)")),
    ("title", _("Title")),
    ("text", _("Text (shown as “Column: value”)")),
    ("metadata", _("Metadata (filterable, never in answers)")),
    ("ignored", _("Ignored")),
]


class ColumnMappingForm(forms.Form):
    """One role per column of the document's tables."""

    def __init__(self, *args, columns: list[str], current: dict[str, str], **kwargs):
        super().__init__(*args, **kwargs)
        self.columns = columns
        for index, name in enumerate(columns):
            self.fields[f"column_{index}"] = forms.ChoiceField(label=name, choices=ROLE_CHOICES,
                                                               initial=current.get(name, "text"))

    def mapping(self) -> dict[str, str]:
        return {name: self.cleaned_data[f"column_{index}"] for index, name in enumerate(self.columns)}
