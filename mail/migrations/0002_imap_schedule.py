"""The IMAP poll runs every minute in the worker; it returns at once when PORTAL_IMAP_HOST is unset."""

from django.db import migrations


def create_schedule(apps, schema_editor):
    Schedule = apps.get_model("django_q", "Schedule")
    Schedule.objects.update_or_create(name="mail-poll-imap", defaults={
        "func": "mail.tasks.run_poll_imap", "schedule_type": "I", "minutes": 1, "repeats": -1})


def delete_schedule(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name="mail-poll-imap").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("mail", "0001_initial"),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]

    operations = [migrations.RunPython(create_schedule, delete_schedule)]
