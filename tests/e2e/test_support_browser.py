"""Support staff in headless Chromium: open a triaged ticket, click badge [1], read the quoted source, send.

A transactional test (the live server runs in another thread), so the groups the data migration
made are re-created here after the previous test's flush.
"""

import pytest
from django.apps import apps
from django.contrib.auth.models import Group, User
from playwright.sync_api import expect

from tests.browser import admin_login
from tests.e2e.test_content_manager_browser import snap
from tests.tickets.helpers import make_help_centre
from tickets import triage
from tickets.groups import SUPPORT_STAFF, sync_groups
from tickets.models import Message, Ticket

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def support(db):
    sync_groups(apps)
    user = User.objects.create_user("sam", password="s3cret-pass", is_staff=True)
    user.groups.add(Group.objects.get(name=SUPPORT_STAFF))
    return user


def test_a_badge_highlights_the_passage_used_and_approve_goes_to_the_next_ticket(page, support):
    make_help_centre(auto_reply=False)
    ticket = triage.submit_ticket(subject="Delivery time", body="How long does standard delivery take?",
                                  customer="ann@example.com")  # autocommit: triage ran on commit
    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.REVIEW, ticket.trace
    following = triage.submit_ticket(subject="Angry", body="I will sue you over the late parcel",
                                     customer="bob@example.com")
    draft = ticket.messages.get(kind=Message.Kind.DRAFT)

    admin_login(page, "sam", "s3cret-pass")
    page.goto("/admin/tickets/ticket/?status__exact=review")
    expect(page.locator("#result_list tbody tr").first).to_contain_text("Angry")  # high risk first
    page.click("text=Delivery time")
    snapshot = page.locator(f"#m{draft.pk}-source-1")
    quote = snapshot.locator(".tk-quote")
    expect(quote).to_be_hidden()  # closed until the badge is clicked

    page.locator(".tk-draft .citation-badge", has_text="[1]").first.click()
    expect(quote).to_be_visible()
    passage = quote.locator("mark.tk-passage")
    expect(passage).to_contain_text("Standard delivery takes three to five working days")
    expect(passage).to_be_in_viewport()
    expect(passage).to_have_class("tk-passage tk-passage-flash")
    expect(snapshot.locator("summary")).to_contain_text("Delivery")
    expect(snapshot).to_contain_text("https://help.example/delivery")
    snap(page, "ticket_citation")

    page.click("button[name=approve]")
    expect(page.locator(".messagelist")).to_contain_text(f"Reply to #{ticket.pk} sent. Next: ticket #{following.pk}")
    expect(page.locator("h1")).to_contain_text("Angry")
    assert Ticket.objects.get(pk=ticket.pk).status == Ticket.Status.ANSWERED
    page.goto(f"/admin/tickets/ticket/{ticket.pk}/change/")
    expect(page.locator(".tk-draft .tk-sent")).to_have_text("sent")
    expect(page.locator(".tk-reply")).to_contain_text("three to five working days")
