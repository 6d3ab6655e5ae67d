from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CrawlerConfig(AppConfig):
    name = "crawler"
    verbose_name = _("Crawler")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Start-up wiring: the crawl job's task, found by portal.jobs.enqueue(job).
        from crawler import tasks

        tasks.register()
