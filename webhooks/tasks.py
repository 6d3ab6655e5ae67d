"""django-q2 entry points: one delivery's attempt, and the sweep that queues the retries when due (and the
deliveries whose task was lost)."""

from django.conf import settings

from webhooks import delivery


def run_delivery(delivery_id: int) -> None:
    delivery.deliver(delivery_id)


def send_due_deliveries() -> None:
    """The minute's schedule (migration 0004): queue the retries that are due, and lost deliveries."""
    delivery.send_due()


def start_sweeper(sender=None, proc_name: str = "", **kwargs) -> None:
    """In each new django-q2 worker: a thread that queues due retries every `SWEEP_SECONDS`, so a retry
    goes out on time (within seconds) rather than at the scheduler's next 30-second look."""
    from django_q.conf import Conf

    from portal.jobs import start_periodic

    if Conf.SYNC:  # tasks run in the caller's process (tests): it has no worker to sweep in
        return
    interval = settings.WEBHOOKS["SWEEP_SECONDS"]
    if interval > 0:
        start_periodic(delivery.send_due, interval, name="webhook-retries")
