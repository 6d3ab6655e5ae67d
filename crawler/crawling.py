"""Crawling a site breadth-first into a knowledge base (one URL alone: `pages.ingest_url`).

`crawl_site` starts at the seed (depth 0), then its links (depth 1, joined by the sitemap's URLs),
and so on up to `max_depth`, fetching at most `max_pages` URLs. A URL is refused before any request
when it is outside the site, an asset, a document while `follow_docs` is off, too deep, or
disallowed by robots.txt; these count as skipped, not failed. Every fetched page is recorded as a
`CrawledPage`, so the next crawl of the site sends conditional requests (a 304 is "unchanged" and
its stored links are still followed), re-indexes only pages whose text changed, removes the
documents of pages that now answer 404/410, and revisits the pages an earlier crawl from the same
seed found that no link led to this time.
A page whose text equals another page's (the same page under two URLs), or whose canonical URL
was already ingested, is a duplicate and is not ingested again.

Per-page failures are counted and listed, never raised: a crawl always ends with a report.
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import Q
from django.utils.translation import gettext as _

from crawler import guard, sitemaps, urlnorm
from crawler.exceptions import (
    CrawlerError,
    EmptyPageError,
    HTTPStatusError,
    SkipError,
)
from crawler.extraction import Page, extract_page
from crawler.fetching import Fetcher, Response
from crawler.frontier import Frontier
from crawler.models import CrawledPage, CrawlUrl
from crawler.pages import ingest_document, ingest_response, ingest_url, record_page, source_uri
from crawler.report import (
    COUNTERS,
    FAILURE_OUTCOMES,
    MAX_LISTED_SKIPS,
    MAX_REPORTED_URLS,
    SKIP_OUTCOMES,
    CrawlReport,
)
from crawler.robots import RobotsCache
from knowledge.exceptions import KnowledgeError
from knowledge.indexing import chunks, ingestion
from knowledge.indexing.ingestion import delete_document
from knowledge.models import Document, Job, KnowledgeBase

logger = logging.getLogger(__name__)

__all__ = ["COUNTERS", "CrawlOptions", "CrawlReport", "Progress", "crawl_site", "ingest_url"]

MAX_PAGES_LIMIT = 100_000
MAX_DEPTH_LIMIT = 50


Progress = Callable[[CrawlReport], None]


@dataclass(frozen=True)
class CrawlOptions:
    max_pages: int = 100
    max_depth: int = 3
    same_domain: bool = True
    follow_docs: bool = False
    respect_robots: bool = True
    use_sitemap: bool = True
    # For administrators (the `crawl` command, settings); never fill it from an API request.
    allow_hosts: tuple[str, ...] = ()

    def __post_init__(self):
        if not 1 <= self.max_pages <= MAX_PAGES_LIMIT:
            raise CrawlerError(_("max_pages must be between 1 and %(limit)d") % {"limit": MAX_PAGES_LIMIT})
        if not 0 <= self.max_depth <= MAX_DEPTH_LIMIT:
            raise CrawlerError(_("max_depth must be between 0 and %(limit)d") % {"limit": MAX_DEPTH_LIMIT})


# --- A whole site --------------------------------------------------------------------------------

def crawl_site(kb: KnowledgeBase, seed_url: str, *, max_pages: int = 100, max_depth: int = 3,
               same_domain: bool = True, follow_docs: bool = False, respect_robots: bool = True,
               use_sitemap: bool = True, allow_hosts: list[str] | tuple[str, ...] | None = None,
               job: Job | None = None, progress: Progress | None = None) -> CrawlReport:
    """Crawl a site breadth-first into `kb`; progress goes to `job` (if given) after every page."""
    options = CrawlOptions(max_pages=max_pages, max_depth=max_depth, same_domain=same_domain,
                           follow_docs=follow_docs, respect_robots=respect_robots, use_sitemap=use_sitemap,
                           allow_hosts=tuple(allow_hosts or ()))
    return SiteCrawl(kb, seed_url, options, job=job, progress=progress).run()


class SiteCrawl:
    """The state of one crawl: frontier, what was seen, the report."""

    def __init__(self, kb: KnowledgeBase, seed_url: str, options: CrawlOptions, *, job: Job | None = None,
                 progress: Progress | None = None):
        self.kb, self.options, self.job, self.progress = kb, options, job, progress
        self.seed = urlnorm.normalize_url(seed_url)
        self.scope = [self.seed]  # sites counted as "the same domain"
        self.report = CrawlReport(seed_url=self.seed)
        self.frontier = Frontier()  # generated index and search pages after the content at each depth
        self.seen: set[str] = set()  # URL keys queued or refused
        self.visited: set[str] = set()  # URL keys fetched, redirect targets included
        self.ingested: dict[str, Document] = {}  # source URI → document, this crawl
        self.lastmods: dict = {}
        self.known = {page.url: page for page in
                      CrawledPage.objects.filter(knowledge_base=kb).select_related("document")}
        self.signature = chunks.config_signature(kb)  # what a kept page's document must have been made with
        self._synced: dict[str, int] = {}
        self._lines: list[CrawlUrl] = []  # report lines not yet written
        self._reported = 0
        self._total = 0  # the job's total only grows: a bar whose end moves back is no progress

    def run(self) -> CrawlReport:
        with Fetcher(allow_hosts=list(self.options.allow_hosts)) as self.fetcher:
            self.robots = RobotsCache(self.fetcher)
            self.enqueue(self.seed, 0, seed=True)
            self.drain()
            if self.budget_left() and not self.report.cancelled:
                self.enqueue_known_pages()
                self.drain()
        why = (_("Not fetched: the crawl was cancelled") if self.report.cancelled
               else _("Not fetched: max_pages=%(max_pages)d reached") % {"max_pages": self.options.max_pages})
        for url, depth in self.frontier:
            self.note(url, CrawlUrl.Outcome.RULE, why, depth)
        self.sync()
        return self.report

    def drain(self) -> None:
        while self.frontier and self.budget_left():
            if self.job and self.job.should_stop():
                self.report.cancelled = True
                return
            url, depth = self.frontier.pop()
            if self.job:
                self.job.set_current(url)
            self.visit(url, depth)
            if self.report.fetched == 1 and self.options.use_sitemap and self.options.max_depth >= 1:
                self.enqueue_sitemap_urls()
            self.sync()

    def budget_left(self) -> bool:
        return self.report.fetched < self.options.max_pages

    # --- the frontier

    def enqueue(self, url: str, depth: int, *, seed: bool = False) -> None:
        key = urlnorm.url_key(url)
        if key in self.seen:
            return
        self.seen.add(key)
        reason, outcome = ("", "") if seed else self.rule_refusal(url, depth)
        if reason:
            self.skip(url, reason, "skipped_by_rule", outcome=outcome, depth=depth)
        elif self.options.respect_robots and not self.robots.allows(url):
            self.skip(url, self.robots.refusal(url), "blocked_by_robots", depth=depth)
        else:
            self.frontier.push(url, depth)
            self.report.queued += 1

    def rule_refusal(self, url: str, depth: int) -> tuple[str, str]:
        """Why a discovered URL is not fetched and its report outcome (("", "") when it is fetched)."""
        if not self.in_scope(url):
            return _("Outside the site"), CrawlUrl.Outcome.OFF_SITE
        if depth > self.options.max_depth:
            return _("Deeper than max_depth=%(limit)d") % {"limit": self.options.max_depth}, CrawlUrl.Outcome.RULE
        if urlnorm.is_asset_url(url):
            reason = _("Not a page or a supported document (%(extension)s)") % {"extension": urlnorm.extension(url)}
            return reason, CrawlUrl.Outcome.NOT_HTML
        if urlnorm.is_document_url(url) and not self.options.follow_docs:
            return _("Document links are not followed (follow_docs is off)"), CrawlUrl.Outcome.RULE
        return "", ""

    def in_scope(self, url: str) -> bool:
        return not self.options.same_domain or any(urlnorm.same_site(url, site) for site in self.scope)

    def follow(self, links: list[str], depth: int) -> None:
        for link in links:
            self.enqueue(link, depth + 1)

    def enqueue_known_pages(self) -> None:
        """Pages an earlier crawl from this seed found that no link led to this time: a conditional
        request tells whether they changed or are gone. They were found within `max_depth` once,
        so they are revisited even when this crawl reached them only deeper than that."""
        for page in self.known.values():
            if (page.seed_url == self.seed
                    and page.status in (CrawledPage.Status.INDEXED, CrawledPage.Status.DUPLICATE)
                    and page.depth <= self.options.max_depth and self.in_scope(page.url)
                    and urlnorm.url_key(page.url) not in self.visited
                    and not (self.options.respect_robots and not self.robots.allows(page.url))):
                self.visited.add(urlnorm.url_key(page.url))
                self.frontier.push(page.url, page.depth)
                self.report.queued += 1

    def enqueue_sitemap_urls(self) -> None:
        origin = urlnorm.origin(self.seed)
        listed = self.robots.rules_for(self.seed).sitemaps if self.options.respect_robots else []
        entries = sitemaps.read_sitemaps(self.fetcher, listed or [f"{origin}/sitemap.xml"], accept=self.in_scope)
        # Pages the sitemap says are unchanged since our last visit go last, so a page budget is
        # spent on new and changed pages first.
        entries.sort(key=lambda entry: self.probably_unchanged(entry.url, entry.lastmod))
        for entry in entries:
            self.lastmods[entry.url] = entry.lastmod
            if entry.lastmod and urlnorm.url_key(entry.url) in self.visited:  # the seed
                pages = CrawledPage.objects.filter(knowledge_base=self.kb, url=entry.url)
                pages.update(sitemap_lastmod=entry.lastmod)
            self.enqueue(entry.url, 1)

    def probably_unchanged(self, url: str, lastmod) -> bool:
        page = self.known.get(url)
        return bool(page and lastmod and page.last_crawled_at and lastmod <= page.last_crawled_at)

    def check_hop(self, url: str) -> None:
        """Called for each redirect target before it is requested: a hop off the site is skipped like
        an off-site link (it is never fetched, so its address does not matter); a hop that would be
        fetched goes through the guard (a refusal is a failure worth seeing), then robots.txt."""
        where = {"url": url}
        if not self.in_scope(url):
            raise SkipError(_("Redirects outside the site, to %(url)s") % where, outcome=CrawlUrl.Outcome.OFF_SITE)
        guard.check_url(url, allow_hosts=self.options.allow_hosts)
        if self.options.respect_robots and not self.robots.allows(url):
            raise SkipError(_("Redirects to %(url)s, which robots.txt disallows") % where, kind="blocked_by_robots")

    # --- one page

    def visit(self, url: str, depth: int) -> None:
        self.report.fetched += 1
        self.visited.add(urlnorm.url_key(url))
        page = self.known.get(url) or CrawledPage(
            knowledge_base=self.kb, url=url, seed_url=self.seed, depth=depth)
        page.depth = min(page.depth, depth)
        page.sitemap_lastmod = self.lastmods.get(url, page.sitemap_lastmod)
        try:
            response = self.fetcher.get(url, documents=self.options.follow_docs or depth == 0,
                                        headers=page.validators(self.signature),
                                        check_hop=None if depth == 0 else self.check_hop)
            if depth == 0 and not self.in_scope(response.final_url):
                self.scope.append(response.final_url)  # the seed moved (http → https, another host)
            self.handle(page, response, depth)
        except SkipError as exc:
            self.skip(url, str(exc), exc.kind, outcome=exc.outcome, depth=depth)
        except CrawlerError as exc:
            self.fail(page, exc)
        except KnowledgeError as exc:
            self.fail(page, CrawlerError(str(exc)))
        except Exception as exc:
            # One page must never stop the crawl, whatever went wrong with it.
            logger.exception("Crawling %s failed", url)
            self.fail(page, CrawlerError(_("Unexpected error: %(type)s: %(error)s")
                                         % {"type": type(exc).__name__, "error": exc}))

    def handle(self, page: CrawledPage, response: Response, depth: int) -> None:
        if response.not_modified:
            page.mark_unchanged()
            self.report.unchanged += 1
            self.note(page.url, CrawlUrl.Outcome.UNCHANGED, _("Not modified since the last crawl (HTTP 304)"), depth)
            self.follow(page.links, depth)
            return
        final_key = urlnorm.url_key(response.final_url)
        if response.redirects and final_key in self.visited:
            self.report.duplicate += 1
            self.note(page.url, CrawlUrl.Outcome.DUPLICATE,
                      _("Redirects to %(url)s, already fetched") % {"url": response.final_url}, depth)
            return
        self.visited.add(final_key)
        self.seen.add(final_key)
        if response.kind == "document":
            result = ingest_document(self.kb, response, source_kind=Document.SourceKind.CRAWL,
                                     source_uri=response.final_url)
            self.count(page, response, None, result)
            return
        extracted = extract_page(response)
        if not (self.options.respect_robots and extracted.nofollow):
            self.follow(extracted.links, depth)
        if self.options.respect_robots and extracted.noindex:
            reason = _("The page asks not to be indexed (robots noindex)")
            if page.document_id:  # indexed by an earlier crawl: the site withdrew it from search since
                self.remove(page, reason, response.status)
            raise SkipError(reason, kind="blocked_by_robots")
        if extracted.generated:
            # Made by a documentation generator to list or search the other pages: links followed, text
            # (letters, names, "please activate JavaScript") not worth a chunk. Links to pages of its
            # name wait until the content is fetched.
            self.frontier.learn(page.url)
            reason = (_("The site's search page: not indexed") if extracted.generated == "search" else
                      _("A generated index of the site's pages (almost all links): not indexed, its links followed"))
            if page.document_id:  # indexed by an earlier crawl: its list of links is no longer searchable
                self.remove(page, reason, response.status)
            raise SkipError(reason)
        self.ingest_page(page, response, extracted)

    def ingest_page(self, page: CrawledPage, response: Response, extracted: Page) -> None:
        if not extracted.text.strip():
            raise EmptyPageError(_("No text left after removing navigation and boilerplate"))
        uri = source_uri(response, extracted)
        sha = ingestion.text_sha256(extracted.text)
        previous = page.document_id
        original = self.duplicate_of(page, response.final_url, uri, sha)
        if original is not None:
            record_page(page, response, original, extracted, CrawledPage.Status.DUPLICATE, sha)
            self.report.duplicate += 1
            self.note(page.url, CrawlUrl.Outcome.DUPLICATE, _("Same page as %(uri)s") % {"uri": original.source_uri},
                      page.depth)
        else:
            result = ingest_response(self.kb, response, extracted, source_kind=Document.SourceKind.CRAWL)
            self.ingested[uri] = result.document
            self.count(page, response, extracted, result, sha)
        # A page now served by another document (a copy of another page, a new canonical URL): the text
        # its earlier document holds is no longer on the site.
        if previous is not None and previous != page.document_id \
                and not CrawledPage.objects.filter(document_id=previous).exists():
            delete_document(Document.objects.get(pk=previous))

    def duplicate_of(self, page: CrawledPage, final_url: str, uri: str, sha: str) -> Document | None:
        """The document already holding this page: same canonical URL this crawl, or same text.

        The page the canonical URL names is never a duplicate: it is the document's own page.
        """
        if uri in self.ingested:
            return None if urlnorm.url_key(final_url) == urlnorm.url_key(uri) else self.ingested[uri]
        other = (CrawledPage.objects.filter(knowledge_base=self.kb, content_sha256=sha, document__isnull=False)
                 .filter(~Q(pk=page.pk) if page.pk else Q())
                 .exclude(document__source_uri=uri).select_related("document").first())
        return other.document if other else None

    def count(self, page: CrawledPage, response: Response, extracted: Page | None,
              result: ingestion.IngestResult, sha: str = "") -> None:
        if result.outcome == "failed":
            self.fail(page, CrawlerError(result.error))
            return
        why = {"unchanged": _("Text unchanged"), "created": _("Indexed (created)"), "updated": _("Indexed (updated)")}
        self.report.bump("unchanged" if result.outcome == "unchanged" else "ingested")
        outcome = CrawlUrl.Outcome.UNCHANGED if result.outcome == "unchanged" else CrawlUrl.Outcome.FETCHED
        self.note(page.url, outcome, why[result.outcome], page.depth)
        record_page(page, response, result.document, extracted, CrawledPage.Status.INDEXED, sha)

    # --- outcomes

    def skip(self, url: str, reason: str, kind: str, *, outcome: str = "", depth: int | None = None) -> None:
        self.report.bump(kind)
        if len(self.report.skipped) < MAX_LISTED_SKIPS:
            self.report.skipped.append({"item": url, "reason": reason, "kind": kind})
        self.note(url, outcome or SKIP_OUTCOMES.get(kind, CrawlUrl.Outcome.RULE), reason, depth)

    def note(self, url: str, outcome: str, reason: str = "", depth: int | None = None) -> None:
        """Add a line to the job's crawl report (written with the next `sync`)."""
        if self.job and self._reported < MAX_REPORTED_URLS:
            self._lines.append(CrawlUrl(job=self.job, url=url[:2000], outcome=outcome, reason=reason, depth=depth))
            self._reported += 1

    def fail(self, page: CrawledPage, exc: CrawlerError) -> None:
        reason = str(exc)
        self.report.failed += 1
        if exc.kind != "failed":
            self.report.bump(exc.kind)
        self.report.failures.append({"item": page.url, "reason": reason, "kind": exc.kind})
        self.note(page.url, FAILURE_OUTCOMES.get(exc.kind, CrawlUrl.Outcome.FAILED), reason, page.depth)
        if self.job:
            self.job.add_failure(page.url, reason)
        status = getattr(exc, "status", None)
        if isinstance(exc, HTTPStatusError) and status in (404, 410) and page.document_id:
            self.remove(page, reason, status)
        else:
            page.mark_failed(reason, http_status=status)

    def remove(self, page: CrawledPage, reason: str, status: int) -> None:
        """The page disappeared: drop its document unless another page still holds it."""
        document = page.document
        page.mark_gone(reason, http_status=status)
        if document is not None and not CrawledPage.objects.filter(document=document).exists():
            delete_document(document)
            self.report.removed += 1

    def sync(self) -> None:
        """Write progress and counters to the job (failures were added as they happened)."""
        counters = self.report.counters()
        if self.job:
            deltas = {name: value - self._synced.get(name, 0) for name, value in counters.items()
                      if name != "failed" and value != self._synced.get(name, 0)}
            CrawlUrl.objects.bulk_create(self._lines)
            self._lines = []
            self._total = max(self._total, min(self.options.max_pages, self.report.fetched + len(self.frontier)))
            self.job.record(done=self.report.fetched, total=self._total, **deltas)
        self._synced = counters
        if self.progress:
            self.progress(self.report)
