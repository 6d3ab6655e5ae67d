"""Forms of the content manager's admin pages: knowledge bases, uploads, re-index, playground.

The crawl and "add a URL" forms are the crawler's (`crawler/forms.py`)."""

import json

from django import forms
from django.conf import settings

from knowledge.indexing import edits, parsing
from knowledge.indexing.embedding import REGISTRY
from knowledge.indexing.layers import LAYER_NAMES
from knowledge.indexing.parsing import ocr
from knowledge.models import Chunk, KnowledgeBase
from knowledge.search.retrieval import MODES

LAYERS = [(layer, f"{layer} · {name.lower()}") for layer, name in LAYER_NAMES.items()]


def embedder_field(**kwargs) -> forms.ChoiceField:
    # Names only: instantiating an embedder to read its description could load a model.
    return forms.ChoiceField(choices=[(name, name) for name in REGISTRY], **kwargs)


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
                help_text="Fixed once the base is built; switch it later with “Re-index with another embedder”.",
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
            self.add_error("chunk_overlap", "The overlap must be less than half the chunk size.")
        return cleaned


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """A file field that accepts several files (Django's documented recipe)."""

    def __init__(self, *args, **kwargs):
        accept = ",".join((*parsing.SUPPORTED_EXTENSIONS, ".zip"))
        kwargs.setdefault("widget", MultipleFileInput(attrs={"accept": accept}))
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        if isinstance(data, (list, tuple)):
            return [super(MultipleFileField, self).clean(item, initial) for item in data]
        return [super().clean(data, initial)] if data else super().clean(data, initial)


class UploadForm(forms.Form):
    files = MultipleFileField(
        help_text="Supported: " + ", ".join(parsing.SUPPORTED_EXTENSIONS) + ", and .zip archives of them (folders "
                  "kept as the document's path). Other files are refused.",
    )


class ReindexForm(forms.Form):
    embedder = embedder_field(help_text="Another embedder rebuilds every vector of the base.")
    force = forms.BooleanField(required=False, label="Rebuild every document",
                               help_text="Otherwise only documents whose settings changed are rebuilt.")


class PlaygroundForm(forms.Form):
    query = forms.CharField(max_length=2000, widget=forms.TextInput(attrs={"size": 80, "autofocus": True}))
    knowledge_bases = forms.ModelMultipleChoiceField(
        queryset=KnowledgeBase.objects.order_by("name"), widget=forms.CheckboxSelectMultiple)
    mode = forms.ChoiceField(choices=list(MODES.items()), initial="hybrid")
    top_k = forms.IntegerField(min_value=1, max_value=50, initial=6, label="Top k")
    max_distance = forms.FloatField(min_value=0, max_value=2, required=False,
                                    help_text="Cosine distance cut-off (0 = identical, 2 = opposite).")
    layers = forms.MultipleChoiceField(choices=LAYERS, required=False, widget=forms.CheckboxSelectMultiple,
                                       help_text="None checked: every layer.")
    filters = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text='Metadata filters as JSON, e.g. {"doc_kind": "guide"}.')
    with_answer = forms.BooleanField(required=False, label="Also draft a grounded answer with citations")

    def clean_filters(self) -> dict | None:
        raw = self.cleaned_data["filters"].strip()
        if not raw:
            return None
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"Not valid JSON: {exc.msg}") from exc
        if not isinstance(value, dict):
            raise forms.ValidationError("Filters must be a JSON object.")
        return value



class ChunkForm(forms.ModelForm):
    """One chunk's editable part: its text (re-embedded on save) and whether search serves it."""

    class Meta:
        model = Chunk
        fields = ["enabled", "content"]
        widgets = {"content": forms.Textarea(attrs={"rows": 14, "class": "vLargeTextField"})}
        help_texts = {"content": "Saving re-embeds this chunk alone; search reflects it at once. Tickets "
                                 "keep the text they cited."}

    def clean_content(self):
        content = self.cleaned_data["content"].strip()
        if len(content) > edits.MAX_CHUNK_CHARS:
            raise forms.ValidationError(f"A chunk holds at most {edits.MAX_CHUNK_CHARS:,} characters.")
        return content


class ChunkAddForm(forms.Form):
    section_path = forms.CharField(
        label="Heading path", required=False, max_length=1000,
        help_text="Where the entry belongs, e.g. “Billing > Refunds”; search weighs it like a heading.")
    content = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8, "class": "vLargeTextField"}),
        help_text="The text search should find, e.g. a question and its answer.")


class PreviewForm(forms.Form):
    file = forms.FileField(help_text="Parsed and cut with this base's chunking settings; nothing is stored.")


ROLE_CHOICES = [
    ("question", "Question (matched against incoming questions)"),
    ("answer", "Answer (the text that is cited and sent)"),
    ("title", "Title"),
    ("text", "Text (shown as “Column: value”)"),
    ("metadata", "Metadata (filterable, never in answers)"),
    ("ignored", "Ignored"),
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
