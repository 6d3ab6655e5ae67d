"""Fixing content in headless Chromium: take a document out of search and back, edit a chunk and find
its new text. Set PORTAL_SCREENSHOTS=/some/dir to keep screenshots."""

import pytest
from playwright.sync_api import expect

from tests.conftest import DATA
from tests.e2e.test_content_manager_browser import snap
from tests.factories import make_document, make_kb

pytestmark = pytest.mark.django_db(transaction=True)


def search(page, kb, query: str) -> None:
    page.goto(f"/admin/knowledge/knowledgebase/playground/?kb={kb.pk}")
    page.fill("#id_query", query)
    page.click("input[type=submit][value=Search]")


def test_a_disabled_document_is_no_longer_found_and_comes_back_when_enabled(logged_in):
    kb = make_kb(name="Billing")
    refunds = make_document(kb, title="Refund policy", text="# Refunds\n\nRefunds are paid within 14 days.")
    make_document(kb, title="Shipping", text="# Shipping\n\nParcels travel by sea freight.")
    page = logged_in
    search(page, kb, "When are refunds paid?")
    expect(page.locator(".kp-hit").first).to_contain_text("Refund policy")

    page.goto(f"/admin/knowledge/document/{refunds.pk}/change/")
    page.click("input[value='Disable (out of search)']")
    expect(page.locator(".messagelist")).to_contain_text("is out of search")
    expect(page.locator(".kp-warning")).to_contain_text("disabled")
    snap(page, "document_disabled")
    search(page, kb, "When are refunds paid?")
    expect(page.locator(".kp-hit", has_text="Refund policy")).to_have_count(0)

    page.goto(f"/admin/knowledge/document/{refunds.pk}/change/")
    page.click("input[value='Enable (back in search)']")
    search(page, kb, "When are refunds paid?")
    expect(page.locator(".kp-hit").first).to_contain_text("Refund policy")


def test_an_edited_chunk_is_found_by_its_new_text(logged_in):
    kb = make_kb(name="Billing")
    document = make_document(kb, title="Refund policy", text="# Refunds\n\nRefunds are paid within 14 days.")
    page = logged_in
    page.goto(f"/admin/knowledge/document/{document.pk}/change/")
    page.locator(".kp-chunk").first.locator("text=Edit").click()
    page.fill("#id_content", "Refunds are paid within 30 days; gift vouchers become store credit.")
    snap(page, "chunk_edit")
    page.click("input[name=_save]")
    expect(page.locator(".messagelist")).to_contain_text("search finds its new text now")
    search(page, kb, "gift vouchers store credit")
    expect(page.locator(".kp-hit").first).to_contain_text("gift vouchers become store credit")

    # A chunk written by hand is found too.
    page.goto(f"/admin/knowledge/document/{document.pk}/change/")
    page.click(".object-tools >> text=Add a chunk")
    page.fill("#id_section_path", "FAQ")
    page.fill("#id_content", "Q: Can I pay by cheque? A: No, only by card or bank transfer.")
    page.click("input[value='Add chunk']")
    expect(page.locator(".kp-chunk", has_text="pay by cheque")).to_contain_text("Manual")
    search(page, kb, "pay by cheque")
    expect(page.locator(".kp-hit").first).to_contain_text("only by card or bank transfer")


def test_previewing_how_a_file_is_chunked(logged_in):
    kb = make_kb(name="Docs", chunk_size=300, chunk_overlap=30, chunk_min_size=50)
    page = logged_in
    page.goto(f"/admin/knowledge/knowledgebase/{kb.pk}/change/")
    page.click(".object-tools >> text=Preview chunking")
    page.set_input_files("#id_file", str(DATA / "documents/md/en/react-learn-installation.md"))
    page.click("input[value=Preview]")
    expect(page.locator(".kp-preview h2")).to_contain_text("react-learn-installation.md:")
    expect(page.locator(".kp-preview-chunk").first).to_be_visible()
    snap(page, "preview")
    assert not kb.documents.exists()
