"""Running a plan of the intent router, merged with a plain hybrid search so it never does worse.

`plan_and_search(question, kb_ids)` runs the plan's steps through `retrieval.search(layers=…,
filters=…)`. A step whose filters find nothing drops them one by one (`relax`) and says so in the
trace; a step with `expand` loads the C0 source of the symbols its hits name (the handler of a
route), or puts the opening chunks of the section its query names first (a release's notes). Then the
question is searched once more the plain way (hybrid over every layer, derived rows demoted) and the
lists are merged:

1. hits of steps whose filters held (the plan recognised something that exists: a route, a
   symbol, a role) come first, in the plan's order;
2. then the hits of unfiltered steps and the plain hits, fused by reciprocal rank — so a wrong
   guess about the intent ("how does …" asked of code) cannot lose what plain search finds;
3. last, the hits of steps whose specific filter (the name, route or role asked for, see
   `intent.precise_keys`) had to be dropped: they matched nothing specific, even when a broad
   filter such as `edge_type = inherits` is left.

A step ordered by `imported` (what the repository is made of) searches the base's modules that
are imported the most, and keeps them in that order. Within a step, and in the fused list of 2., the
rows of the code's tests come after the others' (callers, importers, readers of a variable, the code a
"how do I" question is about), unless the question asks about tests, when within a step they come
first and the fused list keeps its ranks; a step may prefer some rows (`prefer`: the code's reads of an
environment variable before the documentation's mentions of it).

The trace ends with the plain search and how it was merged.
"""

from collections import Counter
from dataclasses import replace

from django.db.models import Count, Q

from knowledge.indexing.layers.docstrings import described_parameter
from knowledge.models import Chunk, Document
from knowledge.search import answer_kinds, code_names, layer_text, retrieval, secondary
from knowledge.search.intent import plan_question
from knowledge.search.intent_words import LOCATION
from knowledge.search.plans import Plan, Planner, Step, precise_keys
from knowledge.search.vocabulary import load_vocabulary

PLAIN_TOP_K = 8
RRF_K = 10  # a small constant: the first places of each list decide
CHANGELOG_RELEASES = 3  # sections titled with a release a document needs to be a changelog (`_release_heading`)


def plan_and_search(question: str, kb_ids, *, planner: Planner | None = None,
                    vocabulary: dict[str, str] | None = None) -> tuple[Plan, list[retrieval.SearchHit]]:
    """Plan the question, run the plan and a plain search, merge; the plan comes back with its trace."""
    kb_ids = list(kb_ids)
    vocabulary = load_vocabulary(kb_ids) if vocabulary is None else vocabulary
    plan = plan_question(question, vocabulary, planner=planner)
    strong, unfiltered, dropped = [], [], []
    vectors: dict[str, dict] = {}  # query text → its vectors: each text is embedded once per plan
    for step in plan.steps:
        step_vectors = vectors.setdefault(step.query, {})
        found, used = _run_step(step, kb_ids, step_vectors)
        trace = {"layers": step.layers, "filters": used, "hits": len(found)}
        if step.expand == "section":
            found = release_first(step.query, found, kb_ids, step.top_k)
        elif step.expand and found:
            sources = _expand_sources(step, found, kb_ids, step_vectors)
            trace["expanded"] = len(sources)
            found = found + sources
        plan.trace.append(trace)
        if not step.filters:
            unfiltered.extend(found)
        elif any(key in used for key in precise_keys(step)):
            strong.extend(found)
        else:
            dropped.extend(found)
    plain = retrieval.search(question, kb_ids, top_k=PLAIN_TOP_K, mode="hybrid",
                             query_embeddings=vectors.setdefault(question, {}))
    plan.trace.append({"layers": [], "filters": {}, "hits": len(plain), "plain": True,
                       "merge": "after the plan's filtered hits" if strong else "fused with the plan"})
    # A row found by name in a part of the repository the question does not ask about (an example app's settings.py
    # defining CONSTANCE_CONFIG, the setting django-constance documents) comes after the rest, as plain search's do —
    # unless the question asks where it is.
    aside = [] if LOCATION(question) else [hit for hit in strong if secondary.secondary_row(hit, question)]
    strong = [hit for hit in strong if hit not in aside]
    return plan, _unique(strong + _tests_last(question, _fuse(unfiltered, plain)) + aside + dropped)


