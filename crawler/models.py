"""What the crawler knows about each URL it fetched for a knowledge base.

A `CrawledPage` remembers the validators (ETag, Last-Modified), the hash of the extracted text
and the outgoing links of the last fetch, so a re-crawl can ask "changed?" with a conditional
request, still follow links of unchanged pages, and re-index only what changed.
"""

from django.db import IntegrityError, models, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from knowledge.models import Document, Job, KnowledgeBase


class CrawledPage(models.Model):
    class Status(models.TextChoices):
        INDEXED = "indexed", _("Indexed")
        DUPLICATE = "duplicate", _("Duplicate of another page")
        FAILED = "failed", _("Failed")
        GONE = "gone", _("Gone (document removed)")

    knowledge_base = models.ForeignKey(KnowledgeBase, verbose_name=_("knowledge base"), on_delete=models.CASCADE,
                                       related_name="crawled_pages")
    url = models.CharField(_("URL"), max_length=2000, help_text=_("The normalised URL that was requested."))
    seed_url = models.CharField(_("seed URL"), max_length=2000, blank=True,
                                help_text=_("The crawl seed that found it."))
    final_url = models.CharField(_("final URL"), max_length=2000, blank=True, help_text=_("Where redirects ended."))
    canonical_url = models.CharField(_("canonical URL"), max_length=2000, blank=True,
                                     help_text=_("The document's source URI."))
    depth = models.PositiveSmallIntegerField(_("depth"), default=0)
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.INDEXED)
    http_status = models.PositiveSmallIntegerField(_("HTTP status"), null=True, blank=True)
    content_type = models.CharField(_("content type"), max_length=200, blank=True)
    etag = models.CharField(_("ETag"), max_length=500, blank=True)
    last_modified = models.CharField(_("last modified"), max_length=100, blank=True,
                                     help_text=_("As the server sent it."))
    sitemap_lastmod = models.DateTimeField(_("sitemap lastmod"), null=True, blank=True)
    content_sha256 = models.CharField(_("content SHA-256"), max_length=64, blank=True,
                                      help_text=_("SHA-256 of the extracted text."))
    links = models.JSONField(_("links"), default=list, blank=True,
                             help_text=_("Outgoing links, followed again on a 304."))
    document = models.ForeignKey(
        Document, verbose_name=_("document"), on_delete=models.SET_NULL, null=True, blank=True,
        related_name="crawled_pages",
    )
    error_message = models.TextField(_("error message"), blank=True)
    last_crawled_at = models.DateTimeField(_("last crawled at"), null=True, blank=True)
    last_changed_at = models.DateTimeField(_("last changed at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("crawled page")
        verbose_name_plural = _("crawled pages")
        ordering = ["url"]
        constraints = [
            models.UniqueConstraint(fields=["knowledge_base", "url"], name="crawler_page_kb_url_uniq"),
        ]
        indexes = [
            models.Index(fields=["knowledge_base", "content_sha256"], name="crawler_page_kb_sha_idx",
                         condition=~Q(content_sha256="")),
        ]

    def __str__(self) -> str:
        return self.url

    def validators(self, signature: str) -> dict[str, str]:
        """Conditional request headers; only worth sending while we hold the page's document as the parser and
        chunker of now (`signature`, `chunks.config_signature`) made it. A page read by an older parser is
        fetched whole and read anew: its HTML is not kept, and a 304 would leave it the old parser's text."""
        if (self.status != self.Status.INDEXED or self.document_id is None
                or self.document.config_signature != signature):
            return {}
        headers = {"If-None-Match": self.etag, "If-Modified-Since": self.last_modified}
        return {name: value for name, value in headers.items() if value}

    def mark_unchanged(self) -> None:
        self.last_crawled_at, self.error_message = timezone.now(), ""
        self.save(update_fields=["last_crawled_at", "error_message", "updated_at"])

    def mark_failed(self, message: str, *, http_status: int | None = None) -> None:
        """Record a failed fetch; the document (if any) keeps serving until the page is gone."""
        self.status = self.Status.FAILED if self.document_id is None else self.status
        self.error_message, self.http_status, self.last_crawled_at = message, http_status, timezone.now()
        self.store()

    def mark_gone(self, message: str, *, http_status: int | None) -> None:
        self.status, self.document, self.content_sha256, self.etag, self.last_modified = (
            self.Status.GONE, None, "", "", "")
        self.error_message, self.http_status, self.last_crawled_at = message, http_status, timezone.now()
        self.store()

    def record_fetch(self, *, final_url: str, http_status: int, content_type: str, etag: str, last_modified: str,
                     status: str, document: Document | None, content_sha256: str, canonical_url: str,
                     links: list[str]) -> None:
        """Store what a successful fetch found; `last_changed_at` moves only when the text changed."""
        now = timezone.now()
        if content_sha256 != self.content_sha256:
            self.last_changed_at = now
        self.final_url, self.http_status, self.content_type = final_url, http_status, content_type[:200]
        self.etag, self.last_modified, self.status, self.document = etag, last_modified, status, document
        self.content_sha256, self.canonical_url, self.links = content_sha256, canonical_url, links
        self.error_message, self.last_crawled_at = "", now
        self.store()

    def store(self) -> None:
        """Save; a new row for a URL another job stored meanwhile (a crawl and "Add URL" fetching one
        page at once) updates that row instead: the latest fetch's findings stand, nothing fails."""
        if not self._state.adding:
            self.save()
            return
        try:
            with transaction.atomic():
                self.save()
        except IntegrityError:
            self.pk = (CrawledPage.objects.filter(knowledge_base_id=self.knowledge_base_id, url=self.url)
                       .values_list("pk", flat=True).get())
            self._state.adding = False
            self.save()


class CrawlUrl(models.Model):
    """One URL a crawl met and what became of it: a line of the crawl report people read."""

    class Outcome(models.TextChoices):
        FETCHED = "fetched", _("Fetched and indexed")
        UNCHANGED = "unchanged", _("Unchanged")
        DUPLICATE = "duplicate", _("Skipped: duplicate")
        OFF_SITE = "off_site", _("Skipped: off-site")
        ROBOTS = "robots", _("Skipped: robots")
        RULE = "rule", _("Skipped: crawl rule")
        TOO_LARGE = "too_large", _("Skipped: too large")
        NOT_HTML = "not_html", _("Skipped: not HTML")
        REFUSED_ADDRESS = "refused_address", _("Skipped: refused address")
        FAILED = "failed", _("Failed")

    job = models.ForeignKey(Job, verbose_name=_("job"), on_delete=models.CASCADE, related_name="crawl_urls")
    url = models.CharField(_("url"), max_length=2000)
    depth = models.PositiveSmallIntegerField(_("depth"), null=True, blank=True)
    outcome = models.CharField(_("outcome"), max_length=20, choices=Outcome.choices)
    reason = models.TextField(_("reason"), blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["job", "outcome"], name="crawler_url_job_outcome_idx")]

    def __str__(self) -> str:
        return f"{self.url}: {self.get_outcome_display()}"
