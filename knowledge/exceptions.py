"""Errors of the knowledge app. `portal/api.py` maps them to HTTP responses once."""


class KnowledgeError(Exception):
    """Base class: a message a content manager can read and act on."""


class UnsupportedFileError(KnowledgeError):
    """The file's type is not one we parse (or its content does not match its extension)."""


class ParseError(KnowledgeError):
    """The file is of a supported type but cannot be read (corrupt, encrypted, no text)."""


class FileTooLargeError(KnowledgeError):
    """The file, or the text it expands to, is over a configured limit."""


class EmbedderError(KnowledgeError):
    """The embedder is unknown, misconfigured, or failed."""


class SwitchInProgressError(KnowledgeError):
    """The base is being rebuilt beside itself (a shadow switch): an in-place re-index would be lost; a 409."""

    code = "switch_in_progress"


class JobStateError(KnowledgeError):
    """The job cannot do this in its state (retry a job that succeeded); the API answers 409."""

    code = "job_state"


class JobFinishedError(JobStateError):
    """Cancelling a job that has already finished."""

    code = "job_finished"


class QueryTooLargeError(KnowledgeError):
    """A search asks for more filters, layers or document ids than the limits allow."""


class SearchTimeoutError(KnowledgeError):
    """A search statement ran longer than the search statement timeout and was cancelled."""
