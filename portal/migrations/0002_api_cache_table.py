"""Create the rate limiter's cache table, so `migrate` is all a new install needs."""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    # Idempotent, and a no-op when the "api" cache is Redis (REDIS_URL set). Named, because the
    # query-vector cache's table is knowledge's model (knowledge/0015), created by its migration.
    from django.conf import settings

    if settings.CACHES["api"]["BACKEND"].endswith("DatabaseCache"):
        call_command("createcachetable", settings.CACHES["api"]["LOCATION"],
                     database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("portal", "0001_initial")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
