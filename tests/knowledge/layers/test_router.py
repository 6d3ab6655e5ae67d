"""The intent router: plans for Russian and English questions, and running a plan against the index."""

import shutil
from pathlib import Path
from unittest import mock

import pytest
from django.conf import settings
from django.test import SimpleTestCase, override_settings

from knowledge.indexing.embedding import get_embedder
from knowledge.indexing.layers import store
from knowledge.search import retrieval
from knowledge.search.intent import Plan, Step, find_subject, plan_question
from knowledge.search.planned import plan_and_search
from knowledge.search.vocabulary import Vocabulary, load_vocabulary
from tests.factories import make_document, make_kb

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
VOCABULARY = {"billing service": "billing-service", "Сервис биллинга": "billing-service",
              "refund runbook": "refund-runbook", "Invoice": "Invoice"}

# question → (intent, language, subject, [(layers, filters, expand), ...])
PLANS = {
    "What integrations does the billing service have?": (
        "integrations", "en", "billing-service",
        [(["D6"], {"source_id": "billing-service"}, ""), (["D0"], {}, "")]),
    "Какие интеграции есть у сервиса биллинга?": (
        "integrations", "ru", "billing-service",
        [(["D6"], {"source_id": "billing-service"}, ""), (["D0"], {}, "")]),
    "Where is POST /orders handled?": (
        "entrypoint", "en", "", [(["C3"], {"http_method": ["POST", "ANY"], "route_key": "/orders"}, "source")]),
    "Где обрабатывается GET /orders/{order_id}?": (
        "entrypoint", "ru", "",
        [(["C3"], {"http_method": ["GET", "ANY"], "route_key": "/orders/{order_id}"}, "source")]),
    "Which endpoints exist?": ("entrypoint", "en", "", [(["C3"], {"entry_type": "http"}, "source")]),
    "Какие есть эндпоинты?": ("entrypoint", "ru", "", [(["C3"], {"entry_type": "http"}, "source")]),
    "Who calls `charge()`?": (
        "calls", "en", "charge", [(["C2"], {"edge_type": "calls", "dst_name": "charge"}, "source")]),
    "Кто вызывает функцию charge?": (
        "calls", "ru", "charge", [(["C2"], {"edge_type": "calls", "dst_name": "charge"}, "source")]),
    "What does `create_order` call?": (
        "calls", "en", "create_order", [(["C2"], {"edge_type": "calls", "src_name": "create_order"}, "")]),
    "Какие функции вызывает create_order?": (
        "calls", "ru", "create_order", [(["C2"], {"edge_type": "calls", "src_name": "create_order"}, "")]),
    "Which classes inherit from `Entity`?": (
        "inheritance", "en", "Entity", [(["C2"], {"edge_type": "inherits", "dst_name": "Entity"}, "")]),
    "Which classes extend `Subscribable`?": (
        "inheritance", "en", "Subscribable", [(["C2"], {"edge_type": "inherits", "dst_name": "Subscribable"}, "")]),
    "Какие классы наследуются от Gateway?": (
        "inheritance", "ru", "Gateway", [(["C2"], {"edge_type": "inherits", "dst_name": "Gateway"}, "")]),
    "Who imports `shop.models`?": (
        "imports", "en", "shop.models", [(["C2"], {"edge_type": "imports", "dst_ref": ["shop.models"]}, "")]),
    "What does the CLI command `sync-orders` do?": (
        "cli", "en", "sync-orders", [(["C3"], {"entry_type": "cli", "route_or_command": "sync-orders"}, "source")]),
    "Что делает команда purge?": (
        "cli", "ru", "purge", [(["C3"], {"entry_type": "cli", "route_or_command": "purge"}, "source")]),
    "Какие модели есть в проекте?": ("roles", "ru", "", [(["C4"], {"role": "model"}, "")]),
    "List all background tasks": ("roles", "en", "", [(["C4"], {"role": "task"}, "")]),
    "Where is the class StripeGateway defined?": (
        "symbol", "en", "StripeGateway", [(["C1"], {"name": "StripeGateway"}, "source")]),
    "Что делает функция log_payment?": (
        "symbol", "ru", "log_payment", [(["C1"], {"name": "log_payment"}, "source"), (["D0"], {}, "")]),
    # "How does …" is asked of code as much as of documents.
    "How does refund work?": ("workflow", "en", "", [(["D4"], {}, ""), (["D0", "C0"], {}, "")]),
    "Как происходит оплата заказа?": ("workflow", "ru", "", [(["D4"], {}, ""), (["D0", "C0"], {}, "")]),
    "What are the steps to reset a password?": (
        "workflow", "en", "", [(["D4"], {}, ""), (["D0", "C0"], {}, "")]),
    # A how-to is answered by the documentation's pages first (attrs' "How do I make a class frozen?" by its
    # functions' docstrings), then the source they name.
    "How do I reset a password?": ("workflow", "en", "", [(["D4"], {}, ""), (["D0"], {}, ""), (["C0"], {}, "")]),
    "Who owns the billing service?": (
        "facts", "en", "billing-service",
        [(["D2"], {"predicate": "owner", "subject_id": "billing-service"}, ""),
         (["D1"], {"document_id": "billing-service"}, "")]),
    "Какой статус у сервиса биллинга?": (
        "facts", "ru", "billing-service",
        [(["D2"], {"predicate": "status", "subject_id": "billing-service"}, ""),
         (["D1"], {"document_id": "billing-service"}, "")]),
    "Which documents are related to the billing service?": (
        "relations", "en", "billing-service", [(["D5"], {"source_id": "billing-service"}, ""), (["D1"], {}, "")]),
    "Какие документы упоминают Invoice?": (
        "entities", "ru", "Invoice",
        [(["D3"], {"entity_name": "Invoice"}, ""), (["D5"], {"relation_type": "mentions"}, "")]),
    "Give me an overview of the refund runbook": (
        "catalog", "en", "refund-runbook", [(["D1"], {"document_id": "refund-runbook"}, "")]),
    "What changed in 4.21.0?": ("release", "en", "", [(["D0"], {"doc_kind": "changelog"}, "section")]),
    "Что нового в версии v2.0rc1?": ("release", "ru", "", [(["D0"], {"doc_kind": "changelog"}, "section")]),
    "Which Python 3.12 features are used?": ("general", "en", "", [(["D0", "C0"], {}, "")]),
    "What is the retry timeout?": ("general", "en", "", [(["D0", "C0"], {}, "")]),
    "Почему не приходит письмо с подтверждением?": ("general", "ru", "", [(["D0", "C0"], {}, "")]),
    # A yes-or-no question is answered by what the documentation says (tenacity's "Does tenacity support asyncio?" by
    # its source chunks, named by the word), then the source.
    "Does the gateway support refunds?": ("general", "en", "", [(["D0"], {}, ""), (["C0"], {}, "")]),
    "Можно ли вернуть оплату?": ("general", "ru", "", [(["D0"], {}, ""), (["C0"], {}, "")]),
}


