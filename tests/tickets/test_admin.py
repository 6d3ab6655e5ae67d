import re
from html import unescape

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import TestCase
from django.urls import reverse

from knowledge import jobs
from knowledge.indexing import ingestion
from knowledge.search import answers
from tests.factories import make_document, make_kb
from tests.tickets.helpers import DELIVERY, make_help_centre
from tickets import triage
from tickets.groups import CONTENT_MANAGERS, SUPPORT_STAFF
from tickets.models import Agent, Message, Ticket

SCRIPT = "<script>alert('x')</script>"


def staff_user(name, group=None, **fields):
    user = get_user_model().objects.create_user(name, password="pw", is_staff=True, **fields)
    if group:
        user.groups.add(Group.objects.get(name=group))
    return user


class TicketAdminTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.documents, cls.agent = make_help_centre(auto_reply=False)
        cls.support = staff_user("sam", SUPPORT_STAFF)
        cls.manager = staff_user("cleo", CONTENT_MANAGERS)

    def setUp(self):
        self.ticket = self.submit("How long does standard delivery take?", subject="Delivery time")

    def submit(self, body, **fields):
        fields.setdefault("customer", "ann@example.com")
        with self.captureOnCommitCallbacks(execute=True):
            ticket = triage.submit_ticket(body=body, **fields)
        ticket.refresh_from_db()
        return ticket

    def page(self, user, ticket=None):
        self.client.force_login(user)
        return self.client.get(reverse("admin:tickets_ticket_change", args=[(ticket or self.ticket).pk]))

    def test_an_e_mailed_tickets_page_says_what_becomes_of_the_markers(self):
        self.assertNotIn("The e-mail", self.page(self.support).content.decode())  # not by e-mail: the API keeps them
        mailed = self.submit("How long does standard delivery take?", channel=Ticket.Channel.EMAIL)
        self.assertIn("The e-mail leaves the [n] markers out", self.page(self.support, mailed).content.decode())
        Agent.objects.filter(pk=self.agent.pk).update(reply_links=True)
        self.assertIn("The e-mail lists the web pages the [n] markers cite", self.page(self.support, mailed)
                      .content.decode())

    def test_the_inbox_lists_tickets_newest_first_with_filters(self):
        older = self.ticket
        newer = self.submit("I will sue you over the late parcel", subject="Angry")
        self.client.force_login(self.support)
        url = reverse("admin:tickets_ticket_changelist")
        response = self.client.get(url)
        self.assertEqual(response.status_code, 200)
        content = response.content.decode()
        self.assertLess(content.index("Angry"), content.index("Delivery time"))
        for query, shown, hidden in [("risk_level__exact=high", newer, older), ("status__exact=review", older, None),
                                     (f"agent__id__exact={self.agent.pk}", older, None)]:
            with self.subTest(query=query):
                listed = self.client.get(f"{url}?{query}").context["cl"].result_list
                self.assertIn(shown, listed)
                if hidden:
                    self.assertNotIn(hidden, listed)

    def test_the_inbox_query_count_does_not_grow_with_the_tickets(self):
        self.client.force_login(self.support)
        url = reverse("admin:tickets_ticket_changelist")
        self.client.get(url)
        with self.assertNumQueries(10) as first:
            self.client.get(url)
        for n in range(4):
            self.submit(f"Question {n} about delivery")
        with self.assertNumQueries(len(first)):
            self.client.get(url)

    def test_the_ticket_page_query_count_does_not_grow_with_drafts_and_sources(self):
        self.page(self.support)
        # 14: logging in saves the user, and the audit log (django-auditlog) reads its old row first;
        # the 15th finds the next ticket waiting.
        with self.assertNumQueries(15) as first:
            self.page(self.support)
        with self.captureOnCommitCallbacks(execute=True):
            triage.retriage(self.ticket)
        self.assertEqual(self.ticket.sources.count(), 8)  # two drafts, four sources each
        with self.assertNumQueries(len(first)):
            self.page(self.support)

    def test_the_ticket_page_reads_like_a_conversation(self):
        response = self.page(self.support)
        self.assertEqual(response.status_code, 200)
        html = response.content.decode()
        for text in ["How long does standard delivery take?", "Risk:", "Help desk", "Confidence:",
                     "Approve and send", "Edit then send", "Reject", "Triage trace", "https://help.example/delivery"]:
            self.assertIn(text, html)
        draft = self.ticket.messages.get(kind=Message.Kind.DRAFT)
        anchor = f"m{draft.pk}-source-1"
        self.assertIn(f'<a class="citation-badge" href="#{anchor}" data-source="1" title="Delivery">[1]</a>', html)
        snapshot = re.search(rf'<details class="tk-source[^"]*" id="{anchor}">(.*?)</details>', html,
                             re.DOTALL).group(1)
        self.assertIn("Delivery", snapshot)
        self.assertIn("Standard delivery takes three to five working days", snapshot)

    def test_support_staff_can_send_the_draft_or_an_edited_text(self):
        self.client.force_login(self.support)
        send = reverse("admin:tickets_ticket_send", args=[self.ticket.pk])
        self.assertEqual(self.client.get(send).status_code, 405)
        response = self.client.post(send, {"text": "Three to five working days [1]."})
        self.assertRedirects(response, reverse("admin:tickets_ticket_changelist"))  # nothing else waits
        reply = self.ticket.messages.get(kind=Message.Kind.REPLY)
        self.assertEqual((reply.author, reply.body), (self.support, "Three to five working days [1]."))
        self.assertGreater(reply.edit_distance, 0)
        html = self.page(self.support).content.decode()
        self.assertIn(f'href="#m{reply.draft_id}-source-1"', html)  # the reply's badge opens the draft's source
        self.assertNotIn("Approve and send", html)

    def test_a_reply_citing_a_missing_source_is_refused_and_the_text_kept_to_correct(self):
        self.client.force_login(self.support)
        text = "Three to five working days [1]. Tracking: see [9]."
        response = self.client.post(reverse("admin:tickets_ticket_send", args=[self.ticket.pk]), {"text": text})
        self.assertEqual(response.status_code, 200)
        [message] = response.context["messages"]
        self.assertEqual(message.level_tag, "error")
        self.assertTrue(message.message.startswith("The reply cites [9], but the draft has no such source"))
        self.assertIn(f'<textarea id="reply-text" name="text" rows="8">{text}</textarea>', response.content.decode())
        self.assertFalse(self.ticket.messages.filter(kind=Message.Kind.REPLY).exists())

    def test_approve_and_reject(self):
        self.client.force_login(self.support)
        self.client.post(reverse("admin:tickets_ticket_send", args=[self.ticket.pk]))
        self.assertEqual(self.ticket.messages.get(kind=Message.Kind.REPLY).edit_distance, 0)
        other = self.submit("How long does express delivery take?")
        self.client.post(reverse("admin:tickets_ticket_reject", args=[other.pk]), {"reason": "duplicate"})
        other.refresh_from_db()
        self.assertEqual(other.status, Ticket.Status.REJECTED)

    def test_re_triage_selected_says_what_it_queued_and_what_it_skipped_and_why(self):
        answered = self.submit("How long does express delivery take?")
        self.client.force_login(self.support)
        self.client.post(reverse("admin:tickets_ticket_send", args=[answered.pk]))
        busy = self.submit("How do I track a parcel?")
        Ticket.objects.filter(pk=busy.pk).update(status=Ticket.Status.TRIAGING)  # a worker has it right now
        url = reverse("admin:tickets_ticket_changelist")
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client.post(url, {"action": "retriage_tickets", "_selected_action": [
                self.ticket.pk, answered.pk, busy.pk]}, follow=True)
        said = [(message.level_tag, message.message) for message in response.context["messages"]]
        self.assertEqual(said[-2:], [  # after the message of the send
            ("success", "1 ticket queued for triage."),
            ("warning", f"2 tickets skipped: Ticket #{answered.pk} is closed (answered by staff). "
                        f"Ticket #{busy.pk} is being triaged right now; try again in a moment."),
        ])
        self.assertEqual(Ticket.objects.get(pk=self.ticket.pk).triage_count, 2)
        self.assertEqual(Ticket.objects.get(pk=answered.pk).status, Ticket.Status.ANSWERED)

    def test_content_managers_cannot_read_or_work_tickets(self):
        self.client.force_login(self.manager)
        self.assertEqual(self.client.get(reverse("admin:tickets_ticket_changelist")).status_code, 403)
        self.assertEqual(self.page(self.manager).status_code, 403)
        response = self.client.post(reverse("admin:tickets_ticket_send", args=[self.ticket.pk]))
        self.assertEqual(response.status_code, 403)
        self.assertFalse(self.ticket.messages.filter(kind=Message.Kind.REPLY).exists())

    def test_content_managers_edit_knowledge_and_support_staff_cannot(self):
        kb_change = reverse("admin:knowledge_knowledgebase_change", args=[self.kb.pk])
        self.client.force_login(self.manager)
        self.assertEqual(self.client.get(reverse("admin:knowledge_knowledgebase_changelist")).status_code, 200)
        self.assertContains(self.client.get(kb_change), 'name="_save"')
        self.client.force_login(self.support)
        self.assertEqual(self.client.get(reverse("admin:knowledge_knowledgebase_changelist")).status_code, 403)
        self.assertEqual(self.client.get(kb_change).status_code, 403)
        self.assertEqual(self.client.get(reverse("admin:knowledge_document_changelist")).status_code, 403)

    def test_the_gap_report_shows_questions_to_content_managers_without_ticket_links(self):
        refused = self.submit("What is the boiling point of mercury?", subject="Mercury")
        refused.refused = True
        refused.save(update_fields=["refused"])
        self.client.force_login(self.manager)
        response = self.client.get(reverse("admin:tickets_ticket_report"))
        self.assertContains(response, "Mercury")
        self.assertNotContains(response, reverse("admin:tickets_ticket_change", args=[refused.pk]))
        self.client.force_login(self.support)
        response = self.client.get(reverse("admin:tickets_ticket_report"))
        self.assertContains(response, reverse("admin:tickets_ticket_change", args=[refused.pk]))
        self.assertNotContains(response, "Write an answer")  # support staff do not edit the knowledge

    def test_content_managers_answer_a_gap_question_as_an_faq_entry(self):
        refused = self.submit("What is the boiling point of mercury?", subject="Mercury")
        refused.refused = True
        refused.save(update_fields=["refused"])
        self.client.force_login(self.manager)
        html = self.client.get(reverse("admin:tickets_ticket_report")).content.decode()
        link = re.search(r'<a class="tk-write-entry" href="([^"]+)">Write an answer</a>', html)
        self.assertIsNotNone(link)
        form = self.client.get(unescape(link.group(1))).context["form"]
        self.assertEqual(form.initial["question"], "Mercury")  # as the report shows it, to be worded
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client.post(unescape(link.group(1)), {
                "knowledge_base": self.kb.pk, "question": "What is the boiling point of mercury?",
                "answer": "Mercury boils at 356.7 °C at normal pressure."})
        self.assertEqual(response.status_code, 302)
        result = answers.answer("What is the boiling point of mercury?", [self.kb.pk])
        self.assertTrue(result.entry_match)
        self.assertEqual(result.text, "Mercury boils at 356.7 °C at normal pressure. [1]")
        self.client.force_login(self.support)
        self.assertEqual(self.client.get(unescape(link.group(1))).status_code, 403)

    def test_script_in_a_ticket_and_in_a_cited_chunk_is_escaped(self):
        make_document(self.kb, f"# Delivery of scripts\n\nExpress delivery of {SCRIPT} takes one working day.",
                      title=f"Evil {SCRIPT}", source_uri="javascript:alert(1)")
        ticket = self.submit(f"Express delivery of {SCRIPT} takes how long?", subject=SCRIPT, customer=SCRIPT)
        self.assertTrue(ticket.sources.filter(content_full__contains=SCRIPT, cited=True).exists())
        html = self.page(self.support, ticket).content.decode()
        self.assertNotIn(SCRIPT, html)
        self.assertNotIn('href="javascript:', html)
        self.assertIn("&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;", html)
        changelist = self.client.get(reverse("admin:tickets_ticket_changelist")).content.decode()
        self.assertNotIn(SCRIPT, changelist)

    def test_a_changed_source_is_flagged_with_a_diff(self):
        ingestion.ingest_text(self.kb, title="Delivery", text=DELIVERY.replace("three to five", "two to four"),
                              source_uri="https://help.example/delivery")
        html = self.page(self.support).content.decode()
        self.assertIn("Source changed since this answer", html)
        self.assertIn('<span class="tk-diff-add">+ Standard delivery takes two to four working days', html)
        jobs.delete_document(self.documents["delivery"])
        self.assertIn("The document was deleted after this answer.", self.page(self.support).content.decode())


