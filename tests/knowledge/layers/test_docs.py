"""Documentation layers D0–D6 on the fixture docs, row by row."""

from pathlib import Path

from django.test import SimpleTestCase

from knowledge.indexing.layers.docs import build_doc_rows, classify_doc, read_sections

DOCS = Path(__file__).resolve().parents[2] / "fixtures" / "layered_docs"


def rows_of(rel: str, layer: str | None = None):
    rows = build_doc_rows(rel, (DOCS / rel).read_text())
    return [row for row in rows if layer is None or row.layer == layer]


def pick(rows, *keys):
    return [tuple(row.metadata[key] for key in keys) for row in rows]


class SectionLayerTests(SimpleTestCase):
    def test_d0_has_one_row_per_section_with_text_in_order(self):
        rows = rows_of("services/billing.md", "D0")
        self.assertEqual(pick(rows, "section_path", "section_title", "order"), [
            ("Summary", "Summary", 0),
            ("Details > Overview", "Overview", 1),
            ("Details > Сценарий", "Сценарий", 2),
            ("Details > Integrations > Stripe", "Stripe", 3),
            ("Details > Integrations > Orders service", "Orders service", 4),
        ])
        self.assertEqual([(row.span_start, row.span_end) for row in rows], [(21, 23), (27, 35), (37, 50), (54, 60),
                                                                            (62, 67)])
        self.assertEqual(rows[0].content, "# Summary\n\nThe billing service issues invoices and charges customers "
                                          "for their orders.")
        self.assertEqual(rows[0].section_path, "Summary")
        self.assertEqual({key: rows[0].metadata[key] for key in ("document_id", "type", "module", "domain",
                                                                  "subdomain", "tags", "doc_kind", "source_path",
                                                                  "artifact_type")},
                         {"document_id": "billing-service", "type": "service", "module": "billing",
                          "domain": "payments", "subdomain": "invoicing", "tags": ["payments", "invoices"],
                          "doc_kind": "spec", "source_path": "services/billing.md", "artifact_type": "DOCS"})

    def test_d0_falls_back_to_fixed_size_chunks_without_headings(self):
        rows = rows_of("notes.md", "D0")
        self.assertEqual(len(rows), 1)
        self.assertEqual(pick(rows, "section_path", "section_title", "order", "document_id"),
                         [("", "", 0, "notes.md")])
        self.assertTrue(rows[0].content.startswith("Plain notes without any heading."))
        self.assertEqual((rows[0].span_start, rows[0].span_end), (1, 2))

    def test_d0_splits_a_long_section_and_keeps_its_path(self):
        text = "# Guide\n\n" + "\n\n".join(f"Paragraph {n} " + "word " * 60 for n in range(12))
        rows = [row for row in build_doc_rows("guide.md", text, chunk_size=600, chunk_overlap=50,
                                              chunk_min_size=100) if row.layer == "D0"]
        self.assertGreater(len(rows), 3)
        self.assertEqual({row.section_path for row in rows}, {"Guide"})
        self.assertEqual([row.metadata["order"] for row in rows], list(range(len(rows))))
        self.assertTrue(all(row.content.startswith("# Guide\n\n") for row in rows))
        self.assertEqual(rows[0].span_start, 3)


