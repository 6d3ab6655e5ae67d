"""Thumbs up/down on answers: stored with the chunks the answer was given, counted per chunk."""

from django.db import transaction
from django.db.models import Count, Q
from django.utils.translation import gettext

from evaluation.exceptions import EvaluationError
from evaluation.models import Feedback
from knowledge.models import Chunk, KnowledgeBase
from tickets.reports import NOTHING_FOUND, GapQuestion, topic_of

GAP_LIMIT = 2000


@transaction.atomic
def record_feedback(kb: KnowledgeBase, *, question: str, rating: str, answer: str = "", comment: str = "",
                    refused: bool = False, chunk_ids=(), api_key=None) -> Feedback:
    """One rating of an answer; its chunks must belong to the base."""
    if not question.strip():
        raise EvaluationError(gettext("The question is empty"))
    ids = list(dict.fromkeys(chunk_ids))  # the answer's order: best source first
    found = set(Chunk.objects.filter(knowledge_base=kb, pk__in=ids).values_list("pk", flat=True))
    if missing := [str(pk) for pk in ids if pk not in found]:
        raise EvaluationError(gettext("No chunk with id %(ids)s in %(base)s")
                              % {"ids": ", ".join(missing), "base": kb})
    item = Feedback.objects.create(
        knowledge_base=kb, question=question.strip(), answer=answer, comment=comment.strip(), refused=refused,
        rating=Feedback.Rating.UP if rating == "up" else Feedback.Rating.DOWN, api_key=api_key,
        first_chunk_id=ids[0] if ids else None)
    item.chunks.set(ids)
    return item


def chunk_counts(chunk_ids) -> dict[int, tuple[int, int]]:
    """{chunk id: (thumbs up, thumbs down)} for the chunks that have any feedback."""
    rows = (Feedback.chunks.through.objects.filter(chunk_id__in=list(chunk_ids)).values("chunk_id")
            .annotate(up=Count("pk", filter=Q(feedback__rating=Feedback.Rating.UP)),
                      down=Count("pk", filter=Q(feedback__rating=Feedback.Rating.DOWN))))
    return {row["chunk_id"]: (row["up"], row["down"]) for row in rows}


def gap_questions(since=None) -> list[GapQuestion]:
    """Thumbs-down questions for the knowledge-gap report, with the topic of the answer's first source."""
    items = Feedback.objects.filter(rating=Feedback.Rating.DOWN)
    if since is not None:
        items = items.filter(created_at__gte=since)
    questions = []
    for item in items.select_related("knowledge_base", "first_chunk__document").order_by("-created_at")[:GAP_LIMIT]:
        chunk = item.first_chunk
        if chunk is None:
            questions.append(GapQuestion(NOTHING_FOUND, "", item.question))
        else:
            topic = topic_of(chunk.section_path, chunk.document.title, chunk.document.source_uri)
            questions.append(GapQuestion(topic, item.knowledge_base.name, item.question))
    return questions
