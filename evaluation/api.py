"""REST operations on golden sets, evaluation runs and answer feedback.

Access follows the knowledge API: a key sees only the bases it may use (others answer 404);
reading needs `read`, changing `write`, feedback `search` (whoever may ask may rate the answer).
"""

import io
from pathlib import Path

from django.conf import settings
from django.db.models import Count, Prefetch, Q
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from ninja import File, Query, Router, Status
from ninja.files import UploadedFile
from ninja.pagination import paginate

from evaluation import feedback, golden, proposals, runs, shadow
from evaluation.models import EvalRun, ExpectedSource, GoldenQuestion, GoldenSet, ShadowSwitch
from evaluation.schemas import (
    CutOverRequest,
    DiffResponse,
    FeedbackIn,
    FeedbackOut,
    GoldenSetIn,
    GoldenSetOut,
    ImportResponse,
    ProposeRequest,
    ProposeResponse,
    QuestionFilter,
    QuestionIn,
    QuestionOut,
    RunIn,
    RunOut,
    SwitchIn,
    SwitchOut,
)
from knowledge.api import get_kb
from portal.auth import READ, SEARCH, WRITE, ApiError
from portal.schemas import errors

router = Router(tags=["evaluation"])
IMPORT_TYPES = (".jsonl", ".csv")


def get_set(request: HttpRequest, set_id: int) -> GoldenSet:
    item = get_object_or_404(GoldenSet.objects.select_related("knowledge_base"), pk=set_id)
    if not request.auth.may_use(item.knowledge_base_id):
        raise Http404
    return item


def get_question(request: HttpRequest, question_id: int) -> GoldenQuestion:
    item = get_object_or_404(GoldenQuestion.objects.select_related("golden_set"), pk=question_id)
    if not request.auth.may_use(item.golden_set.knowledge_base_id):
        raise Http404
    return item


def get_run(request: HttpRequest, run_id: int) -> EvalRun:
    item = get_object_or_404(EvalRun.objects.select_related("job"), pk=run_id)
    if not request.auth.may_use(item.knowledge_base_id):
        raise Http404
    return item


def with_counts(queryset):
    return queryset.annotate(n_confirmed=Count("questions", filter=Q(questions__status="confirmed")),
                             n_proposed=Count("questions", filter=Q(questions__status="proposed")))


# --- Golden sets and questions ----------------------------------------------------------------------

@router.get("/knowledge-bases/{kb_id}/golden-sets", response={200: list[GoldenSetOut], **errors(404)}, auth=READ)
@paginate
def list_golden_sets(request, kb_id: int):
    return with_counts(get_kb(request, kb_id).golden_sets.order_by("name", "pk"))


@router.post("/knowledge-bases/{kb_id}/golden-sets", response={201: GoldenSetOut, **errors(404)}, auth=WRITE)
def create_golden_set(request, kb_id: int, payload: GoldenSetIn):
    item = golden.create_golden_set(get_kb(request, kb_id), name=payload.name, description=payload.description)
    return Status(201, with_counts(GoldenSet.objects.filter(pk=item.pk)).get())


@router.get("/golden-sets/{set_id}/questions", response={200: list[QuestionOut], **errors(404)}, auth=READ)
@paginate
def list_questions(request, set_id: int, filters: Query[QuestionFilter]):
    questions = get_set(request, set_id).questions.order_by("pk").prefetch_related(
        Prefetch("expected", ExpectedSource.objects.only("question_id", "document_id")))
    return questions.filter(status=filters.status) if filters.status else questions


@router.post("/golden-sets/{set_id}/questions", response={201: QuestionOut, **errors(404)}, auth=WRITE)
def add_question(request, set_id: int, payload: QuestionIn):
    item = golden.add_question(get_set(request, set_id), question=payload.question,
                               document_ids=payload.document_ids, should_refuse=payload.should_refuse)
    return Status(201, item)


