"""Ingesting one URL, and any page or document the crawler fetched, into a knowledge base.

`ingest_url` is "add this URL" (source kind `url`, no links, no robots.txt); `crawl_site` hands
every page it fetches to `ingest_response` (source kind `crawl`). HTML is extracted by
`extraction.py`, documents go through the same parsers as uploads (`ingestion.ingest_file`), and
the fetch is recorded on the page's `CrawledPage` row (`record_page`) for the next conditional request.
"""

import tempfile
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from django.utils.translation import gettext as _

from crawler import urlnorm
from crawler.exceptions import BlockedAddressError, CrawlerError, EmptyPageError
from crawler.extraction import Page, extract_page
from crawler.fetching import Fetcher, Response
from crawler.models import CrawledPage
from knowledge.indexing import chunks, ingestion
from knowledge.models import Document, KnowledgeBase


def ingest_url(kb: KnowledgeBase, url: str, *, allow_hosts: list[str] | None = None) -> ingestion.IngestResult:
    """Fetch one page, document or image (read with OCR) and ingest it (source kind `url`).

    Raises `InvalidURLError` or `BlockedAddressError` when the URL is refused; any other failure
    (HTTP error, timeout, too large, unsupported, empty) is a failed result on the URL's document.
    """
    url = urlnorm.normalize_url(url)
    page = (CrawledPage.objects.filter(knowledge_base=kb, url=url).select_related("document").first()
            or CrawledPage(knowledge_base=kb, url=url, seed_url=url))
    try:
        with Fetcher(allow_hosts=allow_hosts) as fetcher:
            # An image is read with OCR, as an uploaded one is (a crawl leaves images alone: assets).
            response = fetcher.get(url, images=True, headers=page.validators(chunks.config_signature(kb)))
        if response.not_modified:
            page.mark_unchanged()
            return ingestion.IngestResult(page.document, "unchanged")
        extracted = extract_page(response) if response.kind == "html" else None
        result = ingest_response(kb, response, extracted, source_kind=Document.SourceKind.URL)
    except BlockedAddressError:
        raise
    except CrawlerError as exc:
        return _url_failed(kb, page, exc)
    record_page(page, response, result.document, extracted,
                CrawledPage.Status.FAILED if result.outcome == "failed" else CrawledPage.Status.INDEXED)
    return result


def ingest_response(kb: KnowledgeBase, response: Response, extracted: Page | None, *,
                    source_kind: str) -> ingestion.IngestResult:
    """Ingest a fetched HTML page (already extracted) or document through the shared parsers."""
    if response.kind == "document":
        return ingest_document(kb, response, source_kind=source_kind, source_uri=response.final_url)
    if not extracted.text.strip():
        raise EmptyPageError(_("No text left after removing navigation and boilerplate"))
    uri = source_uri(response, extracted)
    return ingestion.ingest_text(kb, title=extracted.title or uri, text=extracted.text, source_kind=source_kind,
                                 source_uri=uri, mime="text/html", metadata={"url": response.final_url})


def ingest_document(kb: KnowledgeBase, response: Response, *, source_kind: str,
                    source_uri: str) -> ingestion.IngestResult:
    """Write a fetched document to a temporary file and ingest it with `ingest_file`."""
    with tempfile.TemporaryDirectory(prefix="crawl-") as folder:
        path = Path(folder) / _file_name(response)
        path.write_bytes(response.body)
        return ingestion.ingest_file(kb, path, source_kind=source_kind, source_uri=source_uri)


def source_uri(response: Response, extracted: Page | None) -> str:
    """The page's canonical URL when it names one on the same site, else where redirects ended.

    A canonical URL on another site is ignored: a page must not be able to claim (and overwrite)
    another site's document.
    """
    canonical = extracted.canonical if extracted else ""
    if canonical and urlnorm.same_site(canonical, response.final_url):
        return canonical
    return response.final_url


def _file_name(response: Response) -> str:
    stem = PurePosixPath(unquote(urlsplit(response.final_url).path)).stem
    stem = "".join(c if c.isalnum() or c in "-_." else "-" for c in stem).strip("-.")[:100]
    return f"{stem or 'document'}{response.extension}"


def _url_failed(kb: KnowledgeBase, page: CrawledPage, exc: CrawlerError) -> ingestion.IngestResult:
    document = page.document or Document.objects.get_or_create(
        knowledge_base=kb, source_uri=page.url,
        defaults={"source_kind": Document.SourceKind.URL, "title": page.url[:500]},
    )[0]
    chunks.record_failure(document, exc)
    page.mark_failed(str(exc), http_status=getattr(exc, "status", None))
    return ingestion.IngestResult(document, "failed", document.error_message)


def record_page(page: CrawledPage, response: Response, document: Document | None, extracted: Page | None,
                status: str, sha: str = "") -> None:
    """Record a fetch on the page's row: what came back, where it is indexed, its links."""
    page.record_fetch(
        final_url=response.final_url, http_status=response.status, content_type=response.content_type,
        etag=response.etag, last_modified=response.last_modified, status=status, document=document,
        content_sha256=sha or (document.sha256 if document else ""),
        canonical_url=source_uri(response, extracted), links=extracted.links if extracted else [],
    )
