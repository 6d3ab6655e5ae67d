from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MailConfig(AppConfig):
    name = "mail"
    verbose_name = _("E-mail channel")

    def ready(self):
        # The reply task, found by portal.jobs.enqueue_task("mail-reply", message_id) in tickets/notify.py.
        from mail import tasks

        tasks.register()
