"""A content manager's day in headless Chromium: base, uploads, progress, chunks, playground, crawl.

Tasks run synchronously in tests (tests/conftest.py), so an upload's job has usually finished when
its page opens; the progress bar must still show it, and a separate test drives the live polling.
Set PORTAL_SCREENSHOTS=/some/dir to keep screenshots of the pages.
"""

import functools
import os
import re
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import expect

from evaluation.models import Feedback
from knowledge.models import Document, Job, KnowledgeBase
from tests.conftest import DATA
from tests.factories import make_document, make_kb

pytestmark = pytest.mark.django_db(transaction=True)

UPLOADS = [
    DATA / "documents/md/en/react-learn-installation.md",
    DATA / "documents/docx/en/pandoc-headers.docx",
    DATA / "documents/pdf/malformed/header-only-invalid.pdf",  # the bad one
]
SITE = DATA / "site" / "python-markdown-docs"


def snap(page, name: str) -> None:
    folder = os.environ.get("PORTAL_SCREENSHOTS")
    if folder:
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def test_from_nothing_to_a_searchable_knowledge_base(logged_in):
    page = logged_in
    page.goto("/admin/knowledge/knowledgebase/add/")
    page.locator("#id_name").press_sequentially("React handbook")
    expect(page.locator("#id_slug")).to_have_value("react-handbook")  # prepopulated by the admin's JS
    page.select_option("#id_embedder", "hash")
    page.select_option("#id_text_search_config", "english")
    page.click("input[name=_continue]")
    expect(page.locator(".kp-summary")).to_contain_text("documents")
    kb = KnowledgeBase.objects.get(slug="react-handbook")

    page.click("text=Upload files")
    page.wait_for_load_state()  # upload.js is attached
    drop_files(page, {"notes.txt": "hello", "setup.exe": "MZ"})
    expect(page.locator(".kp-file-list li")).to_have_count(2)
    expect(page.locator(".kp-refused-file")).to_contain_text("setup.exe")  # flagged before uploading
    page.set_input_files("#id_files", [str(path) for path in UPLOADS])
    expect(page.locator(".kp-file-list li")).to_have_count(3)
    snap(page, "upload")
    page.click("input[type=submit][value='Upload and index']")

    # The job page: the bar reaches done, amber, the bad file is listed with its reason.
    expect(page.locator(".kp-progress-status")).to_have_text("Completed with 1 failure")
    expect(page.locator(".kp-progress-fill")).to_have_attribute("style", re.compile(r"width: 100%"))
    expect(page.locator(".kp-progress-count")).to_have_text("3 / 3")
    expect(page.locator(".kp-item:has(.kp-item-failed)")).to_contain_text("header-only-invalid")
    snap(page, "job")
    if os.environ.get("PORTAL_SCREENSHOTS"):
        for name, url in (("jobs", "/admin/knowledge/job/"), ("bases", "/admin/knowledge/knowledgebase/"),
                          ("chunks", "/admin/knowledge/chunk/")):
            page.goto(url)
            snap(page, name)
    assert kb.documents.filter(status=Document.Status.READY).count() == 2

    # A document's chunks, in order, and one chunk's page.
    page.goto(f"/admin/knowledge/document/?knowledge_base__id__exact={kb.pk}")
    expect(page.locator("#result_list tbody tr")).to_have_count(3)
    snap(page, "documents")
    page.click("#result_list a:text-is('Installation')")
    expect(page.locator(".kp-chunks h2")).to_contain_text("Chunks (")
    first = page.locator(".kp-chunk").first
    expect(first.locator("td").first).to_have_text("0")
    snap(page, "document")
    first.locator("td a").first.click()
    expect(page.locator("#content h1")).to_contain_text("chunk")

    # The playground, reached from the base's page with the base already ticked.
    page.goto(f"/admin/knowledge/knowledgebase/{kb.pk}/change/")
    expect(page.locator(".kp-stat-ready .kp-stat-value")).to_have_text("2")
    snap(page, "kb")
    page.click(".object-tools >> text=Search playground")
    expect(page.locator(f"input[name=knowledge_bases][value='{kb.pk}']")).to_be_checked()
    page.fill("#id_query", "How do I install React?")
    page.click("input[type=submit][value=Search]")
    expect(page.locator(".kp-hit").first).to_contain_text("Installation")
    expect(page.locator(".kp-hit mark").first).to_be_visible()
    snap(page, "playground")


def drop_files(page, files: dict[str, str]) -> None:
    """Drop files on the upload zone as a drag and drop from the desktop would."""
    page.evaluate("""(files) => {
        const transfer = new DataTransfer();
        for (const [name, content] of Object.entries(files)) { transfer.items.add(new File([content], name)); }
        document.querySelector(".kp-dropzone").dispatchEvent(
            new DragEvent("drop", {dataTransfer: transfer, bubbles: true, cancelable: true}));
    }""", files)


