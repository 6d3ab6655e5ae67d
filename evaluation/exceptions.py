"""Errors of the evaluation app.

`EvaluationError` derives from `KnowledgeError` so `portal/api.py` maps it to a 422 (409 for
`SwitchRefusedError`) like the knowledge app's own errors, without a second mapping.
"""

from knowledge.exceptions import KnowledgeError


class EvaluationError(KnowledgeError):
    """Base class: a message a content manager can read and act on."""


class InvalidGoldenSetError(EvaluationError):
    """An import or a question that cannot be stored: unknown documents, duplicates, empty questions."""


class EmptyGoldenSetError(EvaluationError):
    """The golden set has no confirmed question to evaluate."""


class SwitchRefusedError(EvaluationError):
    """A switch cannot start or cut over now (another is under way, still building, worse, stale)."""
