"""django-q2 entry points."""

from webhooks import delivery


def run_delivery(delivery_id: int) -> None:
    delivery.deliver(delivery_id)
