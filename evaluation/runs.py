"""Evaluation runs: a golden set asked of its knowledge base, scored, and stored with the configuration.

Each confirmed question is embedded once and searched the way the product searches (hybrid,
`retrieval.retrieve` with the product's settings). Documents are ranked by their best chunk and
scored with `evaluation.metrics` (the code `bench/retrieval.py` uses). The answer side is judged
without a generator: the first `ANSWER_SOURCES` hits are what `answers.answer` would be given, so
its own rule (`answers.judge`: confidence, a clearly matching FAQ entry first) decides refusal, and
"citation [1] correct" asks whether the first source (what the answer cites as [1]) is an expected
document.

Aggregates: nDCG@10, recall@10 and MRR@10 over questions with expected documents; citation@1
over those answered; refusal precision and recall over "should refuse" questions; latency p50/p95
of the search (query embedding included).
"""

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from django.conf import settings
from django.db.models import Prefetch
from django.utils import timezone
from django.utils.translation import gettext

from evaluation.exceptions import EmptyGoldenSetError, EvaluationError
from evaluation.metrics import K, ranked_documents, score_ranking
from evaluation.models import EvalResult, EvalRun, ExpectedSource, GoldenQuestion, GoldenSet
from knowledge.indexing.embedding import get_embedder
from knowledge.models import Job, KnowledgeBase
from knowledge.search import answers, retrieval
from portal.jobs import enqueue

ANSWER_SOURCES = 6  # answers.answer's default top_k
TOP_HITS_KEPT = 3
SAVE_BATCH = 500
FUSION_SETTINGS = ("FUSION", "FUSION_ALPHA", "RRF_K", "SEARCH_CANDIDATES", "KEYWORD_CANDIDATES",
                   "KEYWORD_FALLBACK_RELEVANCE", "FALLBACK_VECTOR_WEIGHT", "HNSW_EF_SEARCH")
# Names accepted by --fail-under, and the metrics each checks.
THRESHOLD_NAMES = {"ndcg": ["ndcg@10"], "recall": ["recall@10"], "mrr": ["mrr@10"], "citation": ["citation@1"],
                   "refusal": ["refusal_precision", "refusal_recall"],
                   "refusal_precision": ["refusal_precision"], "refusal_recall": ["refusal_recall"]}


def configuration(kb: KnowledgeBase, mode: str = "hybrid") -> dict:
    """What a run measured: embedder, chunking, language, fusion and answer settings, and the search
    mode when it is not the default (so a keyword run is never compared as if it were a hybrid one,
    and hybrid runs keep the signature they always had)."""
    return {
        "embedder": kb.embedder, "embedding_dim": kb.embedding_dim, "chunking": kb.chunking,
        "text_search_config": kb.text_search_config,
        "fusion": {name.lower(): retrieval.setting(name) for name in FUSION_SETTINGS},
        "reranker": settings.PORTAL.get("RERANKER") or "",
        "answer_threshold": answers.answer_threshold(),
        **({"mode": mode} if mode != "hybrid" else {}),
    }


def signature(config: dict) -> str:
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:16]


def create_run(golden_set: GoldenSet, *, label: str = "", user=None, job: Job | None = None) -> EvalRun:
    if not golden_set.questions.filter(status=GoldenQuestion.Status.CONFIRMED).exists():
        raise EmptyGoldenSetError(gettext("%(set)s has no confirmed question to evaluate") % {"set": golden_set})
    return EvalRun.objects.create(golden_set=golden_set, knowledge_base_id=golden_set.knowledge_base_id,
                                  label=label, created_by=user, job=job)


def start_evaluation(golden_set: GoldenSet, *, label: str = "", user=None) -> EvalRun:
    """Queue a run of the golden set as a background job."""
    job = Job(kind=Job.Kind.EVALUATE, knowledge_base_id=golden_set.knowledge_base_id, created_by=user,
              options={"golden_set_id": golden_set.pk})
    run = create_run(golden_set, label=label, user=user)
    job.progress_total = golden_set.questions.filter(status=GoldenQuestion.Status.CONFIRMED).count()
    job.save()
    job.options["run_id"] = run.pk
    job.save(update_fields=["options"])
    run.job = job
    run.save(update_fields=["job"])
    enqueue(job)
    return run


@dataclass
class _Totals:
    ranked: int = 0
    ndcg: float = 0.0
    recall: float = 0.0
    mrr: float = 0.0
    answered_positive: int = 0
    cited_correct: int = 0
    should_refuse: int = 0
    refused: int = 0
    refused_rightly: int = 0

    def add(self, result: EvalResult) -> None:
        if result.ndcg is not None:
            self.ranked += 1
            self.ndcg, self.recall = self.ndcg + result.ndcg, self.recall + result.recall
            self.mrr += result.reciprocal_rank
        if result.citation_correct is not None:
            self.answered_positive += 1
            self.cited_correct += result.citation_correct
        self.should_refuse += result.should_refuse
        self.refused += result.refused
        self.refused_rightly += result.refused and result.should_refuse


