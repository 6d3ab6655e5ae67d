from django.core.exceptions import ValidationError
from django.test import TestCase

from tests.factories import make_document, make_kb
from tests.tickets.helpers import DELIVERY, PASSWORDS, REFUNDS
from tickets import routing
from tickets.models import Agent


class RoutingTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.shop_kb, cls.account_kb = make_kb(name="Shop"), make_kb(name="Accounts")
        make_document(cls.shop_kb, DELIVERY, title="Delivery")
        make_document(cls.shop_kb, REFUNDS, title="Refunds")
        make_document(cls.account_kb, PASSWORDS, title="Account")
        cls.shop = Agent.objects.create(name="Shop", routing_hints="parcel, order\ntracking number")
        cls.shop.knowledge_bases.add(cls.shop_kb)
        cls.accounts = Agent.objects.create(name="Accounts", routing_hints="login; password")
        cls.accounts.knowledge_bases.add(cls.account_kb)
        cls.billing = Agent.objects.create(name="Billing", routing_hints="invoice\nкарт", is_default=False)
        cls.fallback = Agent.objects.create(name="Front desk", is_default=True)

    def test_hints_match_at_word_starts_in_any_language(self):
        self.assertEqual(routing.match_hints(self.shop, "Where is my parcel? Orders are late"), ["parcel", "order"])
        self.assertEqual(routing.match_hints(self.shop, "I need the tracking  number"), ["tracking number"])
        self.assertEqual(routing.match_hints(self.billing, "Не работает карта"), ["карт"])
        self.assertEqual(routing.match_hints(self.billing, "Where is the borderinvoice"), [])

    def test_a_hint_inside_a_longer_match_counts_once_and_longer_hints_weigh_more(self):
        shipping = Agent.objects.create(name="Addresses", routing_hints="shipping address, address")
        delivery = Agent.objects.create(name="Delivery", routing_hints="shipping, ship")
        text = "I want to change my shipping address"
        self.assertEqual(routing.match_hints(shipping, text), ["shipping address"])
        self.assertEqual(routing.match_hints(delivery, text), ["shipping"])
        scores = {s.agent.name: s.hint_words for s in routing.score_agents(text, [shipping, delivery])}
        self.assertEqual(scores, {"Addresses": 2, "Delivery": 1})

    def test_a_hint_picks_the_agent_and_says_why(self):
        decision = routing.route("I want a copy of my invoice")
        self.assertEqual(decision.agent, self.billing)
        self.assertIn("'invoice'", decision.reason)

    def test_knowledge_base_relevance_picks_the_agent_without_hints(self):
        decision = routing.route("The reset link for my account expired after one hour")
        self.assertEqual(decision.agent, self.accounts)
        self.assertIn("Accounts: Account", decision.reason)
        scores = {score.agent.name: score for score in decision.scores}
        self.assertGreater(scores["Accounts"].similarity, scores["Shop"].similarity)

    def test_hints_and_relevance_add_up(self):
        decision = routing.route("My parcel: the refund for the returned parcel is missing")
        self.assertEqual(decision.agent, self.shop)
        self.assertEqual(decision.scores[0].hints, ["parcel"])
        self.assertGreater(decision.scores[0].similarity, 0)

    def test_nothing_matching_goes_to_the_default_agent(self):
        decision = routing.route("zzz qqq")
        self.assertEqual(decision.agent, self.fallback)
        self.assertIn("default agent", decision.reason)

    def test_inactive_agents_are_not_routed_to(self):
        Agent.objects.filter(pk=self.billing.pk).update(is_active=False)
        self.assertNotEqual(routing.route("I want a copy of my invoice").agent, self.billing)

    def test_without_a_default_agent_an_unmatched_ticket_stays_unassigned(self):
        Agent.objects.filter(pk=self.fallback.pk).update(is_default=False)
        decision = routing.route("zzz qqq")
        self.assertIsNone(decision.agent)
        self.assertIn("waits unassigned", decision.reason)

    def test_no_agents_means_no_agent(self):
        self.assertIsNone(routing.route("hello", agents=[]).agent)


class DefaultAgentTests(TestCase):
    def test_a_second_default_agent_is_refused_in_words_not_by_the_constraints_name(self):
        Agent.objects.create(name="First", is_default=True)
        with self.assertRaises(ValidationError) as refused:
            Agent(name="Second", is_default=True).full_clean()
        self.assertEqual(refused.exception.messages,
                         ["Another agent is the default already: make that one not the default first."])
