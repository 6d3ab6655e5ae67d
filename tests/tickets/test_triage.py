import re
from unittest import mock

from django.conf import settings
from django.test import TestCase

from knowledge import jobs
from knowledge.indexing import ingestion
from knowledge.indexing.embedding import get_embedder
from tests.factories import make_document, make_kb
from tests.stubs.openai_stub import OpenAIStub
from tests.tickets.helpers import DELIVERY, make_help_centre
from tickets import citations, triage
from tickets.exceptions import TicketClosedError, TicketError
from tickets.models import Agent, Message, RiskLevel, Ticket, TicketSource


def submit(test, body, **fields):
    with test.captureOnCommitCallbacks(execute=True):
        ticket = triage.submit_ticket(body=body, customer=fields.pop("customer", "ann@example.com"), **fields)
    ticket.refresh_from_db()
    return ticket


def draft_of(ticket):
    return ticket.messages.get(kind=Message.Kind.DRAFT, is_current=True) if ticket.status == Ticket.Status.REVIEW \
        else ticket.messages.filter(kind=Message.Kind.DRAFT).latest("pk")


class ExtractiveTriageTests(TestCase):
    """No chat model configured: drafts are the extractive answer with the same markers."""

    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.documents, cls.agent = make_help_centre()

    def test_submitting_queues_triage_after_commit(self):
        with self.captureOnCommitCallbacks(execute=False) as callbacks:
            ticket = triage.submit_ticket(subject="Parcel", body="How long does standard delivery take?")
        self.assertEqual(len(callbacks), 1)
        self.assertEqual(Ticket.objects.get(pk=ticket.pk).status, Ticket.Status.NEW)
        self.assertEqual(ticket.messages.get().kind, Message.Kind.CUSTOMER)
        callbacks[0]()
        self.assertEqual(Ticket.objects.get(pk=ticket.pk).status, Ticket.Status.AUTO_REPLIED)

    def test_a_confident_low_risk_ticket_is_auto_replied_with_its_sources(self):
        ticket = submit(self, "How long does standard delivery take?")
        self.assertEqual(ticket.status, Ticket.Status.AUTO_REPLIED)
        self.assertEqual((ticket.risk_level, ticket.agent, ticket.refused), (RiskLevel.LOW, self.agent, False))
        self.assertGreaterEqual(ticket.confidence, self.agent.confidence_threshold)
        draft = ticket.messages.get(kind=Message.Kind.DRAFT)
        reply = ticket.messages.get(kind=Message.Kind.REPLY)
        self.assertEqual((reply.body, reply.draft, reply.auto_sent, draft.generator),
                         (draft.body, draft, True, "extractive"))
        # The FAQ entry's answer, verbatim (its source's line wrapped mid-sentence read as one), cited [1].
        self.assertEqual(draft.body, "Standard delivery takes three to five working days. Express delivery "
                                     "arrives the next working day when the order is placed before noon. [1]")
        self.assertEqual([step["step"] for step in ticket.trace],
                         ["risk", "routing", "retrieval", "confidence", "generation", "decision"])
        first = ticket.sources.get(position=1)
        self.assertEqual((first.document_title, first.cited), ("Delivery", True))
        self.assertIn("Standard delivery takes three to five working days", first.content_full)
        self.assertEqual(first.content_sha256, citations.content_sha256(first.content_full))

    def test_a_question_written_as_a_letter_is_answered_as_the_bare_question(self):
        bare = submit(self, "How long does standard delivery take?")
        letter = submit(self, "Hello,\n\nHow long does standard delivery take?\n\nKind regards,\nAnn Smith\n"
                              "Head of Procurement, ACME Ltd.\n+1 555 0100\n\n-- \nSent from my phone")
        self.assertEqual(letter.subject, "How long does standard delivery take?")
        self.assertEqual((letter.status, letter.confidence, draft_of(letter).body),
                         (Ticket.Status.AUTO_REPLIED, bare.confidence, draft_of(bare).body))
        # Staff read the message as it was written, and the trace says what triage read of it.
        self.assertIn("Ann Smith", letter.messages.get(kind=Message.Kind.CUSTOMER).body)
        self.assertEqual((letter.trace[0]["step"], letter.trace[0]["outcome"], letter.trace[0]["detail"]),
                         ("question", "trimmed", "Read without greeting, sign-off and signature: «How long does "
                                                 "standard delivery take?»"))
        self.assertEqual(bare.trace[0]["step"], "risk")
        # A subject that only greets, under "Re:", adds nothing to the question either.
        greeted = submit(self, "How long does standard delivery take?", subject="Re: Hello!")
        self.assertEqual((greeted.confidence, draft_of(greeted).body), (bare.confidence, draft_of(bare).body))
        self.assertEqual(greeted.trace[0]["step"], "risk")

    def test_source_positions_match_the_markers_of_the_draft(self):
        ticket = submit(self, "How do I reset my password?")
        draft = draft_of(ticket)
        cited = citations.cited_numbers(draft.body)
        self.assertTrue(cited)
        sources = {source.position: source for source in ticket.sources.all()}
        self.assertEqual({n for n, s in sources.items() if s.cited}, cited)
        # Each marker sits after a sentence quoted from the source it points to.
        quoted = re.findall(r"\s*(.+?) \[(\d+)\]", draft.body)
        self.assertTrue(quoted)
        for passage, n in quoted:
            self.assertIn(passage, " ".join(sources[int(n)].content_full.split()))

    def test_a_high_risk_ticket_is_never_auto_replied_however_confident(self):
        ticket = submit(self, "How long does standard delivery take? If it is late again I will sue you, "
                              "my lawyer is ready.")
        self.assertEqual(ticket.risk_level, RiskLevel.HIGH)
        self.assertGreaterEqual(ticket.confidence, self.agent.confidence_threshold)
        self.assertEqual(ticket.status, Ticket.Status.REVIEW)
        self.assertFalse(ticket.messages.filter(kind=Message.Kind.REPLY).exists())
        self.assertTrue(ticket.messages.filter(kind=Message.Kind.DRAFT, is_current=True).exists())
        self.assertIn("risk is high", ticket.trace[-1]["detail"])
        self.assertEqual(ticket.risk_reasons[0]["code"], "legal_threat")

    def test_an_agent_that_does_not_allow_auto_replies_leaves_the_draft_for_review(self):
        Agent.objects.filter(pk=self.agent.pk).update(auto_reply=False)
        ticket = submit(self, "How long does standard delivery take?")
        self.assertEqual(ticket.status, Ticket.Status.REVIEW)
        self.assertIn("Help desk does not send replies automatically.", ticket.trace[-1]["detail"])

    def test_an_agent_without_knowledge_bases_gets_no_draft(self):
        Agent.objects.filter(pk=self.agent.pk).update(is_default=False)
        Agent.objects.create(name="Humans", routing_hints="invoice", is_default=True, auto_reply=True)
        ticket = submit(self, "Please send me the invoice again")
        self.assertEqual((ticket.agent.name, ticket.status), ("Humans", Ticket.Status.REVIEW))
        self.assertFalse(ticket.messages.filter(kind=Message.Kind.DRAFT).exists())
        self.assertEqual(ticket.trace[2]["outcome"], "skipped")

    def test_the_snapshot_survives_deleting_the_document(self):
        ticket = submit(self, "How long does standard delivery take?")
        source = ticket.sources.get(position=1)
        jobs.delete_document(self.documents["delivery"])
        source.refresh_from_db()
        self.assertIsNone(source.document_id)
        self.assertIsNone(source.chunk_id)
        self.assertEqual(source.document_title, "Delivery")
        self.assertEqual(source.source_uri, "https://help.example/delivery")
        self.assertIn("Standard delivery takes three to five working days", source.content_full)
        self.assertEqual(citations.compare_with_live(source).status, "gone")

    def test_a_re_indexed_source_that_changed_shows_a_diff(self):
        ticket = submit(self, "How long does standard delivery take?")
        source = ticket.sources.get(position=1)
        self.assertEqual(citations.compare_with_live(source).status, "unchanged")
        ingestion.ingest_text(self.kb, title="Delivery", text=DELIVERY.replace("three to five", "two to four"),
                              source_uri="https://help.example/delivery")
        source.refresh_from_db()
        change = citations.compare_with_live(source)
        self.assertEqual(change.status, "changed")
        added = "Standard delivery takes two to four working days. Express delivery arrives the next working day"
        self.assertIn(("+", added), change.diff)
        self.assertIn("three to five", "".join(line for kind, line in change.diff if kind == "-"))
        self.assertIn("three to five", source.content_full)

    def test_re_indexing_with_the_same_text_is_not_a_change(self):
        ticket = submit(self, "How long does standard delivery take?")
        source = ticket.sources.get(position=1)
        ingestion.ingest_text(self.kb, title="Delivery", text=DELIVERY, source_uri="https://help.example/delivery",
                              document=self.documents["delivery"].__class__.objects.get(pk=self.documents["delivery"].pk))
        self.assertEqual(citations.compare_with_live(source).status, "unchanged")

    def test_retriage_supersedes_the_draft_and_records_a_new_trace(self):
        Agent.objects.filter(pk=self.agent.pk).update(auto_reply=False)
        ticket = submit(self, "How do I reset my password?")
        with self.captureOnCommitCallbacks(execute=True):
            triage.retriage(ticket)
        ticket.refresh_from_db()
        self.assertEqual((ticket.status, ticket.triage_count), (Ticket.Status.REVIEW, 2))
        drafts = ticket.messages.filter(kind=Message.Kind.DRAFT)
        self.assertEqual([d.is_current for d in drafts.order_by("pk")], [False, True])
        self.assertEqual(TicketSource.objects.filter(ticket=ticket).values("message").distinct().count(), 2)
        self.assertEqual(ticket.trace[0]["step"], "risk")

    def test_a_closed_ticket_cannot_be_retriaged(self):
        ticket = submit(self, "How long does standard delivery take?")
        with self.assertRaises(TicketClosedError):
            triage.retriage(ticket)

    def test_a_ticket_being_triaged_is_not_queued_again(self):
        ticket = triage.submit_ticket(body="How long does standard delivery take?", triage=False)
        self.assertIsNotNone(triage.claim(ticket.pk))
        self.assertIsNone(triage.claim(ticket.pk))  # another worker has it
        with self.assertRaisesMessage(TicketError, "being triaged right now"):
            triage.retriage(ticket)

    def test_a_redelivered_task_does_not_triage_twice(self):
        ticket = submit(self, "How long does standard delivery take?")
        self.assertIsNone(triage.triage_ticket(ticket.pk))
        self.assertEqual(Ticket.objects.get(pk=ticket.pk).triage_count, 1)


