"""The reply as the customer reads it: no marker they cannot follow; with the agent's leave, the web pages cited."""

from django.test import TestCase

from tickets import replies
from tickets.models import Agent, Message, Ticket, TicketSource

SOURCES = [  # (position, title, address): an upload, two chunks of one page, another page
    (1, "faq.xlsx", "upload:faq.xlsx"),
    (2, "Delivery", "https://help.example/delivery"),
    (3, "Delivery", "https://help.example/delivery"),
    (4, "Returns", "http://help.example/returns"),
    (5, "Notes", "file:/srv/notes.md"),
]


def reply_with(body: str, *, links: bool, language: str = "en", draft_sources=SOURCES) -> Message:
    agent = Agent.objects.create(name=f"Agent {Agent.objects.count()}", reply_links=links)
    ticket = Ticket.objects.create(subject="Delivery", agent=agent, language=language)
    draft = Message.objects.create(ticket=ticket, kind=Message.Kind.DRAFT, body=body)
    for position, title, uri in draft_sources:
        TicketSource.objects.create(ticket=ticket, message=draft, position=position, cited=True, document_title=title,
                                    source_uri=uri, content_full=title, content_sha256="0" * 64)
    return Message.objects.create(ticket=ticket, kind=Message.Kind.REPLY, body=body, draft=draft)


class CustomerTextTests(TestCase):
    BODY = "Keep the receipt [1]. Delivery takes three days [3], five abroad [2, 4]. See the notes [5].\n\nThanks [9]."

    def test_without_links_every_marker_goes_and_nothing_is_added(self):
        self.assertEqual(replies.customer_text(reply_with(self.BODY, links=False)),
                         "Keep the receipt. Delivery takes three days, five abroad. See the notes.\n\nThanks.")

    def test_with_links_the_web_pages_are_numbered_by_first_use_and_listed(self):
        self.assertEqual(replies.customer_text(reply_with(self.BODY, links=True)),
                         "Keep the receipt. Delivery takes three days [1], five abroad [1, 2]. See the notes.\n\n"
                         "Thanks.\n\n"
                         "Sources:\n"
                         "[1] Delivery: https://help.example/delivery\n"
                         "[2] Returns: http://help.example/returns")

    def test_the_list_is_headed_in_the_customers_language_and_an_untitled_page_is_its_address(self):
        reply = reply_with("Доставка занимает три дня [1].", links=True, language="ru",
                           draft_sources=[(1, "", "https://help.example/dostavka")])
        self.assertEqual(replies.customer_text(reply),
                         "Доставка занимает три дня [1].\n\nИсточники:\n[1] https://help.example/dostavka")

    def test_a_reply_without_a_draft_loses_its_markers(self):
        reply = reply_with("Three days [1].", links=True)
        reply.draft = None
        self.assertEqual(replies.customer_text(reply), "Three days.")

    def test_an_address_that_is_not_a_plain_web_page_is_never_listed(self):
        reply = reply_with("Open it [1] or this [2].", links=True,
                           draft_sources=[(1, "Trap", "javascript:alert(1)"), (2, "Spaced", "https://a.example/x y")])
        self.assertEqual(replies.customer_text(reply), "Open it or this.")
