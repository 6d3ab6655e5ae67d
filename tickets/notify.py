"""What tickets tell the outside world: webhook events for each step of a ticket's life, and the
e-mail of a reply to a ticket that came by e-mail.

The e-mail is queued by the task's dotted name: the mail app files incoming mail as tickets (it
imports tickets), so tickets must not import it back.
"""

from django.db import transaction
from django_q.tasks import async_task

from tickets.models import Message, Ticket
from webhooks.events import publish

SEND_REPLY_TASK = "mail.tasks.run_send_reply"


def ticket_data(ticket: Ticket) -> dict:
    return {"id": ticket.pk, "subject": ticket.subject, "status": ticket.status, "channel": ticket.channel,
            "external_id": ticket.external_id, "risk_level": ticket.risk_level,
            "agent_id": ticket.agent_id, "confidence": ticket.confidence}


def ticket_event(event: str, ticket: Ticket, *, reply: Message | None = None) -> None:
    data = {"ticket": ticket_data(ticket)}
    if reply is not None:
        data["reply"] = {"id": reply.pk, "body": reply.body, "auto_sent": reply.auto_sent,
                         "sent_at": reply.sent_at.isoformat() if reply.sent_at else None}
    publish(event, data, api_key_id=(ticket.metadata or {}).get("api_key_id"))
    if reply is not None and ticket.channel == Ticket.Channel.EMAIL:
        transaction.on_commit(lambda: async_task(SEND_REPLY_TASK, reply.pk, task_name=f"mail-reply-{reply.pk}"))
