"""The admin's search playground and the escaping of what it shows."""

import re

from django.test import TestCase
from django.urls import reverse

from tests.knowledge.admin_base import AdminTestCase


class PlaygroundTests(AdminTestCase):
    url = "admin:knowledge_knowledgebase_playground"

    def test_search_shows_hits_with_scores_retrievers_and_highlights(self):
        self.login(self.viewer)
        page = self.client.get(reverse(self.url), {"kb": self.kb.pk})
        self.assertRegex(page.content.decode(), f'value="{self.kb.pk}"[^>]* checked')
        response = self.client.post(reverse(self.url), {
            "query": "gift cards refunded", "knowledge_bases": [self.kb.pk], "mode": "hybrid", "top_k": 5})
        self.assertContains(response, "Refunds &lt;script&gt;")
        self.assertNotContains(response, "<script>alert(1)")
        self.assertContains(response, "<mark>")
        self.assertContains(response, "score <strong>")
        self.assertContains(response, 'class="kp-badge kp-retriever"')
        self.assertContains(response, "hybrid search")

    def test_the_question_and_bases_come_first_and_the_rest_is_advanced(self):
        self.login(self.viewer)
        html = self.client.get(reverse(self.url), {"kb": self.kb.pk}).content.decode()
        simple, advanced = html.split('<details class="kp-advanced">')
        for name in ("query", "knowledge_bases", "with_answer"):
            self.assertIn(f'name="{name}"', simple)
        for name in ("mode", "top_k", "max_distance", "layers", "filters"):
            self.assertNotIn(f'name="{name}"', simple)
            self.assertIn(f'name="{name}"', advanced)
        answer_first = self.client.post(reverse(self.url), {
            "query": "gift cards refunded", "knowledge_bases": [self.kb.pk], "mode": "hybrid", "top_k": 6})
        content = answer_first.content.decode()
        self.assertIn('<details class="kp-advanced">', content)  # defaults kept: still closed
        self.assertLess(content.index('class="kp-snippet"'), content.index("score <strong>"))
        keyword = self.client.post(reverse(self.url), {
            "query": "gift cards refunded", "knowledge_bases": [self.kb.pk], "mode": "keyword", "top_k": 6})
        self.assertContains(keyword, '<details class="kp-advanced" open>')

    def test_the_answer_says_why_in_sentences_not_codes(self):
        self.login(self.viewer)
        response = self.client.post(reverse(self.url), {
            "query": "quantum chromodynamics of neutron stars", "knowledge_bases": [self.kb.pk], "mode": "hybrid",
            "top_k": 5, "with_answer": "on"})
        reasons = re.search(r'<ul class="kp-muted kp-reasons">(.*?)</ul>', response.content.decode(), re.S)
        self.assertIsNotNone(reasons)
        self.assertIn("<li>", reasons.group(1))
        self.assertNotRegex(reasons.group(1), r"\b[a-z]+_[a-z_]+\b")  # no reason code left as it is

    def test_a_refusal_names_what_the_base_never_mentions(self):
        self.login(self.viewer)
        response = self.client.post(reverse(self.url), {
            "query": "Are refunds paid within 14 days through Klarna?", "knowledge_bases": [self.kb.pk],
            "mode": "hybrid", "top_k": 5, "with_answer": "on"})
        reasons = re.search(r'<ul class="kp-muted kp-reasons">(.*?)</ul>', response.content.decode(), re.S)
        self.assertIn("The question names “Klarna”, which the knowledge base never mentions", reasons.group(1))

    def test_invalid_filters_are_reported(self):
        self.login(self.viewer)
        response = self.client.post(reverse(self.url), {
            "query": "x", "knowledge_bases": [self.kb.pk], "mode": "keyword", "top_k": 5, "filters": "[1"})
        self.assertContains(response, "Not valid JSON")

    def test_outsider_gets_403_on_post(self):
        self.login(self.outsider)
        response = self.client.post(reverse(self.url), {"query": "x", "knowledge_bases": [self.kb.pk]})
        self.assertEqual(response.status_code, 403)


class SnippetEscapingTests(TestCase):
    def test_only_mark_tags_survive(self):
        from knowledge.admin_views import cited_text, safe_snippet

        self.assertEqual(safe_snippet("a <mark>b</mark> <img src=x onerror=1> &lt;i&gt;"),
                         "a <mark>b</mark> &lt;img src=x onerror=1&gt; &lt;i&gt;")
        self.assertEqual(cited_text("See [1, 2] <b>"),
                         'See <a class="kp-cite" href="#source-1">[1]</a> '
                         '<a class="kp-cite" href="#source-2">[2]</a> &lt;b&gt;')

    def test_badges_read_every_marker_form_of_the_one_grammar(self):
        from knowledge.admin_views import cited_text

        html = cited_text("A [1-3]. B [Источник 4]. C [sources 5, 6].")
        self.assertEqual(re.findall(r'href="#source-(\d+)"', html), ["1", "2", "3", "4", "5", "6"])
