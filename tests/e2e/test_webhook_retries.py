"""Webhook retries in a real django-q2 worker go out after the documented back-off, not at the
scheduler's next 30-second look (a TransactionTestCase: the worker must see commits)."""

from django.conf import settings
from django.test import TransactionTestCase
from django_q.conf import Conf

from tests.e2e.worker import running_worker, wait_for
from tests.webhooks_receiver import Receiver
from webhooks import delivery as deliveries
from webhooks.events import publish
from webhooks.models import Delivery

WORKER_ENV = {"PORTAL_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1", "PORTAL_WEBHOOK_BACKOFF_SECONDS": "1",
              "PORTAL_WEBHOOK_MAX_ATTEMPTS": "3", "PORTAL_WEBHOOK_SWEEP_SECONDS": "0.3",
              "PORTAL_WEBHOOK_TIMEOUT_SECONDS": "2"}


class WebhookRetryTimingTests(TransactionTestCase):
    def setUp(self):
        Conf.SYNC = False  # really queue: the worker process sends
        self.addCleanup(setattr, Conf, "SYNC", True)
        self.receiver = Receiver()
        self.addCleanup(self.receiver.stop)

    def test_retries_wait_the_back_off_one_then_two_seconds(self):
        self.receiver.behaviour = "error"
        with self.settings(WEBHOOKS={**settings.WEBHOOKS, "ALLOWED_HOSTS": ["127.0.0.1"]}):
            deliveries.create_endpoint(name="CRM", url=self.receiver.url, events=["ticket.created"])
        [delivery] = publish("ticket.created", {"ticket": {"id": 1}})
        with running_worker(**WORKER_ENV) as worker:
            # Well under the scheduler's 30 s: a retry that waited for it would time out here.
            wait_for(lambda: Delivery.objects.get(pk=delivery.pk).is_finished, timeout=20, what="three attempts")
            self.assertIsNone(worker.poll(), "the worker died")
        delivery.refresh_from_db()
        self.assertEqual((delivery.status, delivery.attempts), ("failed", 3))
        first, second, third = (request["at"] for request in self.receiver.received)
        # 1 s, then 2 s (BACKOFF_SECONDS doubled), each late by at most a sweep and the worker's pick-up.
        self.assertGreaterEqual(second - first, 1)
        self.assertLess(second - first, 2.5)
        self.assertGreaterEqual(third - second, 2)
        self.assertLess(third - second, 3.5)