class GapReportEntryTests(TestCase):
    def test_content_managers_find_the_gap_report_in_the_admin_index(self):
        self.client.force_login(staff_user("cleo", CONTENT_MANAGERS))
        index = self.client.get(reverse("admin:index"))
        self.assertContains(index, reverse("admin:tickets_knowledgegap_changelist"))
        self.assertNotContains(index, reverse("admin:tickets_ticket_changelist"))
        response = self.client.get(reverse("admin:tickets_knowledgegap_changelist"))
        self.assertRedirects(response, reverse("admin:tickets_ticket_report"))

    def test_staff_without_the_permission_do_not_see_it(self):
        self.client.force_login(staff_user("nobody"))
        self.assertNotContains(self.client.get(reverse("admin:index")), "Knowledge gaps")
        self.assertEqual(self.client.get(reverse("admin:tickets_ticket_report")).status_code, 403)


class AgentAdminTests(TestCase):
    def test_saving_an_agent_with_no_knowledge_base_warns(self):
        root = get_user_model().objects.create_superuser("root", password="pw")
        self.client.force_login(root)
        form = {"name": "Billing", "description": "", "is_active": "on", "instructions": "",
                "confidence_threshold": "0.5", "refusal_text": "Sorry.", "routing_hints": "",
                "auto_reply_confidence": "0.9",
                # the reply templates inline, empty
                "templates-TOTAL_FORMS": "0", "templates-INITIAL_FORMS": "0"}
        response = self.client.post(reverse("admin:tickets_agent_add"), form, follow=True)
        self.assertTrue(Agent.objects.filter(name="Billing").exists())
        self.assertContains(response, "has no knowledge base")

    def test_agents_and_api_keys_are_offered_serving_bases_only(self):
        root = get_user_model().objects.create_superuser("root", password="pw")
        self.client.force_login(root)
        served = make_kb(name="Help centre")
        make_kb(name="Help centre (new embedder)", shadow_of=served)
        for url in (reverse("admin:tickets_agent_add"), reverse("admin:portal_apikey_add")):
            with self.subTest(url=url):
                choices = self.client.get(url).context["adminform"].form.fields["knowledge_bases"].queryset
                self.assertEqual(list(choices), [served])
