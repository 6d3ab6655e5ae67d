"""The job page while a real django-q2 worker ingests: each document's own state updating without a
reload, a failure shown as it happens, and a job with a failed file ending amber, not green.

Embeddings come from the OpenAI-compatible stub on 127.0.0.1, answering slowly so that the page can
be watched mid-way. Set PORTAL_SCREENSHOTS=/some/dir to keep screenshots.
"""

import re
from contextlib import ExitStack

import pytest
from django.core.files import File
from django_q.conf import Conf
from playwright.sync_api import expect

from knowledge import jobs
from knowledge.models import Document
from tests.conftest import DATA
from tests.e2e.test_content_manager_browser import snap
from tests.e2e.worker import running_worker
from tests.factories import make_kb

pytestmark = pytest.mark.django_db(transaction=True)

BAD = DATA / "documents/pdf/malformed/header-only-invalid.pdf"
LONG = DATA / "documents/md/en/react-reference-react-useState.md"


@pytest.fixture
def queued(settings):
    """Tasks really queued for a worker process, not run in the test."""
    Conf.SYNC = False
    yield
    Conf.SYNC = True


@pytest.fixture
def slow_openai(openai_stub, settings):
    openai_stub.behaviour, openai_stub.delay = "slow", 0.4
    settings.OPENAI = {**settings.OPENAI, "BASE_URL": openai_stub.base_url, "API_KEY": "k", "EMBEDDING_DIM": 256}
    return {"OPENAI_BASE_URL": openai_stub.base_url, "OPENAI_API_KEY": "k", "PORTAL_OPENAI_EMBEDDING_DIM": "256",
            "PORTAL_EMBED_BATCH_SIZE": "4"}


def upload(kb, *paths):
    with ExitStack() as stack:
        handles = [stack.enter_context(open(path, "rb")) for path in paths]
        job, _ = jobs.add_uploads(kb, [File(handle, name=path.name) for handle, path in zip(handles, paths)])
    return job


def test_each_document_progresses_live_while_a_real_worker_ingests(logged_in, queued, slow_openai):
    kb = make_kb(embedder="openai", chunk_size=300, chunk_overlap=30, chunk_min_size=50)
    job = upload(kb, BAD, LONG)  # the bad file first: its failure shows while the other still embeds
    page = logged_in
    page.goto(f"/admin/knowledge/job/{job.pk}/change/")
    expect(page.locator(".kp-progress-status")).to_have_text("Queued")
    expect(page.locator(".kp-item")).to_have_count(0)  # nothing tracked until the worker takes it
    with running_worker(**slow_openai):
        # No reload: the rows appear, the bad file fails with its reason, the long one counts chunks.
        long_row = page.locator(f".kp-item:has-text('{LONG.name}')")
        expect(long_row).to_contain_text(re.compile(r"Embedding \d+ / \d+ chunks"), timeout=60_000)
        expect(page.locator(f".kp-item:has-text('{BAD.name}') .kp-item-failed")).to_have_text("Failed")
        expect(page.locator(f".kp-item:has-text('{BAD.name}')")).to_contain_text(BAD.name + " is damaged")
        expect(page.locator(".kp-progress-status").first).to_have_text("Running")
        expect(page.locator(".field-status_badge .kp-badge")).to_have_text("Running")
        expect(page.locator(".field-started_at .readonly")).not_to_have_text("-")
        expect(page.locator("[data-counter=chunks_embedded]")).to_be_visible()
        expect(page.locator(".kp-progress-chunks")).to_contain_text("chunks embedded")
        snap(page, "job_running")
        # The bar moves inside the long file, before any second file is done.
        expect(page.locator(".kp-progress-fill")).to_have_attribute("style", re.compile(r"width: [1-9]\d?%"))
        # It ends amber, "Completed with 1 failure", never a green success.
        expect(page.locator(".kp-progress-status")).to_have_text("Completed with 1 failure", timeout=120_000)
    expect(page.locator(".kp-progress-fill")).to_have_class(re.compile(r"kp-partial"))
    expect(page.locator(".kp-progress-status")).to_have_css("background-color", "rgb(255, 224, 178)")
    expect(long_row).to_contain_text("Ready")
    snap(page, "job_partial")
    assert Document.objects.get(path=LONG.name).status == Document.Status.READY

    page.goto("/admin/knowledge/job/?status__exact=partial")
    expect(page.locator("#result_list tbody tr")).to_have_count(1)
    expect(page.locator("#result_list .kp-partial")).to_have_text("Completed with 1 failure")


def test_the_knowledge_base_page_and_documents_list_refresh_while_a_job_runs(logged_in, queued, slow_openai):
    kb = make_kb(embedder="openai", chunk_size=300, chunk_overlap=30, chunk_min_size=50)
    job = upload(kb, LONG)
    page = logged_in
    documents = page.context.new_page()
    documents.goto(f"/admin/knowledge/document/?knowledge_base__id__exact={kb.pk}")
    expect(documents.locator("#result_list .kp-pending")).to_have_text("Pending")
    page.goto(f"/admin/knowledge/knowledgebase/{kb.pk}/change/")
    expect(page.locator(".kp-stat-ready .kp-stat-value")).to_have_text("0")
    with running_worker(**slow_openai):
        expect(page.locator(".kp-stat-indexing .kp-stat-value")).to_have_text("1", timeout=60_000)
        expect(documents.locator("#result_list .kp-running")).to_have_text("Indexing")
        expect(page.locator(".kp-stat-ready .kp-stat-value")).to_have_text("1", timeout=120_000)
        expect(documents.locator("#result_list .kp-ok")).to_have_text("Ready")
    expect(page.locator(".kp-recent-jobs")).to_contain_text("Succeeded")
    assert job.pk
