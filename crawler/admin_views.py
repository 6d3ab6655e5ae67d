"""The crawler's admin pages: add one URL, crawl a site (both start a `crawl` job).

They are reached from a knowledge base's page and look like it (its breadcrumbs and styles), but
live here so the knowledge app never imports the crawler. Like the knowledge pages they run inside
`admin_site.admin_view()` and re-check the knowledge permissions they need.
"""

from django.contrib import messages
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404

from crawler import jobs
from crawler.forms import AddUrlForm, CrawlForm
from knowledge.admin_views import job_url, render, require
from knowledge.exceptions import KnowledgeError
from knowledge.models import KnowledgeBase

TEMPLATE = "admin/crawler/crawledpage/source_form.html"


def add_url(model_admin, request, kb_id: int):
    """Queue one web page or document for ingestion."""
    require(request, "knowledge.view_knowledgebase", "knowledge.add_document")
    kb = get_object_or_404(KnowledgeBase, pk=kb_id)
    form = AddUrlForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            # One URL is a job too, with progress and failures like any other; its document's
            # source kind is `url`, not `crawl`.
            job = jobs.start_ingest_url(kb, form.cleaned_data["url"], user=request.user)
        except KnowledgeError as exc:
            form.add_error("url", str(exc))
        else:
            messages.success(request, f"Fetching {form.cleaned_data['url']}: job #{job.pk} started.")
            return HttpResponseRedirect(job_url(job))
    return render(kb_admin(model_admin), request, TEMPLATE, "Add a URL", original=kb, form=form,
                  submit_label="Add URL")


def crawl(model_admin, request, kb_id: int):
    """Start a site crawl with its options and go to the job's page."""
    require(request, "knowledge.view_knowledgebase", "knowledge.add_document")
    kb = get_object_or_404(KnowledgeBase, pk=kb_id)
    form = CrawlForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        options = dict(form.cleaned_data)
        seed_url = options.pop("seed_url")
        try:
            job = jobs.start_crawl(kb, seed_url, user=request.user, **options)
        except KnowledgeError as exc:
            form.add_error("seed_url", str(exc))
        else:
            messages.success(request, f"Crawl of {seed_url} started: job #{job.pk}.")
            return HttpResponseRedirect(job_url(job))
    return render(kb_admin(model_admin), request, TEMPLATE, "Crawl a site", original=kb, form=form,
                  submit_label="Start crawl")


def kb_admin(model_admin):
    """The knowledge base admin, whose breadcrumbs these pages show (they are steps of a base's page)."""
    return model_admin.admin_site.get_model_admin(KnowledgeBase)
