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


class IngestionError(KnowledgeError):
    """Ingestion of one document failed for a reason other than parsing."""


class QueryTooLargeError(KnowledgeError):
    """A search asks for more filters, layers or document ids than the limits allow."""


class SearchTimeoutError(KnowledgeError):
    """A search statement ran longer than the search statement timeout and was cancelled."""
