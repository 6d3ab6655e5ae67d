from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


class TicketsConfig(AppConfig):
    name = "tickets"
    verbose_name = _("Tickets")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Start-up wiring, as django.contrib.sites does: keep the two staff groups' permissions
        # complete after every migrate (models of other apps may arrive after our migration).
        post_migrate.connect(_sync_groups, dispatch_uid="tickets_sync_groups")
        # The triage task, found by portal.jobs.enqueue_task("triage", ticket_id).
        from tickets import tasks

        tasks.register()


def _sync_groups(sender, app_config, verbosity=1, apps=None, **kwargs):
    from django.apps import apps as global_apps

    from tickets.groups import sync_groups

    apps = apps or global_apps  # `flush` sends post_migrate without the migration state
    # At the last app's turn: post_migrate goes to each app in turn, and each creates its own permissions
    # then (after a `flush`, every app's again), so at an earlier turn the later apps' are missing.
    last = [config for config in global_apps.get_app_configs() if config.models_module][-1]
    if app_config.label != last.label or not apps.is_installed("django.contrib.auth"):
        return

    sync_groups(apps, verbosity=verbosity)