class ChatModelTriageTests(TestCase):
    """The real openai client against the OpenAI-compatible stub on 127.0.0.1."""

    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.documents, cls.agent = make_help_centre()

    def setUp(self):
        self.stub = OpenAIStub().start()
        self.addCleanup(self.stub.stop)
        overrides = self.settings(OPENAI={**settings.OPENAI, "BASE_URL": self.stub.base_url, "API_KEY": "k",
                                          "CHAT_MODEL": "stub-chat", "MAX_RETRIES": 0, "TIMEOUT": 5})
        overrides.enable()
        self.addCleanup(overrides.disable)

    def cite_by_title(self, body):
        """Reply citing whichever numbered source is the Delivery document, then the Refunds one if present."""
        prompt = "\n".join(str(m["content"]) for m in body["messages"])
        numbers = {title: n for n, title in re.findall(r"\[(\d+)\] (\w+)", prompt)}
        marks = [f"[{numbers[t]}]" for t in ("Delivery", "Refunds") if t in numbers]
        return f"Standard delivery takes three to five working days {' '.join(marks)}."

    def test_badges_map_to_the_sources_the_model_cited(self):
        self.stub.reply = self.cite_by_title
        ticket = submit(self, "How long does standard delivery take, and can I get my money back for a return?")
        draft = draft_of(ticket)
        self.assertEqual(draft.generator, "openai:stub-chat")
        self.assertIn("three to five working days", draft.body)
        chat = [r for r in self.stub.requests if r["path"].endswith("/chat/completions")]
        self.assertEqual(len(chat), 1)
        cited = {s.position: s.document_title for s in ticket.sources.filter(cited=True)}
        self.assertEqual(set(cited.values()), {"Delivery", "Refunds"})
        html = citations.render_with_badges(draft.body, {s.position: s for s in ticket.sources.all()})
        for position, title in cited.items():
            self.assertIn(f'href="#source-{position}" data-source="{position}" title="{title}">[{position}]</a>', html)

    def test_a_model_failure_falls_back_to_an_extractive_draft_that_waits_for_review(self):
        self.stub.behaviour = "error"
        ticket = submit(self, "How long does standard delivery take?")
        self.assertEqual(ticket.status, Ticket.Status.REVIEW)
        self.assertIn("generator_failed", ticket.confidence_reasons)
        self.assertEqual(draft_of(ticket).generator, "extractive")
        self.assertIn("The language model failed; the draft is an extract of the sources.", ticket.trace[-1]["detail"])

    def test_a_draft_citing_nothing_waits_for_review(self):
        self.stub.reply = "Delivery is usually quick."
        ticket = submit(self, "How long does standard delivery take?")
        self.assertEqual(ticket.status, Ticket.Status.REVIEW)
        self.assertFalse(ticket.sources.filter(cited=True).exists())
        self.assertIn("cites no source", ticket.trace[-1]["detail"])


