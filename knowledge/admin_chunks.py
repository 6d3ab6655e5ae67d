"""Admin pages for hand work on chunks: add a chunk to a document, and preview how a file would be
chunked before it is indexed. (Editing one chunk's text or taking it out of search is the chunk's own
change form, `ChunkAdmin`.) Each view re-checks its permission, like `admin_views`."""

from django.contrib import messages
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _

from knowledge import preview
from knowledge.admin_views import kb_url, render, require
from knowledge.exceptions import KnowledgeError
from knowledge.forms import ChunkAddForm, PreviewForm
from knowledge.indexing import edits, parsing
from knowledge.models import Document, KnowledgeBase


def add_chunk(model_admin, request, document_id: int):
    """Write a chunk by hand (a Q/A entry, a missing fact) into a document; searchable at once."""
    require(request, "knowledge.view_document", "knowledge.add_chunk")
    document = get_object_or_404(Document.objects.defer("text").select_related("knowledge_base"), pk=document_id)
    form = ChunkAddForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            chunk = edits.add_chunk(document, **form.cleaned_data)
        except KnowledgeError as exc:
            form.add_error("content", str(exc))
        else:
            messages.success(request, _("Chunk %(position)s added to %(document)s; search finds it now.")
                             % {"position": chunk.position, "document": document.display_name})
            return HttpResponseRedirect(reverse("admin:knowledge_document_change", args=[document.pk]) + "#chunks")
    return render(model_admin, request, "admin/knowledge/document/add_chunk.html", _("Add a chunk"),
                  original=document, form=form)


def preview_chunks(model_admin, request, kb_id: int):
    """Upload one file and see its text and chunks as this base would cut them, before indexing it."""
    require(request, "knowledge.view_knowledgebase")
    kb = get_object_or_404(KnowledgeBase, pk=kb_id)
    form = PreviewForm(request.POST or None, request.FILES or None)
    result, error = None, ""
    if request.method == "POST" and form.is_valid():
        try:
            result = preview.preview_upload(kb, form.cleaned_data["file"])
        except KnowledgeError as exc:
            error = str(exc)
    return render(model_admin, request, "admin/knowledge/knowledgebase/preview.html", _("Preview chunking"),
                  original=kb, form=form, preview=result, error=error, kb_url=kb_url(kb),
                  supported=", ".join(parsing.SUPPORTED_EXTENSIONS))
