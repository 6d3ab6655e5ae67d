"""URL normalisation and scope checks.

`normalize_url` gives the URL we fetch and store: lower-case scheme and host (IDNA), no default
port, no fragment, dot segments resolved, percent-escapes made uniform, tracking parameters
removed and the rest sorted. `url_key` is the identity used to avoid fetching one page twice: it
also ignores a trailing slash, because `/a` and `/a/` are the same page on nearly every server
(one usually redirects to the other) — but we keep fetching the URL as written, so such a
redirect is followed rather than mistaken for a loop.
"""

import posixpath
import re
import string
from pathlib import PurePosixPath
from urllib.parse import parse_qsl, quote, unquote, urlencode, urljoin, urlsplit, urlunsplit

from django.utils.translation import gettext as _

from crawler.exceptions import InvalidURLError

DEFAULT_PORTS = {"http": 80, "https": 443}
TRACKING_PARAMS = re.compile(
    r"^(utm_\w+|gclid|gbraid|wbraid|dclid|fbclid|msclkid|yclid|mc_cid|mc_eid|_ga|_gl|igshid|ref_src|_hsenc|_hsmi)$",
    re.IGNORECASE,
)
# Characters left unescaped in paths and queries (RFC 3986 unreserved + sub-delims + ":@/").
_PATH_SAFE = "/:@!$&'()*+,;=-._~"
_QUERY_SAFE = "/:@!$'()*+,;-._~?"

_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")

DOCUMENT_EXTENSIONS = (".pdf", ".docx", ".xlsx", ".xls", ".pptx", ".odt", ".ods", ".odp", ".md", ".markdown", ".txt",
                       ".csv")
# Links we never fetch: they cannot become text (or are sources of pages we already read).
ASSET_EXTENSIONS = frozenset(
    ".png .jpg .jpeg .gif .webp .svg .ico .bmp .tif .tiff .avif .css .js .mjs .map .json .xml .rss .atom "
    ".woff .woff2 .ttf .otf .eot .zip .gz .tgz .bz2 .xz .7z .rar .tar .exe .dmg .iso .deb .rpm .apk .msi "
    ".mp3 .mp4 .m4a .wav .ogg .webm .avi .mov .mkv .flac .doc .ppt .rtf .epub .inv".split()
)


def normalize_url(url: str, base: str | None = None) -> str:
    """The canonical form of an absolute http(s) URL (resolved against `base` if relative)."""
    url = url.strip()
    if base:
        url = urljoin(base, url)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise InvalidURLError(_("%(url)s is not a valid URL: %(error)s") % {"url": repr(url), "error": exc}) from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        raise InvalidURLError(_("%(url)s is not an absolute http(s) URL") % {"url": repr(url)})
    host = _idna(parts.hostname.rstrip("."))
    if ":" in host:
        host = f"[{host}]"  # IPv6 literal
    netloc = host if port in (None, DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, _path(parts.path), _query(parts.query), ""))


def try_normalize(url: str, base: str | None = None) -> str | None:
    """`normalize_url`, or None for links we cannot follow (mailto:, javascript:, junk)."""
    try:
        return normalize_url(url, base)
    except InvalidURLError:
        return None


def url_key(url: str) -> str:
    """Identity of a normalised URL for "seen" checks: ignores a trailing slash."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/") or "/"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def host_of(url: str) -> str:
    """`host[:port]` of a normalised URL: the unit of politeness and of robots.txt."""
    return urlsplit(url).netloc


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def same_site(url: str, seed_url: str) -> bool:
    """Same host and port as the seed; `www.` and the http/https difference are ignored."""
    return _site(url) == _site(seed_url)


def extension(url: str) -> str:
    return PurePosixPath(unquote(urlsplit(url).path)).suffix.lower()


def is_document_url(url: str) -> bool:
    """The URL names a document file (PDF, DOCX, XLSX…) by its extension."""
    return extension(url) in DOCUMENT_EXTENSIONS


def is_asset_url(url: str) -> bool:
    """The URL names a file we never index (image, script, archive, media…)."""
    return extension(url) in ASSET_EXTENSIONS


def _site(url: str) -> str:
    return urlsplit(url).netloc.removeprefix("www.")


def _idna(host: str) -> str:
    host = host.lower()
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError as exc:
        raise InvalidURLError(_("%(host)s is not a valid host name") % {"host": repr(host)}) from exc


def _path(path: str) -> str:
    if not path:
        return "/"
    trailing = path.endswith("/")
    # posixpath.normpath resolves "." and ".." and collapses "//", but drops a trailing slash.
    path = posixpath.normpath(path)
    path = "/" if path in (".", "/", "//") else path
    if path.startswith("//"):
        path = "/" + path.lstrip("/")
    if trailing and not path.endswith("/"):
        path += "/"
    return _uniform_escapes(path, _PATH_SAFE)


def _uniform_escapes(text: str, safe: str) -> str:
    """Decode escaped unreserved characters, upper-case the other escapes, escape the rest."""

    def fix(match: re.Match) -> str:
        char = chr(int(match[1], 16))
        return char if char in _UNRESERVED else "%" + match[1].upper()

    return quote(_ESCAPE.sub(fix, text), safe=safe + "%")


def _query(query: str) -> str:
    if not query:
        return ""
    pairs = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if not TRACKING_PARAMS.match(k)]
    return urlencode(sorted(pairs), safe=_QUERY_SAFE, quote_via=quote)