def test_the_progress_bar_follows_a_running_job(logged_in):
    kb = make_kb()
    job = Job.objects.create(kind=Job.Kind.INGEST, knowledge_base=kb, status=Job.Status.RUNNING,
                             progress_done=1, progress_total=4)
    page = logged_in
    page.goto(f"/admin/knowledge/job/{job.pk}/change/")
    expect(page.locator(".kp-progress-status")).to_have_text("Running")
    expect(page.locator(".kp-progress-fill")).to_have_attribute("style", re.compile(r"width: 25%"))
    job.record(done=3, created=3)
    expect(page.locator(".kp-progress-fill")).to_have_attribute("style", re.compile(r"width: 75%"))
    expect(page.locator("[data-counter=created]")).to_have_text("3")  # counters follow the bar, no reload
    job.finish()
    expect(page.locator(".kp-progress-status")).to_have_text("Succeeded")
    expect(page.locator("[data-counter=created]")).to_have_text("3")


def test_cancel_button_stops_a_running_job(logged_in):
    kb = make_kb()
    job = Job.objects.create(kind=Job.Kind.INGEST, knowledge_base=kb, status=Job.Status.RUNNING, progress_total=2)
    page = logged_in
    page.goto(f"/admin/knowledge/job/{job.pk}/change/")
    page.click("text=Cancel job")
    expect(page.locator(".messagelist")).to_contain_text("Cancellation")
    job.refresh_from_db()
    assert job.cancel_requested


def test_playground_drafts_a_grounded_answer_with_citations(logged_in):
    kb = make_kb(name="Billing")
    make_document(kb, title="Refund policy", text="# Refunds\n\nRefunds are paid within 14 days of the request.")
    page = logged_in
    page.goto(f"/admin/knowledge/knowledgebase/playground/?kb={kb.pk}")
    page.fill("#id_query", "When are refunds paid?")
    page.check("#id_with_answer")
    page.click("input[type=submit][value=Search]")
    expect(page.locator(".kp-hit").first).to_contain_text("Refund policy")
    expect(page.locator(".kp-answer")).to_be_visible()
    page.locator(".kp-answer .kp-cite").first.click()  # a citation badge jumps to its source
    expect(page.locator("#source-1")).to_contain_text("Refund policy")
    snap(page, "answer")
    # A thumbs down is recorded in the background: the answer stays on the page.
    page.click("form.kp-rate button[value=down]")
    expect(page.locator(".kp-rate-note")).to_contain_text("rating is recorded")
    expect(page.locator(".kp-answer")).to_be_visible()
    assert Feedback.objects.get().question == "When are refunds paid?"


@pytest.fixture
def local_site(settings):
    handler = functools.partial(QuietHandler, directory=str(SITE))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.CRAWLER = {**settings.CRAWLER, "ALLOWED_HOSTS": ["127.0.0.1"], "DELAY_SECONDS": 0}
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


def test_launching_a_crawl_of_a_local_site(logged_in, local_site):
    pytest.importorskip("crawler.jobs", reason="the crawler's jobs module has not landed yet")
    kb = make_kb(name="Markdown docs")
    page = logged_in
    page.goto(f"/admin/knowledge/knowledgebase/{kb.pk}/change/")
    page.click(".object-tools >> text=Crawl site")
    expect(page.locator("#id_max_pages")).to_have_value("100")
    expect(page.locator("#id_same_domain")).to_be_checked()
    page.fill("#id_seed_url", local_site)
    page.fill("#id_max_pages", "5")
    page.fill("#id_max_depth", "1")
    snap(page, "crawl_form")
    page.click("input[type=submit][value='Start crawl']")
    expect(page.locator(".messagelist")).to_contain_text("Crawl of")
    expect(page.locator(".kp-progress-status")).to_have_text("Succeeded", timeout=60_000)
    snap(page, "crawl_job")
    assert kb.documents.filter(status=Document.Status.READY).exists()

    # The crawl report: every URL met, skipped ones with their reasons, filterable by outcome.
    page.click("text=Crawl report")
    expect(page.locator(".kp-report-line[data-outcome=fetched]").first).to_contain_text("Fetched and indexed")
    off_site = page.locator(".kp-report-line[data-outcome=off_site]").first
    expect(off_site).to_contain_text("Skipped: off-site")
    expect(off_site).to_contain_text("Outside the site")
    expect(page.locator(".kp-report-line[data-outcome=rule]").first).to_contain_text(
        re.compile(r"Deeper than max_depth=1|Not fetched: max_pages=5 reached"))
    snap(page, "crawl_report")
    page.click(".kp-outcomes [data-outcome=off_site]")
    expect(page.locator(".kp-report-line[data-outcome=fetched]")).to_have_count(0)
    expect(page.locator(".kp-report-line").first).to_contain_text("Outside the site")
