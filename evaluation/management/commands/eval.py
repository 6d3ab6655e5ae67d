"""manage.py eval <kb-slug> — run a golden set in the foreground; a non-zero exit under the thresholds."""

import json as _json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from evaluation import runs
from evaluation.exceptions import EvaluationError
from evaluation.models import GoldenSet
from knowledge.models import KnowledgeBase

# Exit code when a metric is under its --fail-under limit (1 stays "the command failed").
BELOW_THRESHOLD = 3


class Command(BaseCommand):
    help = "Evaluate a knowledge base on its golden set: nDCG@10, recall@10, MRR, citation [1], refusals, latency."

    def add_arguments(self, parser):
        parser.add_argument("kb_slug")
        parser.add_argument("--set", dest="set_name", help="Golden set name (needed when the base has several).")
        parser.add_argument("--fail-under", default="", metavar="nDCG=0.8,refusal=0.9",
                            help="Exit with code 3 when a metric is under its limit (ndcg, recall, mrr, citation, "
                                 "refusal, refusal_precision, refusal_recall).")
        parser.add_argument("--json", type=Path, help="Write the run's metrics and configuration to this file.")
        parser.add_argument("--label", default="", help="A note stored with the run (e.g. the commit).")
        parser.add_argument("--mode", default="hybrid", choices=["hybrid", "vector", "keyword"])

    def handle(self, *args, kb_slug, set_name, fail_under, json, label, mode, **options):
        kb = KnowledgeBase.objects.filter(slug=kb_slug).first()
        if kb is None:
            raise CommandError(f"No knowledge base with slug {kb_slug!r}")
        try:
            limits = runs.parse_thresholds(fail_under)
            golden_set = self._golden_set(kb, set_name)
            run = runs.create_run(golden_set, label=label)
            runs.evaluate(run, mode=mode, progress=lambda done: self.stderr.write(f"  {done} questions"))
        except EvaluationError as exc:
            raise CommandError(str(exc)) from exc
        self._print(run)
        if json:
            json.write_text(_json.dumps({"run": run.pk, "knowledge_base": kb.slug, "golden_set": golden_set.name,
                                         "questions": run.questions, "metrics": run.metrics, "config": run.config,
                                         "signature": run.signature}, indent=2, ensure_ascii=False))
        if problems := runs.failures(run, limits):
            raise CommandError("Under the thresholds: " + "; ".join(problems), returncode=BELOW_THRESHOLD)

    def _golden_set(self, kb: KnowledgeBase, name: str | None) -> GoldenSet:
        sets = list(kb.golden_sets.order_by("name"))
        if name:
            found = [s for s in sets if s.name == name]
            if not found:
                raise CommandError(f"{kb.slug} has no golden set {name!r}; it has: "
                                   f"{', '.join(s.name for s in sets) or 'none'}")
            return found[0]
        if len(sets) != 1:
            raise CommandError(f"{kb.slug} has {len(sets)} golden sets; name one with --set "
                               f"({', '.join(s.name for s in sets) or 'import or create one first'})")
        return sets[0]

    def _print(self, run) -> None:
        self.stdout.write(f"Evaluation #{run.pk} of {run.golden_set}: {run.questions} questions, "
                          f"configuration {run.signature} ({run.config['embedder']})")
        for name, value in run.metrics.items():
            self.stdout.write(f"  {name:<24} {'–' if value is None else value}")
