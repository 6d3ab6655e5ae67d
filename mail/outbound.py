"""Replies to e-mailed tickets leave by SMTP (Django's mail backend), threaded under the customer's mail.

`send_reply(message_id)` runs in the worker after staff press Send or triage auto-replies. It is
idempotent: a reply already sent is not sent again when the task is delivered twice. The reply
answers the customer's latest e-mail (`In-Reply-To`) and carries the thread's `References`, so it
lands in the customer's conversation; auto-replies carry `Auto-Submitted: auto-replied` (RFC 3834),
so well-behaved mail systems do not answer them. Under the reply, the customer's message it answers
is quoted ("On …, … wrote:" in the customer's language, then `> ` lines), as mail clients do.
What became of the e-mail is written on the reply too (`Message.delivery`): a failure, with its
reason, shows on the ticket page and in the API, where staff send it again (`inbox.resend_email`).

An SMTP server that cannot take the reply for now (unreachable, disconnected, a 4xx answer) gets it
again later: `MAIL["RETRIES"]` times, after `RETRY_SECONDS`, then twice as long each time, queued
by `send_due` (the minute's schedule); the reply stays pending, the reason on it. A 5xx answer (no
such mailbox, refused) fails it at once, as does the last retry. Staff sending it again start a new
round.

A reply whose task never ran (the broker refused it after the commit, the worker died) would stay
pending for good: `send_due` queues it again once it has waited `MAIL["PENDING_GRACE_SECONDS"]`.
"""

import logging
import smtplib
from datetime import timedelta
from email.utils import make_msgid, parseaddr

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.mail import EmailMessage
from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from mail.inbound import MESSAGE_ID, one_line
from mail.models import MailMessage
from mail.quoted import quote
from portal.jobs import enqueue_task
from portal.languages import translate
from tickets import notify, replies
from tickets.models import Message, Ticket

logger = logging.getLogger(__name__)

MAX_REFERENCES = 20
ATTRIBUTION = gettext_noop("On %(date)s, %(sender)s wrote:")
NOTHING_TO_ANSWER = gettext_noop("The ticket holds no e-mail from the customer to answer.")


def reply_subject(subject: str, fallback: str = "Your request") -> str:
    subject = one_line(subject) or fallback
    return subject if subject.lower().startswith(("re:", "ha:", "отв:")) else f"Re: {subject}"


# The advisory-lock namespace of replies being sent (the reply's id is the other key).
SENDING_LOCK = 0x6D61696C  # "mail"


