"""Request shapes of the crawler API; crawls answer with the knowledge app's `JobOut`."""

from typing import Literal

from ninja import Field, ModelSchema, Schema

from crawler.crawling import MAX_DEPTH_LIMIT, MAX_PAGES_LIMIT
from crawler.models import CrawlUrl
from portal.schemas import BodyIn
from portal.stored_text import translated

HTTP_URL = r"^https?://\S+$"


class CrawlIn(BodyIn):
    knowledge_base: int = Field(description="Id of the knowledge base the pages go to.")
    seed_url: str = Field(min_length=8, max_length=2000, pattern=HTTP_URL)
    max_pages: int = Field(100, ge=1, le=MAX_PAGES_LIMIT)
    max_depth: int = Field(3, ge=0, le=MAX_DEPTH_LIMIT)
    same_domain: bool = True
    follow_docs: bool = Field(False, description="Also fetch linked PDF, DOCX and XLSX documents.")
    respect_robots: bool = True
    use_sitemap: bool = True


class CrawlFilter(Schema):
    knowledge_base: int | None = None
    status: Literal["queued", "running", "succeeded", "partial", "failed", "cancelled"] | None = None


class UrlIn(BodyIn):
    url: str = Field(min_length=8, max_length=2000, pattern=HTTP_URL)


class CrawlUrlFilter(Schema):
    outcome: CrawlUrl.Outcome | None = Field(None, description="Only the URLs with this outcome.")


class CrawlUrlOut(ModelSchema):
    outcome_label: str = Field(description='The outcome in words, e.g. "Skipped: off-site".')

    class Meta:
        model = CrawlUrl
        fields = ("url", "depth", "outcome", "reason")

    @staticmethod
    def resolve_outcome_label(line: CrawlUrl) -> str:
        return line.get_outcome_display()

    @staticmethod
    def resolve_reason(line: CrawlUrl) -> str:
        return translated(line.reason)  # written by the crawl in the portal's language; read in the request's
