"""Golden questions proposed from work already done: tickets staff answered or rejected, and
thumbs-down feedback. Proposals wait for a person to confirm them (`golden.confirm_question`)."""

from django.utils.translation import gettext

from evaluation.golden import MAX_QUESTION_CHARS, add_question
from evaluation.models import Feedback, GoldenQuestion, GoldenSet
from tickets.models import Message, Ticket, TicketSource
from tickets.risk import mask_personal_data


def propose_from_tickets(golden_set: GoldenSet) -> int:
    """Proposed questions from staff's work: a draft sent (as is or edited) is a positive example of
    the documents it cited, a rejected draft a 'should refuse' candidate. Returns how many were added."""
    kb_id, added = golden_set.knowledge_base_id, 0
    known = set(golden_set.questions.filter(origin=GoldenQuestion.Origin.TICKET).values_list("external_id", flat=True))
    replies = (Message.objects.filter(kind=Message.Kind.REPLY, auto_sent=False, draft__isnull=False,
                                      draft__sources__knowledge_base_id=kb_id, draft__sources__cited=True)
               .select_related("ticket").distinct().order_by("pk"))
    for reply in replies:
        documents = TicketSource.objects.filter(message_id=reply.draft_id, knowledge_base_id=kb_id, cited=True,
                                                document__isnull=False).values_list("document_id", flat=True)
        if reply.edit_distance:
            note = gettext("Ticket #%(id)s: draft sent after %(count)d characters of edits") % {
                "id": reply.ticket_id, "count": reply.edit_distance}
        else:
            note = gettext("Ticket #%(id)s: draft sent unchanged") % {"id": reply.ticket_id}
        added += _propose(golden_set, known, reply.ticket, note, documents=list(documents))
    rejected = (Ticket.objects.filter(status=Ticket.Status.REJECTED, sources__knowledge_base_id=kb_id)
                .distinct().order_by("pk"))
    for ticket in rejected:
        note = gettext("Ticket #%(id)s: draft rejected") % {"id": ticket.pk}
        added += _propose(golden_set, known, ticket, note, should_refuse=True)
    return added


def _propose(golden_set: GoldenSet, known: set, ticket: Ticket, note: str, *, documents=(),
             should_refuse: bool = False) -> int:
    external_id = f"ticket:{ticket.pk}"
    # A golden question is kept and shown to every evaluator: never with the customer's card or passport.
    text = mask_personal_data(" ".join(ticket.customer_text().split())[:MAX_QUESTION_CHARS] or ticket.subject)
    if external_id in known or not text.strip() or golden_set.questions.filter(question=text).exists():
        return 0
    add_question(golden_set, question=text, document_ids=documents, should_refuse=should_refuse,
                 status=GoldenQuestion.Status.PROPOSED, origin=GoldenQuestion.Origin.TICKET,
                 external_id=external_id, note=note)
    known.add(external_id)
    return 1


def propose_from_feedback(golden_set: GoldenSet) -> int:
    """Proposed questions from thumbs-down feedback on the base's answers (a person adds the answer's document)."""
    known = set(golden_set.questions.filter(origin=GoldenQuestion.Origin.FEEDBACK)
                .values_list("external_id", flat=True))
    added = 0
    for item in Feedback.objects.filter(knowledge_base_id=golden_set.knowledge_base_id,
                                        rating=Feedback.Rating.DOWN).order_by("pk"):
        external_id = f"feedback:{item.pk}"
        text = mask_personal_data(" ".join(item.question.split())[:MAX_QUESTION_CHARS])
        if external_id in known or not text or golden_set.questions.filter(question=text).exists():
            continue
        note = (gettext("Thumbs down on a refusal: %(comment)s") if item.refused
                else gettext("Thumbs down: %(comment)s")) % {"comment": item.comment}
        note = note.strip().rstrip(":")
        add_question(golden_set, question=text, status=GoldenQuestion.Status.PROPOSED,
                     origin=GoldenQuestion.Origin.FEEDBACK, external_id=external_id, note=note)
        known.add(external_id)
        added += 1
    return added