def _tests_last(question: str, hits: list[retrieval.SearchHit]) -> list[retrieval.SearchHit]:
    """The rows of the code's tests after the others, unless the question asks about tests (then as
    ranked: "How do I test a Flask application?" is answered by the documentation's testing page, not
    by the test suite's apps): a test names what it tests over and over ("schedule" in every line of
    test_scheduler.py), and outranks the code a question asks how to use. So do the rows of a
    repository's example apps, unless the question asks for an example, those of a changelog, unless it
    asks about a release or a change, and for a how-to those of private code it does not name
    (`secondary.secondary_row`)."""
    return sorted(hits, key=lambda hit: secondary.secondary_row(hit, question))


def _fuse(first: list[retrieval.SearchHit], second: list[retrieval.SearchHit]) -> list[retrieval.SearchHit]:
    """Reciprocal-rank fusion of two lists; on a tie the first list's hit leads."""
    scores: dict[int, float] = {}
    hits: dict[int, retrieval.SearchHit] = {}
    for order, ranked in enumerate((first, second)):
        for rank, hit in enumerate(_unique(ranked), start=1):
            scores[hit.chunk_id] = scores.get(hit.chunk_id, 0.0) + 1.0 / (RRF_K + rank) - order * 1e-9
            hits.setdefault(hit.chunk_id, hit)
    return [hits[chunk_id] for chunk_id in sorted(scores, key=lambda chunk_id: -scores[chunk_id])]


def _unique(hits: list[retrieval.SearchHit]) -> list[retrieval.SearchHit]:
    seen, kept = set(), []
    for hit in hits:
        if hit.chunk_id not in seen:
            seen.add(hit.chunk_id)
            kept.append(hit)
    return kept


def _run_step(step: Step, kb_ids: list[int], vectors: dict) -> tuple[list[retrieval.SearchHit], dict]:
    filters = dict(step.filters)
    relax = list(step.relax)
    order = _most_imported(kb_ids, step.top_k) if step.order == "imported" else []
    if order:
        filters["qname"] = order
    tests_first = bool(secondary.TESTS_ASKED.search(step.query))
    # Of an unfiltered step, the rows the question does not ask about (tests, example apps, changelogs,
    # `secondary`) go last: searched as deep again twice, so the rows they would have crowded out come
    # first ("How do I make a class frozen?" found six of attrs' tests and benchmarks, and not its
    # documentation's "Immutability"; "… with one field changed?" its changelog's sections).
    deeper = step.top_k if filters else 3 * step.top_k
    while True:
        hits = retrieval.search(step.query, kb_ids, top_k=deeper, mode=step.mode, layers=step.layers,
                                filters=filters or None, query_embeddings=vectors)
        if not filters:
            hits = _past_secondary_documents(step, kb_ids, vectors, hits)
        if order:
            hits.sort(key=lambda hit: order.index(hit.metadata.get("qname")) if hit.metadata.get("qname") in order
                      else len(order))
        # Stable sorts: the ranks are kept within each group.
        hits.sort(key=lambda hit: secondary.secondary_row(hit, step.query))
        hits.sort(key=lambda hit: bool(hit.metadata.get("is_test")) != tests_first)
        hits.sort(key=lambda hit: any(hit.metadata.get(key) != value for key, value in step.prefer.items()))
        hits = hits[:step.top_k]
        if hits or not relax:
            return hits, filters
        entry = relax.pop(0)
        if isinstance(entry, dict):  # another filter in the dropped one's place (a bare name)
            filters.update({key: value for key, value in entry.items() if value is not None})
            for key in [key for key, value in entry.items() if value is None]:
                filters.pop(key, None)
            continue
        old, _, new = entry.partition("->")
        value = filters.pop(old, None)
        if new and value is not None:
            filters[new] = value


def _past_secondary_documents(step: Step, kb_ids: list[int], vectors: dict,
                              hits: list[retrieval.SearchHit]) -> list[retrieval.SearchHit]:
    """`hits` and, when documents the question does not ask about (a changelog, tests: `secondary`) left
    fewer than the step's others, the step searched again without those documents, after them: a long
    changelog can fill a search three times as deep ("How do I change the locale?" found forty release
    notes on locales before the README's "I18n")."""
    crowding = {hit.document_id for hit in hits if secondary.secondary_document(hit, step.query)}
    if not crowding or len(hits) - sum(hit.document_id in crowding for hit in hits) >= step.top_k:
        return hits
    more = retrieval.search(step.query, kb_ids, top_k=step.top_k, mode=step.mode, layers=step.layers,
                            without_documents=sorted(crowding), query_embeddings=vectors)
    return _unique(hits + more)


