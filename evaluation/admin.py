"""Golden sets, their questions, evaluation runs (with a trend chart and a diff of two runs) and feedback.

Every write goes through `evaluation.golden`, `evaluation.runs` or `evaluation.feedback`; the
custom pages (file import, trend, diff) live in `admin_views.py`.
"""

from django.contrib import admin, messages
from django.db.models import Count, IntegerField, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.text import Truncator, format_lazy
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from evaluation import admin_views, golden, proposals, runs, shadow
from evaluation.exceptions import EvaluationError
from evaluation.forms import SwitchForm
from evaluation.models import EvalRun, ExpectedSource, Feedback, GoldenQuestion, GoldenSet, ShadowSwitch
from knowledge.admin import CappedCountPaginator, ChunkAdmin, KnowledgeAdminMixin, pretty_json
from knowledge.models import Chunk
from portal.stored_text import translated


class EvaluationAdminMixin(KnowledgeAdminMixin):
    """The knowledge admin's custom-page wiring, with URL names in this app's namespace."""

    def custom_url(self, route: str, view, name: str):
        url = super().custom_url(route, view, name)
        url.name = f"evaluation_{self.opts.model_name}_{name}"
        return url

METRIC_COLUMNS = ["ndcg@10", "recall@10", "mrr@10", "citation@1", "refusal_precision", "refusal_recall",
                  "latency_p95_ms"]
RESULTS_SHOWN = 100


def metric(value) -> str:
    return "—" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


@admin.register(GoldenSet)
class GoldenSetAdmin(EvaluationAdminMixin, admin.ModelAdmin):
    list_display = ["name", "knowledge_base", "confirmed", "proposed", "last_run", "links"]
    list_filter = ["knowledge_base"]
    list_select_related = ["knowledge_base"]
    search_fields = ["name", "description"]
    fields = ["knowledge_base", "name", "description"]
    actions = ["run_evaluation", "propose_from_tickets", "propose_from_feedback"]

    class Media:
        css = KnowledgeAdminMixin.css

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(
            n_confirmed=Count("questions", filter=Q(questions__status=GoldenQuestion.Status.CONFIRMED)),
            n_proposed=Count("questions", filter=Q(questions__status=GoldenQuestion.Status.PROPOSED)))

    def get_readonly_fields(self, request, obj=None):
        return ["knowledge_base"] if obj else []

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        try:
            obj.pk = golden.create_golden_set(obj.knowledge_base, name=obj.name, description=obj.description).pk
        except EvaluationError as exc:
            self.message_user(request, str(exc), messages.ERROR)

    @admin.display(description=_("Confirmed"), ordering="n_confirmed")
    def confirmed(self, item):
        url = reverse("admin:evaluation_goldenquestion_changelist")
        return format_html('<a href="{}?golden_set__id__exact={}&status__exact=confirmed">{}</a>', url, item.pk,
                           item.n_confirmed)

    @admin.display(description=_("Proposed"), ordering="n_proposed")
    def proposed(self, item):
        url = reverse("admin:evaluation_goldenquestion_changelist")
        return format_html('<a href="{}?golden_set__id__exact={}&status__exact=proposed">{}</a>', url, item.pk,
                           item.n_proposed)

    @admin.display(description=_("Last run"))
    def last_run(self, item):
        run = item.runs.exclude(finished_at=None).order_by("-created_at").first()
        if run is None:
            return "—"
        return format_html('<a href="{}">nDCG@10 {}</a>', reverse("admin:evaluation_evalrun_change", args=[run.pk]),
                           metric(run.metrics.get("ndcg@10")))

    @admin.display(description="")  # the column of links needs no heading
    def links(self, item):
        return format_html('<a href="{}">{}</a> · <a href="{}">{}</a>',
                           reverse("admin:evaluation_goldenset_import", args=[item.pk]), gettext("Import…"),
                           reverse("admin:evaluation_evalrun_trend", args=[item.knowledge_base_id]), gettext("Trend"))

    @admin.action(description=_("Run the evaluation (background job)"), permissions=["change"])
    def run_evaluation(self, request, queryset):
        for item in queryset:
            try:
                run = runs.start_evaluation(item, user=request.user)
                self.message_user(request, _("Evaluation #%(run)s of %(set)s queued as job #%(job)s")
                                  % {"run": run.pk, "set": item, "job": run.job_id})
            except EvaluationError as exc:
                self.message_user(request, f"{item}: {exc}", messages.ERROR)

    @admin.action(description=_("Propose questions from answered and rejected tickets"), permissions=["change"])
    def propose_from_tickets(self, request, queryset):
        added = sum(proposals.propose_from_tickets(item) for item in queryset)
        self.message_user(request, ngettext("%(count)d question proposed; confirm it in Golden questions",
                                            "%(count)d questions proposed; confirm them in Golden questions",
                                            added) % {"count": added})

    @admin.action(description=_("Propose questions from thumbs-down feedback"), permissions=["change"])
    def propose_from_feedback(self, request, queryset):
        added = sum(proposals.propose_from_feedback(item) for item in queryset)
        self.message_user(request, ngettext("%(count)d question proposed; add its documents and confirm it",
                                            "%(count)d questions proposed; add their documents and confirm them",
                                            added) % {"count": added})

    def get_urls(self):
        return [self.custom_url("<int:set_id>/import/", admin_views.import_questions, "import"),
                *super().get_urls()]


