"""Keys and searchable bases are remembered between requests (portal/access.py), and never served stale:
every change an admin can make is seen by the very next request."""

from datetime import timedelta

from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from knowledge.models import KnowledgeBase
from portal import access
from portal.models import ApiKey
from tests.api.base import ApiTestCase, make_key
from tests.factories import make_document, make_kb


def statements_about(queries, *tables: str) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if any(f"FROM {table}" in q["sql"] for table in tables)]


def statement_texts(queries) -> list[str]:
    """The captured statements, an EXECUTE of a prepared statement as the statement it runs."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT name, statement FROM pg_prepared_statements")
        prepared = dict(cursor.fetchall())
    texts = []
    for query in queries.captured_queries:
        name = query["sql"].removeprefix("EXECUTE ").partition("(")[0]
        texts.append(prepared[name] if query["sql"].startswith("EXECUTE ") and name in prepared else query["sql"])
    return texts


class RememberedAccessTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kbs = [make_kb() for _ in range(2)]
        for kb in cls.kbs:
            make_document(kb, "# Returns\n\nA refund is possible within thirty days of purchase.", title="Refunds")

    def search(self, token: str, knowledge_bases=None):
        return self.api("post", "/search", token=token,
                        data={"query": "refund", "mode": "keyword", "knowledge_bases": knowledge_bases})

    def test_a_known_key_and_its_bases_cost_no_statement_of_their_own(self):
        _, token = make_key(scopes=["search"])
        for requested in (None, [self.kbs[0].pk]):
            self.assertEqual(self.search(token, requested).status_code, 200)
            with CaptureQueriesContext(connection) as queries:
                response = self.search(token, requested)
            self.assertEqual(response.status_code, 200, response.content[:300])
            self.assertEqual(statements_about(queries, "portal_apikey ", "knowledge_knowledgebase "), [])
            # The version is read by the statement that counts the request against the key's rate limit.
            versions = [text for text in statement_texts(queries) if "portal_accessversion" in text]
            self.assertEqual(len(versions), 1, versions)
            self.assertIn("INSERT INTO portal_ratecounter", versions[0])
            self.assertEqual({hit["knowledge_base_id"] for hit in response.json()["hits"]},
                             {kb.pk for kb in self.kbs} if requested is None else set(requested))

    def test_a_revoked_or_deleted_key_is_refused_by_the_next_request(self):
        key, token = make_key(scopes=["search"])
        self.assertEqual(self.search(token).status_code, 200)
        key.revoke()
        self.assertError(self.search(token), 401, "key_revoked")
        other, token = make_key(scopes=["search"])
        self.assertEqual(self.search(token).status_code, 200)
        other.delete()
        self.assertError(self.search(token), 401, "invalid_key")

    def test_a_scope_taken_away_or_an_expiry_reached_is_seen_at_once(self):
        key, token = make_key(scopes=["search"])
        self.assertEqual(self.search(token).status_code, 200)
        ApiKey.objects.filter(pk=key.pk).update(scopes=["read"])
        self.assertError(self.search(token), 403, "missing_scope")
        ApiKey.objects.filter(pk=key.pk).update(scopes=["search"], expires_at=timezone.now() + timedelta(seconds=1))
        self.assertEqual(self.search(token).status_code, 200)
        ApiKey.objects.filter(pk=key.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
        self.assertError(self.search(token), 401, "key_expired")

    def test_bases_taken_from_a_key_or_added_are_seen_at_once(self):
        key, token = make_key(scopes=["search"])
        both = [kb.pk for kb in self.kbs]
        self.assertEqual(self.search(token, both).status_code, 200)
        key.knowledge_bases.set(self.kbs[:1])
        self.assertError(self.search(token, both), 404, "not_found")
        self.assertEqual({h["knowledge_base_id"] for h in self.search(token).json()["hits"]}, {self.kbs[0].pk})
        key.knowledge_bases.clear()
        new = make_kb()
        make_document(new, "Refunds take a week to reach the card.", title="Refund times")
        self.assertIn(new.pk, {h["knowledge_base_id"] for h in self.search(token).json()["hits"]})
        KnowledgeBase.objects.filter(pk=new.pk).delete()
        self.assertError(self.search(token, [new.pk]), 404, "not_found")

    def test_a_keys_limits_on_its_other_endpoints_are_remembered_and_follow_changes(self):
        key, token = make_key(scopes=["read"], knowledge_bases=self.kbs[:1])
        listed = self.api("get", "/knowledge-bases", token=token)
        self.assertEqual([kb["id"] for kb in listed.json()["items"]], [self.kbs[0].pk])
        with CaptureQueriesContext(connection) as queries:
            self.assertEqual(self.api("get", f"/knowledge-bases/{self.kbs[0].pk}", token=token).status_code, 200)
        self.assertEqual(statements_about(queries, "portal_apikey_knowledge_bases "), [])
        key.knowledge_bases.set(self.kbs[1:])
        self.assertError(self.api("get", f"/knowledge-bases/{self.kbs[0].pk}", token=token), 404, "not_found")
        listed = self.api("get", "/knowledge-bases", token=token)
        self.assertEqual([kb["id"] for kb in listed.json()["items"]], [self.kbs[1].pk])
        key.knowledge_bases.clear()
        listed = self.api("get", "/knowledge-bases", token=token)
        self.assertLessEqual({kb.pk for kb in self.kbs}, {kb["id"] for kb in listed.json()["items"]})

    def test_recording_a_keys_last_use_does_not_forget_it_nor_write_twice(self):
        key, token = make_key(scopes=["search"])
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=timezone.now() - timedelta(minutes=5))
        version = access.current_version()
        self.assertEqual(self.search(token).status_code, 200)  # reads the key, records its use
        self.assertEqual(access.current_version(), version)
        with CaptureQueriesContext(connection) as queries:
            self.assertEqual(self.search(token).status_code, 200)
        self.assertEqual([q for q in queries.captured_queries if q["sql"].startswith("UPDATE")], [])
        self.assertEqual(statements_about(queries, "portal_apikey "), [])

    def test_a_rolled_back_change_leaves_the_version_and_its_number_is_never_reused(self):
        key, _ = make_key()
        before = access.current_version()
        try:
            with transaction.atomic():
                ApiKey.objects.filter(pk=key.pk).update(name="renamed")
                inside = access.current_version()
                raise RuntimeError("roll back")
        except RuntimeError:
            pass
        self.assertNotEqual(inside, before)
        self.assertEqual(access.current_version(), before)
        ApiKey.objects.filter(pk=key.pk).update(name="renamed again")
        self.assertNotIn(access.current_version(), (before, inside))


class RememberedTests(ApiTestCase):
    def test_the_memory_is_bounded_and_drops_the_least_recently_used(self):
        memory = access.Remembered(2)
        memory.put("a", 1, ("a",))
        memory.put("b", 1, ("b",))
        self.assertEqual(memory.get("a", 1), ("a",))
        memory.put("c", 1, ("c",))
        self.assertIsNone(memory.get("b", 1))
        self.assertEqual(memory.get("a", 1), ("a",))
        self.assertIsNone(memory.get("a", 2), "another version is another state of the database")
        memory.put("d", None, ("d",))
        self.assertIsNone(memory.peek("d"), "nothing is remembered without a version")

    def test_base_lists_are_bounded_by_their_rows(self):
        memory = access.Remembered(10, weight=len)
        memory.put("a", 1, [("a",)] * 4)
        memory.put("b", 1, [("b",)] * 4)
        memory.put("a", 1, [("a",)] * 5)  # replaced, not counted twice
        self.assertEqual((memory.peek("a"), memory.peek("b")), ([("a",)] * 5, [("b",)] * 4))
        memory.put("c", 1, [("c",)] * 3)
        self.assertIsNone(memory.peek("b"))
        self.assertEqual(len(memory.peek("c")), 3)

    def test_a_bad_token_is_not_remembered(self):
        size = len(access.keys._items)
        for n in range(20):
            self.assertError(self.api("get", "/knowledge-bases", token=f"kp_{n:08x}_nope"), 401, "invalid_key")
        self.assertEqual(len(access.keys._items), size)
