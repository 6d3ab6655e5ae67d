from django import forms

from evaluation.models import ShadowSwitch
from evaluation.shadow import CHANGEABLE
from knowledge.indexing.embedding import REGISTRY
from knowledge.models import KnowledgeBase

IMPORT_TYPES = (".jsonl", ".csv")


class ImportForm(forms.Form):
    file = forms.FileField(help_text="A .jsonl or .csv file: question, document (or documents), should_refuse.")
    document_key = forms.CharField(initial="source_uri", max_length=200,
                                   help_text="How the file names documents: source_uri, id, or metadata:<key>.")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if not upload.name.lower().endswith(IMPORT_TYPES):
            raise forms.ValidationError(f"Send a {' or '.join(IMPORT_TYPES)} file")
        return upload


class SwitchForm(forms.ModelForm):
    """Start a switch: the base and what changes (empty fields keep the base's setting)."""

    embedder = forms.ChoiceField(required=False)
    chunk_size = forms.IntegerField(required=False, min_value=200)
    chunk_overlap = forms.IntegerField(required=False, min_value=0)
    chunk_min_size = forms.IntegerField(required=False, min_value=0)

    class Meta:
        model = ShadowSwitch
        fields = ["knowledge_base", "golden_set", "tolerance", "auto_switch"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["embedder"].choices = [("", "— keep —"), *((name, name) for name in REGISTRY)]
        self.fields["knowledge_base"].queryset = KnowledgeBase.objects.filter(shadow_of__isnull=True)

    @property
    def changes(self) -> dict:
        return {name: self.cleaned_data.get(name) for name in CHANGEABLE}
