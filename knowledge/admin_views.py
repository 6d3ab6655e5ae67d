"""Custom admin pages for content managers: uploads, re-index, playground, job progress.

Each view receives its ModelAdmin first (wired with `get_urls()` in `admin.py`), runs inside
`admin_site.admin_view()` (staff only, CSRF-protected, never cached) and re-checks the knowledge
permissions it needs, so a staff member without them gets a 403. The views parse a form, call one
domain function, and shape the result; the work itself lives in `knowledge.jobs`,
`knowledge.search.retrieval` and `knowledge.search.answers`. The crawl pages are the crawler's
(`crawler/admin_views.py`).
"""

import html
import re
from collections import defaultdict
from collections.abc import Callable

from django.contrib import messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Max
from django.db.models.functions import Substr
from django.http import HttpResponseNotAllowed, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from knowledge import jobs, progress
from knowledge.exceptions import KnowledgeError
from knowledge.forms import ColumnMappingForm, PlaygroundForm, ReindexForm, UploadForm
from knowledge.indexing import entries, parsing
from knowledge.models import Chunk, Document, Job, KnowledgeBase
from knowledge.search import answers, reasons, retrieval
from knowledge.search.citations import MARKER, marker_numbers

TEXT_PREVIEW_CHARS = 5000
CHUNKS_SHOWN = 300


def require(request, *perms: str) -> None:
    """Raise 403 unless the user holds every permission (superusers hold all)."""
    if not request.user.has_perms(perms):
        raise PermissionDenied


def render(model_admin, request, template: str, title: str, **context) -> TemplateResponse:
    opts = model_admin.opts
    return TemplateResponse(request, template, {
        **model_admin.admin_site.each_context(request),
        "opts": opts, "app_label": opts.app_label, "title": title, **context,
    })


def job_url(job: Job) -> str:
    return reverse("admin:knowledge_job_change", args=[job.pk])


def kb_url(kb: KnowledgeBase) -> str:
    return reverse("admin:knowledge_knowledgebase_change", args=[kb.pk])


# --- Knowledge base page ---------------------------------------------------------------------------

def kb_summary(kb: KnowledgeBase) -> dict:
    """Counts by status, chunks, last ingestion and recent jobs for the knowledge base page."""
    counts = dict(kb.documents.values_list("status").annotate(n=Count("pk")).order_by())
    documents_url = reverse("admin:knowledge_document_changelist") + f"?knowledge_base__id__exact={kb.pk}"
    return {
        "kb_status_counts": [
            {"status": status, "label": label, "count": counts.get(status, 0),
             "url": f"{documents_url}&status__exact={status}"}
            for status, label in Document.Status.choices
        ],
        "kb_documents": sum(counts.values()),
        "kb_chunks": Chunk.objects.filter(knowledge_base=kb).count(),
        "kb_last_ingestion": kb.documents.aggregate(last=Max("ingested_at"))["last"],
        "kb_recent_jobs": list(kb.jobs.order_by("-created_at")[:5]),
        "kb_documents_url": documents_url,
        "kb_jobs_url": reverse("admin:knowledge_job_changelist") + f"?knowledge_base__id__exact={kb.pk}",
        "kb_playground_url": reverse("admin:knowledge_knowledgebase_playground") + f"?kb={kb.pk}",
        "kb_live_url": reverse("admin:knowledge_job_activity") + f"?kb={kb.pk}",
    }


def upload(model_admin, request, kb_id: int):
    """Upload many files at once; each accepted file becomes a pending document of one ingestion job."""
    require(request, "knowledge.view_knowledgebase", "knowledge.add_document")
    kb = get_object_or_404(KnowledgeBase, pk=kb_id)
    form = UploadForm(request.POST or None, request.FILES or None)
    refused = []
    if request.method == "POST" and form.is_valid():
        job, refused = jobs.add_uploads(kb, form.cleaned_data["files"], user=request.user)
        if job:
            accepted = len(job.options.get("document_ids", []))
            messages.success(request, ngettext("%(count)d file accepted; ingestion job #%(job)d started.",
                                                  "%(count)d files accepted; ingestion job #%(job)d started.",
                                                  accepted) % {"count": accepted, "job": job.pk})
            for item in refused:
                messages.warning(request, _("Refused %(item)s: %(reason)s") % item)
            return HttpResponseRedirect(job_url(job))
    return render(model_admin, request, "admin/knowledge/knowledgebase/upload.html", _("Upload files"),
                  original=kb, form=form, refused=refused, supported=", ".join(parsing.SUPPORTED_EXTENSIONS))


