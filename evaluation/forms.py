from django import forms

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