class CatalogLayerTests(SimpleTestCase):
    def test_d1_card_holds_frontmatter_and_summary(self):
        [row] = rows_of("services/billing.md", "D1")
        self.assertEqual(row.metadata, {
            "document_id": "billing-service", "type": "service", "name": "billing", "title": "Billing service",
            "aliases": ["Сервис биллинга"], "module": "billing", "domain": "payments", "subdomain": "invoicing",
            "layer": "backend",
            "status": "active", "updated_at": "2026-10-01", "tags": ["payments", "invoices"],
            "entities": ["Invoice", "Payment"], "parent": "platform-overview", "children": ["refund-runbook"],
            "links": ["orders-service"], "source_path": "services/billing.md",
            "summary_text": "The billing service issues invoices and charges customers for their orders.",
            "doc_kind": "spec", "artifact_type": "DOCS",
        })
        self.assertEqual(row.content, "Billing service\n\nThe billing service issues invoices and charges "
                                      "customers for their orders.")

    def test_d1_without_frontmatter_uses_path_and_first_paragraph(self):
        [row] = rows_of("notes.md", "D1")
        self.assertEqual((row.metadata["document_id"], row.metadata["title"], row.metadata["doc_kind"]),
                         ("notes.md", "notes", "doc"))
        self.assertTrue(row.metadata["summary_text"].startswith("Plain notes without any heading."))

    def test_a_readmes_card_says_what_the_project_is_not_its_badges_logo_or_tagline(self):
        # "What is commander?" plans the README's card first; its summary was a line of badges (humanize, commander),
        # an HTML logo (dotenv) or a tagline ("... so better sign this", itsdangerous).
        for opening in ("[![Build Status](https://ci.example/badge.svg)](https://ci.example) "
                        "[![NPM Version](https://img.example/v.svg)](https://npm.example)",
                        '<p align="center"><img src="logo.svg" alt="Acme"><br></p>', "... so better sign this",
                        "<!-- prettier-ignore -->\n> [!NOTE]\n> Acme 2 is out. See the changelog.",
                        # filelock's and nanoid's: a paragraph sending the reader to the documentation
                        "For more information checkout the [official documentation](https://acme.example/docs).",
                        "Read full docs **[here](https://acme.example/docs)**."):
            card = next(row for row in build_doc_rows("README.md", f"# Acme\n\n{opening}\n\nAcme signs data for "
                                                                   "untrusted places.\n") if row.layer == "D1")
            self.assertEqual(card.content, "Acme\n\nAcme signs data for untrusted places.", opening)
        # A README with no sentence at all still has a summary: its first words (a blockquote's, without its mark).
        card = next(row for row in build_doc_rows("README.md", "# Acme\n\n> A tagline\n\n- one item\n")
                    if row.layer == "D1")
        self.assertEqual(card.metadata["summary_text"], "A tagline")

    def test_doc_kind_comes_from_path_then_frontmatter_then_content(self):
        self.assertEqual(classify_doc("README.md", {}, []), "readme")
        self.assertEqual(classify_doc("docs/adr/0001-use-postgres.md", {}, []), "adr")
        self.assertEqual(classify_doc("runbooks/refund.md", {"type": "runbook"}, []), "runbook")
        self.assertEqual(classify_doc("docs/getting-started.md", {}, []), "guide")
        self.assertEqual(classify_doc("notes/x.md", {"type": "spec"}, []), "spec")
        self.assertEqual(classify_doc("notes/x.md", {}, read_sections("# Context\n\nx\n\n# Decision\n\ny")), "adr")
        self.assertEqual(classify_doc("notes/x.md", {}, []), "doc")


