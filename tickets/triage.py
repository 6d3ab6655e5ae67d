"""Ticket intake and triage: risk → agent → grounded draft with snapshots → auto-reply or review.

`submit_ticket` stores a ticket with the customer's first message and queues its triage once
the transaction commits; `TriageOrchestrator.triage` does the work (in a django-q2 worker, or in
the foreground for the import command). Every step appends `{step, outcome, detail, data, ms}`
to `ticket.trace`, so the ticket page can say why the ticket is where it is.
"""

import logging
import time
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone, translation
from django.utils.text import Truncator
from django.utils.translation import gettext as _

from knowledge.search import answers, reasons
from knowledge.search.salutations import REPLY_PREFIX, is_salutation, strip_salutations
from portal.jobs import enqueue_task
from portal.languages import detect_language
from portal.models import ApiKey
from tickets import autoreply, citations, notify, replies, risk, routing
from tickets.exceptions import TicketClosedError, TicketError
from tickets.models import Agent, Message, Ticket

logger = logging.getLogger(__name__)

TASK = "triage"  # the name tickets/tasks.py registers its task under
TOP_K = 6
QUESTION_SHOWN = 300  # characters of the question the trace shows
# The reasons that make an answer a refusal (knowledge/search/answers.py), said in the trace.
REFUSING_REASONS = ("no_hits", "below_threshold", "no_shared_words", "unmentioned_name", "nothing_to_quote",
                    "no_close_sentence", "common_words_only")


@transaction.atomic
def submit_ticket(*, subject: str = "", body: str, customer: str = "", channel: str = Ticket.Channel.WEB,
                  external_id: str = "", metadata: dict | None = None, triage: bool = True,
                  submitted_by=None) -> Ticket:
    """Create a ticket with the customer's first message; triage is queued after commit."""
    ticket = Ticket(subject=(subject or _subject_from(body))[:300], customer=customer[:300], channel=channel,
                    external_id=external_id[:200], metadata=metadata or {}, submitted_by=submitted_by,
                    language=detect_language(f"{subject}\n{body}"))
    # The database holds the unique external id (an IntegrityError the caller maps): a check here would
    # only race with a request submitting the same id at the same time.
    ticket.full_clean(validate_constraints=False)
    ticket.save()
    Message.objects.create(ticket=ticket, kind=Message.Kind.CUSTOMER, body=body)
    notify.ticket_event("ticket.created", ticket)
    if triage:
        queue_triage(ticket)
    return ticket


def _subject_from(body: str) -> str:
    """The first line of what the customer asks (not "Hello!"), cut to 80 characters."""
    first = next((line.strip() for line in strip_salutations(body).splitlines() if line.strip()), "")
    return first if len(first) <= 80 else first[:79] + "…"


def _question(subject: str, text: str) -> str:
    """What triage searches: the subject (without "Re:" and the like, unless it is only a greeting or
    already in the text) above the customer's text."""
    subject = REPLY_PREFIX.sub("", subject).strip()
    return f"{subject}\n\n{text}" if subject and subject not in text and not is_salutation(subject) else text


def queue_triage(ticket: Ticket) -> None:
    """Run triage in a worker once the current transaction commits."""
    enqueue_task(TASK, ticket.pk)


@transaction.atomic
def retriage(ticket: Ticket) -> Ticket:
    """Triage an open ticket again (after the knowledge bases or agents changed)."""
    ticket = Ticket.objects.select_for_update().get(pk=ticket.pk)
    if not ticket.is_open:
        raise TicketClosedError(_("Ticket #%(id)s is closed (%(status)s).")
                                % {"id": ticket.pk, "status": ticket.get_status_display().lower()})
    if ticket.status == Ticket.Status.TRIAGING and ticket.updated_at > _stale_before():
        raise TicketError(_("Ticket #%(id)s is being triaged right now; try again in a moment.") % {"id": ticket.pk})
    ticket.mark_new()
    queue_triage(ticket)
    return ticket


def retriage_each(tickets) -> tuple[list[Ticket], list[tuple[Ticket, str]]]:
    """Re-triage every ticket that can be; (those queued, those skipped with the reason in words)."""
    queued, skipped = [], []
    for ticket in tickets:
        try:
            queued.append(retriage(ticket))
        except TicketError as exc:  # closed, or being triaged right now
            skipped.append((ticket, str(exc)))
    return queued, skipped


