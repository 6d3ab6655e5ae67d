import re
from html import unescape

from django.contrib.auth.models import Permission, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import TestCase
from django.urls import reverse

from evaluation import feedback, golden, runs
from evaluation.models import EvalRun, Feedback, GoldenQuestion, ShadowSwitch
from knowledge.models import Chunk
from tests.tickets.helpers import make_help_centre


def make_staff(username: str, *codenames: str) -> User:
    user = User.objects.create_user(username, password="pw", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    return user


class EvaluationAdminTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.documents, _ = make_help_centre()
        cls.set = golden.create_golden_set(cls.kb, name="Help <b>desk</b>")
        golden.add_question(cls.set, question="How long does standard delivery take? <script>x</script>",
                            document_ids=[cls.documents["delivery"].pk])
        golden.add_question(cls.set, question="How do I reset my password?",
                            document_ids=[cls.documents["passwords"].pk])
        cls.manager = User.objects.create_superuser("boss", password="pw")
        cls.viewer = make_staff("viewer", "view_evalrun", "view_goldenset")

    def setUp(self):
        self.client.force_login(self.manager)

    def test_the_run_action_queues_a_job(self):
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client.post(reverse("admin:evaluation_goldenset_changelist"),
                                        {"action": "run_evaluation", "_selected_action": [self.set.pk]}, follow=True)
        run = EvalRun.objects.get()
        self.assertContains(response, f"Evaluation #{run.pk} of")
        self.assertEqual(run.questions, 2)

    def test_run_page_trend_and_diff_escape_questions(self):
        first = runs.evaluate(runs.create_run(self.set, label="before"))
        self.documents["passwords"].delete()
        second = runs.evaluate(runs.create_run(self.set, label="after"))
        page = self.client.get(reverse("admin:evaluation_evalrun_change", args=[first.pk]))
        self.assertContains(page, "&lt;script&gt;x&lt;/script&gt;")
        self.assertNotContains(page, "<script>x</script>")
        trend = self.client.get(reverse("admin:evaluation_evalrun_trend", args=[self.kb.pk]))
        self.assertContains(trend, "<svg class=\"kp-chart\"", count=1)
        self.assertContains(trend, "<polyline", count=3)  # nDCG, recall, citation; no should-refuse question
        self.assertContains(trend, "Help &lt;b&gt;desk&lt;/b&gt;")
        response = self.client.post(reverse("admin:evaluation_evalrun_changelist"),
                                    {"action": "compare", "_selected_action": [first.pk, second.pk]})
        self.assertRedirects(response, reverse("admin:evaluation_evalrun_diff", args=[first.pk, second.pk]))
        diff = self.client.get(response["Location"])
        self.assertContains(diff, "Worse (1)")
        self.assertContains(diff, "How do I reset my password?")

    def test_the_content_managers_group_works_every_evaluation_page(self):
        # docs/evaluation.md is written for content managers: their group reaches what it describes.
        from django.contrib.auth.models import Group

        from tickets.groups import CONTENT_MANAGERS

        content_manager = User.objects.create_user("cm", password="pw", is_staff=True)
        content_manager.groups.add(Group.objects.get(name=CONTENT_MANAGERS))
        self.client.force_login(content_manager)
        first = runs.evaluate(runs.create_run(self.set, label="before"))
        second = runs.evaluate(runs.create_run(self.set, label="after"))
        for url in (reverse("admin:evaluation_goldenset_changelist"),
                    reverse("admin:evaluation_goldenset_change", args=[self.set.pk]),
                    reverse("admin:evaluation_goldenset_import", args=[self.set.pk]),
                    reverse("admin:evaluation_goldenquestion_add"),
                    reverse("admin:evaluation_evalrun_changelist"),
                    reverse("admin:evaluation_evalrun_change", args=[first.pk]),
                    reverse("admin:evaluation_evalrun_trend", args=[self.kb.pk]),
                    reverse("admin:evaluation_evalrun_diff", args=[first.pk, second.pk]),
                    reverse("admin:evaluation_feedback_changelist"),
                    reverse("admin:evaluation_shadowswitch_add")):
            with self.subTest(url=url):
                self.assertEqual(self.client.get(url).status_code, 200)
        with self.captureOnCommitCallbacks(execute=True):
            self.client.post(reverse("admin:evaluation_goldenset_changelist"),
                             {"action": "run_evaluation", "_selected_action": [self.set.pk]})
        self.assertEqual(EvalRun.objects.count(), 3)

    def test_viewers_cannot_import_and_the_import_page_reports_problems(self):
        url = reverse("admin:evaluation_goldenset_import", args=[self.set.pk])
        self.client.force_login(self.viewer)
        self.assertEqual(self.client.get(url).status_code, 403)
        self.client.force_login(self.manager)
        bad = SimpleUploadedFile("set.jsonl", b'{"question": "", "document": "https://help.example/refunds"}\n')
        response = self.client.post(url, {"file": bad, "document_key": "source_uri"}, follow=True)
        self.assertContains(response, "line 1: The question is empty")
        good = SimpleUploadedFile("set.csv", b"question,document\nWhen is my refund paid?,https://help.example/refunds\n")
        response = self.client.post(url, {"file": good, "document_key": "source_uri"}, follow=True)
        self.assertContains(response, "1 question(s) with 1 expected document(s) imported")

    def test_confirming_proposals_reports_the_incomplete_ones(self):
        proposal = golden.add_question(self.set, question="Ship to Mars?", status=GoldenQuestion.Status.PROPOSED)
        response = self.client.post(reverse("admin:evaluation_goldenquestion_changelist"),
                                    {"action": "confirm", "_selected_action": [proposal.pk]}, follow=True)
        self.assertContains(response, "no expected document")
        self.assertContains(response, "0 questions confirmed")

    def test_chunks_show_their_feedback_counts(self):
        chunk = Chunk.objects.filter(document=self.documents["refunds"]).first()
        for rating in ("up", "down", "down"):
            feedback.record_feedback(self.kb, question="Refunds?", rating=rating, chunk_ids=[chunk.pk])
        page = self.client.get(reverse("admin:knowledge_chunk_change", args=[chunk.pk]))
        self.assertContains(page, "👍 1 · 👎 2")
        listing = self.client.get(reverse("admin:knowledge_chunk_changelist"),
                                  {"document__id__exact": chunk.document_id})
        self.assertContains(listing, "👍 1 · 👎 2")


class ShadowSwitchAdminTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.documents, _ = make_help_centre()
        cls.manager = User.objects.create_superuser("boss", password="pw")

    def test_starting_a_switch_and_refusals_in_the_admin(self):
        self.client.force_login(self.manager)
        url = reverse("admin:evaluation_shadowswitch_add")
        form = {"knowledge_base": self.kb.pk, "embedder": "", "chunk_size": 300, "chunk_overlap": 30,
                "chunk_min_size": "", "golden_set": "", "tolerance": 0.01}
        response = self.client.post(url, form, follow=True)
        self.assertContains(response, "queued: the base keeps serving")
        switch = ShadowSwitch.objects.get()
        response = self.client.post(url, {**form, "chunk_size": 500}, follow=True)
        self.assertContains(response, "is building the new version")
        self.assertEqual(ShadowSwitch.objects.count(), 1)
        response = self.client.post(reverse("admin:evaluation_shadowswitch_changelist"),
                                    {"action": "cut_over", "_selected_action": [switch.pk]}, follow=True)
        self.assertContains(response, "still being built")
        # Shadows never appear among the knowledge bases.
        listing = self.client.get(reverse("admin:knowledge_knowledgebase_changelist"))
        self.assertNotContains(listing, "shadow of switch")


class PlaygroundRatingTests(TestCase):
    """Thumbs on an answer tried in the search playground land in Feedback (and so in the gap report)."""

    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.documents, _ = make_help_centre()
        cls.content_manager = make_staff("content", "view_knowledgebase")
        cls.outsider = make_staff("outsider")

    def ask(self, question: str) -> str:
        response = self.client.post(reverse("admin:knowledge_knowledgebase_playground"), {
            "query": question, "knowledge_bases": [self.kb.pk], "mode": "hybrid", "top_k": 5, "with_answer": "on"})
        self.assertEqual(response.status_code, 200)
        return response.content.decode()

    def rating_fields(self, html: str) -> dict:
        form = re.search(r'<form method="post" action="([^"]+)" class="kp-rate">(.*?)</form>', html, re.S)
        self.assertIsNotNone(form, "no rating form under the answer")
        fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form.group(2)))
        return form.group(1), {name: unescape(value) for name, value in fields.items()}

    def test_a_thumbs_down_is_recorded_with_the_answers_chunks_and_the_page_stays(self):
        self.client.force_login(self.content_manager)
        url, fields = self.rating_fields(self.ask("How long does standard delivery take?"))
        self.assertEqual(url, reverse("admin:evaluation_feedback_rate"))
        response = self.client.post(url, {**fields, "rating": "down"}, headers={"Accept": "application/json"})
        self.assertEqual(response.json()["recorded"], True)
        item = Feedback.objects.get()
        self.assertEqual((item.knowledge_base, item.question, item.rating),
                         (self.kb, "How long does standard delivery take?", Feedback.Rating.DOWN))
        self.assertEqual(item.first_chunk.document, self.documents["delivery"])
        self.assertIn("How long does standard delivery take?", [q.question for q in feedback.gap_questions()])

    def test_without_the_script_the_playground_comes_back_with_a_message(self):
        self.client.force_login(self.content_manager)
        url, fields = self.rating_fields(self.ask("How do I reset my password?"))
        response = self.client.post(url, {**fields, "rating": "up"}, follow=True)
        self.assertContains(response, "the rating is recorded")
        self.assertEqual(Feedback.objects.get().rating, Feedback.Rating.UP)

    def test_bad_ratings_and_outsiders_record_nothing(self):
        self.client.force_login(self.content_manager)
        url, fields = self.rating_fields(self.ask("How do I reset my password?"))
        foreign = Chunk.objects.exclude(knowledge_base=self.kb).values_list("pk", flat=True).first()
        for bad in ({"rating": "sideways"}, {"rating": "up", "chunks": "1,x"},
                    {"rating": "up", "chunks": str(foreign or 999999)}):
            response = self.client.post(url, {**fields, **bad}, headers={"Accept": "application/json"})
            self.assertEqual(response.status_code, 400, bad)
            self.assertFalse(response.json()["recorded"])
        self.assertEqual(self.client.get(url).status_code, 405)
        self.client.force_login(self.outsider)
        self.assertEqual(self.client.post(url, {**fields, "rating": "up"}).status_code, 403)
        self.assertFalse(Feedback.objects.exists())
