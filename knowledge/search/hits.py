"""What a search returns: the hits (`SearchHit`) and the details of one retrieval (`Retrieval`).

Their own module so that the reranker, the answers and the intent router read them without
importing the retrieval that produces them.
"""

from dataclasses import dataclass, field


@dataclass
class SearchHit:
    chunk_id: int
    document_id: int
    knowledge_base_id: int
    document_title: str
    source_uri: str
    section_path: str
    page: int | None
    layer: str
    content: str
    snippet: str
    distance: float | None
    score: float
    rank: int
    retrievers: list[str] = field(default_factory=list)
    metadata: dict = field(default_factory=dict)

    @property
    def similarity(self) -> float | None:
        return None if self.distance is None else 1.0 - self.distance

    @property
    def entry_question(self) -> str:
        """The question of the FAQ entry this hit is ("" for any other chunk): its answer answers that."""
        return ((self.metadata or {}).get("entry") or {}).get("question") or ""


@dataclass
class Retrieval:
    hits: list[SearchHit]
    best_similarity: float | None
    keyword_fallback_used: bool
    timings: dict[str, float]  # milliseconds per stage and "total"
    best_relevance: float | None = None
    mode: str = "hybrid"
    # Hits whose calibrated relevance reaches KEYWORD_FALLBACK_RELEVANCE (seed 003's "relevant chunks").
    relevant_count: int = 0
