"""The report of one crawl: its counters, its failures and the URLs it skipped (`CrawlReport`).

`crawling.py` fills it page by page; the job row and the `crawl` command show it.
"""

from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from crawler.models import CrawlUrl

COUNTERS = (
    "queued", "fetched", "ingested", "unchanged", "duplicate", "blocked_by_robots", "skipped_by_rule",
    "http_4xx", "http_5xx", "too_large", "empty", "unsupported", "blocked_address", "redirect_error",
    "failed", "removed",
)
MAX_LISTED_SKIPS = 500
MAX_REPORTED_URLS = 50_000  # lines of a job's crawl report (CrawlUrl rows)
SKIP_OUTCOMES = {"blocked_by_robots": CrawlUrl.Outcome.ROBOTS, "skipped_by_rule": CrawlUrl.Outcome.RULE}
FAILURE_OUTCOMES = {"too_large": CrawlUrl.Outcome.TOO_LARGE, "unsupported": CrawlUrl.Outcome.NOT_HTML,
                    "blocked_address": CrawlUrl.Outcome.REFUSED_ADDRESS}


@dataclass
class CrawlReport:
    """Counters of one crawl. `failed` counts every per-URL failure; `http_4xx`, `http_5xx`,
    `too_large`, `empty`, `unsupported`, `blocked_address` and `redirect_error` break it down."""

    seed_url: str
    queued: int = 0
    fetched: int = 0
    ingested: int = 0
    unchanged: int = 0
    duplicate: int = 0
    blocked_by_robots: int = 0
    skipped_by_rule: int = 0
    http_4xx: int = 0
    http_5xx: int = 0
    too_large: int = 0
    empty: int = 0
    unsupported: int = 0
    blocked_address: int = 0
    redirect_error: int = 0
    failed: int = 0
    removed: int = 0
    cancelled: bool = False
    failures: list[dict] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)

    def counters(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in COUNTERS}

    def bump(self, name: str) -> None:
        setattr(self, name, getattr(self, name) + 1)

    def stored_nothing(self) -> bool:
        """No page of the crawl is in the knowledge base: none ingested, unchanged or a duplicate."""
        return not (self.ingested or self.unchanged or self.duplicate)

    def why_nothing(self) -> str:
        """Why a crawl that stored nothing did not, in words: the first failure, else the first refusal."""
        first = (self.failures or self.skipped or [{"reason": _("no URL was fetched")}])[0]
        count = self.failed + self.blocked_by_robots + self.skipped_by_rule
        return _("Nothing was crawled: all %(count)d URL(s) failed or were refused; the first: %(reason)s") % {
            "count": count, "reason": first["reason"]}
