"""Which FAQ entry a question is: each entry's own question compared with the one asked (`match_entry`).

The entry that matches clearly is answered verbatim (`composer.compose(entry_match=True)`); one that
only comes close goes first among the sources.
"""

from knowledge.search import closeness
from knowledge.search.composer import setting
from knowledge.search.source_text import clean_text
from knowledge.search.words import asked_part, same_words, word_stems


def match_entry(question: str, hits: list, kbs: dict,
                query_embeddings: dict | None = None) -> tuple[int, float, bool] | None:
    """(index among `hits`, closeness, clear) of the FAQ entry whose question is the one asked.

    Each entry's own question is compared with the incoming one (both embedded as queries: a
    symmetric comparison) on its base's calibrated scale: the closeness; one of the same words in
    lower case is the entry's own question, 1.0: "Can I pay by card" is the entry "Can I pay by card?"
    (a written answer's heading gets its "?"), not a question a few hundredths away from it, which
    punctuation and case make of its vector. The entry's own question wins outright; otherwise the
    entry is the one whose question and answer together come closest (the mean of the closeness and
    of the hit's own similarity, which embeds the entry whole): a customer words the question their
    own way, and an FAQ's questions lean on their product's name, which only the answer may say
    ("Какая максимальная сумма кредита?" of the credit "На всё про всё").
    Its question must reach ENTRY_MATCH_RELEVANCE; it matches clearly when its closeness also leads
    every other entry with a different answer by ENTRY_MATCH_MARGIN (two near-identical questions
    with different answers are for a person), so only the entry closest by its question alone ever
    matches clearly; otherwise it only goes first among the sources.
    `kbs`: {id: base}; `query_embeddings`: the question's vectors by embedder, when already embedded.
    """
    from knowledge.search.retrieval import relevance

    near, together = {}, {}  # by index among `hits`
    words = same_words(question)
    for index, hit in enumerate(hits):
        asked = hit.entry_question
        if not asked:
            continue
        kb = kbs[hit.knowledge_base_id]
        if words and same_words(asked) == words:
            near[index] = 1.0
        else:
            vector = closeness.question_vector(question, kb, query_embeddings)
            near[index] = closeness.entry_question(vector, asked, kb)
        together[index] = (near[index] + (relevance(hit.similarity, kb) or 0.0)) / 2
    if not near:
        return None
    index = max(near, key=lambda at: (near[at] == 1.0, together[at], -at))
    best = near[index]
    if best < setting("ENTRY_MATCH_RELEVANCE"):
        return None
    answer, margin = clean_text(hits[index].content), setting("ENTRY_MATCH_MARGIN")
    rivals = [other for other in near if other != index and clean_text(hits[other].content) != answer]
    clear = all(best - near[other] >= margin for other in rivals) and not _asks_beyond(question, hits, index)
    return index, best, clear


def _asks_beyond(question: str, hits: list, index: int) -> bool:
    """Whether the question asks for something entry `index` does not cover: a word of it that neither the
    entry's question, answer nor its columns have, while the questions of two other entries ask with it, so
    the FAQ tells its entries apart by that word ("На какой срок выдается автокредит без залога?" of the
    entry "На какие авто выдается кредит?", whose answer names the car loan but no term; "срок" is asked of
    other loans). A word no other entry asks with is the customer's own wording and says nothing. Only the
    question itself counts, not a subject line above it.
    """
    covered = _covered(hits[index])
    unknown = {stem for stem in word_stems(asked_part(question)) - _ASKING if not _stem_in(stem, covered)}
    if not unknown:
        return False
    answer = clean_text(hits[index].content)
    asked = [word_stems(hit.entry_question) for hit in hits
             if clean_text(hit.content) != answer]
    return any(sum(_stem_in(stem, stems) for stems in asked) >= 2 for stem in unknown)


# Words that ask rather than name what is asked about ("сколько", "могу"): never what sets entries apart.
_ASKING = frozenset({"сколь", "могу", "может", "надо", "нужна", "нужен", "делат", "через"})


def _covered(hit) -> set[str]:
    """The stems an FAQ entry covers: its question, answer and text columns (an FAQ's product names)."""
    columns = " ".join(value for value in hit.metadata.values() if isinstance(value, str))
    return word_stems(f"{hit.entry_question} {hit.content} {columns}")


def _stem_in(stem: str, stems: set[str]) -> bool:
    """Whether `stem` is one of `stems`, also as a shorter form of one ("срок" of "сроки")."""
    return stem in stems or len(stem) >= 4 and any(other.startswith(stem) or stem.startswith(other)
                                                   for other in stems if len(other) >= 4)