def summary(plan: Plan) -> tuple:
    return plan.intent, plan.language, plan.subject, [(s.layers, s.filters, s.expand) for s in plan.steps]


class PlanTests(SimpleTestCase):
    def test_plans_for_russian_and_english_questions(self):
        self.assertGreaterEqual(len(PLANS), 20)
        for question, expected in PLANS.items():
            with self.subTest(question=question):
                plan = plan_question(question, VOCABULARY)
                self.assertEqual(summary(plan), expected)
                self.assertTrue(all(step.why for step in plan.steps))
                self.assertEqual(plan.planner, "rules")

    def test_without_a_known_name_the_filter_is_left_out(self):
        plan = plan_question("What integrations does the warehouse have?", VOCABULARY)
        self.assertEqual(summary(plan), ("integrations", "en", "", [(["D6"], {}, ""), (["D0"], {}, "")]))

    def test_a_class_named_inside_the_question_is_the_symbol_not_a_page_titled_with_a_word_of_it(self):
        # marshmallow's "What does the Nested field do?" was planned over its API page "fields" (the word "field"),
        # and answered with its upgrading guide; "What does Nested do?" found the class.
        vocabulary = Vocabulary({**VOCABULARY, "fields": "docs/fields.rst"}, code={"nested", "fields"},
                                symbols={"Nested", "shop.fields.Nested", "shop.fields"})
        for question in ("What does the Nested field do?", "What does Nested do?"):
            plan = plan_question(question, vocabulary)
            self.assertEqual((plan.intent, plan.steps[0].layers, plan.steps[0].filters),
                             ("symbol", ["C1"], {"name": "Nested"}), question)
        # A name opening the question or in lower case is no class's: the page stays the subject.
        self.assertEqual(plan_question("What does the nested field do?", vocabulary).subject, "docs/fields.rst")

    def test_a_path_asked_without_a_method_is_the_route_of_any_method(self):
        # Flask's tutorial: "Which function handles /<int:id>/update?" searched the documentation, not its routes.
        for question, key in [("Which function handles /<int:id>/update?", "/{id}/update"),
                              ("Where is /auth/login handled?", "/auth/login"),
                              ("What serves /users/{id}?", "/users/{id}")]:
            plan = plan_question(question, VOCABULARY)
            self.assertEqual((plan.intent, plan.steps[0].layers, plan.steps[0].filters),
                             ("entrypoint", ["C3"], {"entry_type": "http", "route_key": key}), question)
        # Not a how-to, nor a path no word asks the handler of.
        self.assertNotEqual(plan_question("How do I handle /static files?", VOCABULARY).intent, "entrypoint")
        self.assertNotEqual(plan_question("What is in /etc/app.conf?", VOCABULARY).intent, "entrypoint")

    def test_subject_matching_allows_russian_endings(self):
        self.assertEqual(find_subject("интеграции сервиса биллинга", VOCABULARY), "billing-service")
        self.assertEqual(find_subject("the refund runbook", VOCABULARY), "refund-runbook")
        self.assertEqual(find_subject("refund money", VOCABULARY), "")

    def test_a_word_becomes_a_code_filter_only_when_the_base_has_that_name(self):
        vocabulary = Vocabulary(VOCABULARY, code={"charge", "stripegateway", "sync-orders", "shop.models"})
        # A product name in CamelCase and "command line" are not symbols of this base.
        plan = plan_question("How do I connect to PostgreSQL?", vocabulary)
        self.assertEqual(summary(plan), ("workflow", "en", "", [(["D4"], {}, ""), (["D0"], {}, ""), (["C0"], {}, "")]))
        plan = plan_question("Which options does the command line take?", vocabulary)
        self.assertEqual(summary(plan), ("cli", "en", "", [(["C3"], {"entry_type": "cli"}, "source")]))
        plan = plan_question("What does the CLI command `sync-orders` do?", vocabulary)
        self.assertEqual(plan.steps[0].filters, {"entry_type": "cli", "route_or_command": "sync-orders"})
        # Known names still filter; the first known one of several is taken.
        plan = plan_question("Does PostgreSQL matter to StripeGateway?", vocabulary)
        self.assertEqual(summary(plan)[:3], ("symbol", "en", "StripeGateway"))
        self.assertEqual(plan.steps[0].filters, {"name": "StripeGateway"})
        plan = plan_question("Who calls `charge()`?", vocabulary)
        self.assertEqual(plan.steps[0].filters, {"edge_type": "calls", "dst_name": "charge"})

    def test_a_comparison_of_two_symbols_finds_both(self):
        # tenacity's "What is the difference between wait_fixed and wait_random?" was answered by wait_fixed alone.
        vocabulary = Vocabulary(VOCABULARY, code={"charge_card", "refund_card", "stripegateway"})
        for question in ("What is the difference between charge_card and refund_card?",
                         "charge_card vs refund_card: which one?", "How does charge_card compare to `refund_card`?"):
            plan = plan_question(question, vocabulary)
            self.assertEqual([step.filters for step in plan.steps if step.layers == ["C1"]],
                             [{"name": "charge_card"}, {"name": "refund_card"}], question)
        # Not without a comparison, nor with one name.
        for question in ("What does charge_card do after refund_card?",
                         "What is the difference between charge_card and a payment?"):
            self.assertEqual([step.layers for step in plan_question(question, vocabulary).steps], [["C1"], ["D0"]],
                             question)

    def test_another_planner_can_take_the_rules_place(self):
        class FixedPlanner:
            def plan(self, question, vocabulary=None):
                return Plan(question, "custom", "en", [Step(["D1"], question)], planner="llm")

        plan = plan_question("anything", planner=FixedPlanner())
        self.assertEqual((plan.intent, plan.planner, plan.to_dict()["steps"][0]["layers"]), ("custom", "llm", ["D1"]))


