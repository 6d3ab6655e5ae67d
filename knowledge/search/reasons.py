"""Why an answer was refused or its confidence lowered, in words: the reason codes of `answers` as the
sentences people read (the playground, the ticket trace, the auto-reply decision), and the built-in
refusal. The English strings are the catalogue's msgids; `locale/ru` has them in Russian."""

from collections.abc import Sequence

from django.utils.translation import gettext, gettext_noop

from portal.languages import detect_language, translate

DEFAULT_REFUSAL = gettext_noop(
    "I could not find this in the knowledge base, so I would rather not guess. A colleague will follow up.")


# Each reason code as a sentence people read.
REASON_SENTENCES = {
    "no_hits": gettext_noop("Nothing in the knowledge bases matches the question."),
    "low_top_score": gettext_noop("The closest source is only loosely related to the question."),
    "single_source": gettext_noop("Only one source supports the answer."),
    "keyword_fallback_used": gettext_noop("The sources were found by matching words, not by meaning."),
    "no_vector_scores": gettext_noop("The sources were found by keywords alone, so how close they are is unknown."),
    "below_threshold": gettext_noop("The sources do not support an answer well enough, so none was written."),
    "no_shared_words": gettext_noop(
        "No word of the question occurs in the sources: an extract of them would be a guess."),
    "unmentioned_name": gettext_noop(
        "The question names something the knowledge base never mentions: an extract of other sources would not "
        "answer it."),
    "generator_failed": gettext_noop("The language model failed; the draft is an extract of the sources."),
    "dropped_markers": gettext_noop("The draft cited sources that do not exist; those citations were removed."),
    "no_citations": gettext_noop("The draft cites no source."),
    "no_close_sentence": gettext_noop(
        "No sentence of the sources comes close in meaning to the question: an extract of them would not answer it."),
    "common_words_only": gettext_noop(
        "The extract shares only words most of the knowledge base uses with the question, none of what it asks "
        "about: it would answer another question."),
    "symbol_unsaid": gettext_noop(
        "The question asks about a symbol that no sentence of the extract writes: it would answer another question."),
    "nothing_to_quote": gettext_noop(
        "No sentence of the sources answers the question (only headings, lists of topics or fragments matched)."),
    "outgoing_flagged": gettext_noop(
        "The answer or its sources hold text that must be read before it goes out (instructions, contacts or "
        "requests for credentials)."),
}

# `unmentioned_name` with the names it found, each quoted as the language quotes.
UNMENTIONED_NAMED = gettext_noop(
    "The question names %(names)s, which the knowledge base never mentions: an extract of other sources would not "
    "answer it.")
QUOTED = gettext_noop("“%(name)s”")


def reason_sentences(reasons: list[str], language: str | None = None, *,
                     unmentioned: Sequence[str] = ()) -> list[str]:
    """The reason codes as sentences in `language` (default: the active one); unknown codes as they are.
    `unmentioned`: the names of `unmentioned_name` (`Answer.unmentioned`), said in its sentence."""
    def said(message: str) -> str:
        return translate(message, language) if language else gettext(message)

    def sentence(code: str) -> str:
        if code == "unmentioned_name" and unmentioned:
            names = ", ".join(said(QUOTED) % {"name": name} for name in unmentioned)
            return said(UNMENTIONED_NAMED) % {"names": names}
        return said(REASON_SENTENCES[code]) if code in REASON_SENTENCES else code

    return [sentence(code) for code in reasons]


def default_refusal(question: str) -> str:
    """The built-in refusal, in the language the question was asked in."""
    return translate(DEFAULT_REFUSAL, detect_language(question))
