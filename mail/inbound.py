"""An RFC 822 message becomes a ticket, or a follow-up in the ticket it answers.

`receive_message(raw)` is the one way in, used by `manage.py receive_email` (a mail server pipes
the message to it) and by the IMAP poller. It is idempotent by Message-ID (a message without one
gets an id from its hash), so the same message delivered twice never makes two tickets.

Loops: auto-replies, out-of-office answers and bounces (RFC 3834 `Auto-Submitted`, `Precedence`,
`X-Autoreply`, delivery reports, the null sender, MAILER-DAEMON) and our own messages are recorded
as ignored, never made into tickets, so the portal's auto-reply can never answer an auto-reply.
"""

import hashlib
import logging
import re
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses, parseaddr
from pathlib import PurePosixPath

from bs4 import BeautifulSoup
from django.conf import settings
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.utils.formats import number_format
from django.utils.translation import gettext

from mail.exceptions import MailError
from mail.models import Attachment, MailMessage
from mail.quoted import new_text
from tickets import triage
from tickets.models import Message, Ticket

logger = logging.getLogger(__name__)

# Text PostgreSQL cannot store, and what makes a header two headers.
UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")
MAX_BODY_CHARS = 100_000
AUTO_PRECEDENCE = {"bulk", "junk", "list", "auto_reply"}
AUTO_SENDERS = re.compile(r"^(mailer-daemon|postmaster|mail-daemon)@", re.IGNORECASE)
MESSAGE_ID = re.compile(r"<[^<>\s]+>")


@dataclass
class Received:
    outcome: str  # "ticket", "follow_up", "ignored" or "duplicate"
    mail: MailMessage
    ticket: Ticket | None = None
    reason: str = ""
    refused_attachments: list[str] = field(default_factory=list)


def receive_message(raw: bytes) -> Received:
    """File one e-mail; raises `MailError` for a message that cannot be a ticket (nothing is stored)."""
    limit = settings.MAIL["MAX_MESSAGE_BYTES"]
    if len(raw) > limit:
        raise MailError(gettext("The message is %(size)s bytes; the limit is %(limit)s")
                        % {"size": number_format(len(raw), force_grouping=True),
                           "limit": number_format(limit, force_grouping=True)})
    message = BytesParser(policy=policy.default).parsebytes(raw)
    message_id = (first_id(header(message, "Message-ID"))
                  or f"<sha256-{hashlib.sha256(raw).hexdigest()}@portal.invalid>")
    existing = MailMessage.objects.filter(message_id=message_id).select_related("ticket").first()
    if existing is not None:
        return Received("duplicate", existing, existing.ticket, "already received")
    name, address = parseaddr(header(message, "From"))
    address = one_line(address)
    if "@" not in address:
        raise MailError(gettext("The message has no usable From address"))
    mail = MailMessage(direction=MailMessage.Direction.INBOUND, message_id=message_id,
                       in_reply_to=first_id(header(message, "In-Reply-To")),
                       references=" ".join(MESSAGE_ID.findall(header(message, "References")))[:10_000],
                       sender=one_line(f"{name} <{address}>" if name else address)[:998],
                       recipients=", ".join(a for _, a in getaddresses([header(message, "To")]) if a)[:5000],
                       subject=one_line(header(message, "Subject"))[:998], size=len(raw))
    reason = auto_reason(message, address)
    try:
        with transaction.atomic():
            if reason:
                mail.status, mail.reason = MailMessage.Status.IGNORED, reason
                _save(mail, raw)
                logger.info("Ignored e-mail %s from %s: %s", message_id, address, reason)
                return Received("ignored", mail, reason=reason)
            ticket = thread_ticket(mail)
            # A follow-up's quoted thread is already in the ticket: only what is new is kept (mail/quoted.py).
            body, attachments, refused = _contents(message, follow_up=ticket is not None)
            if ticket is not None:
                mail.status, mail.ticket = MailMessage.Status.FOLLOW_UP, ticket
                mail.ticket_message = Message.objects.create(ticket=ticket, kind=Message.Kind.CUSTOMER, body=body)
                if ticket.status not in Ticket.OPEN or ticket.status == Ticket.Status.UNDELIVERED:
                    # The customer wrote again after the answer (delivered or not): staff must see it.
                    ticket.status, ticket.closed_at = Ticket.Status.REVIEW, None
                    ticket.save(update_fields=["status", "closed_at", "updated_at"])
            else:
                ticket = triage.submit_ticket(
                    subject=mail.subject[:300], body=body, customer=address[:300], channel=Ticket.Channel.EMAIL,
                    external_id=message_id[:200], metadata={"email": {"from": mail.sender, "message_id": message_id}})
                mail.status, mail.ticket = MailMessage.Status.TICKET, ticket
                mail.ticket_message = ticket.messages.get(kind=Message.Kind.CUSTOMER)
            _save(mail, raw)
            for filename, content_type, data in attachments:
                Attachment.objects.create(mail=mail, filename=filename, content_type=content_type, size=len(data),
                                          file=ContentFile(data, name=filename))
    except IntegrityError:
        # The same message arriving twice at the same moment: the other one won.
        existing = MailMessage.objects.filter(message_id=message_id).select_related("ticket").first()
        if existing is None:
            raise
        return Received("duplicate", existing, existing.ticket, "already received")
    return Received(mail.status if mail.status != MailMessage.Status.TICKET else "ticket", mail, ticket,
                    refused_attachments=refused)