@pytest.fixture
def kb(tmp_path, django_db_blocker):
    repo = tmp_path / "shop"
    shutil.copytree(FIXTURES / "layered_docs", repo / "docs")
    shutil.copytree(FIXTURES / "sample_pkg", repo, dirs_exist_ok=True)
    kb = make_kb()
    store.index_repository(kb, repo)
    return kb


@pytest.mark.django_db
def test_vocabulary_comes_from_the_catalog_and_entities(kb):
    vocabulary = load_vocabulary([kb.pk])
    assert vocabulary["billing service"] == "billing-service"
    assert vocabulary["refund runbook"] == "refund-runbook"
    assert vocabulary["Сервис биллинга"] == "billing-service"  # frontmatter aliases
    assert vocabulary["Invoice"] == "Invoice"
    assert "notes.md" not in vocabulary.values()
    # Code names (C1 names and qualified names, C3 commands), lower-cased, for the code filters.
    assert {"charge", "stripegateway", "shop.billing.charge", "shop.models", "sync-orders"} <= vocabulary.code
    assert "postgresql" not in vocabulary.code


@pytest.mark.django_db
def test_plan_and_search_returns_the_plan_with_its_trace(kb):
    plan, hits = plan_and_search("Какие интеграции есть у сервиса биллинга?", [kb.pk])
    assert (plan.intent, plan.subject) == ("integrations", "billing-service")
    assert plan.trace[0] == {"layers": ["D6"], "filters": {"source_id": "billing-service"}, "hits": 2}
    assert sorted(hit.metadata["target"] for hit in hits if hit.layer == "D6") == ["Orders service", "Stripe"]
    assert [hit.layer for hit in hits][:2] == ["D6", "D6"]  # the filtered step's hits lead
    # Then the plain hybrid search, merged: the trace says so.
    assert plan.trace[-1] == {"layers": [], "filters": {}, "hits": 8, "plain": True,
                              "merge": "after the plan's filtered hits"}


