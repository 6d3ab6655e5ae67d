"""Create the "Support staff" and "Content managers" groups with their permissions."""

from django.contrib.auth.management import create_permissions
from django.db import migrations


def create_groups(apps, schema_editor):
    from tickets.groups import sync_groups

    # Permissions are normally created after the whole migrate run (post_migrate); create them
    # now so the groups can be given them in a fresh database.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    sync_groups(apps)


def remove_groups(apps, schema_editor):
    from tickets.groups import CONTENT_MANAGERS, SUPPORT_STAFF

    apps.get_model("auth", "Group").objects.filter(name__in=[SUPPORT_STAFF, CONTENT_MANAGERS]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("tickets", "0001_initial"),
        ("knowledge", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_groups, remove_groups)]
