"""Create the rate limiter's cache table, so `migrate` is all a new install needs."""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    # Creates the table of every database cache in settings.CACHES; idempotent, and a no-op when
    # the "api" cache is Redis (REDIS_URL set).
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("portal", "0001_initial")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
