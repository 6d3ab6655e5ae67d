from django.apps import AppConfig


class CrawlerConfig(AppConfig):
    name = "crawler"
    default_auto_field = "django.db.models.BigAutoField"