def _most_imported(kb_ids: list[int], limit: int) -> list[str]:
    """The bases' modules (tests left out) that the most import edges lead to, most first. An edge counts
    for the module it imports from and for each package above it (`app.db.engine` for `app.db` and
    `app`): a package is as central as its modules together. On a tie, the package first."""
    modules = set(Chunk.objects.filter(knowledge_base_id__in=kb_ids, layer="C1", metadata__kind="module",
                                       metadata__is_test=False).values_list("metadata__qname", flat=True))
    counts: Counter = Counter()
    edges = (Chunk.objects.filter(knowledge_base_id__in=kb_ids, layer="C2", metadata__edge_type="imports")
             .values("metadata__dst_ref").annotate(n=Count("id")).values_list("metadata__dst_ref", "n"))
    for target, n in edges:
        parts = (target or "").split(".")
        for end in range(1, len(parts) + 1):
            if ".".join(parts[:end]) in modules:
                counts[".".join(parts[:end])] += n
    return sorted(modules, key=lambda module: (-counts[module], module.count("."), module))[:limit]


def release_first(query: str, hits: list[retrieval.SearchHit], kb_ids, top_k: int) -> list[retrieval.SearchHit]:
    """The hits with the opening chunks of the section of the release `query` names by its number first, in
    their document's order: a hit's section, else the first section of the bases titled with its number —
    search ranked Flask's "Version 2.2.0" under 0.2's and 2.2.2's for "What changed in Flask 2.2?", when it
    found it at all. A long release's notes span chunks, and its number is in every one ("What changed in
    4.0.0?" quoted the notes of the section's second chunk first)."""
    asked = answer_kinds.asked_versions(query)
    if not asked:
        return hits
    # Its notes are documentation: the index's row for a link they hold (D6) sits in the section too. The section
    # its heading names first (a release notes page's opening, "Release Notes for v.3.0"), else one of its parts.
    sections = [hit for hit in hits if hit.layer == "D0" and answer_kinds.release_section(hit, asked)]
    named = next((hit for hit in sections if answer_kinds.release_path(hit.section_path) == hit.section_path),
                 next(iter(sections), None))
    if named is None and not (named := _release_heading(kb_ids, asked)):
        return hits
    chunks = Chunk.objects.filter(document_id=named.document_id, layer=named.layer, enabled=True)
    fields = ("id", "content", "page", "metadata", "section_path", "position")
    # A part of the release ("Release Notes for v.3.0 > Backwards-incompatible changes"): its opening first — its
    # heading's own text, else its first parts (marshmallow's "Upgrading to 4.0" opens with "Field as a generic
    # class", not with "TimeDelta changes" found for "What changed in marshmallow 4?").
    def section(path: str) -> list[tuple]:
        within = chunks.filter(Q(section_path=path) | Q(section_path__startswith=f"{path} > "))
        return list(within.order_by("position").values_list(*fields)[:top_k])

    rows = section(answer_kinds.release_path(named.section_path) or named.section_path) or section(named.section_path)
    # The chunker joins short sections: the release's heading and first notes may end the chunk before.
    before = list(chunks.filter(position=rows[0][-1] - 1).values_list(*fields)) if rows else []
    if before and answer_kinds.release_text(before[0][1], asked) is not None:
        rows = (before + rows)[:top_k]
    opening = [replace(named, chunk_id=chunk_id, content=content, snippet=retrieval.excerpt(content), page=page,
                       metadata=metadata, section_path=path) for chunk_id, content, page, metadata, path, _ in rows]
    return opening + [hit for hit in hits if hit.chunk_id not in {chunk.chunk_id for chunk in opening}]


# Sections of documentation searched by the name of an option a question asks about, when no hit documents it.
OPTION_SEARCH_SECTIONS = 10


