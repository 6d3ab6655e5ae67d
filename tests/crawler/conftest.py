"""A real HTTP server on 127.0.0.1 serving one site of the snapshot in `shared/data/site/`.

The site folder is served at the server's root (so `/robots.txt` and `/sitemap.xml` are where
crawlers look), with ETag / Last-Modified and conditional GETs, optional host rewriting (the
Python-Markdown snapshot names its real host, https://Python-Markdown.github.io/, in canonical
links and in sitemap.xml), and the special cases a crawler must survive under `/_test/`. Every
request is logged with its arrival time, so tests measure politeness gaps on the server side.
"""

import hashlib
import mimetypes
import threading
import time
from dataclasses import dataclass, field
from email.utils import formatdate, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from django.core.cache import cache

from tests.conftest import DATA

SITES = DATA / "site"
DOCUMENTS = DATA / "documents"
PNG = SITES / "python-markdown-docs" / "py.png"
SMALL_PDF = "pdf/text/pdflatex-4-pages.pdf"
TEXT_TYPES = ("text/html", "text/xml", "application/xml", "text/plain")

HUB_LINKS = ("redirect", "loop-a", "missing.html", "error.html", "slow.html", "huge.html", "to-metadata",
             "image.html", "lying.html", "empty.html")


@dataclass
class Request:
    at: float  # time.monotonic() when the request line arrived
    path: str
    headers: dict


@dataclass
class SiteServer:
    root: Path
    rewrite: dict[str, str] = field(default_factory=dict)  # old URL prefix → new, "{base}" = this server
    conditional: bool = True  # answer If-None-Match / If-Modified-Since with 304
    slow_seconds: float = 3.0
    huge_bytes: int = 3 * 1024 * 1024
    robots_txt: str | None = None  # replaces the site's robots.txt
    robots_status: int = 200  # 500: robots.txt is "unreachable"
    overrides: dict[str, bytes] = field(default_factory=dict)  # path → new content ("a changed page")
    gone: set[str] = field(default_factory=set)  # paths that now answer 404
    log: list[Request] = field(default_factory=list)

    def start(self) -> "SiteServer":
        server = self

        class Handler(SiteHandler):
            site = server

        self.httpd = QuietServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_port}"

    def url(self, path: str) -> str:
        return self.base_url + path

    def paths(self) -> list[str]:
        return [request.path for request in self.log]

    def page_paths(self) -> list[str]:
        """Requested paths other than robots.txt and sitemaps."""
        return [p for p in self.paths() if p != "/robots.txt" and not p.startswith("/sitemap")]


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # do not wait for a slow-page thread still sleeping

    def handle_error(self, request, client_address):
        pass  # the crawler hangs up on slow and huge responses on purpose