def evaluate(run: EvalRun, *, mode: str = "hybrid", progress: Callable[[int], None] | None = None,
             search_base: KnowledgeBase | None = None, document_map: dict[int, int] | None = None) -> EvalRun:
    """Ask every confirmed question of the run's golden set, store each result and the aggregates.

    With `search_base` (a shadow version) the questions are searched there, and `document_map`
    takes its document ids back to the base's, which the expected documents name.
    """
    kb = search_base or run.knowledge_base
    run.searched_base = search_base
    run.config = configuration(kb, mode)
    run.signature = signature(run.config)
    run.results.all().delete()  # a redelivered job starts over
    questions = (run.golden_set.questions.filter(status=GoldenQuestion.Status.CONFIRMED).order_by("pk")
                 .prefetch_related(Prefetch("expected", ExpectedSource.objects.only("question_id", "document_id",
                                                                                    "relevance"))))
    embedder, totals, latencies, pending, done = get_embedder(kb.embedder), _Totals(), [], [], 0
    for question in questions.iterator(chunk_size=SAVE_BATCH):
        result = ask(kb, embedder, question, mode=mode, document_map=document_map)
        result.run = run
        totals.add(result)
        latencies.append(result.latency_ms)
        pending.append(result)
        done += 1
        if len(pending) >= SAVE_BATCH:
            EvalResult.objects.bulk_create(pending)
            pending = []
            if progress:
                progress(done)
    EvalResult.objects.bulk_create(pending)
    if progress:
        progress(done)
    if not done:
        raise EmptyGoldenSetError(gettext("%(set)s has no confirmed question to evaluate") % {"set": run.golden_set})
    run.questions, run.metrics, run.finished_at = done, _aggregate(totals, latencies), timezone.now()
    run.save(update_fields=["searched_base", "config", "signature", "questions", "metrics", "finished_at"])
    return run


def ask(kb: KnowledgeBase, embedder, question: GoldenQuestion, *, mode: str = "hybrid",
        document_map: dict[int, int] | None = None) -> EvalResult:
    """One question searched and judged (unsaved result)."""
    started = time.perf_counter()
    vector = embedder.embed_query(question.question) if mode != "keyword" else None
    found = retrieval.retrieve(question.question, [kb.pk], top_k=3 * K, mode=mode,
                               query_embeddings={kb.embedder: vector} if vector is not None else None)
    latency = (time.perf_counter() - started) * 1000
    if document_map:  # a shadow's copies count as the base's documents
        for hit in found.hits:
            hit.document_id = document_map.get(hit.document_id, hit.document_id)
    # A deleted expected document stays relevant under a key no hit can have: the question scores 0.
    relevant = {item.document_id or f"deleted:{item.pk}": item.relevance for item in question.expected.all()}
    judged = _judged(question.question, kb, found, vector)
    result = EvalResult(question=question, question_text=question.question, should_refuse=question.should_refuse,
                        latency_ms=round(latency, 2), refused=judged.refusal is not None)
    if relevant:
        scores = score_ranking(ranked_documents(found.hits), relevant)
        result.ndcg, result.recall, result.reciprocal_rank = scores["ndcg@10"], scores["recall@10"], scores["mrr@10"]
        if not result.refused:
            # [1] of the answer: a clearly matching FAQ entry comes first, else the best hit.
            result.citation_correct = judged.sources[0].document_id in relevant
    seen, top = set(), []
    for hit in found.hits:
        if hit.document_id not in seen and len(top) < TOP_HITS_KEPT:
            seen.add(hit.document_id)
            top.append({"document_id": hit.document_id, "title": hit.document_title[:200],
                        "relevant": hit.document_id in relevant})
    result.top_hits = top
    return result


def _judged(question: str, kb: KnowledgeBase, found: retrieval.Retrieval, vector) -> answers.Grounding:
    """What `answers.answer` would decide given the first ANSWER_SOURCES of these hits (its own rule, `judge`):
    the sources in the order it cites them, and its refusal if it refuses."""
    hits = [replace(hit) for hit in found.hits[:ANSWER_SOURCES]]  # judging may re-rank them
    floor = retrieval.setting("KEYWORD_FALLBACK_RELEVANCE")
    relevant = sum(1 for hit in hits if (retrieval.relevance(hit.similarity, kb) or 0.0) >= floor)
    view = retrieval.Retrieval(hits, found.best_similarity, found.keyword_fallback_used, found.timings,
                               found.best_relevance, found.mode, relevant)
    embeddings = {kb.embedder: vector} if vector is not None else None
    return answers.judge(question, view, query_embeddings=embeddings)


