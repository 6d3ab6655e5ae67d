"""The report of one crawl: its counters, its failures and the URLs it skipped (`CrawlReport`).

`crawling.py` fills it page by page; the job row and the `crawl` command show it.
"""

from dataclasses import dataclass, field

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
