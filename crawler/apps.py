from django.apps import AppConfig


class CrawlerConfig(AppConfig):
    name = "crawler"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Start-up wiring: the crawl job's task, found by portal.jobs.enqueue(job).
        from crawler import tasks

        tasks.register()