def _stale_before():
    """A ticket in `triaging` since before this belongs to a worker that died (the task timeout passed)."""
    return timezone.now() - timedelta(seconds=settings.Q_CLUSTER["timeout"])


def claim(ticket_id: int) -> Ticket | None:
    """Take a ticket for triage with a conditional UPDATE; None when another worker has it or it is done.

    A ticket stuck in `triaging` longer than the task timeout belongs to a worker that died.
    """
    stale = _stale_before()
    claimable = Ticket.objects.filter(pk=ticket_id).filter(
        status__in=[Ticket.Status.NEW, Ticket.Status.ERROR]
    ) | Ticket.objects.filter(pk=ticket_id, status=Ticket.Status.TRIAGING, updated_at__lt=stale)
    if not claimable.update(status=Ticket.Status.TRIAGING, updated_at=timezone.now()):
        return None
    return Ticket.objects.get(pk=ticket_id)


def triage_ticket(ticket_id: int) -> Ticket | None:
    """Claim and triage one ticket (the task body)."""
    ticket = claim(ticket_id)
    return TriageOrchestrator().triage(ticket) if ticket else None


def submitter_bases(ticket: Ticket) -> set[int] | None:
    """The knowledge bases a ticket's answer may come from, when an API key limited to some bases
    submitted it (None: no limit). The draft and its source snapshots are shown to that key, so
    they must not quote bases it may not read; a key that no longer exists may read none."""
    key_id = ticket.metadata.get("api_key_id") if ticket.channel == Ticket.Channel.API else None
    if key_id is None:
        return None
    key = ApiKey.objects.filter(pk=key_id).first()
    return set() if key is None else key.knowledge_base_ids


