"""Custom admin pages of the evaluation app: importing a question file, the trend per base, the diff of two runs,
and rating an answer from the search playground.

Each view receives its ModelAdmin first, runs inside `admin_site.admin_view()` and re-checks the
permission it needs; the work is done by `evaluation.golden` and `evaluation.runs`.
"""

import io

from django.contrib import messages
from django.http import HttpResponseNotAllowed, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from evaluation import feedback, golden, runs
from evaluation.exceptions import EvaluationError
from evaluation.forms import ImportForm, RatingForm
from evaluation.models import EvalRun, GoldenSet
from knowledge.admin_views import render, require
from knowledge.models import KnowledgeBase

CHART_METRICS = [("ndcg@10", "nDCG@10", "#417690"), ("recall@10", "recall@10", "#79aec8"),
                 ("citation@1", gettext_lazy("citation [1]"), "#d4a017"),
                 ("refusal_recall", gettext_lazy("refusal recall"), "#ba2121")]
CHART_WIDTH, CHART_HEIGHT, CHART_PAD = 640, 200, 24
CHANGES_SHOWN = 100
TABLE_METRICS = ["ndcg@10", "recall@10", "mrr@10", "citation@1", "refusal_precision", "refusal_recall",
                 "latency_p95_ms"]


def _fmt(value) -> str:
    return "—" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def import_questions(model_admin, request, set_id: int):
    require(request, "evaluation.change_goldenset", "evaluation.add_goldenquestion")
    golden_set = get_object_or_404(GoldenSet.objects.select_related("knowledge_base"), pk=set_id)
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            with io.TextIOWrapper(upload.file, encoding="utf-8", newline="") as text:
                report = golden.import_rows(golden_set, upload.name, text,
                                            document_key=form.cleaned_data["document_key"])
        except (EvaluationError, UnicodeDecodeError) as exc:
            messages.error(request, str(exc) if isinstance(exc, EvaluationError) else _("The file is not UTF-8 text"))
        else:
            messages.success(request, _("%(questions)s question(s) with %(expected)s expected document(s) imported "
                                        "into %(set)s") % {"set": golden_set, "questions": report.questions,
                                                          "expected": report.expected})
            return HttpResponseRedirect(reverse("admin:evaluation_goldenset_change", args=[golden_set.pk]))
    return render(model_admin, request, "admin/evaluation/goldenset/import.html",
                  _("Import questions into %(set)s") % {"set": golden_set}, original=golden_set, form=form)


def trend(model_admin, request, kb_id: int):
    """One chart per golden set of the base: its metrics over the finished runs, oldest first."""
    require(request, "evaluation.view_evalrun")
    kb = get_object_or_404(KnowledgeBase, pk=kb_id)
    charts = []
    for golden_set in kb.golden_sets.order_by("name"):
        items = list(golden_set.runs.exclude(finished_at=None).order_by("created_at", "pk")[:200])
        if items:
            rows = [{"run": run, "values": [_fmt(run.metrics.get(key)) for key in TABLE_METRICS]}
                    for run in items[::-1][:20]]
            charts.append({"golden_set": golden_set, "svg": chart(items), "rows": rows})
    return render(model_admin, request, "admin/evaluation/evalrun/trend.html",
                  _("Evaluation trend of %(base)s") % {"base": kb},
                  kb=kb, charts=charts, legend=CHART_METRICS, columns=TABLE_METRICS)


def chart(items: list[EvalRun]) -> str:
    """An inline SVG line chart (0..1 on the y axis), one polyline per metric, no JavaScript."""
    step = (CHART_WIDTH - 2 * CHART_PAD) / max(1, len(items) - 1)

    def point(index: int, value: float) -> str:
        x = CHART_PAD + index * step
        y = CHART_HEIGHT - CHART_PAD - value * (CHART_HEIGHT - 2 * CHART_PAD)
        return f"{x:.1f},{y:.1f}"

    lines = []
    for key, label, colour in CHART_METRICS:
        points = [point(i, run.metrics[key]) for i, run in enumerate(items) if run.metrics.get(key) is not None]
        if points:
            lines.append((colour, " ".join(points), label))
    grid = format_html_join("", '<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="#ddd"/><text x="2" y="{}" '
                                'font-size="10">{}</text>', (
        (CHART_PAD, CHART_WIDTH - CHART_PAD, y, y, y + 3, label)
        for label, y in [(f"{v:.1f}", CHART_HEIGHT - CHART_PAD - v * (CHART_HEIGHT - 2 * CHART_PAD))
                         for v in (0.0, 0.5, 1.0)]))
    polylines = format_html_join("", '<polyline fill="none" stroke="{}" stroke-width="2" points="{}">'
                                     "<title>{}</title></polyline>", lines)
    return format_html('<svg class="kp-chart" width="{}" height="{}" viewBox="0 0 {} {}" role="img" '
                       'aria-label="{}">{}{}</svg>', CHART_WIDTH, CHART_HEIGHT, CHART_WIDTH,
                       CHART_HEIGHT, _("Metrics over runs"), grid, polylines)


def diff(model_admin, request, before_id: int, after_id: int):
    require(request, "evaluation.view_evalrun")
    before, after = (get_object_or_404(EvalRun.objects.select_related("golden_set"), pk=pk)
                     for pk in (before_id, after_id))
    try:
        better, worse = runs.compare_runs(before, after)
    except EvaluationError as exc:
        messages.error(request, str(exc))
        return HttpResponseRedirect(reverse("admin:evaluation_evalrun_changelist"))
    metrics = [(name, _fmt(before.metrics.get(name)), _fmt(after.metrics.get(name)))
               for name in dict.fromkeys([*before.metrics, *after.metrics])]
    return render(model_admin, request, "admin/evaluation/evalrun/diff.html",
                  _("Evaluation #%(before)s → #%(after)s") % {"before": before.pk, "after": after.pk},
                  before=before, after=after, metrics=metrics,
                  better=better[:CHANGES_SHOWN], worse=worse[:CHANGES_SHOWN], n_better=len(better),
                  n_worse=len(worse))


def rate_answer(model_admin, request):
    """A thumbs up or down on an answer tried in the search playground (whoever may use it may rate).

    Answers JSON to the playground's script, so the page keeps its results; without the script,
    goes back to the playground with a message.
    """
    require(request, "knowledge.view_knowledgebase")
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    form = RatingForm(request.POST)
    wants_json = request.headers.get("Accept", "").startswith("application/json")
    if form.is_valid():
        data = form.cleaned_data
        try:
            feedback.record_feedback(data["knowledge_base"], question=data["question"], rating=data["rating"],
                                     answer=data["answer"], refused=data["refused"], chunk_ids=data["chunks"])
        except EvaluationError as exc:
            form.add_error(None, str(exc))
    if form.errors:
        error = "; ".join(str(message) for errors in form.errors.values() for message in errors)
        if wants_json:
            return JsonResponse({"recorded": False, "message": error}, status=400)
        messages.error(request, _("The rating was not recorded: %(error)s") % {"error": error})
    else:
        note = _("Thank you: the rating is recorded (Evaluation → Feedback; thumbs down also feed the gap report).")
        if wants_json:
            return JsonResponse({"recorded": True, "message": note})
        messages.success(request, note)
    return HttpResponseRedirect(reverse("admin:knowledge_knowledgebase_playground"))
