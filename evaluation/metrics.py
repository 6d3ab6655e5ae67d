"""Ranking metrics at a cut-off of ten, shared by `manage.py eval` and `bench/retrieval.py` (one implementation).

A ranking is a list of document keys, best first, each once; `relevant` maps the keys that answer
the question to a graded relevance (1 unless the judgments say more). nDCG uses the exponential
gain 2^rel − 1, as BEIR's evaluation does.
"""

import math

K = 10


def dcg(relevances) -> float:
    return sum((2 ** rel - 1) / math.log2(i + 2) for i, rel in enumerate(relevances))


def score_ranking(ranked: list, relevant: dict, k: int = K) -> dict[str, float]:
    """nDCG@k, recall@k and reciprocal rank (within k) of one ranking."""
    top = ranked[:k]
    ideal = dcg(sorted(relevant.values(), reverse=True)[:k])
    ndcg = dcg([relevant.get(doc, 0) for doc in top]) / ideal if ideal else 0.0
    recall = len([doc for doc in top if doc in relevant]) / len(relevant) if relevant else 0.0
    mrr = next((1 / (i + 1) for i, doc in enumerate(top) if doc in relevant), 0.0)
    return {"ndcg@10": ndcg, "recall@10": recall, "mrr@10": mrr}


def ranked_documents(hits) -> list[int]:
    """Document ids in the order of their best chunk (a document ranks where its best chunk does)."""
    return list(dict.fromkeys(hit.document_id for hit in hits))