def _save(mail: MailMessage, raw: bytes) -> None:
    mail.raw.save("message.eml", ContentFile(raw), save=False)
    mail.save()


def header(message: EmailMessage, name: str) -> str:
    """A header as text; a header too broken to decode is read as its raw characters."""
    try:
        value = message.get(name)
    except Exception:  # the default policy parses lazily and can fail on junk
        value = next((v for k, v in message.raw_items() if k.lower() == name.lower()), None)
    return UNSTORABLE.sub("", str(value)) if value is not None else ""


def one_line(text: str) -> str:
    """Header text on one line: CR/LF inside a (decoded) header must never become a new header."""
    return " ".join(UNSTORABLE.sub("", text).split())


def first_id(text: str) -> str:
    found = MESSAGE_ID.search(text or "")
    return found[0][:998] if found else ""


def auto_reason(message: EmailMessage, address: str) -> str:
    """Why the message is automatic (and must not start a ticket), or "" (stored, shown in the admin)."""
    auto = header(message, "Auto-Submitted").strip().lower()
    if auto and auto != "no":
        return gettext("Auto-Submitted: %(value)s") % {"value": auto}
    for name in ("X-Autoreply", "X-Autorespond", "X-Auto-Reply"):
        if header(message, name):
            return gettext("%(header)s header") % {"header": name}
    precedence = header(message, "Precedence").strip().lower()
    if precedence in AUTO_PRECEDENCE:
        return gettext("Precedence: %(value)s") % {"value": precedence}
    if message.get_content_type() == "multipart/report":
        return gettext("a delivery or read report")
    if header(message, "Return-Path").strip() == "<>":
        return gettext("sent from the null sender (a bounce)")
    if AUTO_SENDERS.match(address):
        return gettext("sent by %(address)s") % {"address": address}
    if address.lower() == parseaddr(settings.MAIL["FROM"])[1].lower():
        return gettext("sent by the portal itself")
    return ""


def thread_ticket(mail: MailMessage) -> Ticket | None:
    """The ticket this message answers, by In-Reply-To then References (newest first)."""
    ids = [mail.in_reply_to, *reversed(mail.references.split())]
    ids = [i for i in dict.fromkeys(ids) if i]
    if not ids:
        return None
    known = {m.message_id: m.ticket for m in MailMessage.objects.filter(message_id__in=ids, ticket__isnull=False)
             .select_related("ticket")}
    return next((known[i] for i in ids if i in known), None)


