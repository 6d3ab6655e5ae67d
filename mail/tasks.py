"""django-q2 entry points.

`register()` runs from `MailConfig.ready()`, so `portal.jobs.enqueue_task("mail-reply", id)` finds the
reply task; the IMAP poll is a django-q2 schedule (a dotted path, created by migration 0002).
"""

from mail import imap, outbound
from portal.jobs import register as register_task


def run_send_reply(message_id: int) -> None:
    outbound.send_reply(message_id)


def run_poll_imap() -> None:
    imap.poll_mailbox()


def register() -> None:
    register_task("mail-reply", run_send_reply)
