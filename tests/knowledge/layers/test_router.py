"""The intent router: plans for Russian and English questions, and running a plan against the index."""

import shutil
from pathlib import Path
from unittest import mock

import pytest
from django.test import SimpleTestCase

from knowledge.indexing.embedding import get_embedder
from knowledge.indexing.layers import store
from knowledge.search.intent import Plan, Step, find_subject, load_vocabulary, plan_and_search, plan_question
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
    "Какие классы наследуются от Gateway?": (
        "inheritance", "ru", "Gateway", [(["C2"], {"edge_type": "inherits", "dst_name": "Gateway"}, "")]),
    "Who imports `shop.models`?": (
        "imports", "en", "shop.models", [(["C2"], {"edge_type": "imports", "dst_ref": "shop.models"}, "")]),
    "What does the CLI command `sync-orders` do?": (
        "cli", "en", "sync-orders", [(["C3"], {"entry_type": "cli", "route_or_command": "sync-orders"}, "source")]),
    "Что делает команда purge?": (
        "cli", "ru", "purge", [(["C3"], {"entry_type": "cli", "route_or_command": "purge"}, "source")]),
    "Какие модели есть в проекте?": ("roles", "ru", "", [(["C4"], {"role": "model"}, "")]),
    "List all background tasks": ("roles", "en", "", [(["C4"], {"role": "task"}, "")]),
    "Where is the class StripeGateway defined?": (
        "symbol", "en", "StripeGateway", [(["C1"], {"name": "StripeGateway"}, "source")]),
    "Что делает функция log_payment?": (
        "symbol", "ru", "log_payment", [(["C1"], {"name": "log_payment"}, "source")]),
    "How does refund work?": ("workflow", "en", "", [(["D4"], {}, ""), (["D0"], {}, "")]),
    "Как происходит оплата заказа?": ("workflow", "ru", "", [(["D4"], {}, ""), (["D0"], {}, "")]),
    "What are the steps to reset a password?": ("workflow", "en", "", [(["D4"], {}, ""), (["D0"], {}, "")]),
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
    "What is the retry timeout?": ("general", "en", "", [(["D0", "C0"], {}, "")]),
    "Почему не приходит письмо с подтверждением?": ("general", "ru", "", [(["D0", "C0"], {}, "")]),
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

    def test_subject_matching_allows_russian_endings(self):
        self.assertEqual(find_subject("интеграции сервиса биллинга", VOCABULARY), "billing-service")
        self.assertEqual(find_subject("the refund runbook", VOCABULARY), "refund-runbook")
        self.assertEqual(find_subject("refund money", VOCABULARY), "")

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


@pytest.mark.django_db
def test_plan_and_search_returns_the_plan_with_its_trace(kb):
    plan, hits = plan_and_search("Какие интеграции есть у сервиса биллинга?", [kb.pk])
    assert (plan.intent, plan.subject) == ("integrations", "billing-service")
    assert plan.trace[0] == {"layers": ["D6"], "filters": {"source_id": "billing-service"}, "hits": 2}
    assert sorted(hit.metadata["target"] for hit in hits if hit.layer == "D6") == ["Orders service", "Stripe"]
    assert {hit.layer for hit in hits} == {"D6", "D0"}


@pytest.mark.django_db
def test_an_entrypoint_plan_brings_the_handler_source(kb):
    plan, hits = plan_and_search("Where is POST /api/shop/orders handled?", [kb.pk])
    assert plan.trace[0] == {"layers": ["C3"], "filters": {"http_method": ["POST", "ANY"],
                                                           "route_key": "/api/shop/orders"},
                             "hits": 1, "expanded": 1}
    assert [(hit.layer, hit.metadata.get("handler_symbol") or hit.metadata["qname"]) for hit in hits] == [
        ("C3", "shop.ninja_api.create_order_ninja"), ("C0", "shop.ninja_api.create_order_ninja")]
    assert hits[1].content.startswith('@router.post("/orders")')


@pytest.mark.django_db
def test_filters_that_match_nothing_are_relaxed_in_order_and_the_trace_says_so(kb):
    # Asked by the path declared in the code: the served path does not match, the declared one does.
    plan, hits = plan_and_search("Where is GET /ping handled?", [kb.pk])
    assert plan.trace[0]["filters"] == {"http_method": ["GET", "ANY"], "declared_route_key": "/ping"}
    assert [hit.metadata["handler_symbol"] for hit in hits if hit.layer == "C3"] == ["shop.ninja_api.ping"]
    # Django routes answer any method.
    plan, hits = plan_and_search("Where is GET /legacy handled?", [kb.pk])
    assert plan.trace[0]["filters"] == {"http_method": ["GET", "ANY"], "route_key": "/legacy"}
    assert [hit.metadata["handler_symbol"] for hit in hits if hit.layer == "C3"] == ["shop.views.order_list"]


@pytest.mark.django_db
def test_callers_plan_lists_the_call_edges(kb):
    plan, hits = plan_and_search("Кто вызывает функцию mark_paid?", [kb.pk])
    assert plan.intent == "calls"
    edges = [(hit.metadata["src_qname"], hit.metadata["dst_ref"]) for hit in hits if hit.layer == "C2"]
    assert edges == [("shop.billing.charge", "shop.models.Order.mark_paid")]
    assert [hit.metadata["qname"] for hit in hits if hit.layer == "C0"] == ["shop.billing.charge"]


@pytest.mark.django_db
def test_the_vocabulary_is_cached_per_base_until_the_base_changes(kb, django_assert_num_queries):
    load_vocabulary([kb.pk])
    with django_assert_num_queries(1):  # the version of the base, not its D1/D3 rows
        assert load_vocabulary([kb.pk])["billing service"] == "billing-service"
    make_document(kb, text="# Notes\n\nA plain page.")  # any change of the base's documents
    with django_assert_num_queries(2):
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