@pytest.mark.django_db
def test_an_entrypoint_plan_brings_the_handler_source(kb):
    plan, hits = plan_and_search("Where is POST /api/shop/orders handled?", [kb.pk])
    assert plan.trace[0] == {"layers": ["C3"], "filters": {"http_method": ["POST", "ANY"],
                                                           "route_key": "/api/shop/orders"},
                             "hits": 1, "expanded": 1}
    assert [(hit.layer, hit.metadata.get("handler_symbol") or hit.metadata["qname"]) for hit in hits][:2] == [
        ("C3", "shop.ninja_api.create_order_ninja"), ("C0", "shop.ninja_api.create_order_ninja")]
    assert hits[1].content.startswith('@router.post("/orders")')


@pytest.mark.django_db
def test_filters_that_match_nothing_are_relaxed_in_order_and_the_trace_says_so(kb):
    # Asked by the path declared in the code: the served path does not match, the declared one does.
    plan, hits = plan_and_search("Where is GET /ping handled?", [kb.pk])
    assert plan.trace[0]["filters"] == {"http_method": ["GET", "ANY"], "declared_route_key": "/ping"}
    assert hits[0].metadata["handler_symbol"] == "shop.ninja_api.ping"
    # Django routes answer any method.
    plan, hits = plan_and_search("Where is GET /legacy handled?", [kb.pk])
    assert plan.trace[0]["filters"] == {"http_method": ["GET", "ANY"], "route_key": "/legacy"}
    assert hits[0].metadata["handler_symbol"] == "shop.views.order_list"


