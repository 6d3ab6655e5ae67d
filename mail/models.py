"""E-mails in and out of the portal, each tied to the ticket it started or continued.

The Message-ID of every e-mail is kept, so a customer's answer (In-Reply-To / References) finds its
ticket, and a message delivered twice (a retried pipe, an IMAP poll that died before marking it
seen) is recognised and not made into a second ticket.
"""

from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _


class MailMessage(models.Model):
    class Direction(models.TextChoices):
        INBOUND = "in", _("Received")
        OUTBOUND = "out", _("Sent")

    class Status(models.TextChoices):
        TICKET = "ticket", _("Became a ticket")
        FOLLOW_UP = "follow_up", _("Added to its ticket")
        IGNORED = "ignored", _("Ignored (auto-reply, bounce or our own)")
        PENDING = "pending", _("Waiting to be sent")
        SENT = "sent", _("Sent")
        RETRYING = "retrying", _("Waiting to be sent again")
        FAILED = "failed", _("Sending failed")

    direction = models.CharField(_("direction"), max_length=3, choices=Direction.choices)
    status = models.CharField(_("status"), max_length=20, choices=Status.choices)
    message_id = models.CharField(_("message id"), max_length=998, unique=True)
    in_reply_to = models.CharField(_("in reply to"), max_length=998, blank=True)
    references = models.TextField(_("references"), blank=True)
    sender = models.CharField(_("sender"), max_length=998, blank=True)
    recipients = models.TextField(_("recipients"), blank=True)
    subject = models.CharField(_("subject"), max_length=998, blank=True)
    ticket = models.ForeignKey("tickets.Ticket", verbose_name=_("ticket"), null=True, blank=True,
                               on_delete=models.CASCADE,
                               related_name="+")
    ticket_message = models.OneToOneField("tickets.Message", verbose_name=_("ticket message"), null=True, blank=True,
                                          on_delete=models.SET_NULL,
                                          related_name="+")
    reason = models.CharField(_("reason"), max_length=500, blank=True,
                              help_text=_("Why it was ignored, or why sending failed."))
    raw = models.FileField(_("raw"), upload_to="mail/%Y/%m/", blank=True,
                           help_text=_("The message as received or sent."))
    size = models.PositiveIntegerField(_("size"), default=0)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0,
                                                help_text=_("Times sending was tried in this round."))
    next_attempt_at = models.DateTimeField(_("next attempt"), null=True, blank=True,
                                           help_text=_("When a reply waiting to be sent again is sent."))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["next_attempt_at"], condition=models.Q(status="retrying"),
                                name="mail_retry_due")]
        verbose_name = _("e-mail")
        verbose_name_plural = _("e-mails")

    def __str__(self) -> str:
        subject = self.subject or gettext("(no subject)")
        return f"{self.get_direction_display()}: {subject}"


class Attachment(models.Model):
    mail = models.ForeignKey(MailMessage, verbose_name=_("mail"), on_delete=models.CASCADE, related_name="attachments")
    file = models.FileField(_("file"), upload_to="mail/attachments/%Y/%m/")
    filename = models.CharField(_("filename"), max_length=255)
    content_type = models.CharField(_("content type"), max_length=255)
    size = models.PositiveBigIntegerField(_("size"))

    class Meta:
        verbose_name = _("attachment")
        verbose_name_plural = _("attachments")
        ordering = ["pk"]

    def __str__(self) -> str:
        return self.filename
