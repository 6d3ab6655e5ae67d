"""Webhook endpoints through the API and the admin: registration, ownership, refusals, the delivery log."""

from django.test import TestCase, override_settings
from django.utils import timezone

from portal.models import Scope
from tests.api.base import ApiTestCase, make_key, make_user
from tests.factories import make_kb
from tests.webhooks.test_delivery import WEBHOOKS
from tests.webhooks_receiver import Receiver
from tickets import triage
from webhooks.models import Delivery, Endpoint


@override_settings(WEBHOOKS=WEBHOOKS)
class WebhookApiTests(ApiTestCase):
    def setUp(self):
        self.receiver = Receiver()
        self.addCleanup(self.receiver.stop)
        self.key, self.token = make_key()

    def test_it_registers_an_endpoint_and_shows_the_secret_once(self):
        response = self.api("post", "/webhooks", token=self.token,
                            data={"name": "CRM", "url": self.receiver.url, "events": ["ticket.created"]})
        self.assertEqual(response.status_code, 201, response.content)
        body = response.json()
        self.assertTrue(body["secret"].startswith("whsec_"))
        listed = self.api("get", "/webhooks", token=self.token).json()
        self.assertEqual([item["id"] for item in listed["items"]], [body["id"]])
        self.assertNotIn("secret", listed["items"][0])
        self.assertEqual(self.api("get", f"/webhooks/{body['id']}", token=self.token).json()["name"], "CRM")
        _, other = make_key(name="other", owner=make_user("someone-else"))
        self.assertEqual(self.api("get", "/webhooks", token=other).json()["items"], [])
        self.assertEqual(self.api("get", f"/webhooks/{body['id']}", token=other).status_code, 404)
        self.assertEqual(self.api("get", f"/webhooks/{body['id']}/deliveries", token=other).status_code, 404)

    def test_an_endpoint_made_in_the_admin_belongs_to_its_owners_keys(self):
        admin = make_user("admin")
        admin.is_staff = admin.is_superuser = True
        admin.save()
        self.client.force_login(admin)
        self.client.post("/admin/webhooks/endpoint/add/", {
            "name": "CRM", "url": self.receiver.url, "events": ["ticket.created"], "is_active": "on",
            "owner": self.key.owner_id})
        endpoint = Endpoint.objects.get()
        self.assertEqual((endpoint.owner, endpoint.api_key), (self.key.owner, None))
        listed = self.api("get", "/webhooks", token=self.token).json()["items"]
        self.assertEqual([item["id"] for item in listed], [endpoint.pk])
        self.assertEqual(self.api("get", f"/webhooks/{endpoint.pk}", token=self.token).status_code, 200)
        self.assertEqual(self.api("get", f"/webhooks/{endpoint.pk}/deliveries", token=self.token).status_code, 200)
        # Left to the admin's default, the owner is the staff member who made it: their key reaches it too.
        self.client.post("/admin/webhooks/endpoint/add/", {
            "name": "Mine", "url": self.receiver.url, "events": ["ticket.created"], "is_active": "on"})
        mine = Endpoint.objects.get(name="Mine")
        self.assertEqual(mine.owner, admin)
        _, admins_key = make_key(owner=admin)
        self.assertEqual(self.api("get", f"/webhooks/{mine.pk}", token=admins_key).status_code, 200)
        self.assertEqual(self.api("get", f"/webhooks/{mine.pk}", token=self.token).status_code, 404)
        # A key limited to some bases sees only what it registered: the owner's other endpoints hear of all.
        _, limited = make_key(owner=self.key.owner, knowledge_bases=[make_kb()])
        self.assertEqual(self.api("get", f"/webhooks/{endpoint.pk}", token=limited).status_code, 404)
        self.assertEqual(self.api("delete", f"/webhooks/{endpoint.pk}", token=self.token).status_code, 204)
        self.assertFalse(Endpoint.objects.filter(pk=endpoint.pk).exists())

    def test_it_refuses_private_addresses_and_unknown_events(self):
        for url in ["http://10.0.0.5/hook", "http://169.254.169.254/latest", "http://[::1]/x", "ftp://example.com/"]:
            response = self.api("post", "/webhooks", token=self.token,
                                data={"name": "x", "url": url, "events": ["ticket.created"]})
            self.assertError(response, 422, "url_refused")
        response = self.api("post", "/webhooks", token=self.token,
                            data={"name": "x", "url": self.receiver.url, "events": ["ticket.exploded"]})
        self.assertError(response, 422, "invalid")
        # A field registration does not take (one's own secret, an endpoint made inactive) is not ignored.
        for extra in [{"secret": "whsec_mine"}, {"is_active": False}]:
            response = self.api("post", "/webhooks", token=self.token,
                                data={"name": "x", "url": self.receiver.url, "events": ["ticket.created"], **extra})
            self.assertEqual(self.assertError(response, 422, "invalid")["fields"][0]["field"], list(extra)[0])
        self.assertFalse(Endpoint.objects.exists())

    def register(self, token=None, **fields) -> dict:
        data = {"name": "CRM", "url": self.receiver.url, "events": ["ticket.created"], **fields}
        response = self.api("post", "/webhooks", token=token or self.token, data=data)
        self.assertEqual(response.status_code, 201, response.content)
        return response.json()

    def test_an_endpoint_is_changed_in_place_and_keeps_its_secret(self):
        created = self.register()
        changed = self.api("patch", f"/webhooks/{created['id']}", token=self.token, data={
            "name": "CRM (new)", "url": self.receiver.url + "v2", "events": ["ticket.replied", "ticket.replied"]})
        self.assertEqual(changed.status_code, 200, changed.content)
        body = changed.json()
        self.assertEqual((body["name"], body["url"], body["events"]),
                         ("CRM (new)", self.receiver.url + "v2", ["ticket.replied"]))
        self.assertNotIn("secret", body)
        endpoint = Endpoint.objects.get()
        self.assertEqual((endpoint.pk, endpoint.secret), (created["id"], created["secret"]))
        # Only what is sent changes.
        self.api("patch", f"/webhooks/{created['id']}", token=self.token, data={"is_active": False})
        endpoint.refresh_from_db()
        self.assertEqual((endpoint.name, endpoint.is_active), ("CRM (new)", False))

    def test_switching_an_endpoint_on_again_forgets_its_failures(self):
        created = self.register()
        Endpoint.objects.filter(pk=created["id"]).update(is_active=False, consecutive_failures=20,
                                                          disabled_reason="Disabled after 20 failed deliveries")
        body = self.api("patch", f"/webhooks/{created['id']}", token=self.token, data={"is_active": True}).json()
        self.assertEqual(
            (body["is_active"], body["consecutive_failures"], body["disabled_reason"], body["disabled_at"]),
            (True, 0, "", None))

    def test_an_endpoint_is_switched_on_again_only_while_its_url_is_allowed(self):
        created = self.register()
        Endpoint.objects.filter(pk=created["id"]).update(is_active=False, disabled_reason="Disabled by hand")
        with self.settings(WEBHOOKS={**WEBHOOKS, "ALLOWED_HOSTS": []}):  # loopback no longer allowed
            self.assertError(self.api("patch", f"/webhooks/{created['id']}", token=self.token,
                                      data={"is_active": True}), 422, "url_refused")
        self.assertFalse(Endpoint.objects.get().is_active)

    def test_a_change_is_checked_as_a_registration_is(self):
        created = self.register()
        url = f"/webhooks/{created['id']}"
        self.assertError(self.api("patch", url, token=self.token, data={"url": "http://10.0.0.5/hook"}),
                         422, "url_refused")
        for bad in [{"events": ["ticket.exploded"]}, {"events": []}, {"name": ""}, {"secret": "mine"},
                    {"is_active": "maybe"}, {"url": 5}]:
            self.assertError(self.api("patch", url, token=self.token, data=bad), 422, "invalid")
        endpoint = Endpoint.objects.get()
        self.assertEqual((endpoint.url, endpoint.events, endpoint.secret, endpoint.name),
                         (self.receiver.url, ["ticket.created"], created["secret"], "CRM"))

    def test_only_the_owner_changes_an_endpoint(self):
        created = self.register()
        _, other = make_key(name="other", owner=make_user("someone-else"))
        self.assertError(self.api("patch", f"/webhooks/{created['id']}", token=other, data={"name": "mine"}),
                         404, "not_found")
        _, limited = make_key(owner=self.key.owner, knowledge_bases=[make_kb()])
        self.assertError(self.api("patch", f"/webhooks/{created['id']}", token=limited, data={"name": "mine"}),
                         404, "not_found")
        _, reader = make_key(owner=self.key.owner, scopes=[Scope.READ])
        self.assertError(self.api("patch", f"/webhooks/{created['id']}", token=reader, data={"name": "mine"}),
                         403, "missing_scope")
        self.assertEqual(Endpoint.objects.get().name, "CRM")

    def test_registering_needs_the_write_scope(self):
        _, token = make_key(scopes=[Scope.READ])
        response = self.api("post", "/webhooks", token=token,
                            data={"name": "CRM", "url": self.receiver.url, "events": ["ticket.created"]})
        self.assertError(response, 403, "missing_scope")

    def test_a_key_limited_to_some_bases_hears_only_its_own_tickets(self):
        kb = make_kb()
        key, token = make_key(knowledge_bases=[kb])
        self.api("post", "/webhooks", token=token,
                 data={"name": "CRM", "url": self.receiver.url, "events": ["ticket.created"]})
        with self.captureOnCommitCallbacks(execute=True):
            triage.submit_ticket(body="someone else's", triage=False)
        self.assertEqual(self.receiver.received, [])
        with self.captureOnCommitCallbacks(execute=True):
            self.api("post", "/tickets", token=token, data={"body": "mine"})
        self.assertEqual(len(self.receiver.received), 1)


