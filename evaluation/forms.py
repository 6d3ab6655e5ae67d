from django import forms
from django.utils.translation import gettext_lazy as _

from evaluation.models import ShadowSwitch
from evaluation.shadow import CHANGEABLE
from knowledge.indexing.embedding import REGISTRY
from knowledge.models import SERVED, KnowledgeBase

IMPORT_TYPES = (".jsonl", ".csv")


class ImportForm(forms.Form):
    file = forms.FileField(label=_("File"), help_text=_(
        'A .jsonl or .csv file with "question", "document" (or "documents") and "should_refuse".'))
    document_key = forms.CharField(
        label=_("Document key"), initial="source_uri", max_length=200,
        help_text=_('How the file names documents: "source_uri", "id" or "metadata:<key>".'))

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if not upload.name.lower().endswith(IMPORT_TYPES):
            raise forms.ValidationError(_("Send a %(types)s file") % {"types": _(" or ").join(IMPORT_TYPES)})
        return upload


class SwitchForm(forms.ModelForm):
    """Start a switch: the base and what changes (empty fields keep the base's setting)."""

    embedder = forms.ChoiceField(label=_("Embedder"), required=False)
    chunk_size = forms.IntegerField(label=_("Chunk size"), required=False, min_value=200)
    chunk_overlap = forms.IntegerField(label=_("Chunk overlap"), required=False, min_value=0)
    chunk_min_size = forms.IntegerField(label=_("Chunk min size"), required=False, min_value=0)

    class Meta:
        model = ShadowSwitch
        fields = ["knowledge_base", "golden_set", "tolerance", "auto_switch"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["embedder"].choices = [("", _("— keep —")), *((name, name) for name in REGISTRY)]
        self.fields["knowledge_base"].queryset = KnowledgeBase.objects.filter(shadow_of__isnull=True)

    @property
    def changes(self) -> dict:
        return {name: self.cleaned_data.get(name) for name in CHANGEABLE}


class RatingForm(forms.Form):
    """A thumbs up or down on an answer tried in the playground, with what the answer was made of."""

    knowledge_base = forms.ModelChoiceField(queryset=KnowledgeBase.objects.filter(**SERVED))
    question = forms.CharField(max_length=2000)
    answer = forms.CharField(required=False, max_length=20_000)
    refused = forms.BooleanField(required=False)
    chunks = forms.RegexField(regex=r"^\d+(,\d+){0,49}$", required=False)
    rating = forms.ChoiceField(choices=[("up", _("Thumbs up")), ("down", _("Thumbs down"))])

    def clean_chunks(self) -> list[int]:
        return [int(pk) for pk in self.cleaned_data["chunks"].split(",") if pk]
