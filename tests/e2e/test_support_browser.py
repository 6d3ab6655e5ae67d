"""Support staff in headless Chromium: open a triaged ticket, click badge [1], read the quoted source, send.

A transactional test (the live server runs in another thread), so the groups the data migration
made are re-created here after the previous test's flush.
"""

import pytest
from django.apps import apps
from django.contrib.auth.models import Group, User
from playwright.sync_api import expect

from tests.browser import admin_login
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


def test_a_badge_opens_the_quoted_source_and_the_draft_is_sent(page, support):
    make_help_centre(auto_reply=False)
    ticket = triage.submit_ticket(subject="Delivery time", body="How long does standard delivery take?",
                                  customer="ann@example.com")  # autocommit: triage ran on commit
    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.REVIEW, ticket.trace
    draft = ticket.messages.get(kind=Message.Kind.DRAFT)

    admin_login(page, "sam", "s3cret-pass")
    page.goto("/admin/tickets/ticket/?status__exact=review")
    page.click("text=Delivery time")
    snapshot = page.locator(f"#m{draft.pk}-source-1")
    quote = snapshot.locator(".tk-quote")
    expect(quote).to_be_hidden()  # closed until the badge is clicked

    page.locator(".tk-draft .citation-badge", has_text="[1]").first.click()
    expect(quote).to_be_visible()
    expect(quote).to_contain_text("Standard delivery takes three to five working days")
    expect(snapshot.locator("summary")).to_contain_text("Delivery")
    expect(snapshot).to_contain_text("https://help.example/delivery")

    page.click("button[name=approve]")
    expect(page.locator(".messagelist")).to_contain_text("Reply sent")
    expect(page.locator(".tk-reply")).to_contain_text("three to five working days")
    assert Ticket.objects.get(pk=ticket.pk).status == Ticket.Status.ANSWERED
