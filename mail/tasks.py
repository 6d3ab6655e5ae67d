"""django-q2 entry points.

`register()` runs from `MailConfig.ready()`, so `portal.jobs.enqueue_task("mail-reply", id)` finds the
reply task; the IMAP poll and the retries of replies are django-q2 schedules (dotted paths, created by
migrations 0002 and 0005).
"""

from mail import imap, outbound
from portal.jobs import register as register_task


def run_send_reply(message_id: int) -> None:
    outbound.send_reply(message_id)


def run_poll_imap() -> None:
    imap.poll_mailbox()


def run_send_due_replies() -> None:
    """The minute's schedule (migration 0005): queue the replies due to be sent again."""
    outbound.send_due()


def register() -> None:
    register_task("mail-reply", run_send_reply)
