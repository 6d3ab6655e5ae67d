import json
import sys
import tempfile
from io import StringIO
from pathlib import Path

from django.conf import settings
from django.core.management import CommandError, call_command
from django.test import TestCase

from evaluation import golden, runs
from evaluation.exceptions import EmptyGoldenSetError, EvaluationError
from evaluation.models import EvalRun, GoldenQuestion
from knowledge import jobs
from knowledge.indexing import ingestion
from knowledge.indexing.embedding import get_embedder
from knowledge.models import Job
from knowledge.search import answers
from tests.evaluation.test_golden import TYDI, beir_slice
from tests.factories import make_kb
from tests.knowledge.test_composer import FAQ, REACT
from tests.tickets.helpers import make_help_centre

BENCH = Path(__file__).resolve().parents[2] / "bench"


class HelpCentreRunTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.documents, _ = make_help_centre()
        cls.set = golden.create_golden_set(cls.kb, name="Help")
        for question, document in [("How long does standard delivery take?", "delivery"),
                                   ("How do I reset my password?", "passwords"),
                                   ("When is a refund paid back to the card?", "refunds")]:
            golden.add_question(cls.set, question=question, document_ids=[cls.documents[document].pk])
        golden.add_question(cls.set, question="Qwzx vbnm plokij?", should_refuse=True)
        golden.add_question(cls.set, question="Proposed only?", should_refuse=True,
                            status=GoldenQuestion.Status.PROPOSED)

    def test_a_run_scores_confirmed_questions_and_records_the_configuration(self):
        run = runs.evaluate(runs.create_run(self.set))
        self.assertEqual(run.questions, 4)
        results = list(run.results.order_by("pk"))
        ranked = [r for r in results if r.ndcg is not None]
        self.assertEqual(len(ranked), 3)
        self.assertAlmostEqual(run.metrics["ndcg@10"], round(sum(r.ndcg for r in ranked) / 3, 4))
        self.assertAlmostEqual(run.metrics["mrr@10"], round(sum(r.reciprocal_rank for r in ranked) / 3, 4))
        answered = [r for r in ranked if not r.refused]
        self.assertEqual(run.metrics["citation@1"],
                         round(sum(r.citation_correct for r in answered) / len(answered), 4) if answered else None)
        self.assertEqual(run.metrics["should_refuse_questions"], 1)
        self.assertGreater(run.metrics["latency_p95_ms"], 0)
        self.assertEqual(run.config["embedder"], "hash")
        self.assertEqual(run.config["chunking"], self.kb.chunking)
        self.assertIn("fusion_alpha", run.config["fusion"])
        self.assertEqual(len(run.signature), 16)
        top = results[0].top_hits[0]
        self.assertEqual(set(top), {"document_id", "title", "relevant"})

    def test_the_signature_changes_with_the_configuration(self):
        before = runs.signature(runs.configuration(self.kb))
        with self.settings(PORTAL={**settings.PORTAL, "FUSION": "rrf"}):
            self.assertNotEqual(runs.signature(runs.configuration(self.kb)), before)

    def test_a_keyword_run_is_recorded_as_one_and_never_compared_as_hybrid(self):
        hybrid = runs.evaluate(runs.create_run(self.set))
        keyword = runs.evaluate(runs.create_run(self.set), mode="keyword")
        self.assertEqual((keyword.config["mode"], "mode" in hybrid.config), ("keyword", False))
        self.assertNotEqual(keyword.signature, hybrid.signature)

    def test_a_set_without_confirmed_questions_cannot_run(self):
        empty = golden.create_golden_set(self.kb, name="Empty")
        with self.assertRaisesMessage(EmptyGoldenSetError, "no confirmed question"):
            runs.create_run(empty)

    def test_the_job_runs_the_set_with_progress(self):
        with self.captureOnCommitCallbacks(execute=True):
            run = runs.start_evaluation(self.set, label="nightly")
        run.refresh_from_db()
        job = Job.objects.get(pk=run.job_id)
        self.assertEqual((job.kind, job.status, job.progress_done, job.progress_total),
                         (Job.Kind.EVALUATE, Job.Status.SUCCEEDED, 4, 4))
        self.assertEqual(run.questions, 4)
        self.assertIsNotNone(run.finished_at)

    def test_a_failed_evaluation_job_is_retried_on_the_same_run(self):
        run = runs.start_evaluation(self.set)  # queued; a worker that died would leave it failed
        job = Job.objects.get(pk=run.job_id)
        job.start()
        job.fail("WorkerLost: the worker was killed")
        with self.captureOnCommitCallbacks(execute=True):
            retried = jobs.retry(job)
        run.refresh_from_db()
        self.assertEqual((run.job_id, run.questions), (retried.pk, 4))
        self.assertEqual(Job.objects.get(pk=retried.pk).status, Job.Status.SUCCEEDED)

    def test_the_diff_names_questions_that_got_worse_with_their_hits(self):
        # No refusals: with the test embedder's arbitrary similarities, losing the delivery page
        # also moves the password question's confidence across a threshold, which is not the point.
        with self.settings(PORTAL={**settings.PORTAL, "ANSWER_THRESHOLD": 0.0}):
            before = runs.evaluate(runs.create_run(self.set))
            # The delivery page disappears: its question can no longer find it.
            self.documents["delivery"].delete()
            after = runs.evaluate(runs.create_run(self.set))
        better, worse = runs.compare_runs(before, after)
        self.assertEqual([c.question for c in worse], ["How long does standard delivery take?"])
        self.assertEqual(worse[0].after.ndcg, 0.0)  # the expected document is gone, the question stays
        self.assertTrue(worse[0].before.top_hits[0]["relevant"] or worse[0].before.ndcg > 0)
        self.assertNotIn(self.documents["delivery"].pk, [h["document_id"] for h in worse[0].after.top_hits])
        self.assertEqual(better, [])

    def test_thresholds_parse_and_name_what_failed(self):
        self.assertEqual(runs.parse_thresholds("nDCG=0.8, refusal=0.9"),
                         {"ndcg@10": 0.8, "refusal_precision": 0.9, "refusal_recall": 0.9})
        self.assertEqual(runs.parse_thresholds("ndcg=0,recall=1"), {"ndcg@10": 0.0, "recall@10": 1.0})
        for bad, message in [("speed=1", "Unknown metric 'speed'"), ("ndcg=high", "needs a number"),
                             ("ndcg=1.5", "'ndcg=1.5' is out of range: the metrics run from 0 to 1"),
                             ("recall=80", "out of range"), ("mrr=-0.1", "out of range"),
                             ("ndcg=nan", "out of range")]:
            with self.subTest(bad), self.assertRaisesMessage(EvaluationError, message):
                runs.parse_thresholds(bad)
        run = EvalRun(metrics={"ndcg@10": 0.5, "refusal_precision": None})
        self.assertEqual(runs.failures(run, {"ndcg@10": 0.6, "refusal_precision": 0.1}),
                         ["ndcg@10 = 0.5000 < 0.6", "refusal_precision: no questions to measure it (limit 0.1)"])


