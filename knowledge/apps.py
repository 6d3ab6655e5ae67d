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
        limit_blas_threads()


def limit_blas_threads() -> None:
    """Give numpy's BLAS `PORTAL_EMBED_THREADS` threads per call in every process of the portal.

    Its default, a thread per core in each process, is made for one program alone on a machine:
    here request threads call it side by side in several web processes (and workers), and its
    threads, spinning while they wait for work, took the cores from one another — with the USE
    embedder (numpy), 2 processes × 4 threads embedded 27 questions/s against 637 with the limit.
    """
    import numpy  # noqa: F401 - the limit reaches the BLAS libraries loaded when it is set
    from django.conf import settings
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=settings.PORTAL["EMBED_THREADS"], user_api="blas")
