"""The language-neutral shape every layer builder returns."""

import hashlib
from dataclasses import dataclass, field

LAYER_NAMES = {
    "D0": "Documentation sections",
    "D1": "Document catalog",
    "D2": "Facts",
    "D3": "Entities",
    "D4": "Workflows",
    "D5": "Relations",
    "D6": "Integrations",
    "C0": "Source chunks",
    "C1": "Symbols",
    "C2": "Dependencies",
    "C3": "Entrypoints",
    "C4": "Semantic roles",
}
DOC_LAYERS = ("D0", "D1", "D2", "D3", "D4", "D5", "D6")
CODE_LAYERS = ("C0", "C1", "C2", "C3", "C4")


@dataclass
class LayerRow:
    """One row of one layer, before it becomes a `Chunk`.

    `span_start`/`span_end` are 1-based line numbers in the source file, inclusive.
    """

    layer: str
    title: str
    content: str
    metadata: dict = field(default_factory=dict)
    section_path: str = ""
    span_start: int | None = None
    span_end: int | None = None
    language: str = ""


def stable_id(*parts: object) -> str:
    """A short id that stays the same as long as its parts do (re-indexing keeps ids stable)."""
    digest = hashlib.sha1("\x1f".join(str(part) for part in parts).encode("utf-8")).hexdigest()
    return digest[:16]