class RefusalAgreementTests(TestCase):
    """An evaluation's "refused" is the answer's own decision, FAQ entries included."""

    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        ingestion.ingest_text(cls.kb, title="Карты", text=FAQ, source_uri="faq")
        ingestion.ingest_text(cls.kb, title="React", text=REACT, source_uri="react")
        # An entry whose long answer shares few words with its question: the chunk is only loosely
        # similar to the question, but the entry's own question is exactly the one asked.
        ingestion.ingest_text(cls.kb, title="Returns", source_uri="returns", text=(
            "# Returns\n\n## Can I return a parcel?\n\n" + " ".join(
                f"Step {n}: pack the goods with receipt {n}, label box {n}, drop it at locker {n}." for n in range(12))
            + "\n\n## How long does a refund take?\n\nFive working days after the parcel arrives."))
        cls.set = golden.create_golden_set(cls.kb, name="Mixed")
        cls.questions = ["Как заблокировать карту?", "Can I return a parcel?",
                         "Should I use Create React App for new apps?", "Qwzx vbnm plokij?",
                         "What is the boiling point of tungsten on Mars?"]
        for question in cls.questions:
            golden.add_question(cls.set, question=question, should_refuse=True)

    def test_refused_matches_what_the_answer_does(self):
        run = runs.evaluate(runs.create_run(self.set))
        judged = {result.question_text: result.refused for result in run.results.all()}
        answered = {question: answers.answer(question, [self.kb.pk]).refused for question in self.questions}
        self.assertEqual(judged, answered)
        self.assertFalse(judged["Как заблокировать карту?"])  # entries' own questions are answered
        self.assertFalse(judged["Can I return a parcel?"])
        self.assertTrue(judged["Qwzx vbnm plokij?"])


class EvalCommandTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.documents, _ = make_help_centre()
        cls.set = golden.create_golden_set(cls.kb, name="Help")
        golden.add_question(cls.set, question="How do I reset my password?",
                            document_ids=[cls.documents["passwords"].pk])

    def test_it_prints_the_metrics_and_writes_json(self):
        out = StringIO()
        with tempfile.TemporaryDirectory() as directory:
            target = Path(directory) / "eval.json"
            call_command("eval", self.kb.slug, "--json", str(target), "--label", "ci", stdout=out, stderr=StringIO())
            written = json.loads(target.read_text())
        run = EvalRun.objects.get()
        self.assertEqual(written["metrics"], run.metrics)
        self.assertEqual(written["signature"], run.signature)
        self.assertIn(f"Evaluation #{run.pk} of {self.set}: 1 questions", out.getvalue())
        self.assertIn("ndcg@10", out.getvalue())

    def test_it_exits_non_zero_under_a_threshold(self):
        # A question no document answers keeps nDCG under 1.
        golden.add_question(self.set, question="zzqx vvplk qwrt", document_ids=[self.documents["passwords"].pk])
        with self.assertRaises(CommandError) as caught:
            call_command("eval", self.kb.slug, "--set", "Help", "--fail-under", "nDCG=1", stdout=StringIO(),
                         stderr=StringIO())
        self.assertEqual(caught.exception.returncode, 3)
        self.assertIn("ndcg@10 = ", str(caught.exception))
        call_command("eval", self.kb.slug, "--fail-under", "nDCG=0", stdout=StringIO(), stderr=StringIO())

    def test_it_refuses_a_limit_out_of_range_before_running(self):
        # Metrics run from 0 to 1: nDCG=1.5 could never pass, a gate that always fails is a typo.
        message = "'ndcg=1.5' is out of range: the metrics run from 0 to 1"
        with self.assertRaisesMessage(CommandError, message) as caught:
            call_command("eval", self.kb.slug, "--fail-under", "ndcg=1.5", stdout=StringIO(), stderr=StringIO())
        self.assertEqual(caught.exception.returncode, 1)
        self.assertFalse(EvalRun.objects.exists())

    def test_it_names_the_sets_when_one_must_be_chosen(self):
        golden.create_golden_set(self.kb, name="Other")
        with self.assertRaisesMessage(CommandError, "has 2 golden sets; name one with --set (Help, Other)"):
            call_command("eval", self.kb.slug, stdout=StringIO())
        with self.assertRaisesMessage(CommandError, "no golden set 'Nope'"):
            call_command("eval", self.kb.slug, "--set", "Nope", stdout=StringIO())


class BenchAgreementTests(TestCase):
    """`bench/retrieval.py` and `manage.py eval` score the same base and questions alike (one metric code)."""

    def test_eval_gives_the_bench_figures_on_a_tydi_slice(self):
        kb = make_kb(embedder="hash")
        with tempfile.TemporaryDirectory() as directory:
            folder, _ = beir_slice(Path(directory) / "tydi", docs=40)
            out = StringIO()
            call_command("import_golden", kb.slug, str(folder), "--set", "TyDi", "--corpus", stdout=out,
                         stderr=StringIO())
            self.assertIn("corpus documents ingested", out.getvalue())
            call_command("eval", kb.slug, stdout=StringIO(), stderr=StringIO())
            sys.path.insert(0, str(BENCH))
            try:
                from common import load_beir
                from retrieval import run_mode
            finally:
                sys.path.remove(str(BENCH))
            dataset = load_beir(folder)
        embedder = get_embedder("hash")
        vectors = {qid: embedder.embed_query(text) for qid, text in dataset.queries.items()}
        doc_ids = {d.pk: d.source_uri.removeprefix("beir:") for d in kb.documents.all()}
        bench = run_mode(kb, dataset, vectors, "hybrid", doc_ids)
        run = EvalRun.objects.get(knowledge_base=kb)
        self.assertEqual(run.questions, len(dataset.queries))
        for name in ("ndcg@10", "recall@10", "mrr@10"):
            self.assertAlmostEqual(run.metrics[name], bench[name], places=4, msg=name)
        self.assertTrue(TYDI.is_dir())
