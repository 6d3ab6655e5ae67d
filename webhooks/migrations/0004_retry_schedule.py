"""The minute's sweep of due webhook retries (webhooks/tasks.py), declared once here.

Retries used to be one django-q2 schedule each, kept after they ran; those are removed: the
deliveries still waiting keep their `next_attempt_at`, and the sweep queues them when it comes.
"""

from django.db import migrations

NAME = "webhook-retries"


def schedule(apps, schema_editor):
    Schedule = apps.get_model("django_q", "Schedule")
    Schedule.objects.filter(func="webhooks.tasks.run_delivery").delete()
    Schedule.objects.update_or_create(name=NAME, defaults={
        "func": "webhooks.tasks.send_due_deliveries", "schedule_type": "I", "minutes": 1, "repeats": -1,
    })


def unschedule(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [("webhooks", "0003_delivery_resent_after"),
                    ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more")]
    operations = [migrations.RunPython(schedule, unschedule)]
