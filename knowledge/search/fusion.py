"""Hybrid fusion: the vector and keyword candidate lists merged into one order.

`fuse` ranks by reciprocal rank fusion (and serves the single modes as they are); `rescore` then
applies `PORTAL["FUSION"]`'s convex combination of normalised scores, the default.
"""

from django.conf import settings

from knowledge.indexing.embedding import get_embedder


def setting(name: str):
    return settings.PORTAL[name]


def fuse(mode: str, vector_rows, keyword_rows, fallback: bool) -> list[dict]:
    """Candidates in final order: {id, kb, distance, score, retrievers}."""
    if mode == "vector":
        return [{"id": i, "kb": kb, "distance": d, "score": 1.0 - d, "retrievers": ["vector"]}
                for i, kb, d in vector_rows]
    if mode == "keyword":
        return [{"id": i, "kb": kb, "distance": None, "score": r, "retrievers": ["keyword"]}
                for i, kb, r in keyword_rows]
    k = setting("RRF_K")
    vector_weight = setting("FALLBACK_VECTOR_WEIGHT") if fallback else 1.0
    fused: dict[int, dict] = {}
    for rank, (chunk_id, kb_id, distance) in enumerate(vector_rows, start=1):
        fused[chunk_id] = {"id": chunk_id, "kb": kb_id, "distance": distance, "score": vector_weight / (k + rank),
                           "retrievers": ["vector"]}
    for rank, (chunk_id, kb_id, _) in enumerate(keyword_rows, start=1):
        row = fused.setdefault(chunk_id,
                               {"id": chunk_id, "kb": kb_id, "distance": None, "score": 0.0, "retrievers": []})
        row["score"] += 1.0 / (k + rank)
        row["retrievers"].append("keyword")
    return sorted(fused.values(), key=lambda row: (-row["score"], row["id"]))


def fusion_alpha(kbs) -> float:
    """The vector side's weight for these bases (the mean of their embedders' weights)."""
    overrides = setting("FUSION_ALPHAS")
    weights = [overrides.get(kb.embedder, get_embedder(kb.embedder).info.fusion_alpha) for kb in kbs]
    weights = [setting("FUSION_ALPHA") if weight is None else weight for weight in weights]
    return sum(weights) / len(weights)


def rescore(fused: list[dict], vector_rows, keyword_rows, fallback: bool, alpha: float) -> list[dict]:
    """Hybrid order by `PORTAL["FUSION"]`: "convex" (default) or "rrf" (as `fuse` left it).

    Convex: score = w_v · dense + w_k · sparse, with w_v = alpha (× FALLBACK_VECTOR_WEIGHT during the
    keyword fallback) and w_k = 1 − alpha; alpha is the embedders' `fusion_alpha` (EmbedderInfo,
    overridable with PORTAL["FUSION_ALPHAS"]) or FUSION_ALPHA. `dense` is the cosine similarity
    min-max normalised over the vector candidates (keyword-only candidates are placed on the same
    scale with their exact distance, clipped to 0..1); `sparse` is ts_rank over the best ts_rank
    (0 for candidates the keyword side did not return). Unlike RRF it keeps how far apart the
    scores are, so a clear vector winner is not overtaken by a mediocre keyword match.
    """
    if setting("FUSION") != "convex" or not fused:
        return fused
    w_vector, w_keyword = alpha * (setting("FALLBACK_VECTOR_WEIGHT") if fallback else 1.0), 1.0 - alpha
    similarities = [1.0 - distance for _, _, distance in vector_rows]
    top, bottom = (max(similarities), min(similarities)) if similarities else (1.0, 0.0)
    spread = (top - bottom) or 1.0
    best_rank = max((rank for _, _, rank in keyword_rows), default=0.0) or 1.0
    ranks = {chunk_id: rank for chunk_id, _, rank in keyword_rows}
    for row in fused:
        dense = 0.0 if row["distance"] is None else min(1.0, max(0.0, (1.0 - row["distance"] - bottom) / spread))
        row["score"] = w_vector * dense + w_keyword * ranks.get(row["id"], 0.0) / best_rank
    return sorted(fused, key=lambda row: (-row["score"], row["id"]))
