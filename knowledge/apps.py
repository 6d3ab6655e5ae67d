from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class KnowledgeConfig(AppConfig):
    name = "knowledge"
    verbose_name = _("Knowledge")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Start-up wiring: the task of each job kind, found by portal.jobs.enqueue(job).
        from knowledge import tasks

        tasks.register()
