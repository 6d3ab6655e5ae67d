import contextlib

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PortalConfig(AppConfig):
    name = "portal"
    verbose_name = _("Portal")

    def ready(self) -> None:
        from django.apps import apps
        from django_q.signals import post_spawn

        from portal import catalogues, checks  # noqa: F401  (checks registers the system checks)
        from portal.jobs import lower_worker_priority, start_reaper

        # A checkout started without bin/up or bin/test (`manage.py runserver` after a clone) has no
        # compiled catalogue yet: compile what is missing or stale, as those scripts do. A read-only
        # install keeps the catalogues its image was built with.
        with contextlib.suppress(OSError):
            catalogues.compile_catalogues(catalogues.LOCALE_DIR)

        post_spawn.connect(lower_worker_priority, dispatch_uid="portal-worker-nice")
        post_spawn.connect(start_reaper, dispatch_uid="portal-job-reaper")
        # django-q2 names its admin section after Q_CLUSTER["label"], a plain string: ours is
        # translated here, so the admin's menu speaks the reader's language everywhere.
        if apps.is_installed("django_q"):
            apps.get_app_config("django_q").verbose_name = _("Background tasks")
