"""The audit trail: model changes, API key use per route, answers sent; append-only; retention."""

from contextvars import Context
from datetime import timedelta

from auditlog.context import auditlog_value
from auditlog.models import LogEntry
from django.contrib.auth import get_user_model
from django.db import DatabaseError, transaction
from django.http import HttpResponse
from django.test import RequestFactory, override_settings
from django.utils import timezone

from knowledge.models import KnowledgeBase
from portal.audit import ModelChangeAuditMiddleware, prune_audit
from portal.models import ApiRequest
from tests.api.base import ApiTestCase, make_key
from tests.factories import make_document, make_kb
from tests.tickets.helpers import make_help_centre
from tickets import triage
from tickets.models import Message, Ticket


class ApiAuditTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        make_document(cls.kb, text="# Refunds\n\nA refund is paid back within five days to the card.",
                      title="Refunds")
        cls.key, cls.token = make_key()

    def test_every_key_request_is_recorded_with_route_status_and_base(self):
        self.api("get", f"/knowledge-bases/{self.kb.pk}", token=self.token)
        self.api("get", "/knowledge-bases/987654", token=self.token)
        self.api("get", "/knowledge-bases", token="kp_not.a-key")  # no key, no entry
        entries = list(ApiRequest.objects.order_by("pk"))
        self.assertEqual([(e.api_key, e.method, e.route, e.status, e.knowledge_base_id) for e in entries], [
            (self.key, "GET", "api/v1/knowledge-bases/<kb_id>", 200, self.kb.pk),
            (self.key, "GET", "api/v1/knowledge-bases/<kb_id>", 404, 987654),
        ])
        self.assertEqual(entries[0].key_prefix, self.key.prefix)

    def test_an_answer_records_what_it_cited(self):
        response = self.api("post", "/answer", token=self.token, data={"question": "How is a refund paid?"})
        self.assertEqual(response.status_code, 200)
        entry = ApiRequest.objects.get(route="api/v1/answer")
        cited = [citation["source"]["chunk_id"] for citation in response.json()["citations"]]
        self.assertEqual([c["chunk"] for c in entry.detail["cited"]], cited)

    def test_entries_cannot_be_changed(self):
        self.api("get", "/knowledge-bases", token=self.token)
        with self.assertRaisesMessage(ValueError, "append-only"):
            ApiRequest.objects.get().save()
        with self.assertRaises(DatabaseError), transaction.atomic():
            ApiRequest.objects.update(status=200, path="/elsewhere")
        # Deleting the key keeps its entries (with the prefix), which the trigger allows.
        self.key.delete()
        self.assertEqual(ApiRequest.objects.get().key_prefix, self.key.prefix)

    def test_model_changes_through_the_api_are_in_the_change_log(self):
        response = self.api("post", "/knowledge-bases", token=self.token,
                            data={"name": "Audited", "slug": "audited", "embedder": "hash"})
        self.assertEqual(response.status_code, 201, response.content[:300])
        kb = KnowledgeBase.objects.get(slug="audited")
        entry = LogEntry.objects.get_for_object(kb).get()
        self.assertEqual(entry.action, LogEntry.Action.CREATE)
        self.assertEqual(entry.changes_dict["name"], ["None", "Audited"])

    def test_the_change_log_knows_the_address_except_around_operations_that_change_nothing(self):
        seen = {}

        def view(request):
            seen[request.path] = auditlog_value.get(None)
            return HttpResponse()

        middleware = ModelChangeAuditMiddleware(view)
        for path in ("/api/v1/knowledge-bases", "/api/v1/search", "/api/v1/answer", "/api/v1/search/planned"):
            Context().run(middleware, RequestFactory().post(path, REMOTE_ADDR="203.0.113.9"))
        self.assertEqual(seen["/api/v1/knowledge-bases"]["remote_addr"], "203.0.113.9")
        self.assertEqual([seen[path] for path in ("/api/v1/search", "/api/v1/answer", "/api/v1/search/planned")],
                         [None] * 3)
        response = self.api("post", "/knowledge-bases", token=self.token, REMOTE_ADDR="203.0.113.9",
                            data={"name": "From afar", "slug": "from-afar", "embedder": "hash"})
        self.assertEqual(response.status_code, 201, response.content[:300])
        entry = LogEntry.objects.get_for_object(KnowledgeBase.objects.get(slug="from-afar")).get()
        self.assertEqual(entry.remote_addr, "203.0.113.9")

    def test_retention_deletes_old_entries_only(self):
        self.api("get", "/knowledge-bases", token=self.token)
        old = ApiRequest.objects.create(api_key=self.key, key_prefix="x", method="GET", route="r", path="/p",
                                        status=200, created_at=timezone.now() - timedelta(days=40))
        with override_settings(PORTAL={**__import__("django.conf").conf.settings.PORTAL, "AUDIT_RETENTION_DAYS": 30}):
            prune_audit()
        self.assertFalse(ApiRequest.objects.filter(pk=old.pk).exists())
        self.assertEqual(ApiRequest.objects.count(), 1)


