from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = _("Webhooks")

    def ready(self) -> None:
        from django_q.signals import post_spawn

        from webhooks.tasks import start_sweeper

        post_spawn.connect(start_sweeper, dispatch_uid="webhooks-retry-sweeper")
