"""E-mails in and out of the portal, each tied to the ticket it started or continued.

The Message-ID of every e-mail is kept, so a customer's answer (In-Reply-To / References) finds its
ticket, and a message delivered twice (a retried pipe, an IMAP poll that died before marking it
seen) is recognised and not made into a second ticket.
"""

from django.db import models


class MailMessage(models.Model):
    class Direction(models.TextChoices):
        INBOUND = "in", "Received"
        OUTBOUND = "out", "Sent"

    class Status(models.TextChoices):
        TICKET = "ticket", "Became a ticket"
        FOLLOW_UP = "follow_up", "Added to its ticket"
        IGNORED = "ignored", "Ignored (auto-reply, bounce or our own)"
        PENDING = "pending", "Waiting to be sent"
        SENT = "sent", "Sent"
        FAILED = "failed", "Sending failed"

    direction = models.CharField(max_length=3, choices=Direction.choices)
    status = models.CharField(max_length=20, choices=Status.choices)
    message_id = models.CharField(max_length=998, unique=True)
    in_reply_to = models.CharField(max_length=998, blank=True)
    references = models.TextField(blank=True)
    sender = models.CharField(max_length=998, blank=True)
    recipients = models.TextField(blank=True)
    subject = models.CharField(max_length=998, blank=True)
    ticket = models.ForeignKey("tickets.Ticket", null=True, blank=True, on_delete=models.CASCADE,
                               related_name="+")
    ticket_message = models.OneToOneField("tickets.Message", null=True, blank=True, on_delete=models.SET_NULL,
                                          related_name="+")
    reason = models.CharField(max_length=500, blank=True, help_text="Why it was ignored, or why sending failed.")
    raw = models.FileField(upload_to="mail/%Y/%m/", blank=True, help_text="The message as received or sent.")
    size = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = "e-mail"

    def __str__(self) -> str:
        return f"{self.get_direction_display()}: {self.subject or '(no subject)'}"


class Attachment(models.Model):
    mail = models.ForeignKey(MailMessage, on_delete=models.CASCADE, related_name="attachments")
    file = models.FileField(upload_to="mail/attachments/%Y/%m/")
    filename = models.CharField(max_length=255)
    content_type = models.CharField(max_length=255)
    size = models.PositiveBigIntegerField()

    class Meta:
        ordering = ["pk"]

    def __str__(self) -> str:
        return self.filename
