"""Repair installs that ran the first 0002, which created a cache table named `api` by mistake."""

from django.db import migrations


def repair(apps, schema_editor):
    from importlib import import_module

    import_module("portal.migrations.0002_api_cache_table").create_cache_table(apps, schema_editor)
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        columns = [col.name for col in connection.introspection.get_table_description(cursor, "api")] \
            if "api" in connection.introspection.table_names(cursor) else []
        if sorted(columns) == ["cache_key", "expires", "value"]:
            cursor.execute("DROP TABLE api")


class Migration(migrations.Migration):
    dependencies = [("portal", "0002_api_cache_table")]

    operations = [migrations.RunPython(repair, migrations.RunPython.noop)]
