from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PortalConfig(AppConfig):
    name = "portal"
    verbose_name = _("Portal")

    def ready(self) -> None:
        from django.apps import apps
        from django_q.signals import post_spawn

        from portal import checks  # noqa: F401  (registers the system checks)
        from portal.jobs import lower_worker_priority, start_reaper

        post_spawn.connect(lower_worker_priority, dispatch_uid="portal-worker-nice")
        post_spawn.connect(start_reaper, dispatch_uid="portal-job-reaper")
        # django-q2 names its admin section after Q_CLUSTER["label"], a plain string: ours is
        # translated here, so the admin's menu speaks the reader's language everywhere.
        if apps.is_installed("django_q"):
            apps.get_app_config("django_q").verbose_name = _("Background tasks")
