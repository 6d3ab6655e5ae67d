from django.apps import AppConfig


class MailConfig(AppConfig):
    name = "mail"
    verbose_name = "E-mail channel"

    def ready(self):
        # The reply task, found by portal.jobs.enqueue_task("mail-reply", message_id) in tickets/notify.py.
        from mail import tasks

        tasks.register()