class ExpectedSourceInline(admin.TabularInline):
    model = ExpectedSource
    raw_id_fields = ["document", "chunk"]
    extra = 1


@admin.register(GoldenQuestion)
class GoldenQuestionAdmin(admin.ModelAdmin):
    list_display = ["short_question", "golden_set", "status", "origin", "should_refuse", "expected_documents", "note"]
    list_filter = ["status", "origin", "should_refuse", "golden_set"]
    list_select_related = ["golden_set__knowledge_base"]
    search_fields = ["question", "external_id"]
    raw_id_fields = ["golden_set"]
    fields = ["golden_set", "question", "should_refuse", "status", "origin", "external_id", "note"]
    readonly_fields = ["origin", "external_id"]
    inlines = [ExpectedSourceInline]
    actions = ["confirm", "dismiss"]
    paginator = CappedCountPaginator
    show_full_result_count = False

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(n_expected=Count("expected"))

    @admin.display(description=_("Question"), ordering="question")
    def short_question(self, item):
        return Truncator(item.question).chars(120)

    @admin.display(description=_("Expected documents"), ordering="n_expected")
    def expected_documents(self, item):
        return item.n_expected

    @admin.action(description=_("Confirm the selected proposals"), permissions=["change"])
    def confirm(self, request, queryset):
        done = 0
        for item in queryset:
            try:
                golden.confirm_question(item)
                done += 1
            except EvaluationError as exc:
                self.message_user(request, str(exc), messages.ERROR)
        self.message_user(request, ngettext("%(count)d question confirmed", "%(count)d questions confirmed", done)
                          % {"count": done})

    @admin.action(description=_("Dismiss the selected questions"), permissions=["change"])
    def dismiss(self, request, queryset):
        for item in queryset:
            golden.dismiss_question(item)
        self.message_user(request, ngettext("%(count)d question dismissed", "%(count)d questions dismissed",
                                            len(queryset)) % {"count": len(queryset)})


