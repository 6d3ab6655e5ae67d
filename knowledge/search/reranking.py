"""Optional second-stage reranking of search hits, behind a small interface.

A reranker reads the query and the fused candidates (more than `top_k` of them) and returns them
in a new order with new scores. It is off by default (`PORTAL["RERANKER"] = ""`). Built in:
`http`, a client for the `/rerank` endpoint that Cohere, Jina, TEI and vLLM serve
(`PORTAL["RERANKER_URL"]`, `PORTAL["RERANKER_MODEL"]`, key `OPENAI["API_KEY"]`). A cross-encoder
running in-process is one more class registered with `register`.
"""

from collections.abc import Callable
from typing import Protocol

from django.conf import settings
from django.utils.translation import gettext as _

from knowledge.exceptions import KnowledgeError
from knowledge.search.hits import SearchHit


class RerankError(KnowledgeError):
    """The reranker is unknown, misconfigured, or failed."""


class Reranker(Protocol):
    name: str

    def rerank(self, query: str, hits: list[SearchHit]) -> list[SearchHit]:
        """The hits, best first, with `score` set to the reranker's score."""


class HttpReranker:
    """Cohere-style `POST {url}` with `{"model", "query", "documents"}`.

    The answer is `{"results": [{"index", "relevance_score"}]}`.
    """

    name = "http"

    def __init__(self):
        conf = settings.PORTAL
        if not conf.get("RERANKER_URL"):
            raise RerankError(_("The http reranker needs PORTAL_RERANKER_URL"))
        self.url, self.model = conf["RERANKER_URL"], conf.get("RERANKER_MODEL", "")
        self.timeout = settings.OPENAI["TIMEOUT"]

    def rerank(self, query, hits):
        import httpx

        headers = {"Authorization": f"Bearer {settings.OPENAI['API_KEY']}"} if settings.OPENAI["API_KEY"] else {}
        body = {"model": self.model, "query": query, "documents": [hit.content for hit in hits]}
        try:
            response = httpx.post(self.url, json=body, headers=headers, timeout=self.timeout)
            response.raise_for_status()
            results = response.json()["results"]
            scored = [(int(row["index"]), float(row.get("relevance_score", row.get("score")))) for row in results]
        except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
            raise RerankError(_("Reranking request failed: %(error)s") % {"error": exc}) from exc
        order = []
        for index, score in sorted(scored, key=lambda pair: -pair[1]):
            if 0 <= index < len(hits):
                hits[index].score = score
                order.append(hits[index])
        seen = {id(hit) for hit in order}
        return order + [hit for hit in hits if id(hit) not in seen]


_REGISTRY: dict[str, Callable[[], Reranker]] = {"http": HttpReranker}


def register(name: str, factory: Callable[[], Reranker]) -> None:
    """Make a reranker available under `name` (for PORTAL["RERANKER"])."""
    _REGISTRY[name] = factory


def get_reranker(name: str | None = None) -> Reranker | None:
    """The configured reranker, or None when reranking is off."""
    name = settings.PORTAL.get("RERANKER", "") if name is None else name
    if not name:
        return None
    if name not in _REGISTRY:
        raise RerankError(_("Unknown reranker %(name)s; known: %(known)s")
                          % {"name": repr(name), "known": ", ".join(sorted(_REGISTRY))})
    return _REGISTRY[name]()
