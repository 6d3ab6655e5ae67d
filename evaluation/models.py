"""Golden sets (questions with the documents that answer them), evaluation runs, and answer feedback."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import MD5
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from knowledge.models import Chunk, Document, Job, KnowledgeBase


class GoldenSet(models.Model):
    """A named list of questions a knowledge base should answer (or refuse), to measure it by."""

    knowledge_base = models.ForeignKey(KnowledgeBase, verbose_name=_("knowledge base"), on_delete=models.CASCADE,
                                       related_name="golden_sets")
    name = models.CharField(_("name"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("golden set")
        verbose_name_plural = _("golden sets")
        ordering = ["knowledge_base_id", "name"]
        constraints = [
            models.UniqueConstraint(fields=["knowledge_base", "name"], name="evaluation_goldenset_kb_name_uniq"),
        ]

    def __str__(self) -> str:
        return f"{self.knowledge_base} / {self.name}"


class GoldenQuestion(models.Model):
    class Status(models.TextChoices):
        CONFIRMED = "confirmed", _("Confirmed")
        PROPOSED = "proposed", _("Proposed (waits for a person)")
        DISMISSED = "dismissed", _("Dismissed")

    class Origin(models.TextChoices):
        MANUAL = "manual", _("Written by hand")
        IMPORT = "import", _("Imported")
        TICKET = "ticket", _("From a ticket")
        FEEDBACK = "feedback", _("From answer feedback")

    golden_set = models.ForeignKey(GoldenSet, verbose_name=_("golden set"), on_delete=models.CASCADE,
                                   related_name="questions")
    question = models.TextField(_("question"))
    should_refuse = models.BooleanField(_("should refuse"), default=False,
                                        help_text=_("A good answer is the refusal text."))
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.CONFIRMED)
    origin = models.CharField(_("origin"), max_length=20, choices=Origin.choices, default=Origin.MANUAL)
    # The id in the file it was imported from (BEIR query id), or "ticket:12" / "feedback:7".
    external_id = models.CharField(_("external id"), max_length=200, blank=True)
    note = models.TextField(_("note"), blank=True, help_text=_("Why it was proposed (the reply, the comment)."))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("golden question")
        verbose_name_plural = _("golden questions")
        ordering = ["golden_set_id", "pk"]
        constraints = [
            # On a hash: a btree entry cannot hold a very long text.
            models.UniqueConstraint("golden_set", MD5("question"), name="evaluation_question_set_text_uniq"),
            models.CheckConstraint(condition=~Q(question=""), name="evaluation_question_not_empty"),
        ]
        indexes = [
            models.Index(fields=["golden_set", "external_id"], name="evaluation_question_ext_idx"),
            models.Index(fields=["golden_set", "status"], name="evaluation_question_status_idx"),
        ]

    def __str__(self) -> str:
        return self.question[:80]


class ExpectedSource(models.Model):
    """A document (optionally one chunk of it) that answers a golden question, with a graded relevance.

    Deleting the document keeps the row (document empty, title kept): the question's answer is
    gone from the base, and the evaluation must show that rather than forget the question.
    """

    question = models.ForeignKey(GoldenQuestion, verbose_name=_("question"), on_delete=models.CASCADE,
                                 related_name="expected")
    document = models.ForeignKey(Document, verbose_name=_("document"), on_delete=models.SET_NULL, null=True,
                                 related_name="+")
    document_title = models.CharField(_("document title"), max_length=500, blank=True)
    chunk = models.ForeignKey(Chunk, verbose_name=_("chunk"), on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="+")
    relevance = models.PositiveSmallIntegerField(_("relevance"), default=1)

    class Meta:
        verbose_name = _("expected source")
        verbose_name_plural = _("expected sources")
        constraints = [
            models.UniqueConstraint(fields=["question", "document"], name="evaluation_expected_question_doc_uniq"),
        ]

    def __str__(self) -> str:
        return f"{self.question_id} → {self.document_id}"


class EvalRun(models.Model):
    """One evaluation of a golden set against its base, with the configuration it measured."""

    golden_set = models.ForeignKey(GoldenSet, verbose_name=_("golden set"), on_delete=models.CASCADE,
                                   related_name="runs")
    knowledge_base = models.ForeignKey(KnowledgeBase, verbose_name=_("knowledge base"), on_delete=models.CASCADE,
                                       related_name="eval_runs")
    job = models.OneToOneField(Job, verbose_name=_("job"), on_delete=models.SET_NULL, null=True, blank=True,
                               related_name="eval_run")
    # The shadow version that was searched, when it was not the base itself (see shadow.py).
    searched_base = models.ForeignKey(KnowledgeBase, verbose_name=_("searched base"), on_delete=models.SET_NULL,
                                      null=True, blank=True,
                                      related_name="+")
    label = models.CharField(_("label"), max_length=200, blank=True)
    # Embedder, chunking and fusion settings; `signature` is its hash, to group comparable runs.
    config = models.JSONField(_("config"), default=dict, blank=True)
    signature = models.CharField(_("signature"), max_length=16, blank=True)
    metrics = models.JSONField(_("metrics"), default=dict, blank=True)
    questions = models.PositiveIntegerField(_("questions"), default=0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("created by"), on_delete=models.SET_NULL,
                                   null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("evaluation run")
        verbose_name_plural = _("evaluation runs")
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["knowledge_base", "-created_at"], name="evaluation_run_kb_idx")]

    def __str__(self) -> str:
        return gettext("Evaluation #%(id)s of %(set)s") % {"id": self.pk, "set": self.golden_set}

    @property
    def is_finished(self) -> bool:
        return self.finished_at is not None


class EvalResult(models.Model):
    """How one question did in one run; the question text is kept so a diff survives edits."""

    run = models.ForeignKey(EvalRun, verbose_name=_("run"), on_delete=models.CASCADE, related_name="results")
    question = models.ForeignKey(GoldenQuestion, verbose_name=_("question"), on_delete=models.SET_NULL, null=True,
                                 related_name="+")
    question_text = models.TextField(_("question text"))
    should_refuse = models.BooleanField(_("should refuse"), default=False)
    ndcg = models.FloatField(_("ndcg"), null=True, blank=True)
    recall = models.FloatField(_("recall"), null=True, blank=True)
    reciprocal_rank = models.FloatField(_("reciprocal rank"), null=True, blank=True)
    refused = models.BooleanField(_("refused"), default=False)
    citation_correct = models.BooleanField(_("citation correct"), null=True, blank=True)
    latency_ms = models.FloatField(_("latency ms"), default=0.0)
    # [{"document_id", "title", "relevant"}] of the first hits, for the diff of two runs.
    top_hits = models.JSONField(_("top hits"), default=list, blank=True)

    class Meta:
        verbose_name = _("evaluation result")
        verbose_name_plural = _("evaluation results")
        ordering = ["run_id", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["run", "question"], name="evaluation_result_run_question_uniq"),
        ]

    def __str__(self) -> str:
        return f"{self.run_id}: {self.question_text[:60]}"


class Feedback(models.Model):
    """A thumbs up or down on an answer, with the chunks the answer was given."""

    class Rating(models.IntegerChoices):
        UP = 1, _("Thumbs up")
        DOWN = -1, _("Thumbs down")

    knowledge_base = models.ForeignKey(KnowledgeBase, verbose_name=_("knowledge base"), on_delete=models.CASCADE,
                                       related_name="feedback")
    question = models.TextField(_("question"))
    answer = models.TextField(_("answer"), blank=True)
    rating = models.SmallIntegerField(_("rating"), choices=Rating.choices)
    comment = models.TextField(_("comment"), blank=True)
    refused = models.BooleanField(_("refused"), default=False, help_text=_("The answer was the refusal text."))
    chunks = models.ManyToManyField(Chunk, verbose_name=_("chunks"), blank=True, related_name="feedback")
    # The answer's first source: the closest topic, by which the knowledge-gap report groups it.
    first_chunk = models.ForeignKey(Chunk, verbose_name=_("first chunk"), on_delete=models.SET_NULL, null=True,
                                    blank=True, related_name="+")
    api_key = models.ForeignKey("portal.ApiKey", verbose_name=_("API key"), on_delete=models.SET_NULL, null=True,
                                blank=True, related_name="+")
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("feedback")
        verbose_name_plural = _("feedback")
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["knowledge_base", "rating", "-created_at"], name="evaluation_feedback_kb_idx")]

    def __str__(self) -> str:
        return f"{self.get_rating_display()}: {self.question[:60]}"


class ShadowSwitch(models.Model):
    """A change of a base's embedder or chunking, built beside it and switched to only when not worse.

    The new version is a hidden knowledge base (`shadow`) holding copies of the documents; the base
    keeps serving until the cut-over, which swaps the two versions' chunks in one transaction. The
    old version then stays in the shadow until the switch is confirmed (or rolled back).
    """

    class Status(models.TextChoices):
        BUILDING = "building", _("Building the new version")
        EVALUATED = "evaluated", _("Built and evaluated: waits for the cut-over")
        SWITCHED = "switched", _("Switched (old version kept until confirmed)")
        CONFIRMED = "confirmed", _("Switched and confirmed")
        ROLLED_BACK = "rolled_back", _("Rolled back")
        CANCELLED = "cancelled", _("Cancelled")
        FAILED = "failed", _("Failed")

    class Verdict(models.TextChoices):
        NONE = "", _("Not evaluated")
        BETTER = "better", _("Better")
        NOT_WORSE = "not_worse", _("Not worse (within the tolerance)")
        WORSE = "worse", _("Worse")
        NO_GOLDEN_SET = "no_golden_set", _("No golden set to judge by")

    ACTIVE = (Status.BUILDING, Status.EVALUATED, Status.SWITCHED)

    knowledge_base = models.ForeignKey(KnowledgeBase, verbose_name=_("knowledge base"), on_delete=models.CASCADE,
                                       related_name="switches")
    shadow = models.ForeignKey(KnowledgeBase, verbose_name=_("shadow"), on_delete=models.SET_NULL, null=True,
                               blank=True, related_name="+")
    golden_set = models.ForeignKey(GoldenSet, verbose_name=_("golden set"), on_delete=models.SET_NULL, null=True,
                                   blank=True, related_name="+")
    job = models.OneToOneField(Job, verbose_name=_("job"), on_delete=models.SET_NULL, null=True, blank=True,
                               related_name="switch")
    # What changes: {"embedder": ..., "chunk_size": ...}; and what it was, for the record.
    target = models.JSONField(_("target"), default=dict)
    previous = models.JSONField(_("previous"), default=dict)
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.BUILDING)
    verdict = models.CharField(_("verdict"), max_length=20, choices=Verdict.choices, blank=True)
    tolerance = models.FloatField(_("tolerance"), default=0.01,
                                  help_text=_("How much lower nDCG@10 may be and still count as not worse."))
    auto_switch = models.BooleanField(_("auto switch"), default=False,
                                      help_text=_("Cut over as soon as the evaluation allows it."))
    forced = models.BooleanField(_("forced"), default=False)
    old_run = models.ForeignKey(EvalRun, verbose_name=_("old run"), on_delete=models.SET_NULL, null=True, blank=True,
                                related_name="+")
    new_run = models.ForeignKey(EvalRun, verbose_name=_("new run"), on_delete=models.SET_NULL, null=True, blank=True,
                                related_name="+")
    message = models.TextField(_("message"), blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("created by"), on_delete=models.SET_NULL,
                                   null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    switched_at = models.DateTimeField(_("switched at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("shadow switch")
        verbose_name_plural = _("shadow switches")
        ordering = ["-created_at", "-pk"]
        constraints = [
            # A second switch while one is under way is refused by the database too.
            models.UniqueConstraint(fields=["knowledge_base"],
                                    condition=Q(status__in=["building", "evaluated", "switched"]),
                                    name="evaluation_switch_one_active_per_kb"),
        ]

    def __str__(self) -> str:
        target = ", ".join(f"{k}={v}" for k, v in self.target.items())
        return gettext("Switch #%(id)s of %(base)s to %(target)s") % {"id": self.pk, "base": self.knowledge_base,
                                                                       "target": target}

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE
