"""Forms of the crawler's admin pages: add one URL, crawl a site."""

from django import forms

from crawler.crawling import CrawlOptions


class AddUrlForm(forms.Form):
    url = forms.URLField(label="URL", assume_scheme="https", max_length=2000,
                         widget=forms.URLInput(attrs={"class": "vURLField", "autofocus": True}),
                         help_text="One web page or document (PDF, DOCX, XLSX…).")


class CrawlForm(forms.Form):
    seed_url = forms.URLField(label="Start URL", assume_scheme="https", max_length=2000,
                              widget=forms.URLInput(attrs={"class": "vURLField", "autofocus": True}))
    max_pages = forms.IntegerField(min_value=1, max_value=100_000)
    max_depth = forms.IntegerField(min_value=0, max_value=50,
                                   help_text="Links followed from the start page; 0 fetches only that page.")
    same_domain = forms.BooleanField(required=False, label="Stay on the same domain")
    follow_docs = forms.BooleanField(required=False, label="Follow linked documents",
                                     help_text="PDF, DOCX and XLSX files linked from the pages.")
    respect_robots = forms.BooleanField(required=False, label="Respect robots.txt")
    use_sitemap = forms.BooleanField(required=False, label="Read sitemap.xml",
                                     help_text="Also queue the pages the site's sitemap lists.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The crawler's own defaults, so the form, the API and the command start from the same options.
        defaults = CrawlOptions()
        for name, field in self.fields.items():
            if hasattr(defaults, name):
                field.initial = getattr(defaults, name)
