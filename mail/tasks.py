"""django-q2 entry points."""

from mail import imap, outbound


def run_send_reply(message_id: int) -> None:
    outbound.send_reply(message_id)


def run_poll_imap() -> None:
    imap.poll_mailbox()
