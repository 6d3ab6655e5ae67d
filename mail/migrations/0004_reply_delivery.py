"""Replies e-mailed before the ticket kept its e-mail's fate: their delivery, from the e-mail log."""

from django.db import migrations
from django.db.models import OuterRef, Subquery

DELIVERY = {"pending": "pending", "sent": "sent", "failed": "failed"}


def fill_delivery(apps, schema_editor):
    MailMessage = apps.get_model("mail", "MailMessage")
    Message = apps.get_model("tickets", "Message")
    for status, delivery in DELIVERY.items():
        mails = MailMessage.objects.filter(direction="out", status=status)
        Message.objects.filter(pk__in=mails.values("ticket_message_id")).update(
            delivery=delivery,
            delivery_error=Subquery(mails.filter(ticket_message_id=OuterRef("pk")).values("reason")[:1]),
        )


class Migration(migrations.Migration):
    dependencies = [
        ("mail", "0003_i18n"),
        ("tickets", "0010_reply_delivery"),
    ]

    operations = [migrations.RunPython(fill_delivery, migrations.RunPython.noop)]
