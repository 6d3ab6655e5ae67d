from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "evaluation"
    verbose_name = "Evaluation"

    def ready(self) -> None:
        from evaluation import feedback, tasks
        from tickets import reports

        # Start-up wiring: the task of each job kind, found by portal.jobs.enqueue(job).
        tasks.register()
        # The gap report lists thumbs-down answers beside refused tickets; tickets never imports us.
        if feedback.gap_questions not in reports.GAP_SOURCES:
            reports.GAP_SOURCES.append(feedback.gap_questions)