class AdminAuditTests(ApiTestCase):
    def test_admin_changes_are_logged_with_the_user_and_the_log_is_read_only(self):
        admin = get_user_model().objects.create_superuser("auditor", "a@example.com", "pw")
        self.client.force_login(admin)
        kb = make_kb(name="Before")
        data = {"name": "After", "slug": kb.slug, "description": "", "text_search_config": kb.text_search_config,
                "chunk_size": kb.chunk_size, "chunk_overlap": kb.chunk_overlap, "chunk_min_size": kb.chunk_min_size}
        response = self.client.post(f"/admin/knowledge/knowledgebase/{kb.pk}/change/", data)
        self.assertEqual(response.status_code, 302, response.content[:2000])
        entry = LogEntry.objects.get_for_object(kb).filter(action=LogEntry.Action.UPDATE).get()
        self.assertEqual((entry.actor, entry.changes_dict["name"]), (admin, ["Before", "After"]))
        page = self.client.get("/admin/auditlog/logentry/?action__exact=1")
        self.assertEqual(page.status_code, 200)
        self.assertEqual(self.client.post(f"/admin/auditlog/logentry/{entry.pk}/delete/", {"post": "yes"}).status_code,
                         403)
        self.assertEqual(self.client.get("/admin/portal/apirequest/").status_code, 200)
        # API request records are shown, never added, edited or deleted by hand.
        self.api("get", "/knowledge-bases", token=make_key()[1])
        record = ApiRequest.objects.latest("pk")
        self.assertEqual(self.client.get("/admin/portal/apirequest/add/").status_code, 403)
        deleted = self.client.post(f"/admin/portal/apirequest/{record.pk}/delete/", {"post": "yes"})
        self.assertEqual(deleted.status_code, 403)
        self.assertNotContains(self.client.get(f"/admin/portal/apirequest/{record.pk}/change/"), 'name="_save"')
        self.assertTrue(ApiRequest.objects.filter(pk=record.pk).exists())


class RepliesAuditTests(ApiTestCase):
    def test_an_auto_reply_and_its_cited_snapshots_are_in_the_change_log(self):
        make_help_centre()
        with self.captureOnCommitCallbacks(execute=True):
            ticket = triage.submit_ticket(body="How long does standard delivery take?")
        ticket.refresh_from_db()
        self.assertEqual(ticket.status, Ticket.Status.AUTO_REPLIED)
        reply = ticket.messages.get(kind=Message.Kind.REPLY)
        logged = LogEntry.objects.get_for_object(reply).get()
        self.assertIn("Standard delivery", logged.changes_dict["body"][1])
        cited = ticket.sources.filter(cited=True).order_by("position")
        self.assertTrue(cited)
        self.assertEqual(logged.additional_data["cited_snapshots"],
                         [{"position": s.position, "document": s.document_id, "chunk": s.chunk_id,
                           "sha256": s.content_sha256} for s in cited])
