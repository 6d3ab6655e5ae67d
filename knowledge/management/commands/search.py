"""manage.py search <kb-slug>[,<kb-slug>…] "question" [--mode --top-k --answer] — try retrieval from a shell."""

import html
import re

from django.core.management.base import BaseCommand, CommandError

from knowledge.exceptions import KnowledgeError
from knowledge.models import KnowledgeBase
from knowledge.search import answers, retrieval

_MARK = re.compile(r"</?mark>")


class Command(BaseCommand):
    help = "Search one or more knowledge bases (comma-separated slugs) and print the hits, or a grounded answer."

    def add_arguments(self, parser):
        parser.add_argument("kb_slugs", help="slug, or several separated by commas")
        parser.add_argument("question")
        parser.add_argument("--mode", choices=list(retrieval.MODES), default="hybrid")
        parser.add_argument("--top-k", type=int, default=6)
        parser.add_argument("--layer", action="append", dest="layers", help="only this layer (repeatable)")
        parser.add_argument("--ef-search", type=int, help="HNSW ef_search for this query")
        parser.add_argument("--answer", action="store_true", help="write a grounded answer with citations")
        parser.add_argument("--threshold", type=float, help="confidence threshold for --answer")

    def handle(self, *args, kb_slugs, question, mode, top_k, layers, ef_search, answer, threshold, **options):
        slugs = [slug.strip() for slug in kb_slugs.split(",") if slug.strip()]
        kbs = {kb.slug: kb.pk for kb in KnowledgeBase.objects.filter(slug__in=slugs)}
        missing = [slug for slug in slugs if slug not in kbs]
        if missing:
            raise CommandError(f"No knowledge base with slug {', '.join(map(repr, missing))}")
        try:
            if answer:
                self.print_answer(answers.answer(question, list(kbs.values()), top_k=top_k, threshold=threshold,
                                                 mode=mode, layers=layers))
            else:
                self.print_hits(retrieval.retrieve(question, list(kbs.values()), top_k=top_k, mode=mode,
                                                   layers=layers, ef_search=ef_search))
        except KnowledgeError as exc:
            raise CommandError(str(exc)) from exc

    def print_hits(self, result: retrieval.Retrieval) -> None:
        if not result.hits:
            self.stdout.write("No results.")
        for hit in result.hits:
            self.write_hit(f"{hit.rank}.", hit)
        similarity = "–" if result.best_similarity is None else f"{result.best_similarity:.3f}"
        fallback = ", keyword fallback used" if result.keyword_fallback_used else ""
        self.stdout.write(f"\n{result.mode}: best similarity {similarity}{fallback}; "
                          f"{result.timings.get('total', 0):.0f} ms")

    def write_hit(self, label: str, hit: retrieval.SearchHit) -> None:
        where = " · ".join(part for part in (hit.section_path, f"p. {hit.page}" if hit.page else "", hit.source_uri)
                           if part)
        distance = "" if hit.distance is None else f" distance {hit.distance:.3f}"
        self.stdout.write(self.style.SUCCESS(f"{label} {hit.document_title}") + f"  [{', '.join(hit.retrievers)}]"
                          f" score {hit.score:.4f}{distance}")
        if where:
            self.stdout.write(f"   {where}")
        # Terminal output: highlighted words in *stars*, HTML entities decoded.
        self.stdout.write("   " + html.unescape(_MARK.sub("*", hit.snippet)) + "\n")

    def print_answer(self, result: answers.Answer) -> None:
        style = self.style.WARNING if result.refused else self.style.SUCCESS
        self.stdout.write(style(result.text) + "\n")
        self.stdout.write(f"confidence {result.confidence:.2f}; reasons: {', '.join(result.reasons) or 'none'}; "
                          f"generator: {result.generator or 'none (refused)'}")
        if result.error:
            self.stdout.write(self.style.ERROR(f"generator error: {result.error}"))
        if result.dropped_markers:
            self.stdout.write(f"dropped markers: {result.dropped_markers}")
        if result.unmentioned:
            self.stdout.write(f"never mentioned in the bases: {', '.join(result.unmentioned)}")
        cited = {citation.number for citation in result.citations}
        if result.sources:
            self.stdout.write("\nSources:")
        for number, hit in enumerate(result.sources, start=1):
            self.write_hit(f"[{number}]{'*' if number in cited else ''}", hit)