class TriageOrchestrator:
    """Runs the triage steps on one ticket and records each of them on it."""

    def __init__(self, *, agents: list[Agent] | None = None, top_k: int = TOP_K):
        self.agents = agents
        self.top_k = top_k
        self.query_embeddings: dict = {}

    def triage(self, ticket: Ticket) -> Ticket:
        ticket.mark_triaging()
        self.ticket = ticket
        try:
            # The trace and the reasons are written in the customer's language, like the draft:
            # whoever handles a Russian ticket reads Russian (labels follow each reader's admin).
            with translation.override(replies.ticket_language(ticket)):
                self._run(ticket)
        except Exception as exc:
            logger.exception("Triage of ticket %s failed", ticket.pk)
            ticket.mark_error(f"{type(exc).__name__}: {exc}")
        return ticket

    def _record(self, step: str, outcome: str, detail: str = "", started: float | None = None, **data) -> None:
        entry = {"step": step, "outcome": outcome, "detail": detail, "data": data}
        if started is not None:
            entry["ms"] = round((time.perf_counter() - started) * 1000)
        self.ticket.trace.append(entry)

    def _run(self, ticket: Ticket) -> None:
        asked = ticket.customer_text()
        question = _question(ticket.subject, asked)
        if asked != ticket.customer_text(as_written=True).strip():
            self._record("question", "trimmed", _("Read without greeting, sign-off and signature: «%(question)s»")
                         % {"question": Truncator(" ".join(question.split())).chars(QUESTION_SHOWN)})
        # Routing and the draft search the same question: its vectors are computed once, then reused.
        self.query_embeddings = {}
        assessment = self.assess(ticket, question)
        agent = self.route(ticket, question)
        result = self.draft(ticket, agent, question) if agent else None
        self.decide(ticket, agent, assessment, result)

    def assess(self, ticket: Ticket, text: str) -> risk.RiskAssessment:
        started = time.perf_counter()
        assessment = risk.assess_risk(text)
        ticket.risk_level = assessment.level
        ticket.risk_reasons = [reason.as_dict() for reason in assessment.reasons]
        detail = "; ".join(f"{_(r.reason)} («{r.match}»)" if r.match else _(r.reason)
                           for r in assessment.reasons) or _("No risk rule matched.")
        self._record("risk", assessment.level, detail, started)
        return assessment

    def route(self, ticket: Ticket, text: str) -> Agent | None:
        started = time.perf_counter()
        decision = routing.route(text, self.agents, query_embeddings=self.query_embeddings)
        ticket.agent, ticket.routing_reason = decision.agent, decision.reason
        self._record("routing", decision.agent.name if decision.agent else "none", decision.reason, started,
                     scores=[score.as_dict() for score in decision.scores[:5]])
        return decision.agent

    def draft(self, ticket: Ticket, agent: Agent, question: str) -> answers.Answer | None:
        kb_ids = sorted(kb.pk for kb in agent.knowledge_bases.all())
        if not kb_ids:
            self._record("retrieval", "skipped",
                         _("%(agent)s has no knowledge bases: no draft is written.") % {"agent": agent.name})
            return None
        readable = submitter_bases(ticket)
        if readable is not None and not set(kb_ids) <= readable:
            kb_ids = [kb_id for kb_id in kb_ids if kb_id in readable]
            if not kb_ids:
                self._record("retrieval", "skipped",
                             _("The submitting API key may read none of the knowledge bases of %(agent)s: "
                               "no draft is written.") % {"agent": agent.name})
                return None
        started = time.perf_counter()
        result = answers.answer(question, kb_ids, top_k=self.top_k, threshold=agent.confidence_threshold,
                                refusal_text=replies.refusal_text(agent, ticket), instructions=agent.instructions,
                                query_embeddings=self.query_embeddings)
        self._record_answer(result, agent, started)
        with transaction.atomic():
            Message.objects.filter(ticket=ticket, kind=Message.Kind.DRAFT, is_current=True).update(is_current=False)
            message = Message.objects.create(ticket=ticket, kind=Message.Kind.DRAFT, body=result.text,
                                             generator=str(result.generator or "")[:100])
            cited = {citation.number for citation in result.citations}
            citations.snapshot_sources(ticket, message, result.sources, cited)
        ticket.confidence, ticket.refused = result.confidence, result.refused
        ticket.confidence_reasons = list(result.reasons)
        self._draft = message
        return result

    def _record_answer(self, result: answers.Answer, agent: Agent, started: float) -> None:
        top = result.sources[0] if result.sources else None
        self._record("retrieval", f"{len(result.sources)} sources",
                     _("Best: «%(title)s» (distance %(distance)s)") % {"title": top.document_title,
                                                                       "distance": top.distance}
                     if top else _("Nothing was found."),
                     sources=[{"n": n, "title": hit.document_title, "distance": hit.distance, "score": hit.score}
                              for n, hit in enumerate(result.sources, start=1)])
        self._record("confidence", f"{result.confidence:.2f}",
                     _("Threshold %(threshold).2f; reasons: %(reasons)s.") % {
                         "threshold": agent.confidence_threshold, "reasons": ", ".join(result.reasons) or _("none")},
                     reasons=list(result.reasons))
        outcome = "refused" if result.refused else "drafted"
        cited = ", ".join(f"[{c.number}]" for c in result.citations) or _("no source")
        if result.refused:  # why, in words: under the threshold, no shared word, nothing worth quoting…
            why = reasons.reason_sentences([reason for reason in result.reasons if reason in REFUSING_REASONS],
                                           unmentioned=result.unmentioned)
            detail = _("Refused: %(why)s") % {"why": " ".join(why) or _("the sources do not support an answer.")}
        else:
            detail = _("Drafted by %(generator)s citing %(cited)s.") % {"generator": result.generator, "cited": cited}
        if result.dropped_markers:
            detail += " " + _("Dropped markers that point nowhere: %(markers)s.") % {"markers": result.dropped_markers}
        self._record("generation", outcome, detail, started, generator=str(result.generator))

    def decide(self, ticket: Ticket, agent: Agent | None, assessment: risk.RiskAssessment,
               result: answers.Answer | None) -> None:
        decision = autoreply.decide(agent=agent, risk_level=assessment.level, result=result,
                                    text=ticket.customer_text())
        if not decision.allowed:
            self._record("decision", "review", " ".join(decision.reasons), codes=decision.codes)
            ticket.finish_triage(Ticket.Status.REVIEW)
            notify.ticket_event("ticket.triaged", ticket)
            notify.ticket_event("ticket.needs_review", ticket)
            return
        code = "auto_reply" if result is not None and result.entry_match else "auto_reply_model"
        self._record("decision", "auto_reply", autoreply.sentence(code, replies.ticket_language(ticket) == "ru"))
        with transaction.atomic():
            reply = Message.objects.create(ticket=ticket, kind=Message.Kind.REPLY, body=self._draft.body,
                                           draft=self._draft, auto_sent=True, sent_at=timezone.now(), edit_distance=0)
            Message.objects.filter(pk=self._draft.pk).update(is_current=False)
            ticket.finish_triage(Ticket.Status.AUTO_REPLIED)
            notify.ticket_event("ticket.triaged", ticket)
            notify.ticket_event("ticket.replied", ticket, reply=reply)
