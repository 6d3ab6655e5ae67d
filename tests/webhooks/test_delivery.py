"""Webhook deliveries to a real HTTP receiver on 127.0.0.1: signatures, retries, refusals, disabling."""

import json
import re
import time
from datetime import timedelta

from django.test import TestCase, override_settings
from django.utils import timezone
from django_q.models import Schedule

from knowledge import jobs
from tests.api.base import make_user
from tests.factories import make_kb
from tests.test_docs import ROOT
from tests.webhooks_receiver import Receiver
from tickets import inbox, triage
from tickets.models import Message, Ticket, TicketSource
from webhooks import delivery as deliveries
from webhooks.models import Delivery

WEBHOOKS = {"ALLOWED_HOSTS": ["127.0.0.1"], "TIMEOUT_SECONDS": 1.0, "MAX_ATTEMPTS": 3, "BACKOFF_SECONDS": 30,
            "DISABLE_AFTER": 5, "SWEEP_SECONDS": 5.0, "PENDING_GRACE_SECONDS": 300}


def come_due(delivery: Delivery) -> None:
    """Move the delivery's retry time into the past, as if its back-off had been waited out."""
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now() - timedelta(seconds=1))


def documented_verifier():
    """The verification snippet of docs/webhooks.md, exactly as integrators copy it."""
    text = (ROOT / "docs" / "webhooks.md").read_text()
    code = re.search(r"```python\n(.*?def verify_portal_signature.*?)```", text, re.S)[1]
    namespace = {}
    exec(code, namespace)
    return namespace["verify_portal_signature"]


