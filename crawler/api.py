"""REST operations for crawls and single URLs; both run as `crawl` jobs in the worker."""

from django.http import HttpRequest
from ninja import Query, Router, Status
from ninja.pagination import paginate

from crawler import jobs
from crawler.schemas import CrawlFilter, CrawlIn, CrawlUrlFilter, CrawlUrlOut, UrlIn
from knowledge.api import get_job, get_kb
from knowledge.models import Job
from knowledge.schemas import JobOut
from portal.auth import READ, WRITE
from portal.schemas import errors

router = Router(tags=["crawler"])


@router.post("/crawls", response={202: JobOut, **errors(404)}, auth=WRITE)
def launch_crawl(request: HttpRequest, payload: CrawlIn):
    """Crawl a site breadth-first from `seed_url` into a knowledge base."""
    kb = get_kb(request, payload.knowledge_base)
    options = payload.model_dump(exclude={"knowledge_base", "seed_url"})
    return Status(202, jobs.start_crawl(kb, payload.seed_url, user=request.auth.owner, **options))


@router.get("/crawls", response={200: list[JobOut], **errors()}, auth=READ)
@paginate
def list_crawls(request: HttpRequest, filters: Query[CrawlFilter]):
    crawls = Job.objects.filter(kind=Job.Kind.CRAWL).order_by("-created_at", "-pk")
    allowed = request.auth.knowledge_base_ids
    if allowed is not None:
        crawls = crawls.filter(knowledge_base__in=allowed)
    if filters.knowledge_base is not None:
        crawls = crawls.filter(knowledge_base=filters.knowledge_base)
    if filters.status:
        crawls = crawls.filter(status=filters.status)
    return crawls


@router.get("/crawls/{job_id}", response={200: JobOut, **errors(404)}, auth=READ)
def get_crawl(request: HttpRequest, job_id: int):
    return get_job(request, job_id, kind=Job.Kind.CRAWL)


@router.get("/crawls/{job_id}/urls", response={200: list[CrawlUrlOut], **errors(404)}, auth=READ)
@paginate
def list_crawl_urls(request: HttpRequest, job_id: int, filters: Query[CrawlUrlFilter]):
    """The crawl report: every URL the crawl met, in order, with its outcome and the reason."""
    lines = get_job(request, job_id, kind=Job.Kind.CRAWL).crawl_urls.all()
    return lines.filter(outcome=filters.outcome) if filters.outcome else lines


@router.post("/crawls/{job_id}/cancel", response={202: JobOut, **errors(404, 409)}, auth=WRITE)
def cancel_crawl(request: HttpRequest, job_id: int):
    """Stop the crawl after the page it is fetching."""
    job = get_job(request, job_id, kind=Job.Kind.CRAWL)
    job.cancel()
    return Status(202, job)


@router.post("/knowledge-bases/{kb_id}/documents/url", response={202: JobOut, **errors(404)}, auth=WRITE)
def add_url(request: HttpRequest, kb_id: int, payload: UrlIn):
    """Fetch one page or document into the base (no links followed; source kind `url`)."""
    kb = get_kb(request, kb_id)
    return Status(202, jobs.start_ingest_url(kb, payload.url, user=request.auth.owner))
