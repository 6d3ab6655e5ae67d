"""Fixing content in headless Chromium: take a document out of search and back, edit a chunk and find
its new text. Set PORTAL_SCREENSHOTS=/some/dir to keep screenshots."""

import pytest
from playwright.sync_api import expect

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