@admin.register(EvalRun)
class EvalRunAdmin(EvaluationAdminMixin, admin.ModelAdmin):
    list_display = ["__str__", "knowledge_base", "label", "embedder", "signature", "questions", "ndcg", "recall",
                    "citation", "refusal", "latency", "created_at", "finished_at"]
    list_filter = ["knowledge_base", "golden_set"]
    list_select_related = ["golden_set__knowledge_base", "knowledge_base"]
    actions = ["compare"]
    fields = ["golden_set", "knowledge_base", "job", "label", "questions", "created_at", "finished_at",
              "metrics_display", "config_display", "signature", "results_display"]
    readonly_fields = fields

    class Media:
        css = KnowledgeAdminMixin.css

    def has_add_permission(self, request):
        return False  # runs are started from golden sets, the API or `manage.py eval`

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=_("Embedder"))
    def embedder(self, run):
        return run.config.get("embedder", "—")

    @admin.display(description=_("nDCG@10"))
    def ndcg(self, run):
        return metric(run.metrics.get("ndcg@10"))

    @admin.display(description=_("Recall@10"))
    def recall(self, run):
        return metric(run.metrics.get("recall@10"))

    @admin.display(description=_("Citation [1]"))
    def citation(self, run):
        return metric(run.metrics.get("citation@1"))

    @admin.display(description=_("Refusal P / R"))
    def refusal(self, run):
        return f"{metric(run.metrics.get('refusal_precision'))} / {metric(run.metrics.get('refusal_recall'))}"

    @admin.display(description=_("p95 ms"))
    def latency(self, run):
        return metric(run.metrics.get("latency_p95_ms"))

    @admin.display(description=_("Metrics"))
    def metrics_display(self, run):
        return pretty_json(run.metrics)

    @admin.display(description=_("Configuration"))
    def config_display(self, run):
        return pretty_json(run.config)

    @admin.display(description=format_lazy(_("Questions, worst first (at most {})"), RESULTS_SHOWN))
    def results_display(self, run):
        results = run.results.order_by("ndcg", "pk")[:RESULTS_SHOWN]
        rows = format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", (
            (Truncator(r.question_text).chars(100), metric(r.ndcg), _("refused") if r.refused else _("answered"),
             "—" if r.citation_correct is None else (_("yes") if r.citation_correct else _("no")),
             ", ".join(hit["title"] for hit in r.top_hits) or "—") for r in results))
        return format_html('<table class="kp-table"><thead><tr><th>{}</th><th>nDCG@10</th><th>{}</th>'
                           "<th>{}</th><th>{}</th></tr></thead><tbody>{}</tbody></table>",
                           _("Question"), _("Answer"), _("[1] correct"), _("Top hits"), rows)

    @admin.action(description=_("Compare the two selected runs"))
    def compare(self, request, queryset):
        picked = list(queryset.order_by("created_at", "pk")[:3])
        if len(picked) != 2:
            self.message_user(request, _("Select exactly two runs of one golden set to compare"), messages.ERROR)
            return None
        return HttpResponseRedirect(reverse("admin:evaluation_evalrun_diff", args=[picked[0].pk, picked[1].pk]))

    def get_urls(self):
        return [self.custom_url("diff/<int:before_id>/<int:after_id>/", admin_views.diff, "diff"),
                self.custom_url("trend/<int:kb_id>/", admin_views.trend, "trend"),
                *super().get_urls()]


@admin.register(Feedback)
class FeedbackAdmin(EvaluationAdminMixin, admin.ModelAdmin):
    list_display = ["short_question", "knowledge_base", "rating", "refused", "comment", "created_at"]
    list_filter = ["rating", "refused", "knowledge_base"]
    list_select_related = ["knowledge_base"]
    search_fields = ["question", "comment"]
    fields = ["knowledge_base", "question", "answer", "rating", "comment", "refused", "chunks", "created_at"]
    readonly_fields = fields

    class Media:
        css = KnowledgeAdminMixin.css

    def has_add_permission(self, request):
        return False  # feedback comes from the API and the playground

    def get_urls(self):
        return [self.custom_url("rate/", admin_views.rate_answer, "rate"), *super().get_urls()]

    @admin.display(description=_("Question"))
    def short_question(self, item):
        return Truncator(item.question).chars(120)