class FactLayerTests(SimpleTestCase):
    def test_d2_facts_from_frontmatter_definition_lines_and_tables(self):
        rows = rows_of("services/billing.md", "D2")
        self.assertEqual(pick(rows, "subject_id", "predicate", "object", "anchor"), [
            ("billing-service", "type", "service", "frontmatter.type"),
            ("billing-service", "name", "billing", "frontmatter.name"),
            ("billing-service", "module", "billing", "frontmatter.module"),
            ("billing-service", "domain", "payments", "frontmatter.domain"),
            ("billing-service", "subdomain", "invoicing", "frontmatter.subdomain"),
            ("billing-service", "layer", "backend", "frontmatter.layer"),
            ("billing-service", "status", "active", "frontmatter.status"),
            ("billing-service", "updated_at", "2026-10-01", "frontmatter.updated_at"),
            ("billing-service", "owner", "team-billing", "frontmatter.owner"),
            ("billing-service", "tags", "payments", "frontmatter.tags"),
            ("billing-service", "tags", "invoices", "frontmatter.tags"),
            ("billing-service", "sla", "99.9%", "Details > Overview"),
            ("billing-service", "currency", "EUR", "Details > Overview"),
            ("billing-service", "retries", "3", "Details > Overview"),
            ("billing-service", "timeout", "30 s", "Details > Overview"),
        ])
        self.assertEqual([row.span_start for row in rows[-4:]], [29, 30, 34, 35])
        self.assertEqual(rows[-4].content, "billing-service sla: 99.9%")
        self.assertEqual(len({row.metadata["fact_id"] for row in rows}), 15)

    def test_wide_tables_make_the_first_cell_the_subject_and_links_become_object_refs(self):
        text = ("# API\n\n| Endpoint | Method | Docs |\n|---|---|---|\n| /orders | POST | [spec](orders.md) |\n\n"
                "- **Runbook**: `refund-runbook`\n")
        rows = [row for row in build_doc_rows("api.md", text) if row.layer == "D2"]
        self.assertEqual(pick(rows, "subject_id", "predicate", "object", "object_ref"), [
            ("/orders", "method", "POST", ""),
            ("/orders", "docs", "[spec](orders.md)", "orders.md"),
            ("api.md", "runbook", "`refund-runbook`", "refund-runbook"),
        ])
        text = "| Task | Permission |\n|---|---|\n| Upload files, add URLs and crawl sites | `add_document` |\n"
        rows = [row for row in build_doc_rows("perms.md", text) if row.layer == "D2"]
        self.assertEqual(pick(rows, "subject_id", "predicate", "object"),
                         [("Upload files, add URLs and crawl sites", "permission", "`add_document`")])

    def test_a_changelog_s_notes_are_no_facts(self):
        text = "# 4.21.0 / 2024-09-11\n\n- deps: qs@6.13.0\n- **Breaking**: `res.redirect('back')` is gone\n"
        self.assertEqual([row for row in build_doc_rows("History.md", text) if row.layer == "D2"], [])
        self.assertEqual(len([row for row in build_doc_rows("notes.md", text) if row.layer == "D2"]), 2)


class EntityAndRelationLayerTests(SimpleTestCase):
    def test_d3_entities_are_the_document_and_its_frontmatter_entities(self):
        rows = rows_of("services/billing.md", "D3")
        self.assertEqual(pick(rows, "entity_name", "entity_type", "document_id", "document_type", "domain"), [
            ("billing-service", "document", "billing-service", "service", "payments"),
            ("Invoice", "entity", "billing-service", "service", "payments"),
            ("Payment", "entity", "billing-service", "service", "payments"),
        ])
        self.assertEqual(pick(rows_of("runbooks/refund.md", "D3"), "entity_name", "entity_type"),
                         [("refund-runbook", "document"), ("Refund", "entity")])

    def test_d5_relations_are_edges_from_the_frontmatter(self):
        rows = rows_of("services/billing.md", "D5")
        self.assertEqual(pick(rows, "source_id", "relation_type", "target_id", "anchor"), [
            ("billing-service", "parent", "platform-overview", "frontmatter.parent"),
            ("billing-service", "child", "refund-runbook", "frontmatter.children"),
            ("billing-service", "links_to", "orders-service", "frontmatter.links"),
            ("billing-service", "mentions", "Invoice", "frontmatter.entities"),
            ("billing-service", "mentions", "Payment", "frontmatter.entities"),
        ])
        self.assertEqual(rows[0].content, "billing-service parent platform-overview")
        self.assertEqual(pick(rows_of("runbooks/refund.md", "D5"), "relation_type", "target_id"),
                         [("parent", "billing-service"), ("mentions", "Refund")])


