"""Fetching pages and documents over HTTP, politely, within limits, through the SSRF guard.

One `Fetcher` serves one crawl (or one `ingest_url` call). It follows redirects itself so that
each hop is counted, checked for loops, checked by the caller (scope, robots.txt) and delayed
like any other request to its host; the guard itself sits in the connection pool (see guard.py).
Bodies are streamed and abandoned as soon as they pass the size limit for their type.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import Message

import httpcore
import httpx
from django.conf import settings
from django.utils.translation import gettext

from crawler import urlnorm
from crawler.exceptions import (
    FetchError,
    HTTPStatusError,
    RedirectError,
    SkipError,
    TooLargeError,
    UnsupportedContentError,
)
from crawler.guard import AllowList, GuardedBackend
from knowledge.indexing.parsing import KNOWN_SIGNATURES
from knowledge.indexing.parsing.images import IMAGE_EXTENSIONS
from knowledge.indexing.parsing.text import looks_binary
from portal.sizes import file_size

HTML_TYPES = ("text/html", "application/xhtml+xml")
DOCUMENT_TYPES = {
    "application/pdf": ".pdf",
    "application/x-pdf": ".pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
    "application/vnd.ms-excel": ".xls",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
    "application/vnd.oasis.opendocument.text": ".odt",
    "application/vnd.oasis.opendocument.spreadsheet": ".ods",
    "application/vnd.oasis.opendocument.presentation": ".odp",
    "text/markdown": ".md",
    "text/x-markdown": ".md",
    "text/csv": ".csv",
    "text/plain": ".txt",
}
# Images are read with OCR, as uploaded ones are; only a URL asked for by itself ("Add URL") is
# taken as one: in a crawl an image is an asset, not a page.
IMAGE_TYPES = {"image/png": ".png", "image/jpeg": ".jpg", "image/tiff": ".tif"}
# Types servers send when they do not know better; the URL's extension decides then.
GENERIC_TYPES = ("", "application/octet-stream", "binary/octet-stream", "text/plain", "application/download")
REDIRECT_STATUSES = (301, 302, 303, 307, 308)
CHUNK_SIZE = 64 * 1024


@dataclass
class Response:
    url: str
    final_url: str
    status: int
    content_type: str = ""
    charset: str = ""
    body: bytes = b""
    etag: str = ""
    last_modified: str = ""
    x_robots_tag: str = ""
    location: str = ""  # of a redirect
    redirects: list[str] = field(default_factory=list)
    # "html", "document" (then `extension` says which parser reads it), or "raw"
    kind: str = "raw"
    extension: str = ""

    @property
    def not_modified(self) -> bool:
        return self.status == 304


class GuardedTransport(httpx.HTTPTransport):
    """httpx's transport with a connection pool whose sockets go through the SSRF guard."""

    def __init__(self, allow: AllowList):
        super().__init__(trust_env=False)
        # httpx offers no public hook for httpcore's network backend, so we replace the pool it
        # built with an identical one that connects through the guard (httpx is pinned < 0.29).
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_connections=10,
            keepalive_expiry=5.0,
            network_backend=GuardedBackend(allow),
        )


