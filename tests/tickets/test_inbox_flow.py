"""A faster inbox: next ticket after each action, riskiest first, plain words, sent drafts labelled,
citation badges pointing at the passage the draft used."""

import re

from django.test import TestCase
from django.urls import reverse
from django.utils import translation

from tests.tickets.helpers import make_help_centre
from tests.tickets.test_admin import staff_user
from tickets import citations, inbox, triage, wording
from tickets.groups import SUPPORT_STAFF
from tickets.models import Message, RiskLevel, Ticket


class InboxFlowTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.documents, cls.agent = make_help_centre(auto_reply=False)
        cls.support = staff_user("sam", SUPPORT_STAFF)

    def submit(self, body, **fields):
        with self.captureOnCommitCallbacks(execute=True):
            ticket = triage.submit_ticket(body=body, customer="ann@example.com", **fields)
        ticket.refresh_from_db()
        return ticket

    def test_approving_goes_to_the_riskiest_waiting_ticket_then_back_to_the_inbox(self):
        calm = self.submit("How long does standard delivery take?", subject="Calm")
        angry = self.submit("I will sue you over the late parcel", subject="Angry")
        self.assertEqual(angry.risk_level, RiskLevel.HIGH)
        other = self.submit("How long does express delivery take?", subject="Express")
        self.assertEqual(inbox.next_ticket(), angry)
        self.client.force_login(self.support)
        response = self.client.post(reverse("admin:tickets_ticket_send", args=[calm.pk]), follow=True)
        self.assertRedirects(response, reverse("admin:tickets_ticket_change", args=[angry.pk]))
        self.assertContains(response, f"Reply to #{calm.pk} sent. Next: ticket #{angry.pk}, high risk.")
        response = self.client.post(reverse("admin:tickets_ticket_reject", args=[angry.pk]), follow=True)
        self.assertRedirects(response, reverse("admin:tickets_ticket_change", args=[other.pk]))
        response = self.client.post(reverse("admin:tickets_ticket_send", args=[other.pk]), follow=True)
        self.assertRedirects(response, reverse("admin:tickets_ticket_changelist"))
        self.assertContains(response, "No more tickets wait for review.")

    def test_the_inbox_puts_waiting_high_risk_tickets_first_and_filters_by_age(self):
        calm = self.submit("How long does standard delivery take?", subject="Calm")
        angry = self.submit("I will sue you over the late parcel", subject="Angry")
        Ticket.objects.filter(pk=calm.pk).update(created_at=angry.created_at.replace(year=2020))
        self.client.force_login(self.support)
        url = reverse("admin:tickets_ticket_changelist")
        self.assertEqual(list(self.client.get(url).context["cl"].result_list), [angry, calm])
        self.assertEqual(list(self.client.get(url, {"age": "week"}).context["cl"].result_list), [calm])
        self.assertEqual(list(self.client.get(url, {"age": "hour"}).context["cl"].result_list), [angry])

    def test_reasons_and_trace_in_plain_words_and_the_sent_draft_labelled_sent(self):
        ticket = self.submit("How long does standard delivery take?")
        Ticket.objects.filter(pk=ticket.pk).update(confidence_reasons=["single_source", "low_top_score"])
        self.client.force_login(self.support)
        self.client.post(reverse("admin:tickets_ticket_send", args=[ticket.pk]))
        html = self.client.get(reverse("admin:tickets_ticket_change", args=[ticket.pk])).content.decode()
        self.assertIn("<li>Only one source supports the answer.</li>", html)  # autoreply.explain's words
        self.assertNotIn("single_source", html)
        self.assertIsNone(re.search(r"\d\.\d{4,}", html.split("Triage trace")[1]))
        self.assertIn('<span class="tk-badge tk-ok tk-sent">sent</span>', html)
        self.assertNotIn("superseded", html)
        self.assertIn("Reply — sent by sam", html)

    def test_the_snapshot_marks_the_passage_the_draft_used(self):
        ticket = self.submit("How long does standard delivery take?")
        draft = ticket.messages.get(kind=Message.Kind.DRAFT)
        self.client.force_login(self.support)
        html = self.client.get(reverse("admin:tickets_ticket_change", args=[ticket.pk])).content.decode()
        snapshot = re.search(rf'id="m{draft.pk}-source-1">(.*?)</details>', html, re.DOTALL).group(1)
        passage = re.search(r'<mark class="tk-passage"[^>]*>(.*?)</mark>', snapshot, re.DOTALL).group(1)
        self.assertIn("Standard delivery takes three to five working days. Express delivery arrives the next "
                      "working day\nwhen the order is placed before noon.", passage)
        self.assertNotIn("Tracking", passage)


class WordingTests(TestCase):
    def test_codes_become_words_and_long_decimals_are_rounded(self):
        self.assertEqual(wording.reason_text("single_source"), "only one source supports the answer")
        self.assertEqual(wording.reason_text("brand_new_code"), "brand new code")
        self.assertEqual(wording.rounded("best distance 0.16674593587952624 (top 6, v1.2.3)"),
                         "best distance 0.17 (top 6, v1.2.3)")
        self.assertEqual(wording.plain("Threshold 0.50; reasons: single_source, low_top_score."),
                         "Threshold 0.50; reasons: only one source supports the answer, the best match is only "
                         "loosely related.")

    def test_codes_become_words_of_the_readers_language(self):
        # A Russian ticket's trace says «Порог 0,60; причины: single_source.»: the codes too in Russian.
        with translation.override("ru"):
            self.assertEqual(wording.plain("Порог 0,60; причины: single_source, no_hits."),
                             "Порог 0,60; причины: ответ подтверждает только один источник, "
                             "в базах знаний ничего не найдено.")
            for code in wording.REASONS:
                self.assertRegex(wording.reason_text(code), "[а-я]", code)

    def test_the_cited_passage_is_the_sentence_sharing_most_words_with_the_claim(self):
        source = "Parcels are packed daily. Express delivery arrives the next working day. Returns are free."
        claims = citations.claims("Express parcels arrive the next working day [1]. Returns cost nothing [2].")
        start, end = citations.cited_passage(claims[1], source)
        self.assertEqual(source[start:end], "Express delivery arrives the next working day.")
        self.assertIsNone(citations.cited_passage("Something else entirely", source))
