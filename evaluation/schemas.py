"""Request and response shapes of the evaluation API."""

from typing import Literal

from ninja import Field, ModelSchema, Schema

from evaluation.models import EvalResult, EvalRun, GoldenQuestion, GoldenSet, ShadowSwitch
from knowledge.schemas import EmbedderName, JobOut
from portal.schemas import BodyIn
from portal.stored_text import translated


class GoldenSetIn(BodyIn):
    name: str = Field(min_length=1, max_length=200)
    description: str = ""


class GoldenSetOut(ModelSchema):
    questions: int = Field(0, description="Confirmed questions.")
    proposed: int = 0

    class Meta:
        model = GoldenSet
        fields = ("id", "knowledge_base", "name", "description", "created_at")

    @staticmethod
    def resolve_questions(item: GoldenSet) -> int:
        return getattr(item, "n_confirmed", 0)

    @staticmethod
    def resolve_proposed(item: GoldenSet) -> int:
        return getattr(item, "n_proposed", 0)


class QuestionIn(BodyIn):
    question: str = Field(min_length=1, max_length=4000)
    document_ids: list[int] = Field(default_factory=list, max_length=100)
    should_refuse: bool = False


class QuestionOut(ModelSchema):
    document_ids: list[int]

    class Meta:
        model = GoldenQuestion
        fields = ("id", "question", "should_refuse", "status", "origin", "external_id", "note", "created_at")

    @staticmethod
    def resolve_document_ids(item: GoldenQuestion) -> list[int]:
        return [expected.document_id for expected in item.expected.all()]


class QuestionFilter(Schema):
    status: Literal["confirmed", "proposed", "dismissed"] | None = None


class ImportResponse(Schema):
    questions: int
    expected: int


class ProposeRequest(BodyIn):
    source: Literal["tickets", "feedback"]


class ProposeResponse(Schema):
    added: int


class RunIn(BodyIn):
    label: str = Field("", max_length=200)


class RunOut(ModelSchema):
    job: JobOut | None = None

    class Meta:
        model = EvalRun
        fields = ("id", "golden_set", "knowledge_base", "label", "config", "signature", "metrics", "questions",
                  "created_at", "finished_at")


class ResultOut(ModelSchema):
    class Meta:
        model = EvalResult
        fields = ("question_text", "should_refuse", "ndcg", "recall", "reciprocal_rank", "refused",
                  "citation_correct", "latency_ms", "top_hits")


class ChangeOut(Schema):
    question: str
    delta: float
    before: ResultOut
    after: ResultOut


class DiffResponse(Schema):
    before: int
    after: int
    better: list[ChangeOut]
    worse: list[ChangeOut]


class FeedbackIn(BodyIn):
    question: str = Field(min_length=1, max_length=4000)
    answer: str = Field("", max_length=20_000)
    rating: Literal["up", "down"]
    comment: str = Field("", max_length=4000)
    refused: bool = Field(False, description="The answer was the refusal text.")
    chunk_ids: list[int] = Field(default_factory=list, max_length=50,
                                 description="The answer's sources (`sources[].chunk_id` of /answer).")


class FeedbackOut(Schema):
    id: int
    rating: Literal["up", "down"]
    chunk_ids: list[int]

    @staticmethod
    def resolve_rating(item) -> str:
        return "up" if item.rating > 0 else "down"

    @staticmethod
    def resolve_chunk_ids(item) -> list[int]:
        return [chunk.pk for chunk in item.chunks.all()]


class SwitchIn(BodyIn):
    embedder: EmbedderName | None = Field(None, description="The new embedder (registry name).")
    chunk_size: int | None = Field(None, ge=200, le=100_000)
    chunk_overlap: int | None = Field(None, ge=0, le=50_000)
    chunk_min_size: int | None = Field(None, ge=0, le=100_000)
    golden_set: int | None = Field(None, description="Golden set to judge by; default: the base's first with "
                                                     "confirmed questions.")
    tolerance: float = Field(0.01, ge=0, le=1, description="How much lower nDCG@10 may be and count as not worse.")
    auto_switch: bool = Field(False, description="Cut over as soon as the evaluation allows it.")


class CutOverRequest(BodyIn):
    force: bool = Field(False, description="Switch even when the new version is worse or was not evaluated.")


class SwitchOut(ModelSchema):
    job: JobOut | None = None
    old_metrics: dict | None = None
    new_metrics: dict | None = None

    class Meta:
        model = ShadowSwitch
        fields = ("id", "knowledge_base", "status", "verdict", "target", "previous", "tolerance", "auto_switch",
                  "forced", "golden_set", "old_run", "new_run", "message", "created_at", "switched_at", "finished_at")

    @staticmethod
    def resolve_message(item: ShadowSwitch) -> str:
        return translated(item.message)  # written by the worker in the portal's language; read in the request's

    @staticmethod
    def resolve_old_metrics(item: ShadowSwitch) -> dict | None:
        return item.old_run.metrics if item.old_run else None

    @staticmethod
    def resolve_new_metrics(item: ShadowSwitch) -> dict | None:
        return item.new_run.metrics if item.new_run else None
