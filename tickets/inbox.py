"""What support staff do with a triaged ticket: send the draft (edited or not), reject it, add a note, close
it as answered outside e-mail when the reply's e-mail failed."""

from django.db import transaction
from django.db.models import Case, IntegerField, Value, When
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tickets import notify
from tickets.citations import cited_numbers
from tickets.exceptions import NoDraftError, TicketClosedError, TicketError, UnknownSourceError
from tickets.models import Message, RiskLevel, Ticket
from tickets.reports import edit_distance


def current_draft(ticket: Ticket) -> Message | None:
    return ticket.messages.filter(kind=Message.Kind.DRAFT, is_current=True).order_by("-created_at", "-pk").first()


def _lock(ticket: Ticket) -> Ticket:
    # Two staff members pressing "send" at once must not both send.
    locked = Ticket.objects.select_for_update().get(pk=ticket.pk)
    if locked.status in (Ticket.Status.ANSWERED, Ticket.Status.REJECTED, Ticket.Status.AUTO_REPLIED):
        raise TicketClosedError(_("Ticket #%(id)s is already %(status)s.")
                                % {"id": ticket.pk, "status": locked.get_status_display().lower()})
    return locked


@transaction.atomic
def send_reply(ticket: Ticket, *, user, text: str | None = None) -> Message:
    """Send the current draft, or staff's edited `text`, as the reply; record the edit distance."""
    ticket = _lock(ticket)
    draft = current_draft(ticket)
    if text is None:
        if draft is None:
            raise NoDraftError(_("There is no draft to send; write the reply first."))
        text = draft.body
    text = text.strip()
    if not text:
        raise TicketError(_("The reply is empty."))
    check_markers(text, draft)
    now = timezone.now()
    reply = Message.objects.create(
        ticket=ticket, kind=Message.Kind.REPLY, body=text, author=user, draft=draft, sent_at=now,
        edit_distance=edit_distance(draft.body, text) if draft else None,
    )
    if draft:
        Message.objects.filter(pk=draft.pk).update(is_current=False)
    ticket.close(Ticket.Status.ANSWERED)
    notify.ticket_event("ticket.replied", ticket, reply=reply)
    return reply


def check_markers(text: str, draft: Message | None) -> None:
    """Every `[n]` of a reply must open a source snapshot of its draft: staff and the API read the reply
    with its markers, and an e-mail lists the pages they cite, so a marker pointing nowhere is refused."""
    known = sorted(draft.sources.values_list("position", flat=True)) if draft else []
    unknown = sorted(cited_numbers(text) - set(known))
    if not unknown:
        return
    markers = ", ".join(f"[{n}]" for n in unknown)
    if known:
        raise UnknownSourceError(ngettext(
            "The reply cites %(markers)s, but the draft has no such source (its sources are %(known)s): "
            "correct or remove the marker.",
            "The reply cites %(markers)s, but the draft has no such sources (its sources are %(known)s): "
            "correct or remove the markers.", len(unknown)) % {
            "markers": markers, "known": ", ".join(f"[{n}]" for n in known)})
    raise UnknownSourceError(ngettext(
        "The reply cites %(markers)s, but there are no sources to cite: remove the marker.",
        "The reply cites %(markers)s, but there are no sources to cite: remove the markers.",
        len(unknown)) % {"markers": markers})


@transaction.atomic
def resend_email(ticket: Ticket, *, reply_id: int) -> Message:
    """Queue the e-mail of a reply whose sending failed once more (the mail app never sends one twice)."""
    reply = (Message.objects.select_for_update()
             .filter(ticket=ticket, kind=Message.Kind.REPLY, pk=reply_id).first())
    if reply is None:
        raise TicketError(_("Ticket #%(id)s has no such reply.") % {"id": ticket.pk})
    if reply.delivery != Message.Delivery.FAILED:
        raise TicketError(_("This reply's e-mail did not fail (%(delivery)s): there is nothing to send again.")
                          % {"delivery": reply.get_delivery_display().lower()})
    notify.email_reply(reply)
    return reply


@transaction.atomic
def reject(ticket: Ticket, *, user, reason: str = "") -> Ticket:
    """Close the ticket without a reply; the draft stays for the record, the reason as a note."""
    ticket = _lock(ticket)
    ticket.messages.filter(kind=Message.Kind.DRAFT, is_current=True).update(is_current=False)
    Message.objects.create(ticket=ticket, kind=Message.Kind.NOTE, author=user,
                           body=_("Rejected: %(reason)s") % {"reason": reason.strip()} if reason.strip()
                           else _("Rejected."))
    ticket.close(Ticket.Status.REJECTED)
    notify.ticket_event("ticket.rejected", ticket)
    return ticket


@transaction.atomic
def close_answered_elsewhere(ticket: Ticket, *, user, how: str = "") -> Ticket:
    """Close a ticket whose reply's e-mail failed for good as answered, when staff reached the customer
    another way (by phone, in person): who did and how is a note, the failed reply stays as it was."""
    ticket = _lock(ticket)
    if ticket.status != Ticket.Status.UNDELIVERED:
        status = ticket.get_status_display().lower()
        raise TicketError(_("Ticket #%(id)s is %(status)s: only a ticket whose reply was not delivered is closed as "
                            "answered outside e-mail.") % {"id": ticket.pk, "status": status})
    ticket.messages.filter(kind=Message.Kind.DRAFT, is_current=True).update(is_current=False)
    Message.objects.create(ticket=ticket, kind=Message.Kind.NOTE, author=user,
                           body=_("Answered outside e-mail: %(how)s") % {"how": how.strip()} if how.strip()
                           else _("Answered outside e-mail."))
    ticket.close(Ticket.Status.ANSWERED)
    notify.answered_elsewhere(ticket, how.strip())
    return ticket


def add_note(ticket: Ticket, *, user, text: str) -> Message:
    """An internal note staff leave on the ticket; the customer never sees it."""
    if not text.strip():
        raise TicketError(_("The note is empty."))
    return Message.objects.create(ticket=ticket, kind=Message.Kind.NOTE, body=text.strip(), author=user)


# High risk first, then medium, low and not assessed: the order the inbox works in by default.
RISK_RANK = Case(When(risk_level=RiskLevel.HIGH, then=Value(0)), When(risk_level=RiskLevel.MEDIUM, then=Value(1)),
                 When(risk_level=RiskLevel.LOW, then=Value(2)), default=Value(3), output_field=IntegerField())


# What staff must act on: a draft to review, or a reply the customer did not get.
WAITING = (Ticket.Status.REVIEW, Ticket.Status.UNDELIVERED)


def waiting():
    """Tickets waiting for staff, riskiest first and, within a risk level, the longest waiting first."""
    return (Ticket.objects.filter(status__in=WAITING).annotate(risk_rank=RISK_RANK)
            .order_by("risk_rank", "created_at", "pk"))


def next_ticket(after: Ticket | None = None) -> Ticket | None:
    """The ticket to work on next (`waiting()` order), never `after` itself."""
    tickets = waiting()
    if after is not None:
        tickets = tickets.exclude(pk=after.pk)
    return tickets.first()
