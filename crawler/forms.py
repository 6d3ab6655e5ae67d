"""Forms of the crawler's admin pages: add one URL, crawl a site."""

from django import forms
from django.utils.translation import gettext_lazy as _

from crawler.crawling import CrawlOptions


class AddUrlForm(forms.Form):
    url = forms.URLField(label=_("URL"), assume_scheme="https", max_length=2000,
                         widget=forms.URLInput(attrs={"class": "vURLField", "autofocus": True}),
                         help_text=_("One web page, document (PDF, DOCX, XLSX…) or image (PNG, JPEG, TIFF: "
                                     "read with OCR)."))


class CrawlForm(forms.Form):
    seed_url = forms.URLField(label=_("Start URL"), assume_scheme="https", max_length=2000,
                              widget=forms.URLInput(attrs={"class": "vURLField", "autofocus": True}))
    max_pages = forms.IntegerField(label=_("Max pages"), min_value=1, max_value=100_000)
    max_depth = forms.IntegerField(label=_("Max depth"), min_value=0, max_value=50,
                                   help_text=_("Links followed from the start page; 0 fetches only that page."))
    same_domain = forms.BooleanField(required=False, label=_("Stay on the same domain"))
    follow_docs = forms.BooleanField(required=False, label=_("Follow linked documents"),
                                     help_text=_("PDF, DOCX and XLSX files linked from the pages."))
    respect_robots = forms.BooleanField(required=False, label=_("Respect robots.txt"))
    use_sitemap = forms.BooleanField(required=False, label=_("Read sitemap.xml"),
                                     help_text=_("Also queue the pages the site's sitemap lists."))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The crawler's own defaults, so the form, the API and the command start from the same options.
        defaults = CrawlOptions()
        for name, field in self.fields.items():
            if hasattr(defaults, name):
                field.initial = getattr(defaults, name)