@router.post("/golden-sets/{set_id}/import", response={201: ImportResponse, **errors(404, 413, 415)}, auth=WRITE)
def import_questions(request, set_id: int, file: UploadedFile = File(...),  # noqa: B008
                     document_key: str = "source_uri"):
    """Questions from a `.jsonl` or `.csv` file (question, document or documents, should_refuse).

    All or nothing: a file with unknown documents, duplicate or empty questions imports nothing and
    the error names the lines. For BEIR folders and very large files use `manage.py import_golden`.
    """
    golden_set = get_set(request, set_id)
    if Path(file.name).suffix.lower() not in IMPORT_TYPES:
        raise ApiError(415, "unsupported_media_type",
                       _("Send a %(types)s file") % {"types": _(" or ").join(IMPORT_TYPES)})
    limit = settings.PORTAL["MAX_UPLOAD_BYTES"]
    if file.size > limit:
        raise ApiError(413, "file_too_large", _("The file is over the %(limit)s-byte limit")
                       % {"limit": number_format(limit, force_grouping=True)})
    with io.TextIOWrapper(file.file, encoding="utf-8", errors="strict", newline="") as text:
        try:
            report = golden.import_rows(golden_set, file.name, text, document_key=document_key)
        except UnicodeDecodeError:
            raise ApiError(422, "invalid", _("The file is not UTF-8 text")) from None
    return Status(201, {"questions": report.questions, "expected": report.expected})


@router.post("/golden-sets/{set_id}/proposals", response={201: ProposeResponse, **errors(404)}, auth=WRITE)
def propose_questions(request, set_id: int, payload: ProposeRequest):
    """Proposed questions from answered/rejected tickets or thumbs-down feedback; a person confirms them."""
    golden_set = get_set(request, set_id)
    propose = proposals.propose_from_tickets if payload.source == "tickets" else proposals.propose_from_feedback
    return Status(201, {"added": propose(golden_set)})


@router.post("/golden-questions/{question_id}/confirm", response={200: QuestionOut, **errors(404)}, auth=WRITE)
def confirm_question(request, question_id: int):
    return golden.confirm_question(get_question(request, question_id))


@router.post("/golden-questions/{question_id}/dismiss", response={200: QuestionOut, **errors(404)}, auth=WRITE)
def dismiss_question(request, question_id: int):
    return golden.dismiss_question(get_question(request, question_id))


# --- Runs ------------------------------------------------------------------------------------------

@router.post("/golden-sets/{set_id}/runs", response={202: RunOut, **errors(404)}, auth=WRITE)
def start_run(request, set_id: int, payload: RunIn):
    """Evaluate the set in the worker; poll the run (or its job) until `finished_at` is set."""
    return Status(202, runs.start_evaluation(get_set(request, set_id), label=payload.label, user=request.auth.owner))


@router.get("/knowledge-bases/{kb_id}/eval-runs", response={200: list[RunOut], **errors(404)}, auth=READ)
@paginate
def list_runs(request, kb_id: int, golden_set: int | None = None):
    """The base's runs, newest first: the trend of its metrics."""
    items = get_kb(request, kb_id).eval_runs.select_related("job").order_by("-created_at", "-pk")
    return items.filter(golden_set_id=golden_set) if golden_set else items


@router.get("/eval-runs/{run_id}", response={200: RunOut, **errors(404)}, auth=READ)
def get_eval_run(request, run_id: int):
    return get_run(request, run_id)


@router.get("/eval-runs/{run_id}/diff/{against_id}", response={200: DiffResponse, **errors(404)}, auth=READ)
def diff_runs(request, run_id: int, against_id: int):
    """Questions that got better or worse from run `against_id` to this one, with their top hits."""
    after, before = get_run(request, run_id), get_run(request, against_id)
    better, worse = runs.compare_runs(before, after)
    return {"before": before.pk, "after": after.pk, "better": _changes(better), "worse": _changes(worse)}


def _changes(changes: list[runs.QuestionChange]) -> list[dict]:
    return [{"question": c.question, "delta": round(c.delta, 4), "before": c.before, "after": c.after}
            for c in changes]


# --- Feedback ----------------------------------------------------------------------------------------