class WorkflowLayerTests(SimpleTestCase):
    def test_d4_reads_a_russian_scenario(self):
        [row] = rows_of("services/billing.md", "D4")
        meta = dict(row.metadata)
        self.assertEqual(len(meta.pop("workflow_id")), 16)
        self.assertEqual(meta, {
            "document_id": "billing-service",
            "workflow_name": "Оплата заказа",
            "preconditions": ["заказ создан", "клиент авторизован"],
            "trigger": "клиент нажимает «Оплатить»",
            "main_flow": ["Сервис создаёт счёт.", "Шлюз списывает деньги.", "Заказ помечается оплаченным."],
            "alternative_flow": ["Клиент платит бонусами."],
            "error_handling": ["Отказ шлюза: счёт отменяется."],
            "postconditions": ["счёт оплачен"],
            "source_path": "services/billing.md",
            "anchor": "Details > Сценарий",
        })
        self.assertEqual((row.span_start, row.span_end), (37, 50))
        self.assertIn("Main flow:\n- Сервис создаёт счёт.", row.content)

    def test_d4_reads_an_english_scenario(self):
        [row] = rows_of("runbooks/refund.md", "D4")
        self.assertEqual(pick([row], "workflow_name", "preconditions", "trigger", "main_flow", "alternative_flow",
                              "error_handling", "postconditions"), [(
            "Refund an order", ["the order is paid"], "a customer asks for a refund",
            ["Support opens the order.", "Billing returns the money."], [],
            ["Gateway refuses: escalate to finance."], ["the order is refunded"],
        )])

    def test_d4_accepts_sub_headings_as_labels(self):
        text = "## Scenario: Password reset\n\n### Trigger\n\nThe user clicks 'forgot'.\n\n### Main flow\n\n" \
               "1. Send a link.\n2. Set a password.\n"
        [row] = [row for row in build_doc_rows("auth.md", text) if row.layer == "D4"]
        self.assertEqual(pick([row], "workflow_name", "trigger", "main_flow"),
                         [("Password reset", "The user clicks 'forgot'.", ["Send a link.", "Set a password."])])


class IntegrationLayerTests(SimpleTestCase):
    def test_d6_has_one_row_per_integration_with_attributes(self):
        rows = rows_of("services/billing.md", "D6")
        metas = [dict(row.metadata) for row in rows]
        for meta in metas:
            self.assertEqual(len(meta.pop("integration_id")), 16)
        common = {"source_id": "billing-service", "source_type": "service", "domain": "payments",
                  "subdomain": "invoicing", "source_path": "services/billing.md"}
        self.assertEqual(metas, [
            {**common, "target": "Stripe", "target_type": "external_system", "direction": "outbound",
             "interaction": "sync request", "via": "REST API", "purpose": "charge cards",
             "details": {"timeout": "10s"}, "anchor": "Details > Integrations > Stripe"},
            {**common, "target": "Orders service", "target_type": "service", "direction": "inbound",
             "interaction": "event", "via": "Kafka topic orders.created",
             "purpose": "start invoicing when an order is created", "details": {},
             "anchor": "Details > Integrations > Orders service"},
        ])
        self.assertEqual(rows[0].content, "Integration of Billing service with Stripe (external_system)\n"
                                          "Direction: outbound\nInteraction: sync request\nVia: REST API\n"
                                          "Purpose: charge cards\ntimeout: 10s")

    def test_d6_reads_bullets_and_tables_too(self):
        bullets = ("---\nid: crm\n---\n## Интеграции\n\n- **1C** — выгрузка счетов\n  - направление: outbound\n"
                   "  - канал: SFTP\n- **Email**\n  - type: external_system\n")
        rows = [row for row in build_doc_rows("crm.md", bullets) if row.layer == "D6"]
        self.assertEqual(pick(rows, "source_id", "target", "target_type", "direction", "via", "details"), [
            ("crm", "1C", "", "outbound", "SFTP", {"description": "выгрузка счетов"}),
            ("crm", "Email", "external_system", "", "", {}),
        ])
        table = ("## Integrations\n\n| Target | Type | Direction | Via |\n|---|---|---|---|\n"
                 "| Slack | api | outbound | webhook |\n")
        rows = [row for row in build_doc_rows("chat.md", table) if row.layer == "D6"]
        self.assertEqual(pick(rows, "target", "target_type", "direction", "via"),
                         [("Slack", "api", "outbound", "webhook")])