def send_reply(message_id: int) -> MailMessage | None:
    """E-mail the reply `message_id` to the customer; None when its ticket did not come by e-mail, or
    when another worker is sending it right now (two copies of its task: one queued again by the
    sweep while the first waited behind long jobs) — that one says what became of it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [SENDING_LOCK, message_id])
        if not cursor.fetchone()[0]:
            logger.info("The reply %s is being sent by another worker", message_id)
            return None
    try:
        return _send_reply(message_id)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [SENDING_LOCK, message_id])


def _send_reply(message_id: int) -> MailMessage | None:
    reply = Message.objects.select_related("ticket").get(pk=message_id, kind=Message.Kind.REPLY)
    ticket = reply.ticket
    sent = MailMessage.objects.filter(ticket_message=reply).first()
    if sent is not None and sent.status == MailMessage.Status.SENT:
        if reply.delivery != Message.Delivery.SENT:  # a retry queued after all: the reply says what happened
            reply.mark_delivery(Message.Delivery.SENT)
        return sent
    last_in = (MailMessage.objects.select_related("ticket_message")
               .filter(ticket=ticket, direction=MailMessage.Direction.INBOUND)
               .exclude(status=MailMessage.Status.IGNORED).order_by("-created_at", "-pk").first())
    if last_in is None:
        reply.mark_delivery(Message.Delivery.FAILED, NOTHING_TO_ANSWER)
        notify.reply_undelivered(reply)
        return None
    to = parseaddr(last_in.sender)[1]
    references = list(dict.fromkeys(MESSAGE_ID.findall(last_in.references) + [last_in.message_id]))
    mail = sent or MailMessage(direction=MailMessage.Direction.OUTBOUND, ticket=ticket, ticket_message=reply,
                               message_id=make_msgid(domain=settings.MAIL["DOMAIN"]))
    if mail.status == MailMessage.Status.FAILED:
        mail.attempts = 0  # staff sent it again: a new round of retries
    mail.status, mail.sender, mail.recipients = MailMessage.Status.PENDING, settings.MAIL["FROM"], to
    mail.subject, mail.in_reply_to = reply_subject(ticket.subject, replies.email_subject(ticket)), last_in.message_id
    mail.references = " ".join(references[-MAX_REFERENCES:])
    mail.save()
    headers = {"Message-ID": mail.message_id, "In-Reply-To": mail.in_reply_to, "References": mail.references}
    if reply.auto_sent:
        headers["Auto-Submitted"] = "auto-replied"
    # The agent's e-mail template in the customer's language wraps the reply (greeting, signature).
    email = EmailMessage(mail.subject, email_text(reply, last_in), settings.MAIL["FROM"], [to], headers=headers)
    raw = email.message().as_bytes()
    try:
        email.send()
    except (smtplib.SMTPException, OSError) as exc:
        mail.reason, mail.attempts = f"{type(exc).__name__}: {exc}"[:500], mail.attempts + 1
        if _for_now(exc) and mail.attempts <= settings.MAIL["RETRIES"]:
            wait = settings.MAIL["RETRY_SECONDS"] * 2 ** (mail.attempts - 1)
            mail.status, mail.next_attempt_at = MailMessage.Status.RETRYING, timezone.now() + timedelta(seconds=wait)
            mail.save(update_fields=["status", "reason", "attempts", "next_attempt_at"])
            reply.mark_delivery(Message.Delivery.PENDING, mail.reason)
            logger.warning("Sending the reply to ticket %s failed, sent again in %s s: %s", ticket.pk, wait, exc)
            return mail
        mail.status, mail.next_attempt_at = MailMessage.Status.FAILED, None
        mail.save(update_fields=["status", "reason", "attempts", "next_attempt_at"])
        # The ticket says so too: the reply was not delivered, why, and staff can send it again.
        reply.mark_delivery(Message.Delivery.FAILED, mail.reason)
        notify.reply_undelivered(reply)
        logger.warning("Sending the reply to ticket %s failed: %s", ticket.pk, exc)
        raise  # recorded as a failed task too; failures are acknowledged (ack_failures), not redelivered
    mail.status, mail.reason, mail.size = MailMessage.Status.SENT, "", len(raw)
    mail.raw.save("reply.eml", ContentFile(raw), save=False)
    mail.save()
    reply.mark_delivery(Message.Delivery.SENT)
    return mail


def send_due(limit: int = 200) -> int:
    """Queue the replies whose time to be sent again has come, and those whose task was lost; how many.
    Sweeps may overlap: each reply is queued by one of them (a conditional UPDATE)."""
    now, queued = timezone.now(), 0
    due = (MailMessage.objects.filter(status=MailMessage.Status.RETRYING, next_attempt_at__lte=now)
           .order_by("next_attempt_at").values_list("pk", "ticket_message_id")[:limit])
    for pk, reply_id in due:
        with transaction.atomic():
            if reply_id and MailMessage.objects.filter(pk=pk, status=MailMessage.Status.RETRYING).update(
                    status=MailMessage.Status.PENDING, next_attempt_at=None):
                # Queued now: the reply's grace period (below) starts again.
                Message.objects.filter(pk=reply_id).update(delivery_queued_at=now)
                enqueue_task("mail-reply", reply_id)
                queued += 1
    return queued + _send_lost(now, limit)


def _send_lost(now, limit: int) -> int:
    """Queue again the replies still pending `PENDING_GRACE_SECONDS` after their task was queued, with
    no e-mail waiting to be sent again: the broker refused the task after the commit, or the worker
    died before (or while) running it. `send_reply` sends a reply once, so a first task that turns up
    after all sends nothing more. The conditional UPDATE restarts the grace period, so one sweep queues it."""
    lost = (Q(kind=Message.Kind.REPLY, delivery=Message.Delivery.PENDING, ticket__channel=Ticket.Channel.EMAIL)
            & (Q(delivery_queued_at__lt=now - timedelta(seconds=settings.MAIL["PENDING_GRACE_SECONDS"]))
               | Q(delivery_queued_at=None))  # queued before the portal kept the time
            & ~Exists(MailMessage.objects.filter(ticket_message=OuterRef("pk"), status=MailMessage.Status.RETRYING)))
    queued = 0
    for reply_id in Message.objects.filter(lost).order_by("delivery_queued_at").values_list("pk", flat=True)[:limit]:
        with transaction.atomic():
            if Message.objects.filter(lost, pk=reply_id).update(delivery_queued_at=now):
                enqueue_task("mail-reply", reply_id)
                queued += 1
    return queued


def _for_now(exc: Exception) -> bool:
    """Whether an SMTP failure may pass: the server unreachable or gone, or a 4xx answer (RFC 5321's
    transient failures). A 5xx answer (no such mailbox, refused, bad credentials) will not."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return all(400 <= code < 500 for code, _ in exc.recipients.values())
    if isinstance(exc, smtplib.SMTPResponseException):
        return 400 <= exc.smtp_code < 500 or isinstance(exc, smtplib.SMTPConnectError)
    if isinstance(exc, smtplib.SMTPServerDisconnected):
        return True
    # Any other SMTP error (an extension the server lacks) is the set-up's; an OSError (refused,
    # timed out, a name that does not resolve for now) the network's.
    return not isinstance(exc, smtplib.SMTPException)


def email_text(reply: Message, answered: MailMessage) -> str:
    """The reply as the agent's e-mail template words it, with the customer's message it answers quoted below."""
    body = replies.email_body(reply)
    asked = answered.ticket_message
    if asked is None or not asked.body.strip():
        return body
    attribution = translate(ATTRIBUTION, replies.ticket_language(reply.ticket)) % {
        "date": timezone.localtime(answered.created_at).strftime("%Y-%m-%d %H:%M %Z"),
        "sender": one_line(answered.sender) or reply.ticket.customer}
    return f"{body}\n\n{quote(asked.body, attribution)}"
