"""Polling an IMAP mailbox: every unseen message goes through `inbound.receive_message`, then is
marked seen. A message is marked only after it is filed, and filing is idempotent by Message-ID, so
a poll that dies half-way files nothing twice when the next one reads the message again."""

import imaplib
import logging
import ssl

from django.conf import settings
from django.utils.translation import gettext

from mail import inbound
from mail.exceptions import MailError

logger = logging.getLogger(__name__)


def connect() -> imaplib.IMAP4:
    conf = settings.MAIL
    context = ssl.create_default_context(cafile=conf["IMAP_CA_FILE"] or None)
    timeout = conf["IMAP_TIMEOUT_SECONDS"]
    if conf["IMAP_SECURITY"] == "starttls":
        client = imaplib.IMAP4(conf["IMAP_HOST"], conf["IMAP_PORT"], timeout=timeout)
        client.starttls(ssl_context=context)
    else:
        client = imaplib.IMAP4_SSL(conf["IMAP_HOST"], conf["IMAP_PORT"], ssl_context=context, timeout=timeout)
    client.login(conf["IMAP_USER"], conf["IMAP_PASSWORD"])
    return client


def poll_mailbox(*, limit: int | None = None) -> dict[str, int]:
    """File the mailbox's unseen messages; counts per outcome. Does nothing when IMAP is not set up."""
    conf = settings.MAIL
    counts: dict[str, int] = {}
    if not conf["IMAP_HOST"]:
        return counts
    client = connect()
    try:
        status, _ = client.select(conf["IMAP_FOLDER"])
        if status != "OK":
            raise MailError(gettext("Cannot open the IMAP folder %(folder)s") % {"folder": repr(conf["IMAP_FOLDER"])})
        _, data = client.uid("SEARCH", None, "UNSEEN")
        for uid in (data[0] or b"").split()[: limit or conf["IMAP_BATCH"]]:
            outcome = _file(client, uid)
            counts[outcome] = counts.get(outcome, 0) + 1
    finally:
        try:
            client.logout()
        except (imaplib.IMAP4.error, OSError):
            pass
    return counts


def _file(client: imaplib.IMAP4, uid: bytes) -> str:
    _, parts = client.uid("FETCH", uid, "(BODY.PEEK[])")
    raw = next((part[1] for part in parts if isinstance(part, tuple)), None)
    if raw is None:
        logger.warning("IMAP message %s has no body; left unseen", uid)
        return "unreadable"
    try:
        outcome = inbound.receive_message(raw).outcome
    except MailError as exc:
        # Marked seen all the same: it would fail the same way on every poll. It stays in the mailbox.
        logger.warning("IMAP message %s refused: %s", uid, exc)
        outcome = "refused"
    client.uid("STORE", uid, "+FLAGS", "(\\Seen)")
    return outcome