class SiteHandler(BaseHTTPRequestHandler):
    site: SiteServer
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # keep test output quiet
        pass

    def do_GET(self):
        self.site.log.append(Request(time.monotonic(), self.path, dict(self.headers)))
        path = unquote(urlsplit(self.path).path)
        try:
            if path.startswith("/_test/"):
                self.special(path.removeprefix("/_test/"))
            elif path == "/robots.txt" and self.site.robots_status >= 500:
                self.send(self.site.robots_status, b"<h1>Server Error</h1>", "text/html")
            elif path == "/robots.txt" and self.site.robots_txt is not None:
                self.send(200, self.site.robots_txt.encode(), "text/plain")
            else:
                self.serve_file(path)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the crawler gave up on a slow or huge response, as it should

    def serve_file(self, path: str):
        if path in self.site.gone:
            return self.send(404, b"<h1>Not found</h1>", "text/html")
        if path in self.site.overrides:
            return self.send_content(path, self.site.overrides[path], mtime=time.time())
        file = (self.site.root / path.lstrip("/")).resolve()
        if not file.is_relative_to(self.site.root.resolve()) or not file.exists():
            return self.send(404, b"<h1>Not found</h1>", "text/html")
        if file.is_dir():
            if not path.endswith("/"):
                return self.redirect(path + "/", 301)
            file = file / "index.html"
        self.send_content(path if not path.endswith("/") else path + "index.html", file.read_bytes(),
                          mtime=file.stat().st_mtime)

    def send_content(self, path: str, body: bytes, *, mtime: float):
        content_type = mimetypes.guess_type(path)[0] or "application/octet-stream"
        if content_type in TEXT_TYPES:
            for old, new in self.site.rewrite.items():
                body = body.replace(old.encode(), new.format(base=self.site.base_url).encode())
        etag = f'"{hashlib.sha256(body).hexdigest()[:16]}"'
        last_modified = formatdate(int(mtime), usegmt=True)
        if self.site.conditional and self.not_modified(etag, int(mtime)):
            return self.send(304, b"", content_type, {"ETag": etag, "Last-Modified": last_modified})
        self.send(200, body, content_type, {"ETag": etag, "Last-Modified": last_modified})

    def not_modified(self, etag: str, mtime: int) -> bool:
        if "If-None-Match" in self.headers:
            return self.headers["If-None-Match"] == etag
        since = self.headers.get("If-Modified-Since")
        return bool(since) and parsedate_to_datetime(since).timestamp() >= mtime

    def special(self, name: str):
        base = self.site.base_url
        if name == "hub.html":
            links = "".join(f'<li><a href="/_test/{link}">{link}</a></li>' for link in HUB_LINKS)
            body = (f"<html><head><title>Special cases</title></head><body><main><h1>Special cases</h1>"
                    f"<p>Pages that misbehave, for the crawler tests.</p><ul>{links}</ul></main></body></html>")
            return self.send(200, body.encode(), "text/html; charset=utf-8")
        if name == "redirect":
            return self.redirect("/_test/moved/" + "index.html", 302)
        if name.startswith("moved/"):
            return self.serve_file("/" + name.removeprefix("moved/"))
        if name.startswith("files/"):  # a real document from shared/data/documents/
            file = (DOCUMENTS / name.removeprefix("files/")).resolve()
            if file.is_relative_to(DOCUMENTS.resolve()) and file.is_file():  # ../shared may be a link
                return self.send_content(file.name, file.read_bytes(), mtime=file.stat().st_mtime)
        if name.startswith(("twins/", "twins-mirror-first/")):  # one page under its own URL and a mirror URL
            folder, page = name.split("/", 1)
            links = [f"<a href='/{page}'>original</a>", f"<a href='/_test/mirror/{page}'>mirror</a>"]
            if folder == "twins-mirror-first":
                links.reverse()
            body = (f"<html><head><title>Twins</title></head><body><h1>Twins</h1><p>One page, two addresses.</p>"
                    f"{' '.join(links)}</body></html>")
            return self.send(200, body.encode(), "text/html; charset=utf-8")
        if name.startswith("mirror/"):  # the same page under a second URL
            return self.serve_file("/" + name.removeprefix("mirror/"))
        if name == "loop-a":
            return self.redirect("/_test/loop-b", 302)
        if name == "loop-b":
            return self.redirect("/_test/loop-a", 302)
        if name == "missing.html":
            return self.send(404, b"<h1>Not found</h1>", "text/html")
        if name == "error.html":
            return self.send(500, b"<h1>Internal Server Error</h1>", "text/html")
        if name == "slow.html":
            time.sleep(self.site.slow_seconds)
            return self.send(200, b"<html><body><p>Finally.</p></body></html>", "text/html")
        if name == "huge.html":
            return self.send_huge()
        if name == "to-metadata":
            return self.redirect("http://169.254.169.254/latest/meta-data/", 302)
        if name == "to-private":
            return self.redirect("http://10.0.0.1/admin/", 302)
        if name == "redirects-out.html":  # links that redirect to other sites' addresses
            links = "".join(f'<li><a href="/_test/{link}">{link}</a></li>' for link in ("to-metadata", "to-private"))
            body = (f"<html><head><title>Moved away</title></head><body><main><h1>Moved away</h1>"
                    f"<p>Links whose pages now live at other addresses.</p><ul>{links}</ul></main></body></html>")
            return self.send(200, body.encode(), "text/html; charset=utf-8")
        if name == "image.html":
            return self.send(200, PNG.read_bytes(), "image/png")
        if name == "lying.html":
            return self.send(200, PNG.read_bytes(), "text/html")
        if name == "empty.html":
            body = b"<html><body><nav><a href='/'>Home</a></nav><footer>Copyright</footer></body></html>"
            return self.send(200, body, "text/html")
        if name == "with-pdf.html":
            body = (f"<html><head><title>FAQ downloads</title></head><body><h1>Downloads</h1>"
                    f"<p>A short PDF file.</p><a href='{base}/_test/files/{SMALL_PDF}'>PDF</a>"
                    f"<a href='/ru/index.ru.html'>HTML</a></body></html>")
            return self.send(200, body.encode(), "text/html; charset=utf-8")
        self.send(404, b"<h1>Not found</h1>", "text/html")

    def send_huge(self):
        """An HTML page with no Content-Length, far over the limit: the client must stop reading."""
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(b"<html><body>")
        chunk = b"<p>" + b"lorem ipsum " * 500 + b"</p>\n"
        for _ in range(self.site.huge_bytes // len(chunk)):
            self.wfile.write(chunk)
        self.close_connection = True

    def redirect(self, location: str, status: int):
        self.send(status, b"", "text/html", {"Location": location})

    def send(self, status: int, body: bytes, content_type: str, headers: dict | None = None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)) if status != 304 else "0")
        self.end_headers()
        if status != 304:
            self.wfile.write(body)


@pytest.fixture
def crawler_settings(settings):
    """127.0.0.1 allowed, a short politeness delay, short timeouts; no robots.txt cached from before."""
    settings.CRAWLER = {**settings.CRAWLER, "ALLOWED_HOSTS": ["127.0.0.1"], "DELAY_SECONDS": 0.01,
                        "TIMEOUT_SECONDS": 5.0}
    cache.clear()
    return settings


@pytest.fixture
def site_server(crawler_settings):
    """A factory: `site_server("flask-docs", **options)` starts a server and stops it after the test."""
    servers = []

    def start(name: str, **options) -> SiteServer:
        server = SiteServer(root=SITES / name, **options).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def markdown_site(site_server) -> SiteServer:
    """Python-Markdown docs, with its real host mapped to the local server."""
    return site_server("python-markdown-docs", rewrite={"https://Python-Markdown.github.io": "{base}"})


@pytest.fixture
def flask_site(site_server) -> SiteServer:
    return site_server("flask-docs")
