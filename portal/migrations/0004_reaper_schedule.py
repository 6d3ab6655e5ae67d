"""The schedule of the stale-job reaper (portal/jobs.py), declared once here."""

from django.db import migrations


def schedule(apps, schema_editor):
    Schedule = apps.get_model("django_q", "Schedule")
    Schedule.objects.update_or_create(name="reap-stale-jobs", defaults={
        "func": "portal.jobs.reap_stale_jobs", "schedule_type": "I", "minutes": 1, "repeats": -1,
    })


def unschedule(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name="reap-stale-jobs").delete()


class Migration(migrations.Migration):
    dependencies = [("portal", "0003_fix_api_cache_table"),
                    ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more")]
    operations = [migrations.RunPython(schedule, unschedule)]
