from django.db import connection
from django.test import Client, TransactionTestCase

from tests.api.base import ApiTestCase, make_key
from tests.concurrency import at_once
from tests.factories import make_document, make_kb
from tickets.models import Agent, Message, Ticket

DOC = ("# Delivery times\n\nParcels inside the country arrive in two working days. "
       "International parcels take five to seven working days.\n\n"
       "## Tracking\n\nEvery parcel has a tracking number sent by e-mail on dispatch.")


class TicketApiTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        cls.other = make_kb()
        make_document(cls.kb, text=DOC, title="Delivery")
        cls.agent = Agent.objects.create(name="Logistics", routing_hints="parcel, delivery", is_default=True,
                                         confidence_threshold=0.0)
        cls.agent.knowledge_bases.set([cls.kb])
        cls.key, cls.token = make_key()
        _, cls.reader = make_key(scopes=["read", "search"])
        cls.limited_key, cls.limited = make_key(knowledge_bases=[cls.other])

    def submit(self, token, **data):
        with self.captureOnCommitCallbacks(execute=True):
            return self.api("post", "/tickets", token=token,
                            data={"body": "How long does my parcel take to arrive?", **data})

    def test_a_submitted_ticket_is_triaged_with_a_draft_sources_and_trace(self):
        response = self.submit(self.token, customer="ann@example.com", external_id="crm-1", metadata={"plan": "pro"})
        self.assertEqual(response.status_code, 202, response.content)
        body = self.api("get", f"/tickets/{response.json()['id']}", token=self.token).json()
        self.assertEqual((body["channel"], body["customer"], body["external_id"]), ("api", "ann@example.com", "crm-1"))
        self.assertEqual(body["metadata"]["plan"], "pro")
        self.assertEqual(body["agent"], {"id": self.agent.pk, "name": "Logistics"})
        self.assertNotIn(body["status"], ("new", "triaging", "error"))
        self.assertTrue(body["trace"])
        self.assertEqual(body["messages"][0]["kind"], "customer")
        drafted = body["draft"] or next(m for m in body["messages"] if m["kind"] in ("draft", "reply"))
        self.assertTrue(drafted["body"])
        self.assertTrue(body["sources"])
        self.assertEqual(body["sources"][0]["position"], 1)
        self.assertEqual(body["sources"][0]["document_title"], "Delivery")

    def test_the_submitting_key_cannot_be_forged(self):
        response = self.submit(self.token, metadata={"api_key_id": self.limited_key.pk})
        self.assertEqual(Ticket.objects.get(pk=response.json()["id"]).metadata["api_key_id"], self.key.pk)

    def test_staff_notes_are_not_shown(self):
        ticket_id = self.submit(self.token).json()["id"]
        Message.objects.create(ticket_id=ticket_id, kind=Message.Kind.NOTE, body="Customer is a reseller")
        body = self.api("get", f"/tickets/{ticket_id}", token=self.token).json()
        self.assertNotIn("reseller", str(body))

    def test_list_filters_and_a_limited_key_sees_only_its_own(self):
        mine = self.submit(self.limited, external_id="mine").json()["id"]
        self.submit(self.token, external_id="theirs")
        listed = self.api("get", "/tickets", token=self.limited).json()
        self.assertEqual([item["id"] for item in listed["items"]], [mine])
        theirs = Ticket.objects.get(external_id="theirs")
        self.assertError(self.api("get", f"/tickets/{theirs.pk}", token=self.limited), 404)
        everything = self.api("get", "/tickets?channel=api", token=self.token).json()
        self.assertEqual(everything["count"], 2)
        filtered = self.api("get", "/tickets?external_id=theirs", token=self.token).json()
        self.assertEqual([item["id"] for item in filtered["items"]], [theirs.pk])
        error = self.assertError(self.api("get", "/tickets?status=lost", token=self.token), 422)
        self.assertEqual(error["fields"][0]["field"], "status")

    def test_a_key_limited_to_other_bases_gets_no_draft_from_the_agents_bases(self):
        body = self.api("get", f"/tickets/{self.submit(self.limited).json()['id']}", token=self.limited).json()
        self.assertEqual(body["sources"], [])
        self.assertNotIn("two working days", str(body))
        retrieval = next(step for step in body["trace"] if step["step"] == "retrieval")
        self.assertEqual(retrieval["outcome"], "skipped")
        self.assertIn("submitting API key", retrieval["detail"])
        self.assertEqual(body["status"], "review")

    def test_a_key_limited_to_some_bases_is_answered_from_those_only(self):
        _, token = make_key(knowledge_bases=[self.kb])
        self.agent.knowledge_bases.add(self.other)
        make_document(self.other, text="# Parcels\n\nA parcel to the moon takes forty working days.", title="Moon")
        body = self.api("get", f"/tickets/{self.submit(token).json()['id']}", token=token).json()
        self.assertTrue(body["sources"])
        self.assertEqual({source["knowledge_base_id"] for source in body["sources"]}, {self.kb.pk})
        self.assertNotIn("forty working days", str(body))

    def test_a_duplicate_external_id_is_refused(self):
        self.submit(self.token, external_id="crm-9")
        error = self.assertError(self.submit(self.token, external_id="crm-9"), 409, "duplicate_external_id")
        self.assertEqual(error["fields"][0]["field"], "external_id")

    def test_an_unknown_field_is_refused_not_dropped(self):
        # A typo of external_id would otherwise store the ticket without it, and the client's retry a second one.
        error = self.assertError(self.submit(self.token, extrnal_id="crm-7"), 422, "invalid")
        self.assertEqual(error["fields"], [{"field": "extrnal_id", "location": "body", "type": "extra_forbidden",
                                            "message": "This field is not accepted here."}])
        self.assertFalse(Ticket.objects.exists())
        # The free-form metadata still takes any key.
        self.assertEqual(self.submit(self.token, metadata={"extrnal_id": "x"}).status_code, 202)

    def test_validation_scope_and_missing_key(self):
        error = self.assertError(self.api("post", "/tickets", token=self.token, data={"subject": "x"}), 422)
        self.assertEqual(error["fields"][0]["field"], "body")
        for method, path in [("post", "/tickets"), ("get", "/tickets"), ("get", "/tickets/1")]:
            with self.subTest(f"{method} {path}"):
                self.assertError(self.api(method, path, token=self.reader, data={"body": "x"}), 403, "missing_scope")
                self.assertError(self.api(method, path), 401)

    def test_list_query_count_does_not_grow_with_the_page(self):
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        for n in range(3):
            self.submit(self.token, external_id=f"q{n}")
        counts = []
        for size in (1, 3):
            self.api("get", f"/tickets?page_size={size}", token=self.token)
            with CaptureQueriesContext(connection) as captured:
                self.api("get", f"/tickets?page_size={size}", token=self.token)
            counts.append(len(captured))
        self.assertEqual(counts[0], counts[1])

    def test_date_filters_take_any_offset(self):
        mine = self.submit(self.token).json()["id"]
        body = self.api("get", "/tickets?created_after=2000-01-01T00:00:00%2B16:41", token=self.token).json()
        self.assertEqual([item["id"] for item in body["items"]], [mine])
        self.assertEqual(self.api("get", "/tickets?created_before=2000-01-01T00:00:00", token=self.token)
                         .json()["count"], 0)
        self.assertError(self.api("get", "/tickets?created_before=0001-01-01T00:00:00%2B01:00", token=self.token), 422)


class ConcurrentTicketTests(TransactionTestCase):
    def test_a_client_retrying_one_external_id_at_once_gets_one_ticket_and_409s(self):
        # Six requests with one external id, released together: every one but the first to be stored
        # must be told it is a duplicate (409), never a server error or a database constraint's name.
        _, token = make_key()

        def submit():
            try:
                return Client().post("/api/v1/tickets", {"body": "Where is my parcel?", "external_id": "crm-race"},
                                     content_type="application/json", headers={"Authorization": f"Bearer {token}"})
            finally:
                connection.close()

        responses = at_once(6, submit)
        statuses = sorted(response.status_code for response in responses)
        self.assertEqual(statuses, [202, 409, 409, 409, 409, 409], [r.content for r in responses])
        self.assertEqual({r.json()["error"]["code"] for r in responses if r.status_code == 409},
                         {"duplicate_external_id"})
        self.assertEqual(Ticket.objects.filter(external_id="crm-race").count(), 1)