@pytest.mark.django_db
def test_callers_plan_lists_the_call_edges(kb):
    plan, hits = plan_and_search("Кто вызывает функцию mark_paid?", [kb.pk])
    assert plan.intent == "calls"
    edges = [(hit.metadata["src_qname"], hit.metadata["dst_ref"]) for hit in hits if hit.layer == "C2"]
    assert edges[0] == ("shop.billing.charge", "shop.models.Order.mark_paid")
    assert [hit.metadata["qname"] for hit in hits if hit.layer == "C0"][0] == "shop.billing.charge"


@pytest.mark.django_db
def test_a_wrong_intent_cannot_lose_what_plain_search_finds(kb):
    # "How does … work" plans workflows and sections; the answer is code, which plain search finds.
    question = "How does log_payment turn an amount into JSON?"
    plain = retrieval.search(question, [kb.pk], top_k=8)
    plan, hits = plan_and_search(question, [kb.pk], vocabulary=Vocabulary({}, code=set()))
    assert plan.intent == "workflow" and plan.trace[-1]["merge"] == "fused with the plan"
    assert {hit.chunk_id for hit in plain} <= {hit.chunk_id for hit in hits}
    assert hits[0].source_uri.endswith("shop/billing.py")


@pytest.mark.django_db
def test_edge_rows_are_demoted_in_a_plain_search_unless_their_layer_is_asked_for(kb):
    question = "charge mark_paid calls"
    everything = retrieval.search(question, [kb.pk], top_k=10)
    edges = retrieval.search(question, [kb.pk], top_k=10, layers=["C2"])
    assert edges and all(hit.layer == "C2" for hit in edges)
    assert everything[0].layer != "C2"
    # The same rows scored with DERIVED_WEIGHT 1 put an edge first: the demotion is what moved it.
    with override_settings(PORTAL={**settings.PORTAL, "DERIVED_WEIGHT": 1.0}):
        undemoted = retrieval.search(question, [kb.pk], top_k=10)
    assert [hit.layer for hit in undemoted].index("C2") < [hit.layer for hit in everything].index("C2")


@pytest.mark.django_db
def test_the_vocabulary_is_cached_per_base_until_the_base_changes(kb, django_assert_num_queries):
    load_vocabulary([kb.pk])
    with django_assert_num_queries(1):  # the version of the base, not its D1/D3 rows
        assert load_vocabulary([kb.pk])["billing service"] == "billing-service"
    make_document(kb, text="# Notes\n\nA plain page.")  # any change of the base's documents
    with django_assert_num_queries(3):  # the version, the code names, the D1/D3 rows
        load_vocabulary([kb.pk])
    assert load_vocabulary([make_kb().pk]) == {}


@pytest.mark.django_db
def test_a_planned_search_embeds_its_question_once(kb):
    embedder = get_embedder(kb.embedder)
    with mock.patch.object(embedder, "embed_query", wraps=embedder.embed_query) as embed_query:
        # An entrypoint plan: a relaxed step and an expansion, four searches of one question.
        plan, _ = plan_and_search("Where is GET /ping handled?", [kb.pk])
    assert plan.trace[0]["filters"] == {"http_method": ["GET", "ANY"], "declared_route_key": "/ping"}
    assert embed_query.call_count == 1


@pytest.mark.django_db
def test_a_release_asked_about_is_the_changelog_section_that_names_it(tmp_path):
    repo = tmp_path / "lib"
    repo.mkdir()
    releases = [("1.3.0", "Added retries to the client."), ("1.2.0", "Changed the default timeout; fixed retries."),
                ("1.1.0", "Changed the client to retry; 1.2.0 will change the timeout.")]
    (repo / "CHANGELOG.md").write_text("# Changelog\n\n" + "".join(f"## {number}\n\n{text}\n\n"
                                                                   for number, text in releases))
    (repo / "README.md").write_text("# lib\n\nA client. What changed in each release is in the changelog.\n")
    kb = make_kb()
    store.index_repository(kb, repo)
    for question in ["What changed in 1.2.0?", "Что изменилось в версии 1.2.0?"]:
        plan, hits = plan_and_search(question, [kb.pk])
        assert plan.intent == "release", question
        assert (hits[0].layer, hits[0].section_path) == ("D0", "Changelog > 1.2.0"), question
