"""A job's live state in one shape, for the admin's polling page and the API's job resource.

The bar, the status, the timestamps and the counters come from one read of the job row; each
document's own state from the job's item rows, which the workers sharing the job write one at a time.
"""

from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from knowledge.models import Job
from portal.stored_text import translated


def item_label(item: dict) -> str:
    """One document's state in words: "Reading 3 / 40 pages with OCR", "Embedding 12 / 50 chunks",
    "Ready · 8 chunks", "Failed"."""
    state, done, total = item.get("state", ""), item.get("chunks_done", 0), item.get("chunks_total", 0)
    if state == Job.ItemState.EMBEDDING:
        return _("Embedding %(done)s / %(total)s chunks") % {"done": done, "total": total}
    if state == Job.ItemState.PARSING and item.get("pages_total"):
        return _("Reading %(done)s / %(total)s pages with OCR") % {"done": item.get("pages_done", 0),
                                                                   "total": item["pages_total"]}
    # str(): choice labels are lazy, and the API's schemas (pydantic) take only real strings.
    label = str(Job.ItemState(state).label) if state in Job.ItemState.values else state
    if state == Job.ItemState.READY and total:
        return f"{label} · " + ngettext("%(count)d chunk", "%(count)d chunks", total) % {"count": total}
    return label


def items(job: Job) -> list[dict]:
    """The job's documents with their state, chunk counts, failure reason and a readable label (both in
    the reader's language)."""
    return [{"id": item["id"], "name": item.get("name", ""), "state": item.get("state", ""),
             "label": item_label(item), "chunks_done": item.get("chunks_done", 0),
             "chunks_total": item.get("chunks_total", 0), "pages_done": item.get("pages_done", 0),
             "pages_total": item.get("pages_total", 0), "reason": translated(item.get("reason", ""))}
            for item in job.items]


def when(value) -> str:
    """A timestamp as the admin prints it (local time, the active format), "" when unset."""
    return formats.localize(timezone.localtime(value)) if value else ""


def job_state(job: Job) -> dict:
    chunks_done, chunks_total = job.chunks_progress
    return {
        "id": job.pk, "status": job.status, "status_label": job.status_label, "finished": job.is_finished,
        "percent": job.percent, "done": job.progress_done, "total": job.progress_total,
        "chunks_done": chunks_done, "chunks_total": chunks_total, "counters": job.counters,
        "failures": len(job.failures), "error_message": translated(job.error_message),
        "cancel_requested": job.cancel_requested, "current_item": job.current_item,
        "started_at": when(job.started_at),
        "finished_at": when(job.finished_at), "documents": items(job),
    }