class DeliveryAdminTests(TestCase):
    def test_the_delivery_log_is_in_the_admin(self):
        admin = make_user("admin")
        admin.is_staff = admin.is_superuser = True
        admin.save()
        endpoint = Endpoint.objects.create(name="CRM", url="https://crm.example/hook", events=["ticket.created"])
        delivery = Delivery.objects.create(endpoint=endpoint, event="ticket.created", payload={}, status="failed",
                                           attempts=1, response_status=500, error="HTTP 500 <script>",
                                           log=[{"at": "2026-12-01", "status": 500, "error": "<script>x", "ms": 3}])
        self.client.force_login(admin)
        listing = self.client.get("/admin/webhooks/delivery/")
        self.assertContains(listing, "HTTP 500 &lt;script&gt;")
        page = self.client.get(f"/admin/webhooks/delivery/{delivery.pk}/change/")
        self.assertContains(page, "&lt;script&gt;x")
        self.assertNotContains(page, "<script>x")
        self.assertContains(self.client.get("/admin/webhooks/endpoint/"), "CRM")


@override_settings(WEBHOOKS={**WEBHOOKS, "ALLOWED_HOSTS": []})
class EndpointAdminTests(TestCase):
    def setUp(self):
        admin = make_user("admin")
        admin.is_staff = admin.is_superuser = True
        admin.save()
        self.client.force_login(admin)

    def add(self, url: str):
        return self.client.post("/admin/webhooks/endpoint/add/", {
            "name": "CRM", "url": url, "events": ["ticket.created"], "is_active": "on"}, follow=True)

    def test_a_private_address_is_saved_disabled_with_the_reason(self):
        response = self.add("http://10.1.2.3/hook")
        self.assertContains(response, "Not enabled: Refused to connect to 10.1.2.3")
        endpoint = Endpoint.objects.get()
        self.assertFalse(endpoint.is_active)
        self.assertIn("private", endpoint.disabled_reason)
        # The refusal names the setting that allows webhooks, not the crawler's.
        self.assertIn("PORTAL_WEBHOOK_ALLOWED_HOSTS", endpoint.disabled_reason)
        self.assertNotIn("PORTAL_CRAWLER_ALLOWED_HOSTS", endpoint.disabled_reason)

    def test_enable_checks_the_url_again(self):
        self.add("http://10.1.2.3/hook")
        endpoint = Endpoint.objects.get()
        enable = {"action": "enable", "_selected_action": [endpoint.pk]}
        response = self.client.post("/admin/webhooks/endpoint/", enable, follow=True)
        self.assertContains(response, "Not enabled: Refused to connect to 10.1.2.3")
        self.assertContains(response, "0 endpoints enabled")
        endpoint.refresh_from_db()
        self.assertFalse(endpoint.is_active)
        with self.settings(WEBHOOKS={**WEBHOOKS, "ALLOWED_HOSTS": ["10.0.0.0/8"]}):
            self.assertContains(self.client.post("/admin/webhooks/endpoint/", enable, follow=True),
                                "1 endpoint enabled")
        endpoint.refresh_from_db()
        self.assertEqual((endpoint.is_active, endpoint.disabled_reason), (True, ""))

    def test_ticking_active_on_a_refused_url_leaves_it_off(self):
        self.add("http://10.1.2.3/hook")
        endpoint = Endpoint.objects.get()
        response = self.client.post(f"/admin/webhooks/endpoint/{endpoint.pk}/change/", {
            "name": "CRM", "url": endpoint.url, "events": ["ticket.created"], "is_active": "on"}, follow=True)
        self.assertContains(response, "Not enabled: Refused to connect to 10.1.2.3")
        self.assertFalse(Endpoint.objects.get().is_active)

    def test_ticking_active_on_an_endpoint_switched_off_by_failures_counts_them_from_zero(self):
        with self.settings(WEBHOOKS={**WEBHOOKS, "ALLOWED_HOSTS": ["10.0.0.0/8"]}):
            self.add("http://10.1.2.3/hook")
            Endpoint.objects.update(is_active=False, consecutive_failures=12, disabled_at=timezone.now(),
                                    disabled_reason="12 failed deliveries in a row")
            endpoint = Endpoint.objects.get()
            self.client.post(f"/admin/webhooks/endpoint/{endpoint.pk}/change/", {
                "name": "CRM", "url": endpoint.url, "events": ["ticket.created"], "is_active": "on"}, follow=True)
        endpoint.refresh_from_db()
        self.assertEqual((endpoint.is_active, endpoint.consecutive_failures, endpoint.disabled_at,
                          endpoint.disabled_reason), (True, 0, None, ""))

    def test_events_are_chosen_by_ticking_them(self):
        form = self.client.get("/admin/webhooks/endpoint/add/").content.decode()
        self.assertIn('type="checkbox" name="events" value="ticket.replied"', form)
        with self.settings(WEBHOOKS={**WEBHOOKS, "ALLOWED_HOSTS": ["10.0.0.0/8"]}):
            self.client.post("/admin/webhooks/endpoint/add/", {
                "name": "CRM", "url": "http://10.1.2.3/hook", "events": ["ticket.created", "ticket.replied"],
                "is_active": "on"}, follow=True)
        self.assertEqual(Endpoint.objects.get().events, ["ticket.created", "ticket.replied"])

    def test_the_reason_reads_in_the_admins_language(self):
        self.add("http://10.1.2.3/hook")
        self.client.cookies["django_language"] = "ru"
        page = self.client.get("/admin/webhooks/endpoint/").content.decode()
        self.assertIn("Подключение к 10.1.2.3 запрещено", page)
        self.assertIn("PORTAL_WEBHOOK_ALLOWED_HOSTS", page)
        self.assertNotIn("Refused to connect", page)

    def test_the_secret_is_shown_to_staff(self):
        with self.settings(WEBHOOKS={**WEBHOOKS, "ALLOWED_HOSTS": ["10.0.0.0/8"]}):
            self.add("http://10.1.2.3/hook")
        endpoint = Endpoint.objects.get()
        self.assertTrue(endpoint.is_active)
        page = self.client.get(f"/admin/webhooks/endpoint/{endpoint.pk}/change/")
        self.assertContains(page, endpoint.secret)