def reindex(model_admin, request, kb_id: int):
    require(request, "knowledge.change_knowledgebase")
    kb = get_object_or_404(KnowledgeBase, pk=kb_id)
    return reindex_confirmation(model_admin, request, [kb], from_action=False)


def reindex_confirmation(model_admin, request, kbs: list[KnowledgeBase], *, from_action: bool = True):
    """Ask which embedder to use, then queue one re-index job per base (shared by the page and the action)."""
    confirmed = request.method == "POST" and request.POST.get("confirm") == "yes"
    form = ReindexForm(request.POST if confirmed else None, initial={"embedder": kbs[0].embedder if kbs else ""})
    if confirmed and form.is_valid():
        started = []
        for kb in kbs:
            try:
                started.append(jobs.start_reindex(kb, embedder=form.cleaned_data["embedder"],
                                                  force=form.cleaned_data["force"], user=request.user))
            except KnowledgeError as exc:
                messages.error(request, f"{kb}: {exc}")
        if started:
            messages.success(request, jobs_message(_("Re-index"), started))
        target = job_url(started[0]) if len(started) == 1 else reverse("admin:knowledge_job_changelist")
        return HttpResponseRedirect(target)
    return render(model_admin, request, "admin/knowledge/knowledgebase/reindex_confirmation.html",
                  _("Re-index knowledge bases") if len(kbs) > 1 else _("Re-index %(base)s") % {"base": kbs[0]},
                  kbs=kbs, original=kbs[0] if len(kbs) == 1 else None, form=form, from_action=from_action,
                  action_checkbox_name=helpers.ACTION_CHECKBOX_NAME)


# --- Documents -------------------------------------------------------------------------------------

def start_per_base(queryset, start: Callable[[KnowledgeBase, list[int]], Job]) -> list[Job]:
    """Call `start(kb, document_ids)` once per knowledge base of the selected documents."""
    by_kb: dict[int, list[int]] = defaultdict(list)
    for kb_id, doc_id in queryset.order_by().values_list("knowledge_base_id", "pk"):
        by_kb[kb_id].append(doc_id)
    kbs = KnowledgeBase.objects.in_bulk(list(by_kb))
    return [start(kbs[kb_id], sorted(ids)) for kb_id, ids in by_kb.items()]


def jobs_message(label: str, started: list[Job]) -> SafeString:
    links = format_html_join(", ", '<a href="{}">#{}</a>', ((job_url(job), job.pk) for job in started))
    text = ngettext("%(label)s: %(count)d job started: {}.", "%(label)s: %(count)d jobs started: {}.", len(started))
    return format_html(text % {"label": label, "count": len(started)}, links)


def document_detail(doc: Document) -> dict:
    """The text preview and the chunks in order, for the document page (never the vectors)."""
    preview = (Document.objects.filter(pk=doc.pk)
               .annotate(preview=Substr("text", 1, TEXT_PREVIEW_CHARS))
               .values_list("preview", flat=True).first() or "")
    chunks = (doc.chunks.order_by("layer", "position")
              .only("pk", "layer", "position", "section_path", "page", "token_count", "content",
                    "span_start", "span_end", "enabled", "metadata")[:CHUNKS_SHOWN])
    return {
        "text_preview": preview,
        "text_truncated": doc.char_count > TEXT_PREVIEW_CHARS,
        "chunks": chunks,
        "chunks_truncated": doc.chunk_count > CHUNKS_SHOWN,
        "chunks_url": reverse("admin:knowledge_chunk_changelist") + f"?document__id__exact={doc.pk}",
        "kb_url": kb_url(doc.knowledge_base),
        "tables": doc.metadata.get("tables", []),
        "column_roles": current_mapping(doc),
    }


# --- Jobs ------------------------------------------------------------------------------------------

# Job counters (knowledge.jobs, crawler.crawling, the layer store) as people read them.
COUNTER_LABELS = {
    "created": gettext_lazy("created"), "updated": gettext_lazy("updated"), "unchanged": gettext_lazy("unchanged"),
    "failed": gettext_lazy("failed"), "deleted": gettext_lazy("deleted"),
    "chunks_embedded": gettext_lazy("chunks embedded"), "chunks": gettext_lazy("chunks"),
    "queued": gettext_lazy("queued"),
    "fetched": gettext_lazy("fetched"), "ingested": gettext_lazy("ingested"), "duplicate": gettext_lazy("duplicates"),
    "blocked_by_robots": gettext_lazy("blocked by robots.txt"), "skipped_by_rule": gettext_lazy("skipped by a rule"),
    "http_4xx": gettext_lazy("HTTP 4xx"), "http_5xx": gettext_lazy("HTTP 5xx"), "too_large": gettext_lazy("too large"),
    "empty": gettext_lazy("empty"), "unsupported": gettext_lazy("unsupported"),
    "blocked_address": gettext_lazy("blocked addresses"), "redirect_error": gettext_lazy("redirect errors"),
    "removed": gettext_lazy("removed"),
}


