from django.apps import AppConfig


class PortalConfig(AppConfig):
    name = "portal"
    verbose_name = "Portal"

    def ready(self) -> None:
        from django_q.signals import post_spawn

        from portal import checks  # noqa: F401  (registers the system checks)
        from portal.jobs import lower_worker_priority

        post_spawn.connect(lower_worker_priority, dispatch_uid="portal-worker-nice")