def _contents(message: EmailMessage, *,
              follow_up: bool = False) -> tuple[str, list[tuple[str, str, bytes]], list[str]]:
    """The message's text (a follow-up's without the thread it quotes), its attachments (name, type,
    bytes) and notes on attachments not kept."""
    body_part = None
    try:
        body_part = message.get_body(preferencelist=("plain", "html"))
    except Exception:
        logger.warning("Cannot find the body of a broken message", exc_info=True)
    text = _text(body_part) if body_part is not None else ""
    if follow_up:
        text = new_text(text)
    attachments, refused = [], []
    limit = settings.MAIL["MAX_ATTACHMENT_BYTES"]
    for number, part in enumerate(_attachment_parts(message, body_part), start=1):
        filename = _filename(part, number)
        data = _payload(part)
        if len(data) > limit:
            refused.append(f"{filename} ({len(data):,} bytes) was not kept: the limit is {limit:,} bytes")
            continue
        attachments.append((filename, part.get_content_type(), data))
    notes = [f"[{note}]" for note in refused]
    body = "\n\n".join(filter(None, [text.strip(), *notes])) or "(empty message)"
    return body[:MAX_BODY_CHARS], attachments, refused


def _attachment_parts(part: EmailMessage, body_part) -> list[EmailMessage]:
    """Leaf parts other than the body text and its alternatives; a forwarded message is one part."""
    if part is body_part:
        return []
    content_type = part.get_content_type()
    if content_type == "message/rfc822":
        return [part]
    if part.is_multipart():
        children = part.get_payload()
        if content_type == "multipart/alternative" and body_part is not None and body_part in children:
            return []
        return [leaf for child in children for leaf in _attachment_parts(child, body_part)]
    if part.get_content_maintype() == "text" and not part.get_filename() and not part.is_attachment():
        return []  # an inline text part that is not the chosen body (e.g. a signature)
    return [part]


def _filename(part: EmailMessage, number: int) -> str:
    try:
        name = part.get_filename() or ""
    except Exception:
        name = ""
    name = PurePosixPath(one_line(name).replace("\\", "/")).name.strip(". ")
    if not name:
        name = f"forwarded-{number}.eml" if part.get_content_type() == "message/rfc822" else f"attachment-{number}"
    return name[:200]


def _payload(part: EmailMessage) -> bytes:
    if part.get_content_type() == "message/rfc822":
        inner = part.get_payload()
        inner = inner[0] if isinstance(inner, list) else inner
        return inner.as_bytes() if hasattr(inner, "as_bytes") else str(inner).encode()
    return part.get_payload(decode=True) or b""


BLOCKS = ["p", "div", "li", "tr", "table", "blockquote", "pre", "h1", "h2", "h3", "h4", "h5", "h6"]


def html_text(html: str) -> str:
    """The text of an HTML mail: paragraphs on their own lines, scripts and styles dropped."""
    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["script", "style", "head", "title"]):
        tag.decompose()
    for tag in soup.find_all("br"):
        tag.replace_with("\n")
    for tag in soup.find_all(BLOCKS):
        tag.insert_after("\n")
    return soup.get_text()


def _text(part: EmailMessage) -> str:
    try:
        content = part.get_content()
    except (LookupError, UnicodeError, ValueError, AssertionError):
        # An unknown or lying charset: the bytes, decoded as well as can be.
        payload = part.get_payload(decode=True) or b""
        content = payload.decode("utf-8", errors="replace")
    if isinstance(content, bytes):
        content = content.decode("utf-8", errors="replace")
    if part.get_content_type() == "text/html":
        content = html_text(content)
    content = UNSTORABLE.sub("", content).replace("\r\n", "\n")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(line.rstrip() for line in content.splitlines()))