def counter_label(name: str) -> str:
    """A job counter's label; layer row counts (`rows_D2`) and unknown names as written."""
    if name.startswith("rows_"):
        return _("rows %(layer)s") % {"layer": name[5:]}
    return str(COUNTER_LABELS.get(name, name.replace("_", " ")))


def progress_data(job: Job) -> dict:
    """`progress.job_state` plus each document's admin link."""
    data = progress.job_state(job)
    document_url = reverse("admin:knowledge_document_change", args=[0])
    for item in data["documents"]:
        item["url"] = document_url.replace("/0/", f"/{int(item['id'])}/")
    return data


def job_detail(model_admin, request, job: Job) -> dict:
    can_change = model_admin.has_change_permission(request, job)
    return {
        "job": job,
        "progress": progress_data(job),
        "progress_url": reverse("admin:knowledge_job_progress", args=[job.pk]),
        "cancel_url": reverse("admin:knowledge_job_cancel", args=[job.pk]),
        "retry_url": reverse("admin:knowledge_job_retry", args=[job.pk]),
        "can_cancel": can_change and not job.is_finished and not job.cancel_requested,
        "can_retry": can_change and job.is_retryable,
        "counters": [(name, counter_label(name), value) for name, value in sorted(job.counters.items())],
        "title": str(job),
        "subtitle": job.knowledge_base,
    }


def job_progress(model_admin, request, job_id: int):
    """The job's live state as JSON, polled by the progress bar."""
    require(request, "knowledge.view_job")
    return JsonResponse(progress_data(get_object_or_404(Job, pk=job_id)))


def activity(model_admin, request):
    """A stamp of the documents and jobs of one base (`?kb=`) or of all: it changes whenever either does,
    so an open knowledge base page or documents list knows when to refresh itself."""
    require(request, "knowledge.view_document")
    documents, job_rows = Document.objects.all(), Job.objects.all()
    if request.GET.get("kb", "").isdigit():
        documents = documents.filter(knowledge_base_id=int(request.GET["kb"]))
        job_rows = job_rows.filter(knowledge_base_id=int(request.GET["kb"]))
    docs = documents.aggregate(n=Count("pk"), last=Max("updated_at"))
    last_job = job_rows.aggregate(last=Max("updated_at"))["last"]
    return JsonResponse({
        "active": job_rows.exclude(status__in=Job.FINISHED).exists(),
        "stamp": f"{docs['n']}|{docs['last'] and docs['last'].isoformat()}|{last_job and last_job.isoformat()}",
    })


def job_cancel(model_admin, request, job_id: int):
    require(request, "knowledge.change_job")
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    job = get_object_or_404(Job, pk=job_id)
    try:
        job.cancel()
    except KnowledgeError as exc:
        messages.warning(request, str(exc))
    else:
        messages.success(request, _("Cancellation of %(job)s requested; it stops after the current item.")
                         % {"job": job})
    return HttpResponseRedirect(job_url(job))


def job_retry(model_admin, request, job_id: int):
    require(request, "knowledge.change_job")
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    job = get_object_or_404(Job.objects.select_related("knowledge_base"), pk=job_id)
    try:
        new_job = jobs.retry(job, user=request.user)
    except KnowledgeError as exc:
        messages.error(request, str(exc))
        return HttpResponseRedirect(job_url(job))
    messages.success(request, _("%(job)s retried as job #%(new)d.") % {"job": job, "new": new_job.pk})
    return HttpResponseRedirect(job_url(new_job))


# --- Search playground -----------------------------------------------------------------------------

MARK = re.compile(r"(</?mark>)")


def safe_snippet(snippet: str) -> SafeString:
    """Keep only the `<mark>` tags of a snippet; everything else is (re-)escaped whatever it arrived as."""
    parts = MARK.split(snippet or "")
    return mark_safe("".join(part if MARK.fullmatch(part) else escape(html.unescape(part)) for part in parts))


def cited_text(text: str) -> SafeString:
    """The answer text, escaped, with its citation markers turned into links to their sources."""
    def badge(match: re.Match) -> str:
        return " ".join(f'<a class="kp-cite" href="#source-{n}">[{n}]</a>' for n in marker_numbers(match[1]))

    return mark_safe(MARKER.sub(badge, str(escape(text))).replace("\n", "<br>"))