@admin.register(ShadowSwitch)
class ShadowSwitchAdmin(EvaluationAdminMixin, admin.ModelAdmin):
    """Start a switch with the add form; watch it, then cut over, confirm, roll back or cancel with the actions."""

    list_display = ["__str__", "knowledge_base", "status", "progress", "verdict", "message_text", "created_at",
                    "switched_at"]
    list_filter = ["status", "verdict", "knowledge_base"]
    list_select_related = ["knowledge_base", "job"]
    actions = ["cut_over", "force_cut_over", "confirm", "rollback", "resume", "cancel"]
    readonly_fields = ["knowledge_base", "status", "verdict", "target", "previous", "tolerance", "auto_switch",
                       "forced", "job", "golden_set", "old_run", "new_run", "message_text", "created_at",
                       "switched_at", "finished_at"]

    class Media:
        css = KnowledgeAdminMixin.css

    def get_form(self, request, obj=None, **kwargs):
        return SwitchForm if obj is None else super().get_form(request, obj, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["knowledge_base", "embedder", "chunk_size", "chunk_overlap", "chunk_min_size", "golden_set",
                    "tolerance", "auto_switch"]
        return self.readonly_fields

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields if obj else []

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request, obj)

    def save_model(self, request, obj, form, change):
        try:
            data = form.cleaned_data
            started = shadow.start_switch(data["knowledge_base"], golden_set=data["golden_set"],
                                          tolerance=data["tolerance"], auto_switch=data["auto_switch"],
                                          user=request.user, **form.changes)
        except EvaluationError as exc:
            self.message_user(request, str(exc), messages.ERROR)
            obj.pk = None
            return
        obj.pk = started.pk

    def response_add(self, request, obj, post_url_continue=None):
        if obj.pk is None:
            return HttpResponseRedirect(request.path)
        self.message_user(request, _("%(switch)s queued: the base keeps serving while the new version is built")
                          % {"switch": obj})
        return HttpResponseRedirect(reverse("admin:evaluation_shadowswitch_changelist"))

    def log_addition(self, request, obj, message):
        return None if obj.pk is None else super().log_addition(request, obj, message)

    @admin.display(description=_("message"))
    def message_text(self, item):
        return translated(item.message)  # stored by the switch's job, read in the reader's language

    @admin.display(description=_("Build"))
    def progress(self, item):
        job = item.job
        return f"{job.progress_done}/{job.progress_total} ({job.get_status_display().lower()})" if job else "—"

    def _each(self, request, queryset, action, done: str):
        for item in queryset:
            try:
                action(item)
                self.message_user(request, f"{item}: {done}")
            except EvaluationError as exc:
                self.message_user(request, f"{item}: {exc}", messages.ERROR)

    @admin.action(description=_("Cut over (when not worse)"), permissions=["change"])
    def cut_over(self, request, queryset):
        self._each(request, queryset, shadow.cut_over, _("switched; the old version is kept until confirmed"))

    @admin.action(description=_("Force the cut-over (even when worse)"), permissions=["change"])
    def force_cut_over(self, request, queryset):
        self._each(request, queryset, lambda item: shadow.cut_over(item, force=True), _("switched (forced)"))

    @admin.action(description=_("Confirm (delete the old version)"), permissions=["change"])
    def confirm(self, request, queryset):
        self._each(request, queryset, shadow.confirm, _("confirmed"))

    @admin.action(description=_("Roll back to the old version"), permissions=["change"])
    def rollback(self, request, queryset):
        self._each(request, queryset, shadow.rollback, _("rolled back"))

    @admin.action(description=_("Resume (update the new version with the base's changes)"), permissions=["change"])
    def resume(self, request, queryset):
        self._each(request, queryset, lambda item: shadow.resume(item, user=request.user), _("resumed"))

    @admin.action(description=_("Cancel"), permissions=["change"])
    def cancel(self, request, queryset):
        self._each(request, queryset, shadow.cancel, _("cancellation requested"))


def _feedback_count(rating: int):
    through = Feedback.chunks.through.objects.filter(chunk_id=OuterRef("pk"), feedback__rating=rating)
    counted = through.order_by().values("chunk_id").annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


# The chunk page belongs to the knowledge app, which must not import this one; the counts are
# added here by extending its admin. Correlated sub-selects count for the shown page only.
admin.site.unregister(Chunk)


@admin.register(Chunk)
class ChunkWithFeedbackAdmin(ChunkAdmin):
    list_display = [*ChunkAdmin.list_display, "feedback_counts"]
    fields = [*ChunkAdmin.fields, "feedback_counts"]
    readonly_fields = [*ChunkAdmin.readonly_fields, "feedback_counts"]  # the text and the switch stay editable

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(thumbs_up=_feedback_count(Feedback.Rating.UP),
                                                      thumbs_down=_feedback_count(Feedback.Rating.DOWN))

    @admin.display(description=_("Feedback"))
    def feedback_counts(self, chunk):
        return format_html("👍 {} · 👎 {}", chunk.thumbs_up, chunk.thumbs_down)
