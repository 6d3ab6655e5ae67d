"""The minute's sweep that takes the term statistics missing or stale (knowledge/indexing/term_statistics.py):
bases from before them are taken within a minute of the upgrade."""

from django.db import migrations


def schedule(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.update_or_create(name="take-term-statistics", defaults={
        "func": "knowledge.tasks.run_take_due_term_statistics", "schedule_type": "I", "minutes": 1, "repeats": -1})


def unschedule(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name="take-term-statistics").delete()


class Migration(migrations.Migration):

    dependencies = [
        ("knowledge", "0022_term_statistics"),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]

    operations = [migrations.RunPython(schedule, unschedule)]