def _aggregate(totals: _Totals, latencies: list[float]) -> dict:
    def share(part: int, whole: int) -> float | None:
        return round(part / whole, 4) if whole else None

    return {
        "ndcg@10": share(totals.ndcg, totals.ranked), "recall@10": share(totals.recall, totals.ranked),
        "mrr@10": share(totals.mrr, totals.ranked),
        "citation@1": share(totals.cited_correct, totals.answered_positive),
        "refusal_precision": share(totals.refused_rightly, totals.refused),
        "refusal_recall": share(totals.refused_rightly, totals.should_refuse),
        "latency_p50_ms": round(float(np.percentile(latencies, 50)), 2),
        "latency_p95_ms": round(float(np.percentile(latencies, 95)), 2),
        "ranked_questions": totals.ranked, "should_refuse_questions": totals.should_refuse,
    }


def run_job(job: Job) -> None:
    """The body of an evaluation job: evaluate the job's run with progress on the job (a retry takes it over)."""
    run = EvalRun.objects.select_related("golden_set", "knowledge_base").get(pk=job.options["run_id"])
    if run.job_id != job.pk:
        EvalRun.objects.filter(job=job).exclude(pk=run.pk).update(job=None)
        run.job = job
        run.save(update_fields=["job"])
    evaluate(run, progress=lambda done: job.record(done=done))


# --- Thresholds (the release gate) --------------------------------------------------------------------

def parse_thresholds(text: str) -> dict[str, float]:
    """`nDCG=0.8,refusal=0.9` → {"ndcg@10": 0.8, "refusal_precision": 0.9, "refusal_recall": 0.9}; each limit
    between 0 and 1."""
    limits = {}
    for part in filter(None, (item.strip() for item in (text or "").split(","))):
        name, _, value = part.partition("=")
        metrics = THRESHOLD_NAMES.get(name.strip().lower().removesuffix("@10").removesuffix("@1"))
        if metrics is None:
            raise EvaluationError(gettext("Unknown metric %(name)s in thresholds; use %(names)s")
                                  % {"name": repr(name), "names": ", ".join(THRESHOLD_NAMES)})
        try:
            limit = float(value)
        except ValueError:
            raise EvaluationError(gettext("Threshold %(threshold)s needs a number, e.g. nDCG=0.8")
                                  % {"threshold": repr(part)}) from None
        if not 0 <= limit <= 1:  # also NaN; a limit above 1 could never be met, one below 0 never missed
            raise EvaluationError(gettext("Threshold %(threshold)s is out of range: the metrics run from 0 to 1, "
                                          "e.g. nDCG=0.8") % {"threshold": repr(part)})
        limits.update(dict.fromkeys(metrics, limit))
    return limits


def failures(run: EvalRun, limits: dict[str, float]) -> list[str]:
    """The metrics of the run under their limits, as readable lines (a metric with no data fails too)."""
    lines = []
    for name, limit in limits.items():
        value = run.metrics.get(name)
        if value is None:
            lines.append(gettext("%(metric)s: no questions to measure it (limit %(limit)s)")
                         % {"metric": name, "limit": limit})
        elif value < limit:
            lines.append(f"{name} = {value:.4f} < {limit}")
    return lines


# --- Comparing runs ------------------------------------------------------------------------------------

@dataclass
class QuestionChange:
    question: str
    before: EvalResult
    after: EvalResult

    @property
    def delta(self) -> float:
        return (self.after.ndcg or 0.0) - (self.before.ndcg or 0.0)

    @property
    def refusal_changed(self) -> bool:
        return self.before.refused != self.after.refused


def compare_runs(before: EvalRun, after: EvalRun) -> tuple[list[QuestionChange], list[QuestionChange]]:
    """Questions that got better and worse from `before` to `after` (by nDCG, or a refusal turned right/wrong)."""
    if before.golden_set_id != after.golden_set_id:
        raise EvaluationError(gettext("Only runs of one golden set can be compared"))
    old = {result.question_text: result for result in before.results.all()}
    better, worse = [], []
    for result in after.results.order_by("pk"):
        previous = old.get(result.question_text)
        if previous is None:
            continue
        change = QuestionChange(result.question_text, previous, result)
        right_before = previous.refused == previous.should_refuse
        right_after = result.refused == result.should_refuse
        if change.delta > 1e-9 or (not right_before and right_after):
            better.append(change)
        elif change.delta < -1e-9 or (right_before and not right_after):
            worse.append(change)
    better.sort(key=lambda c: -c.delta)
    worse.sort(key=lambda c: c.delta)
    return better, worse