class RefusalTests(TestCase):
    """Semantics matter here, so the knowledge base uses a real (fast) multilingual embedder."""

    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb(name="Shop help", embedder="use-multilingual")
        make_document(cls.kb, DELIVERY, title="Delivery")
        cls.agent = Agent.objects.create(name="Shop", auto_reply=True, confidence_threshold=0.5, is_default=True,
                                         refusal_text="We will get back to you personally.")
        cls.agent.knowledge_bases.add(cls.kb)

    def test_a_question_the_knowledge_base_cannot_answer_is_refused_not_guessed(self):
        ticket = submit(self, "What is the boiling point of mercury at sea level?")
        self.assertTrue(ticket.refused)
        self.assertLess(ticket.confidence, self.agent.confidence_threshold)
        self.assertEqual(ticket.status, Ticket.Status.REVIEW)
        self.assertEqual(draft_of(ticket).body, "We will get back to you personally.")
        self.assertFalse(ticket.sources.filter(cited=True).exists())
        self.assertEqual(ticket.trace[4]["outcome"], "refused")
        # The trace says why in words (was "Refused: … ()" with an empty generator).
        self.assertTrue(ticket.trace[4]["detail"].startswith("Refused: No word of the question occurs in the sources"))
        self.assertIn("The sources do not support an answer well enough", ticket.trace[4]["detail"])

    def test_a_question_about_something_the_base_never_mentions_is_refused(self):
        # Close to the delivery page in meaning and sharing its words, but about a carrier it never names.
        ticket = submit(self, "How many days does standard delivery with FedEx take?")
        self.assertTrue(ticket.refused)
        self.assertIn("unmentioned_name", ticket.confidence_reasons)
        self.assertEqual(draft_of(ticket).body, "We will get back to you personally.")
        # The trace says which name, so staff see at once what the base lacks.
        self.assertTrue(ticket.trace[4]["detail"].startswith(
            "Refused: The question names “FedEx”, which the knowledge base never mentions"), ticket.trace[4])

    def test_an_answerable_question_is_not_refused(self):
        ticket = submit(self, "How many days does standard delivery take?")
        self.assertFalse(ticket.refused, ticket.trace)
        self.assertEqual(ticket.sources.get(position=1).document_title, "Delivery")


class AutoReplyBarTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.documents, cls.agent = make_help_centre(confidence_threshold=0.3)

    def test_a_draft_under_the_auto_reply_bar_waits_for_review_but_is_not_refused(self):
        Agent.objects.filter(pk=self.agent.pk).update(auto_reply_confidence=0.99)
        ticket = submit(self, "How long does standard delivery take?")
        self.assertEqual((ticket.status, ticket.refused), (Ticket.Status.REVIEW, False))
        self.assertIn("below the auto-reply bar 0.99", ticket.trace[-1]["detail"])

    def test_without_a_bar_the_threshold_decides(self):
        self.assertEqual(submit(self, "How long does standard delivery take?").status, Ticket.Status.AUTO_REPLIED)


class EmbedOnceTests(TestCase):
    def test_routing_and_the_draft_embed_the_question_once(self):
        kb, _, _ = make_help_centre()
        embedder = get_embedder(kb.embedder)
        with mock.patch.object(embedder, "embed_query", wraps=embedder.embed_query) as embed_query:
            ticket = submit(self, "How long does standard delivery take?")
        self.assertEqual(ticket.status, Ticket.Status.AUTO_REPLIED)
        # The question itself (the FAQ entries' own questions are embedded to compare them with it).
        asked = [call.args[0] for call in embed_query.call_args_list]
        self.assertEqual(asked.count("How long does standard delivery take?"), 1, asked)
