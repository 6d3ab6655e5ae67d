"""Publishing events: one `Delivery` row per subscribed endpoint, sent by the worker after commit.

Domain code calls `publish()` in plain sight where the thing happens (a ticket is created, a job
finishes). This module imports nothing but its own models, so any app may call it without taking
on the delivery machinery (httpx, the SSRF guard); the task is queued by its dotted name for the
same reason, and because portal.jobs (which publishes job.finished) cannot be imported back;
the retries are queued the same way by `delivery.send_due` when they are due.
"""

from django.db import transaction
from django.utils import timezone
from django_q.tasks import async_task

from webhooks.models import Delivery, Endpoint, Event

DELIVERY_TASK = "webhooks.tasks.run_delivery"


def publish(event: str, data: dict, *, knowledge_base_id: int | None = None,
            api_key_id: int | None = None) -> list[Delivery]:
    """Queue `event` with `data` to every active endpoint subscribed to it.

    An endpoint registered through an API key limited to some knowledge bases only hears of
    things in those bases (`knowledge_base_id`) or submitted with that key (`api_key_id`).
    """
    Event(event)  # a typo in an event name fails here, not silently
    endpoints = Endpoint.objects.filter(is_active=True, events__contains=[event]).select_related("api_key")
    payload_base = {"type": event, "created_at": timezone.now().isoformat(), "data": data}
    deliveries = []
    for endpoint in endpoints:
        if not _may_hear(endpoint, knowledge_base_id, api_key_id):
            continue
        delivery = Delivery(endpoint=endpoint, event=event, payload=payload_base)
        delivery.payload = {"id": str(delivery.event_id), **payload_base}
        deliveries.append(delivery)
    Delivery.objects.bulk_create(deliveries)
    for delivery in deliveries:
        queue(delivery)
    return deliveries


def queue(delivery: Delivery) -> None:
    """Queue the delivery's next attempt once the transaction that made it pending commits."""
    transaction.on_commit(lambda: enqueue(delivery.pk))


def enqueue(delivery_id: int) -> None:
    async_task(DELIVERY_TASK, delivery_id, task_name=f"webhook-{delivery_id}")


def _may_hear(endpoint: Endpoint, knowledge_base_id: int | None, api_key_id: int | None) -> bool:
    key = endpoint.api_key
    if key is None or key.knowledge_base_ids is None:
        return True
    return api_key_id == key.pk or (knowledge_base_id is not None and knowledge_base_id in key.knowledge_base_ids)
