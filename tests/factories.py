"""Factory functions for test rows; they go through the same domain functions as the product."""

import itertools

from knowledge import bases
from knowledge.indexing import ingestion
from knowledge.models import KnowledgeBase

_counter = itertools.count(1)


def make_kb(**overrides) -> KnowledgeBase:
    n = next(_counter)
    fields = {"name": f"Base {n}", "slug": f"base-{n}", "embedder": "hash"}
    fields.update(overrides)
    return bases.create_knowledge_base(**fields)


def make_document(kb: KnowledgeBase, text: str = "", title: str = "", **kwargs):
    n = next(_counter)
    text = text or f"# Heading {n}\n\nSome text about topic {n} for the knowledge base."
    result = ingestion.ingest_text(kb, title=title or f"Document {n}", text=text, **kwargs)
    assert result.outcome != "failed", result.error
    return result.document


def make_indexed_repo(folder, files: dict[str, str], **overrides) -> KnowledgeBase:
    """A base holding the layered index of a repository written to `folder` from {path: text}."""
    from knowledge.indexing.layers import store

    for path, text in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    kb = make_kb(**overrides)
    store.index_repository(kb, folder)
    return kb
