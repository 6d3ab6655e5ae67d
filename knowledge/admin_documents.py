"""Admin pages that act on one document: download its original, run it again, take it out of search.

Wired by `DocumentAdmin.get_urls()`; like `admin_views`, each view runs inside `admin_view()` and
re-checks the permission it needs (viewing to download, changing to re-run or disable).
"""

from pathlib import Path

from django.contrib import messages
from django.http import FileResponse, Http404, HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _

from knowledge import jobs
from knowledge.admin_views import job_url, require
from knowledge.models import Document


def document_url(document: Document) -> str:
    return reverse("admin:knowledge_document_change", args=[document.pk])


def download(model_admin, request, document_id: int):
    """The original file as it was uploaded, under the name it was uploaded with."""
    require(request, "knowledge.view_document")
    document = get_object_or_404(Document.objects.defer("text"), pk=document_id)
    if not document.original_file:
        raise Http404("This document has no stored original file.")
    try:
        handle = document.original_file.open("rb")
    except FileNotFoundError:
        raise Http404("The original file is no longer stored.") from None
    name = document.path or Path(document.original_file.name).name
    return FileResponse(handle, as_attachment=True, filename=name)


def _changing(request, document_id: int) -> Document:
    require(request, "knowledge.change_document")
    return get_object_or_404(Document.objects.defer("text").select_related("knowledge_base"), pk=document_id)


def rerun(model_admin, request, document_id: int):
    """Parse and index this one document again, as a job of its own."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    document = _changing(request, document_id)
    job = jobs.start_ingestion(document.knowledge_base, [document.pk], user=request.user)
    messages.success(request, _("%(document)s is being indexed again (job #%(job)s).")
                     % {"document": document.display_name, "job": job.pk})
    return HttpResponseRedirect(job_url(job))


def set_enabled(model_admin, request, document_id: int, *, enabled: bool):
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    document = _changing(request, document_id)
    document.set_enabled(enabled)
    if enabled:
        message = _("%(document)s is back in search.")
    else:
        message = _("%(document)s is out of search: it is kept, and enabling it brings it back.")
    messages.success(request, message % {"document": document.display_name})
    return HttpResponseRedirect(document_url(document))


def enable(model_admin, request, document_id: int):
    return set_enabled(model_admin, request, document_id, enabled=True)


def disable(model_admin, request, document_id: int):
    return set_enabled(model_admin, request, document_id, enabled=False)
