"""The language-neutral shape every layer builder returns."""

import hashlib
from dataclasses import dataclass, field

from django.utils.translation import gettext_lazy as _

LAYER_NAMES = {
    "D0": _("Documentation sections"),
    "D1": _("Document catalog"),
    "D2": _("Facts"),
    "D3": _("Entities"),
    "D4": _("Workflows"),
    "D5": _("Relations"),
    "D6": _("Integrations"),
    "C0": _("Source chunks"),
    "C1": _("Symbols"),
    "C2": _("Dependencies"),
    "C3": _("Entrypoints"),
    "C4": _("Semantic roles"),
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
