"""The crawler's admin pages: add one URL, crawl a site (both start a `crawl` job).

They are reached from a knowledge base's page and look like it (its breadcrumbs and styles), but
live here so the knowledge app never imports the crawler. Like the knowledge pages they run inside
`admin_site.admin_view()` and re-check the knowledge permissions they need.
"""

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from crawler import jobs
from crawler.forms import AddUrlForm, CrawlForm
from crawler.models import CrawlUrl
from knowledge import progress
from knowledge.admin_views import job_url, render, require
from knowledge.exceptions import KnowledgeError
from knowledge.models import Job, KnowledgeBase

REPORT_PAGE_SIZE = 200

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
            messages.success(request, _("Fetching %(url)s: job #%(job)d started.") % {"url": form.cleaned_data["url"],
                                                                                       "job": job.pk})
            return HttpResponseRedirect(job_url(job))
    return render(kb_admin(model_admin), request, TEMPLATE, _("Add a URL"), original=kb, form=form,
                  submit_label=_("Add URL"))


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
            messages.success(request, _("Crawl of %(url)s started: job #%(job)d.") % {"url": seed_url, "job": job.pk})
            return HttpResponseRedirect(job_url(job))
    return render(kb_admin(model_admin), request, TEMPLATE, _("Crawl a site"), original=kb, form=form,
                  submit_label=_("Start crawl"))


def kb_admin(model_admin):
    """The knowledge base admin, whose breadcrumbs these pages show (they are steps of a base's page)."""
    return model_admin.admin_site.get_model_admin(KnowledgeBase)


def crawl_report(model_admin, request, job_id: int):
    """Every URL a crawl met and what became of it, filterable by outcome; live while the crawl runs."""
    require(request, "knowledge.view_job")
    job = get_object_or_404(Job.objects.select_related("knowledge_base"), pk=job_id, kind=Job.Kind.CRAWL)
    outcome = request.GET.get("outcome", "")
    outcome = outcome if outcome in CrawlUrl.Outcome.values else ""
    counts = dict(job.crawl_urls.values_list("outcome").annotate(n=Count("pk")).order_by())
    lines = job.crawl_urls.filter(outcome=outcome) if outcome else job.crawl_urls.all()
    page = Paginator(lines, REPORT_PAGE_SIZE).get_page(request.GET.get("page"))
    here = reverse("admin:crawler_crawledpage_report", args=[job.pk])
    return render(model_admin.admin_site.get_model_admin(Job), request, "admin/crawler/crawledpage/report.html",
                  _("Crawl report of %(job)s") % {"job": job}, original=job, job=job, page=page, outcome=outcome,
                  here=here,
                  outcomes=[(value, label, counts.get(value, 0)) for value, label in CrawlUrl.Outcome.choices],
                  total=sum(counts.values()), progress=progress.job_state(job),
                  progress_url=reverse("admin:knowledge_job_progress", args=[job.pk]),
                  live_url=reverse("admin:knowledge_job_activity") + f"?kb={job.knowledge_base_id or ''}")