class Fetcher:
    """An HTTP client for one crawl: User-Agent, timeouts, size limits, per-host delay."""

    def __init__(self, *, allow_hosts: list[str] | None = None, delay: float | None = None):
        config = settings.CRAWLER
        self.delay = config["DELAY_SECONDS"] if delay is None else delay
        self.timeout = config["TIMEOUT_SECONDS"]
        self.max_redirects = config["MAX_REDIRECTS"]
        self.host_delays: dict[str, float] = {}
        self._last_request: dict[str, float] = {}
        self.client = httpx.Client(
            transport=GuardedTransport(AllowList.from_settings(allow_hosts)),
            headers={"User-Agent": config["USER_AGENT"],
                     "Accept": "text/html,application/xhtml+xml;q=0.9,application/pdf;q=0.8,*/*;q=0.5"},
            timeout=httpx.Timeout(self.timeout),
            follow_redirects=False,
            trust_env=False,
        )

    def __enter__(self) -> "Fetcher":
        return self

    def __exit__(self, *exc) -> None:
        self.client.close()

    def set_delay(self, host: str, seconds: float) -> None:
        """A longer delay for one host (robots.txt Crawl-delay)."""
        self.host_delays[host] = seconds

    def get(self, url: str, *, mode: str = "page", documents: bool = True, images: bool = False,
            headers: dict | None = None, max_bytes: int | None = None,
            check_hop: Callable[[str], None] | None = None) -> Response:
        """GET `url`, following redirects; raises a `CrawlerError` subclass on any failure.

        `mode="page"` accepts HTML, (when `documents`) supported documents and (when `images`) images
        for OCR, and checks the content; `mode="raw"` returns any body (robots.txt, sitemaps). A 304 is
        returned, not raised.
        """
        chain = [url]
        for _ in range(self.max_redirects + 1):
            response = self._request(chain[-1], mode=mode, documents=documents, images=images, headers=headers or {},
                                     max_bytes=max_bytes)
            if response.status not in REDIRECT_STATUSES:
                response.url, response.redirects = url, chain[1:]
                return response
            target = self._redirect_target(chain, response)
            if check_hop:
                check_hop(target)
            chain.append(target)
        raise RedirectError(gettext("More than %(count)d redirects: %(chain)s")
                            % {"count": self.max_redirects, "chain": " → ".join(chain)})

    def _redirect_target(self, chain: list[str], response: Response) -> str:
        if not response.location:
            raise RedirectError(gettext("%(url)s answered %(status)d without a Location header")
                                % {"url": chain[-1], "status": response.status})
        target = urlnorm.try_normalize(response.location, chain[-1])
        if target is None:
            raise RedirectError(gettext("%(url)s redirects to %(location)s, which is not an http(s) URL")
                                % {"url": chain[-1], "location": repr(response.location)})
        if target in chain:
            raise RedirectError(gettext("Redirect loop: %(chain)s") % {"chain": " → ".join([*chain, target])})
        return target

    def _request(self, url: str, *, mode: str, documents: bool, images: bool, headers: dict,
                 max_bytes: int | None) -> Response:
        host = urlnorm.host_of(url)
        self._wait(host)
        started = time.monotonic()
        try:
            with self.client.stream("GET", url, headers=headers) as http:
                if http.status_code in REDIRECT_STATUSES:
                    return Response(url, url, http.status_code, location=http.headers.get("location", ""))
                response = self._describe(url, http)
                if response.status == 304:
                    return response
                if response.status >= 400:
                    raise HTTPStatusError(f"HTTP {response.status} {http.reason_phrase}".strip(),
                                          status=response.status)
                if mode == "page":
                    max_bytes = max_bytes or self._classify(response, documents, images)
                response.body = self._read(http, max_bytes or settings.CRAWLER["MAX_DOCUMENT_BYTES"], started)
        except httpx.TimeoutException as exc:
            raise FetchError(gettext("Timed out after %(seconds)s s (%(error)s)")
                             % {"seconds": f"{self.timeout:g}", "error": type(exc).__name__}) from exc
        except httpx.HTTPError as exc:
            raise FetchError(gettext("Network error: %(error)s") % {"error": exc or type(exc).__name__}) from exc
        finally:
            # Politeness counts from the end of a request, so the gap the server sees is >= delay.
            self._last_request[host] = time.monotonic()
        if mode == "page" and response.kind == "html":
            _check_html_body(response)
        return response

    def _wait(self, host: str) -> None:
        last = self._last_request.get(host)
        if last is None:
            return
        remaining = last + max(self.delay, self.host_delays.get(host, 0.0)) - time.monotonic()
        if remaining > 0:
            time.sleep(remaining)

    def _describe(self, url: str, http: httpx.Response) -> Response:
        message = Message()
        message["content-type"] = http.headers.get("content-type", "")
        return Response(
            url=url, final_url=url, status=http.status_code,
            content_type=message.get_content_type() if http.headers.get("content-type") else "",
            charset=message.get_content_charset() or "",
            etag=http.headers.get("etag", "")[:500],
            last_modified=http.headers.get("last-modified", "")[:100],
            x_robots_tag=http.headers.get("x-robots-tag", "").lower(),
        )

    def _classify(self, response: Response, documents: bool, images: bool) -> int:
        """Decide HTML or document (an image, when `images`) from the headers; return the size limit that applies."""
        config = settings.CRAWLER
        extension = urlnorm.extension(response.url)
        if response.content_type in HTML_TYPES or (
                response.content_type in ("", "application/octet-stream") and extension in (".html", ".htm")):
            response.kind = "html"
            return config["MAX_HTML_BYTES"]
        extensions = urlnorm.DOCUMENT_EXTENSIONS + (IMAGE_EXTENSIONS if images else ())
        if response.content_type in GENERIC_TYPES and extension in extensions:
            response.extension = extension
        else:
            types = {**DOCUMENT_TYPES, **IMAGE_TYPES} if images else DOCUMENT_TYPES
            response.extension = types.get(response.content_type, "")
        if not response.extension:
            raise UnsupportedContentError(gettext("Content type %(type)s is neither HTML nor a supported document")
                                          % {"type": response.content_type or gettext("(none)")})
        if not documents:
            raise SkipError(gettext("A %(extension)s document; document links are not followed")
                            % {"extension": response.extension})
        response.kind = "document"
        return config["MAX_DOCUMENT_BYTES"]

    def _read(self, http: httpx.Response, max_bytes: int, started: float) -> bytes:
        declared = http.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise TooLargeError(gettext("The response is %(size)s; the limit is %(limit)s")
                                % {"size": file_size(int(declared)), "limit": file_size(max_bytes)})
        body = bytearray()
        for chunk in http.iter_bytes(CHUNK_SIZE):
            body += chunk
            if len(body) > max_bytes:
                raise TooLargeError(gettext("The response is larger than the %(limit)s limit")
                                    % {"limit": file_size(max_bytes)})
            # httpx's timeout is per read; a server dripping bytes must not hold us forever.
            if time.monotonic() - started > self.timeout:
                raise FetchError(gettext("Timed out after %(seconds)s s while reading the response")
                                 % {"seconds": f"{self.timeout:g}"})
        return bytes(body)


def _check_html_body(response: Response) -> None:
    """Refuse a body that is not HTML although the server says it is."""
    head = response.body[:1024]
    actual = next((kind for magic, kind in KNOWN_SIGNATURES if head.startswith(magic)), None)
    if actual or looks_binary(head):
        # The kinds of KNOWN_SIGNATURES are msgids (gettext_noop where they are defined).
        raise UnsupportedContentError(gettext("Served as %(type)s but the content is %(actual)s")
                                      % {"type": response.content_type or "HTML",
                                         "actual": gettext(actual) if actual else gettext("binary data")})