def playground(model_admin, request):
    """Try a search (and optionally a grounded answer) against chosen knowledge bases."""
    require(request, "knowledge.view_knowledgebase")
    initial = {"knowledge_bases": request.GET.getlist("kb")}
    form = PlaygroundForm(request.POST or None, initial=initial)
    context = {"hits": None, "answer": None, "retrieval": None, "error": ""}
    if request.method == "POST" and form.is_valid():
        context.update(_run_search(form.cleaned_data))
    return render(model_admin, request, "admin/knowledge/knowledgebase/playground.html", _("Search playground"),
                  form=form, advanced_open=_advanced_used(form), **context)


PLAYGROUND_BASICS = ("query", "knowledge_bases", "with_answer")


def _advanced_used(form: PlaygroundForm) -> bool:
    """Whether the "Advanced" options were changed (or are wrong): then they are shown open."""
    advanced = [name for name in form.fields if name not in PLAYGROUND_BASICS]
    if any(name in form.errors for name in advanced):
        return True
    if not form.is_bound or not form.is_valid():
        return False
    return any(form.cleaned_data.get(name) not in (form.fields[name].initial, None, "", [], {})
               for name in advanced)


def _run_search(data: dict) -> dict:
    kb_ids = [kb.pk for kb in data["knowledge_bases"]]
    options = {"top_k": data["top_k"], "max_distance": data["max_distance"], "mode": data["mode"],
               "layers": data["layers"] or None, "filters": data["filters"]}
    try:
        result = retrieval.retrieve(data["query"], kb_ids, **options)
        answer = _answer(data["query"], kb_ids, options) if data["with_answer"] else None
    except KnowledgeError as exc:
        return {"error": str(exc)}
    rows = [{"hit": hit, "snippet": safe_snippet(hit.snippet or escape(hit.content[:400])),
             "document_url": reverse("admin:knowledge_document_change", args=[hit.document_id]),
             "chunk_url": reverse("admin:knowledge_chunk_change", args=[hit.chunk_id])} for hit in result.hits]
    shaped_answer = None
    if answer is not None:
        shaped_answer = {"answer": answer, "text": cited_text(answer.text), "question": data["query"],
                         "reasons": reasons.reason_sentences(answer.reasons, unmentioned=answer.unmentioned),
                         **_rating(answer, kb_ids),
                         "sources": [{"number": c.number, "hit": c.hit,
                                      "snippet": safe_snippet(c.hit.snippet or escape(c.hit.content[:400]))}
                                     for c in answer.citations]}
    return {"hits": rows, "answer": shaped_answer, "retrieval": result}


def _rating(answer, kb_ids: list[int]) -> dict:
    """What a thumbs up or down on this answer records: the base of its first source (else the first
    base asked) and the chunks it was made of there (cited, or the sources of a refusal)."""
    used = [citation.hit for citation in answer.citations] or answer.sources
    kb_id = used[0].knowledge_base_id if used else (kb_ids[0] if kb_ids else None)
    return {"rate_kb": kb_id,
            "chunk_ids": ",".join(str(hit.chunk_id) for hit in used if hit.knowledge_base_id == kb_id)}


def _answer(question: str, kb_ids: list[int], options: dict):
    # The answer retrieves on its own (no distance cut-off: its confidence decides instead).
    return answers.answer(question, kb_ids, top_k=options["top_k"], mode=options["mode"],
                          layers=options["layers"], filters=options["filters"])


# --- Column mapping ----------------------------------------------------------------------------------

def current_mapping(doc: Document) -> dict[str, str]:
    """The role each column has now: the stored mapping over the guess recorded at the last indexing."""
    mapping = {}
    for table in doc.metadata.get("tables", []):
        mapping.update(table.get("mapping", {}))
    return {**mapping, **doc.column_mapping}


def column_mapping_view(model_admin, request, object_id):
    """Show and change the roles of a document's table columns; saving re-chunks that document."""
    require(request, "knowledge.change_document")
    doc = get_object_or_404(Document, pk=object_id)
    columns = entries.known_columns(doc.metadata.get("tables", []))
    form = ColumnMappingForm(request.POST or None, columns=columns, current=current_mapping(doc))
    if request.method == "POST" and form.is_valid():
        try:
            job = jobs.change_column_mapping(doc, form.mapping(), user=request.user)
        except KnowledgeError as exc:
            form.add_error(None, str(exc))
        else:
            model_admin.message_user(request, _("Column mapping saved; re-index job #%(job)d queued")
                                     % {"job": job.pk}, messages.SUCCESS)
            return HttpResponseRedirect(reverse("admin:knowledge_document_change", args=[doc.pk]))
    return render(model_admin, request, "admin/knowledge/document/column_mapping.html",
                  _("Columns of %(document)s") % {"document": doc}, form=form, document=doc,
                  tables=doc.metadata.get("tables", []))
