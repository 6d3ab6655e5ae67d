from django.apps import AppConfig


class KnowledgeConfig(AppConfig):
    name = "knowledge"
    verbose_name = "Knowledge"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Start-up wiring: the task of each job kind, found by portal.jobs.enqueue(job).
        from knowledge import tasks

        tasks.register()