def option_entry_first(query: str, hits: list[retrieval.SearchHit], kb_ids, top_k: int) -> list[retrieval.SearchHit]:
    """The hits with the first section of documentation that has an entry of the option `query` names
    (`code_names.named_options`, `code_names.has_entry`: a list item, a table's row or a heading) or of a name it
    writes as code that no hit is the symbol of — or the code whose docstring documents it as a parameter
    (`docstrings.described_parameter`) — or of a symbol it writes as a word of its own (`code_names.written_symbols`:
    a syntax table's row, `code_names.has_symbol_entry`), first — of the hits, else found by the name among the bases'
    documentation, then their code (keyword search), or among the sections of the documents found writing the
    symbol as code (full-text search reads no symbol); else a section opening with a sentence writing the symbol as
    code (`code_names.opens_with_symbol`). The code says the name more often than the one line documenting it:
    picomatch's source came before its README's options table for "What does the nocase option do?", "What is the
    default value of the dot option?" found no part of it, and structlog's "What does cache_logger_on_first_use do?"
    the end of `configure()`, "if cache_logger_on_first_use is not None:", not its docstring's "Args:" entry;
    "What does ** match?" found its globbing table fourth, past what an extract reads, and path-to-regexp's "What
    does * mean in a path?" its section "Zero or more" not at all."""
    options, symbols = code_names.named_options(query), code_names.written_symbols(query)
    # (Asked where a name is defined, the code's the answer, not its documentation's entry: django-ninja's "Where is
    # the class PatchDict defined?", a class declared under `if TYPE_CHECKING:` that no symbol's row is of.)
    options += [name for name in code_names.names_written_as_code(query)
                if name not in options and not LOCATION(query) and not any(_is_symbol(hit, name) for hit in hits)]
    if not options and not symbols:
        return hits

    # "the minimum_unit argument of precisedelta": another function's docstring documenting a parameter of that name
    # (humanize's `naturaldelta`) is of another parameter.
    owner = code_names.parameter_owner(query)

    def documents(hit: retrieval.SearchHit) -> bool:
        text = hit.content or ""
        if secondary.secondary_row(hit, query):  # a changelog's "- `Nested` field no longer …" is no entry of it
            return False
        if (hit.layer or "").startswith("C"):
            return hit.layer == "C0" and described_parameter(text, options) is not None and _of_owner(hit, owner)
        if not layer_text.is_prose(hit):  # an index's row restating the section ("`debug` mentions DEBUG_DEPTH")
            return False
        return (any(code_names.has_entry(text, name) for name in options)
                or any(code_names.has_symbol_entry(text, symbol) for symbol in symbols))

    marks = code_names.asked_marks(query)  # (a section may open with a file's name, a price "$50" is no subject)

    def opens(hit: retrieval.SearchHit) -> bool:
        return not (hit.layer or "").startswith("C") and any(
            code_names.opens_with_symbol(hit.content or "", symbol) for symbol in marks)

    at = next((index for index, hit in enumerate(hits) if documents(hit)), None)
    if at is not None:
        return retrieval.renumbered([hits[at], *hits[:at], *hits[at + 1:]])
    if options:  # the documentation's entries before a docstring's
        # (Not a changelog's sections, which name an option in every release touching it: cachetools' "What does the
        # typed parameter do?" found ten releases' notes.)
        found = [hit for hit in _named_sections(options, kb_ids, "D0", OPTION_SEARCH_SECTIONS * 3)
                 if not secondary.secondary_row(hit, query)][:OPTION_SEARCH_SECTIONS]
        if not any(documents(hit) for hit in found):
            # Keyword search reads "RENDER_PANELS" as "render panels", in every section on panels: the documents found
            # writing it, as their index's rows do ("Configuration mentions RENDER_PANELS …"), are read for it.
            found += _sections_writing(set(options), {hit.document_id for hit in hits
                                                      if not (hit.layer or "").startswith("C")})
        if not any(documents(hit) for hit in found):
            found += _named_sections(options, kb_ids, "C0")
    else:  # a symbol's row in another section of the documents found ("*" and "?" rows of the table "**" is in)
        found = _sections_writing(symbols, {hit.document_id for hit in hits if not (hit.layer or "").startswith("C")})
    # (An entry before a section opening with the symbol: a table's row says what it is, a section may only use it.)
    # (And, where no entry is, a section saying what the option is in a sentence calling it one: "If the optional
    # argument `typed` is set to True, …" for "What does the typed parameter do?"; else a docstring's paragraph
    # writing its name as code: "`None` values are replaced with a `missingval` string …", the third chunk of
    # `tabulate()`, for "What does the missingval argument do?".)
    entry = next((hit for hit in found if documents(hit)), None) or next(
        (hit for hit in [*hits, *found] if opens(hit)), None) or next(
        (hit for hit in [*hits, *found] if not secondary.secondary_row(hit, query) and _of_owner(hit, owner)
         and layer_text.describes_option(hit, options, query)), None)
    if entry is None:
        return hits
    return retrieval.renumbered([entry, *[hit for hit in hits if hit.chunk_id != entry.chunk_id]][:top_k])


