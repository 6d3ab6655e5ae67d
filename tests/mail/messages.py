"""Builders of real RFC 822 messages for the mail tests (bytes as a mail server would hand them over)."""

from email.header import Header
from email.message import EmailMessage
from email.mime.message import MIMEMessage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import formatdate, make_msgid


def plain(body: str = "Hello, where is my parcel?", *, subject: str = "Parcel", sender: str = "Ann <ann@example.com>",
          message_id: str | None = None, **headers) -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, "support@example.org", subject
    message["Date"], message["Message-ID"] = formatdate(), message_id or make_msgid(domain="example.com")
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    message.set_content(body)
    return message.as_bytes()


def legacy_charset(body: str, subject: str, charset: str, encoding: str = "8bit") -> bytes:
    """A message in a legacy Russian charset, written byte by byte as old mail clients send it."""
    import quopri

    data = body.encode(charset)
    if encoding == "quoted-printable":
        data = quopri.encodestring(data)
    head = (f"From: Ivan <ivan@example.ru>\r\nTo: support@example.org\r\n"
            f"Subject: {Header(subject, charset).encode()}\r\nMessage-ID: {make_msgid(domain='example.ru')}\r\n"
            f"MIME-Version: 1.0\r\nContent-Type: text/plain; charset={charset}\r\n"
            f"Content-Transfer-Encoding: {encoding}\r\n\r\n")
    return head.encode("ascii") + data.replace(b"\n", b"\r\n")


def html_only(html: str, *, subject: str = "HTML") -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "web@example.com", "support@example.org", subject
    message["Message-ID"] = make_msgid(domain="example.com")
    message.set_content(html, subtype="html")
    return message.as_bytes()


def with_attachments(body: str, files: list[tuple[str, str, bytes]]) -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "bob@example.com", "support@example.org", "Invoice attached"
    message["Message-ID"] = make_msgid(domain="example.com")
    message.set_content(body)
    message.add_alternative(f"<p>{body}</p>", subtype="html")
    for name, content_type, data in files:
        maintype, subtype = content_type.split("/")
        message.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)
    return message.as_bytes()


def forwarded(note: str, inner: bytes) -> bytes:
    from email import message_from_bytes

    outer = MIMEMultipart()
    outer["From"], outer["To"], outer["Subject"] = "carol@example.com", "support@example.org", "Fwd: Parcel"
    outer["Message-ID"] = make_msgid(domain="example.com")
    outer.attach(MIMEText(note, "plain", "utf-8"))
    outer.attach(MIMEMessage(message_from_bytes(inner)))
    return outer.as_bytes()


def bounce(original_id: str) -> bytes:
    """A delivery status notification (RFC 3464) as a mail server sends it."""
    return (f"From: MAILER-DAEMON@mx.example.com\r\nTo: support@example.org\r\n"
            f"Subject: Undelivered Mail Returned to Sender\r\nMessage-ID: {make_msgid(domain='mx.example.com')}\r\n"
            f"In-Reply-To: {original_id}\r\nMIME-Version: 1.0\r\n"
            f"Content-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\r\n\r\n"
            f"--B\r\nContent-Type: text/plain\r\n\r\nYour message could not be delivered.\r\n"
            f"--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.com\r\n\r\n"
            f"Final-Recipient: rfc822; ann@example.com\r\nAction: failed\r\n--B--\r\n").encode()
