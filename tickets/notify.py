"""What tickets tell the outside world: webhook events for each step of a ticket's life, and the
e-mail of a reply to a ticket that came by e-mail.

The e-mail is queued under the task name the mail app registers (`portal.jobs.enqueue_task`): the
mail app files incoming mail as tickets (it imports tickets), so tickets must not import it back.
"""

from portal.jobs import enqueue_task
from tickets import replies
from tickets.models import Message, Ticket
from webhooks.events import publish

SEND_REPLY_TASK = "mail-reply"


def ticket_data(ticket: Ticket) -> dict:
    return {"id": ticket.pk, "subject": ticket.subject, "status": ticket.status, "channel": ticket.channel,
            "external_id": ticket.external_id, "risk_level": ticket.risk_level,
            "agent_id": ticket.agent_id, "confidence": ticket.confidence}


def ticket_event(event: str, ticket: Ticket, *, reply: Message | None = None) -> None:
    _publish(event, ticket, **({"reply": reply_data(reply)} if reply is not None else {}))
    if reply is not None and ticket.channel == Ticket.Channel.EMAIL:
        email_reply(reply)


def reply_data(reply: Message) -> dict:
    """A reply as events carry it; `customer_text`: as the customer reads it (e-mailed), for an
    integrator who relays it."""
    return {"id": reply.pk, "body": reply.body, "customer_text": replies.customer_text(reply),
            "auto_sent": reply.auto_sent, "sent_at": reply.sent_at.isoformat() if reply.sent_at else None}


def reply_undelivered(reply: Message) -> None:
    """Tell integrators that a reply's e-mail failed for good (`ticket.reply_undelivered`): the customer
    did not get it, and staff may send it again or answer another way."""
    _publish("ticket.reply_undelivered", reply.ticket,
             reply={**reply_data(reply), "delivery_error": reply.delivery_error})


def answered_elsewhere(ticket: Ticket, how: str) -> None:
    """Tell integrators that staff closed a ticket whose reply was not delivered as answered another
    way (`ticket.answered_elsewhere`), with the staff's words on how."""
    _publish("ticket.answered_elsewhere", ticket, how=how)


def _publish(event: str, ticket: Ticket, **data) -> None:
    """The event with the ticket and `data`, heard by the endpoints of the key it was submitted with too."""
    publish(event, {"ticket": ticket_data(ticket), **data}, api_key_id=(ticket.metadata or {}).get("api_key_id"))


def email_reply(reply: Message) -> None:
    """Queue the e-mail of a reply; the reply says it waits until the worker records what became of it."""
    reply.queue_delivery()
    enqueue_task(SEND_REPLY_TASK, reply.pk)