@router.post("/knowledge-bases/{kb_id}/feedback", response={201: FeedbackOut, **errors(404)}, auth=SEARCH)
def add_feedback(request, kb_id: int, payload: FeedbackIn):
    """A thumbs up or down on an answer from this base, with the answer's source chunk ids."""
    item = feedback.record_feedback(get_kb(request, kb_id), question=payload.question, rating=payload.rating,
                                    answer=payload.answer, comment=payload.comment, refused=payload.refused,
                                    chunk_ids=payload.chunk_ids, api_key=request.auth)
    return Status(201, item)


# --- Shadow switches ----------------------------------------------------------------------------------

def get_switch(request: HttpRequest, switch_id: int) -> ShadowSwitch:
    item = get_object_or_404(ShadowSwitch.objects.select_related("job", "old_run", "new_run"), pk=switch_id)
    if not request.auth.may_use(item.knowledge_base_id):
        raise Http404
    return item


@router.post("/knowledge-bases/{kb_id}/switches", response={202: SwitchOut, **errors(404, 409)}, auth=WRITE)
def start_switch(request, kb_id: int, payload: SwitchIn):
    """Build the base with a new embedder or chunking beside it; the base keeps serving until the cut-over."""
    kb = get_kb(request, kb_id)
    golden_set = get_set(request, payload.golden_set) if payload.golden_set else None
    changes = payload.model_dump(include={"embedder", "chunk_size", "chunk_overlap", "chunk_min_size"},
                                 exclude_none=True, mode="json")
    item = shadow.start_switch(kb, golden_set=golden_set, tolerance=payload.tolerance,
                               auto_switch=payload.auto_switch, user=request.auth.owner, **changes)
    return Status(202, get_switch(request, item.pk))


@router.get("/knowledge-bases/{kb_id}/switches", response={200: list[SwitchOut], **errors(404)}, auth=READ)
@paginate
def list_switches(request, kb_id: int):
    return get_kb(request, kb_id).switches.select_related("job", "old_run", "new_run").order_by("-created_at", "-pk")


@router.get("/switches/{switch_id}", response={200: SwitchOut, **errors(404)}, auth=READ)
def get_shadow_switch(request, switch_id: int):
    """The switch with its build job's progress and, once evaluated, both versions' metrics."""
    return get_switch(request, switch_id)


@router.post("/switches/{switch_id}/cut-over", response={200: SwitchOut, **errors(404, 409)}, auth=WRITE)
def cut_over(request, switch_id: int, payload: CutOverRequest):
    """Serve the new version (409 while building, when worse unless forced, or when the base changed)."""
    shadow.cut_over(get_switch(request, switch_id), force=payload.force)
    return get_switch(request, switch_id)


@router.post("/switches/{switch_id}/confirm", response={200: SwitchOut, **errors(404, 409)}, auth=WRITE)
def confirm_switch(request, switch_id: int):
    """Keep the new version; the old one is deleted."""
    shadow.confirm(get_switch(request, switch_id))
    return get_switch(request, switch_id)


@router.post("/switches/{switch_id}/rollback", response={200: SwitchOut, **errors(404, 409)}, auth=WRITE)
def rollback_switch(request, switch_id: int):
    """Serve the old version again after a cut-over."""
    shadow.rollback(get_switch(request, switch_id))
    return get_switch(request, switch_id)


@router.post("/switches/{switch_id}/resume", response={202: SwitchOut, **errors(404, 409)}, auth=WRITE)
def resume_switch(request, switch_id: int):
    """Update the evaluated new version with the base's changes since its build, then evaluate again."""
    shadow.resume(get_switch(request, switch_id), user=request.auth.owner)
    return Status(202, get_switch(request, switch_id))


@router.post("/switches/{switch_id}/cancel", response={200: SwitchOut, **errors(404, 409)}, auth=WRITE)
def cancel_switch(request, switch_id: int):
    """Stop the build, or drop a built version that was not switched to."""
    shadow.cancel(get_switch(request, switch_id))
    return get_switch(request, switch_id)