@override_settings(WEBHOOKS=WEBHOOKS)
class DeliveryTests(TestCase):
    def setUp(self):
        self.receiver = Receiver()
        self.addCleanup(self.receiver.stop)
        self.endpoint = deliveries.create_endpoint(name="CRM", url=self.receiver.url,
                                                   events=["ticket.created", "ticket.replied", "ticket.rejected"])

    def submit(self, **fields) -> Ticket:
        with self.captureOnCommitCallbacks(execute=True):
            return triage.submit_ticket(body="Where is my parcel?", triage=False, **fields)

    def test_a_ticket_event_arrives_signed_and_verifies_with_the_documented_snippet(self):
        ticket = self.submit(subject="Parcel")
        [request] = self.receiver.received
        headers = request["headers"]
        self.assertEqual(headers["X-Portal-Event"], "ticket.created")
        body = json.loads(request["body"])
        self.assertEqual(body["type"], "ticket.created")
        self.assertEqual(body["data"]["ticket"]["id"], ticket.pk)
        self.assertEqual(body["id"], headers["X-Portal-Delivery"])
        verify = documented_verifier()
        self.assertTrue(verify(self.endpoint.secret, headers["X-Portal-Signature"], request["body"]))
        self.assertFalse(verify("whsec_other", headers["X-Portal-Signature"], request["body"]))
        self.assertFalse(verify(self.endpoint.secret, headers["X-Portal-Signature"], request["body"] + b" "))
        delivery = Delivery.objects.get()
        self.assertEqual((delivery.status, delivery.attempts, delivery.response_status), ("succeeded", 1, 200))
        self.assertEqual(len(delivery.log), 1)

    def test_a_replayed_old_signature_is_refused_by_the_snippet(self):
        self.submit()
        request = self.receiver.received[0]
        stamp = int(request["headers"]["X-Portal-Signature"].split(",")[0][2:])
        old = deliveries.signing.sign(self.endpoint.secret, stamp - 600, request["body"])
        self.assertFalse(documented_verifier()(self.endpoint.secret, old, request["body"]))
        self.assertTrue(deliveries.signing.verify(self.endpoint.secret, request["headers"]["X-Portal-Signature"],
                                                  request["body"]))
        self.assertFalse(deliveries.signing.verify(self.endpoint.secret, old, request["body"]))

    def test_staff_replies_and_rejections_are_events(self):
        user = make_user("staff")
        first, second = self.submit(), self.submit()
        # A draft with its source [1] (the reply's markers must name one of its sources).
        draft = Message.objects.create(ticket=first, kind=Message.Kind.DRAFT, body="It left today [1].")
        TicketSource.objects.create(ticket=first, message=draft, position=1, cited=True,
                                    content_full="Parcels leave the warehouse the day they are ordered.")
        with self.captureOnCommitCallbacks(execute=True):
            inbox.send_reply(first, user=user, text="It left the warehouse today [1].")
        with self.captureOnCommitCallbacks(execute=True):
            inbox.reject(second, user=user, reason="spam")
        events = [json.loads(r["body"]) for r in self.receiver.received]
        self.assertEqual([e["type"] for e in events], ["ticket.created", "ticket.created", "ticket.replied",
                                                       "ticket.rejected"])
        self.assertEqual(events[2]["data"]["reply"]["body"], "It left the warehouse today [1].")
        # As the customer reads it: a marker they could not follow is left out.
        self.assertEqual(events[2]["data"]["reply"]["customer_text"], "It left the warehouse today.")
        self.assertEqual(events[3]["data"]["ticket"]["status"], "rejected")

    def test_a_failing_receiver_is_retried_with_back_off_then_given_up(self):
        self.receiver.behaviour = "error"
        self.submit()
        delivery = Delivery.objects.get()
        self.assertEqual((delivery.status, delivery.attempts, delivery.response_status), ("retrying", 1, 500))
        self.assertAlmostEqual((delivery.next_attempt_at - timezone.now()).total_seconds(), 30, delta=5)
        come_due(delivery)
        self.assertEqual(deliveries.send_due(), 1)  # what each worker's sweep runs
        delivery.refresh_from_db()
        self.assertAlmostEqual((delivery.next_attempt_at - timezone.now()).total_seconds(), 60, delta=5)
        come_due(delivery)
        deliveries.send_due()
        delivery.refresh_from_db()
        self.assertEqual((delivery.status, delivery.attempts, delivery.next_attempt_at), ("failed", 3, None))
        self.assertEqual([entry["status"] for entry in delivery.log], [500, 500, 500])
        self.assertIsNone(deliveries.deliver(delivery.pk))  # finished: a late task sends nothing
        ids = {r["headers"]["X-Portal-Delivery"] for r in self.receiver.received}
        self.assertEqual((len(self.receiver.received), ids), (3, {str(delivery.event_id)}))

    def test_a_retry_goes_out_when_due_and_not_before(self):
        # The retry's time is the delivery's own next_attempt_at, swept every few seconds; not a
        # django-q2 schedule, which its scheduler would only look at every 30 seconds.
        self.receiver.behaviour = "error"
        self.submit()
        delivery = Delivery.objects.get()
        self.assertFalse(Schedule.objects.filter(func="webhooks.tasks.run_delivery").exists())
        self.assertEqual(deliveries.send_due(), 0)  # 30 s to go
        self.assertIsNone(deliveries.deliver(delivery.pk))  # a stray task does not jump the queue either
        self.assertEqual(len(self.receiver.received), 1)
        come_due(delivery)
        self.receiver.behaviour = "ok"
        self.assertEqual(deliveries.send_due(), 1)
        self.assertEqual(deliveries.send_due(), 0)  # queued once, by one sweep
        delivery.refresh_from_db()
        self.assertEqual((delivery.status, delivery.attempts, len(self.receiver.received)), ("succeeded", 2, 2))

    def test_a_delivery_whose_task_was_lost_is_queued_again_once(self):
        # The commit happened, queueing the task did not (the broker was down, or the worker died
        # before running it): the delivery waits, pending, with no task to send it.
        with self.captureOnCommitCallbacks(execute=False):
            triage.submit_ticket(body="Where is my parcel?", triage=False)
        delivery = Delivery.objects.get()
        self.assertEqual(deliveries.send_due(), 0)  # within its grace period the task may still come
        Delivery.objects.filter(pk=delivery.pk).update(updated_at=timezone.now() - timedelta(seconds=301))
        self.assertEqual(deliveries.send_due(), 1)
        self.assertEqual(deliveries.send_due(), 0)  # queued once, by one sweep
        delivery.refresh_from_db()
        self.assertEqual((delivery.status, delivery.attempts, len(self.receiver.received)), ("succeeded", 1, 1))
        self.assertIsNone(deliveries.deliver(delivery.pk))  # the first task, come late, sends nothing
        self.assertEqual(len(self.receiver.received), 1)

    def test_a_delivery_whose_worker_died_mid_attempt_is_queued_again_once(self):
        with self.captureOnCommitCallbacks(execute=False):
            triage.submit_ticket(body="Where is my parcel?", triage=False)
        delivery = Delivery.objects.get()
        Delivery.objects.filter(pk=delivery.pk).update(status=Delivery.Status.SENDING)  # its worker was killed
        self.assertEqual(deliveries.send_due(), 0)  # the attempt may still be running
        Delivery.objects.filter(pk=delivery.pk).update(updated_at=timezone.now() - timedelta(seconds=64))
        self.assertEqual(deliveries.send_due(), 1)
        self.assertEqual(deliveries.send_due(), 0)
        delivery.refresh_from_db()
        self.assertEqual((delivery.status, delivery.attempts, len(self.receiver.received)), ("succeeded", 1, 1))

    def test_a_lost_delivery_queued_again_is_sent_once_by_the_first_task_to_claim_it(self):
        with self.captureOnCommitCallbacks(execute=False):
            triage.submit_ticket(body="Where is my parcel?", triage=False)
        delivery = Delivery.objects.get()
        Delivery.objects.filter(pk=delivery.pk).update(updated_at=timezone.now() - timedelta(seconds=301))
        self.receiver.behaviour = "error"
        self.assertEqual(deliveries.send_due(), 1)
        self.assertIsNone(deliveries.deliver(delivery.pk))  # waiting to retry: a second copy does not jump in
        Delivery.objects.filter(pk=delivery.pk).update(updated_at=timezone.now() - timedelta(seconds=301))
        self.assertEqual(deliveries.send_due(), 0)  # a retry is not a lost task: it waits for its time
        delivery.refresh_from_db()
        self.assertEqual((delivery.status, delivery.attempts, len(self.receiver.received)), ("retrying", 1, 1))

    def test_send_again_counts_its_attempts_and_starts_a_fresh_round(self):
        self.receiver.behaviour = "error"
        self.submit()
        delivery = Delivery.objects.get()
        for _ in range(2):
            come_due(delivery)
            deliveries.send_due()
        delivery.refresh_from_db()
        self.assertEqual((delivery.status, delivery.attempts), ("failed", 3))
        with self.captureOnCommitCallbacks(execute=True):
            deliveries.retry_now(delivery)
        delivery.refresh_from_db()
        # Counted on: the fourth attempt failed too, and its round waits the first back-off again.
        self.assertEqual((delivery.status, delivery.attempts, len(delivery.log)), ("retrying", 4, 4))
        self.assertAlmostEqual((delivery.next_attempt_at - timezone.now()).total_seconds(), 30, delta=5)
        self.receiver.behaviour = "ok"
        come_due(delivery)
        deliveries.send_due()
        delivery.refresh_from_db()
        self.assertEqual((delivery.status, delivery.attempts, len(self.receiver.received)), ("succeeded", 5, 5))

    def test_send_again_in_the_admin_shows_every_attempt(self):
        admin = make_user("admin")
        admin.is_staff = admin.is_superuser = True
        admin.save()
        self.client.force_login(admin)
        given_up = Delivery.objects.create(endpoint=self.endpoint, event="ticket.created", payload={"id": "x"},
                                           status="failed", attempts=3, response_status=500, error="HTTP 500",
                                           log=[{"at": "2026-12-01", "status": 500, "error": "HTTP 500", "ms": 3}] * 3)
        with self.captureOnCommitCallbacks(execute=True):
            self.client.post("/admin/webhooks/delivery/", {"action": "retry", "_selected_action": [given_up.pk]})
        given_up.refresh_from_db()
        self.assertEqual((given_up.status, given_up.attempts, len(given_up.log)), ("succeeded", 4, 4))
        self.assertContains(self.client.get("/admin/webhooks/delivery/"), '<td class="field-attempts">4</td>')

    def test_a_retry_after_recovery_succeeds_and_resets_the_failure_count(self):
        self.receiver.behaviour = "error"
        self.submit()
        self.receiver.behaviour = "ok"
        come_due(Delivery.objects.get())
        deliveries.send_due()
        delivery = Delivery.objects.get()
        self.assertEqual((delivery.status, delivery.attempts), ("succeeded", 2))
        self.endpoint.refresh_from_db()
        self.assertEqual(self.endpoint.consecutive_failures, 0)

    def test_a_hanging_receiver_times_out_and_is_retried(self):
        self.receiver.behaviour, self.receiver.hang_seconds = "hang", 3
        started = time.monotonic()
        self.submit()
        self.assertLess(time.monotonic() - started, 2.9)
        delivery = Delivery.objects.get()
        self.assertEqual(delivery.status, "retrying")
        self.assertIn("No answer within 1", delivery.error)

    def test_a_redirect_to_a_private_address_is_not_followed(self):
        self.receiver.behaviour = "redirect"
        self.submit()
        delivery = Delivery.objects.get()
        self.assertEqual((delivery.status, delivery.response_status), ("retrying", 307))
        self.assertIn("redirects are not followed", delivery.error)
        self.assertIn("169.254.169.254", delivery.error)
        self.assertEqual(len(self.receiver.received), 1)

    def test_a_private_address_is_refused_when_sending_too(self):
        with self.settings(WEBHOOKS={**WEBHOOKS, "ALLOWED_HOSTS": []}):
            self.submit()
        delivery = Delivery.objects.get()
        self.assertEqual(delivery.status, "retrying")
        self.assertIn("loopback", delivery.error.lower())
        self.assertEqual(self.receiver.received, [])

    def test_repeated_failures_disable_the_endpoint_and_end_its_waiting_deliveries(self):
        self.receiver.behaviour = "error"
        for _ in range(5):
            self.submit()
        self.endpoint.refresh_from_db()
        self.assertFalse(self.endpoint.is_active)
        self.assertIn("5 failed deliveries", self.endpoint.disabled_reason)
        self.assertEqual(set(Delivery.objects.values_list("status", flat=True)), {"failed"})
        self.submit()  # nothing is queued for a disabled endpoint
        self.assertEqual(Delivery.objects.count(), 5)
        deliveries.update_endpoint(self.endpoint, is_active=True)
        self.receiver.behaviour = "ok"
        delivery = Delivery.objects.order_by("pk").first()
        with self.captureOnCommitCallbacks(execute=True):
            deliveries.retry_now(delivery)
        delivery.refresh_from_db()
        self.assertEqual(delivery.status, "succeeded")

    def test_job_finished_is_published(self):
        endpoint = deliveries.create_endpoint(name="Jobs", url=self.receiver.url, events=["job.finished"])
        kb = make_kb()
        with self.captureOnCommitCallbacks(execute=True):
            _, job = jobs.add_text(kb, title="Note", text="Some text to index for the job.", source_uri="",
                                   metadata={}, user=None)
        events = [json.loads(r["body"]) for r in self.receiver.received if r["headers"]["X-Portal-Event"] ==
                  "job.finished"]
        self.assertEqual([e["data"]["job"]["id"] for e in events], [job.pk])
        self.assertEqual((events[0]["data"]["job"]["status"], events[0]["data"]["job"]["status_label"]),
                         ("succeeded", "Succeeded"))
        self.assertTrue(Delivery.objects.filter(endpoint=endpoint, status="succeeded").exists())
