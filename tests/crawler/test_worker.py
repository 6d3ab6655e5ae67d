"""A crawl job run by a real django-q2 worker process, watched through the job row while it runs."""

import pytest
from django_q.conf import Conf

from crawler import jobs
from knowledge.models import Document, Job
from tests.e2e.worker import running_worker, wait_for
from tests.factories import make_kb


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_crawl_job_shows_live_progress_in_a_real_worker(markdown_site, monkeypatch):
    monkeypatch.setattr(Conf, "SYNC", False)  # really queue: the worker process runs the task
    kb = make_kb()
    job = jobs.start_crawl(kb, markdown_site.url("/index.html"), max_pages=12, max_depth=2)
    assert Job.objects.get(pk=job.pk).status == Job.Status.QUEUED
    worker_env = {"PORTAL_CRAWLER_ALLOWED_HOSTS": "127.0.0.1", "PORTAL_CRAWLER_DELAY": "0.25"}
    with running_worker(**worker_env) as worker:
        midway = wait_for(lambda: _running_with_progress(job.pk), timeout=60, what="progress while running")
        wait_for(lambda: Job.objects.get(pk=job.pk).is_finished, timeout=90, what="the crawl job")
        assert worker.poll() is None, "the worker died"
    assert 0 < midway.progress_done < 12 and midway.counters["fetched"] == midway.progress_done
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error_message
    # The site's sitemap.html, a generated list of its pages, waits for the content pages: 12 of them.
    assert (job.progress_done, job.counters["ingested"], job.failures) == (12, 12, [])
    assert job.task_id
    assert Document.objects.filter(knowledge_base=kb, source_kind="crawl", status="ready").count() == 12


def _running_with_progress(job_id: int) -> Job | None:
    job = Job.objects.get(pk=job_id)
    return job if job.status == Job.Status.RUNNING and job.progress_done >= 2 else None