def _of_owner(hit: retrieval.SearchHit, owner: str) -> bool:
    """Whether a row of code is of the symbol a question names as a parameter's owner (any row, when it names none;
    prose always)."""
    qname = str((hit.metadata or {}).get("qname") or "")
    return not owner or not (hit.layer or "").startswith("C") or qname.rsplit(".", 1)[-1] == owner.rsplit(".", 1)[-1]


def _named_sections(names: list[str], kb_ids, layer: str,
                    top_k: int = OPTION_SEARCH_SECTIONS) -> list[retrieval.SearchHit]:
    """The first `top_k` chunks of `layer` keyword search finds by `names`."""
    return retrieval.retrieve(" ".join(names), kb_ids, top_k=top_k, mode="keyword", layers=[layer]).hits


def _is_symbol(hit: retrieval.SearchHit, name: str) -> bool:
    """Whether `hit` is the code or the row of a symbol called `name` (a function, a class, a module) that says what
    it is: a row without a docstring (django-cors-headers' `Settings.CORS_ALLOWED_ORIGINS`, a property reading the
    setting) leaves it to the documentation's entry."""
    meta = hit.metadata or {}
    return meta.get("qname", "").rsplit(".", 1)[-1] == name and (hit.layer != "C1" or bool(meta.get("docstring")))


def _sections_writing(symbols: set[str], document_ids: set[int]) -> list[retrieval.SearchHit]:
    """The first OPTION_SEARCH_SECTIONS documentation chunks of the documents that write one of `symbols`."""
    written = Q()
    for symbol in symbols:  # (marks alone as code: "*" is in every other section; a name as it is, ":status")
        written |= Q(content__contains=f"`{symbol}`" if code_names.is_marks(symbol) else symbol)
    chunks = (Chunk.objects.filter(written, document_id__in=document_ids, layer="D0", enabled=True)
              .order_by("document_id", "position").values_list("id", flat=True)[:OPTION_SEARCH_SECTIONS])
    return retrieval.hits_of(list(chunks)) if document_ids else []


def _release_heading(kb_ids, asked: set[str]) -> retrieval.SearchHit | None:
    """The first chunk of the bases' changelogs in a section titled with an asked release ("Version 2.2.0"). A
    changelog titles its sections with releases, CHANGELOG_RELEASES at least: a guide's "Python 3.8" section is
    no release."""
    titled = Q()
    for version in asked:
        titled |= Q(section_path__icontains=version.removesuffix(".0"))  # "2.2" also finds "Version 2.2"
    rows = (Chunk.objects.filter(titled, layer="D0", knowledge_base_id__in=kb_ids, enabled=True,
                                 document__enabled=True, document__status=Document.Status.READY)
            .order_by("document_id", "position").values_list("id", "document_id", "section_path"))
    checked: dict[int, bool] = {}  # document id → whether it is a changelog, asked once per document
    for chunk_id, document_id, path in rows.iterator():
        # (Of its headings, the release's may be over the one of its part: inflect's "v7.0.0 > Features".)
        if not any(asked & answer_kinds.versions(heading) for heading in path.split(">")):
            continue
        if document_id not in checked:
            checked[document_id] = _is_changelog(document_id)
        if checked[document_id]:
            return retrieval.hits_of([chunk_id])[0]
    return None


def _is_changelog(document_id: int) -> bool:
    titles = Chunk.objects.filter(document_id=document_id).values_list("section_path", flat=True).distinct()
    releases = {heading.strip() for path in titles for heading in path.split(">") if answer_kinds.versions(heading)}
    return len(releases) >= CHANGELOG_RELEASES


def _expand_sources(step: Step, hits: list[retrieval.SearchHit], kb_ids: list[int],
                    vectors: dict) -> list[retrieval.SearchHit]:
    """C0 chunks of the handler, symbol or calling function each hit names."""
    names = []
    for hit in hits:
        meta = hit.metadata or {}
        name = meta.get("handler_symbol") or meta.get("src_qname" if hit.layer == "C2" else "qname")
        if name and name not in names:
            names.append(name)
    if not names:
        return []
    return retrieval.search(step.query, kb_ids, top_k=max(3, len(names)), mode="hybrid", layers=["C0"],
                            filters={"qname": names}, query_embeddings=vectors)
