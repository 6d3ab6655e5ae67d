"""Replies the SMTP server could not take for now are sent again (mail/outbound.py): their attempts
and next time, and the minute's sweep that queues the due ones."""

from django.db import migrations, models


def schedule(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.update_or_create(name="mail-retries", defaults={
        "func": "mail.tasks.run_send_due_replies", "schedule_type": "I", "minutes": 1, "repeats": -1})


def unschedule(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name="mail-retries").delete()


class Migration(migrations.Migration):

    dependencies = [
        ('mail', '0004_reply_delivery'),
        ('tickets', '0010_reply_delivery'),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]

    operations = [
        migrations.AddField(
            model_name='mailmessage',
            name='attempts',
            field=models.PositiveSmallIntegerField(default=0, help_text='Times sending was tried in this round.', verbose_name='attempts'),
        ),
        migrations.AddField(
            model_name='mailmessage',
            name='next_attempt_at',
            field=models.DateTimeField(blank=True, help_text='When a reply waiting to be sent again is sent.', null=True, verbose_name='next attempt'),
        ),
        migrations.AlterField(
            model_name='mailmessage',
            name='status',
            field=models.CharField(choices=[('ticket', 'Became a ticket'), ('follow_up', 'Added to its ticket'), ('ignored', 'Ignored (auto-reply, bounce or our own)'), ('pending', 'Waiting to be sent'), ('sent', 'Sent'), ('retrying', 'Waiting to be sent again'), ('failed', 'Sending failed')], max_length=20, verbose_name='status'),
        ),
        migrations.AddIndex(
            model_name='mailmessage',
            index=models.Index(condition=models.Q(('status', 'retrying')), fields=['next_attempt_at'], name='mail_retry_due'),
        ),
        migrations.RunPython(schedule, unschedule),
    ]
