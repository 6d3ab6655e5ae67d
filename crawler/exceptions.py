"""Errors of the crawler app.

They derive from `KnowledgeError`, so `portal/api.py` maps them like any other knowledge error.
`ingest_url` raises the refusals (`InvalidURLError`, `BlockedAddressError`); per-page fetch
failures inside a crawl are recorded on the job and never stop it.
"""

from knowledge.exceptions import KnowledgeError


class CrawlerError(KnowledgeError):
    """Base class: a message a content manager can read and act on.

    `kind` names the crawl report counter a per-page failure is counted under.
    """

    kind = "failed"


class SkipError(CrawlerError):
    """Not a failure: the page is left out by a rule (robots.txt, scope, document links not followed)."""

    def __init__(self, message: str, *, kind: str = "skipped_by_rule", outcome: str = ""):
        super().__init__(message)
        self.kind = kind
        self.outcome = outcome  # the crawl report's outcome, when the kind alone does not say it


class InvalidURLError(CrawlerError):
    """Not an absolute http(s) URL."""


class BlockedAddressError(CrawlerError):
    """The SSRF guard refused the address (private, loopback, link-local, metadata…)."""

    kind = "blocked_address"


class FetchError(CrawlerError):
    """A request failed: network error, timeout, bad redirect, unexpected status or content."""

    def __init__(self, message: str, *, status: int | None = None):
        super().__init__(message)
        self.status = status


class HTTPStatusError(FetchError):
    def __init__(self, message: str, *, status: int):
        super().__init__(message, status=status)
        self.kind = "http_4xx" if status < 500 else "http_5xx"


class TooLargeError(FetchError):
    kind = "too_large"


class UnsupportedContentError(FetchError):
    kind = "unsupported"


class RedirectError(FetchError):
    """A redirect loop, too many redirects, or a redirect without a usable Location."""

    kind = "redirect_error"


class EmptyPageError(CrawlerError):
    """Nothing was left of a page after navigation and boilerplate were removed."""

    kind = "empty"
