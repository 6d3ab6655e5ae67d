"""The admin in Russian and in English in headless Chromium: the language selector, the inbox, a
ticket, the knowledge base page and the search playground.

Set PORTAL_I18N_SCREENSHOTS=docs to rewrite docs/inbox-ru.png and docs/playground-ru.png (the
screenshots the README shows).
"""

import os
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from playwright.sync_api import expect

from tests.browser import admin_login
from tests.factories import make_document, make_kb
from tickets import triage
from tickets.groups import sync_groups
from tickets.models import Agent, Ticket

pytestmark = pytest.mark.django_db(transaction=True)

DELIVERY = """# Доставка

## Сроки доставки
Обычная доставка занимает от трёх до пяти рабочих дней. Экспресс-доставка приходит на следующий
рабочий день, если заказ оформлен до полудня.

## Отслеживание посылки
Номер для отслеживания приходит по электронной почте, как только посылка покидает склад."""

REFUNDS = """# Возврат денег

Деньги возвращаются на карту в течение пяти рабочих дней после того, как посылка вернётся на склад."""


@pytest.fixture
def help_centre(db):
    sync_groups(apps)
    User.objects.create_superuser("root", password="s3cret-pass")
    kb = make_kb(name="Справочный центр", slug="")
    make_document(kb, DELIVERY, title="Доставка", source_uri="https://help.example/dostavka")
    make_document(kb, REFUNDS, title="Возврат денег", source_uri="https://help.example/vozvrat")
    agent = Agent.objects.create(name="Поддержка", is_default=True, confidence_threshold=0.3)
    agent.knowledge_bases.add(kb)
    tickets = [
        triage.submit_ticket(subject="Сроки доставки", customer="анна@пример.рф",
                             body="Сколько дней занимает обычная доставка?"),
        triage.submit_ticket(subject="Верните деньги", customer="пётр@пример.рф",
                             body="Посылка не пришла, верните деньги, иначе подам в суд!"),
        triage.submit_ticket(subject="Tracking number", customer="ann@example.com",
                             body="Where do I find the tracking number of my parcel?"),
    ]
    return kb, [Ticket.objects.get(pk=ticket.pk) for ticket in tickets]


def snap(page, name: str) -> None:
    folder = os.environ.get("PORTAL_I18N_SCREENSHOTS")
    if folder:
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


def test_the_selector_switches_the_admin_to_russian_and_back(page, help_centre):
    admin_login(page, "root", "s3cret-pass")
    expect(page.locator("#content h1")).to_have_text("Knowledge bases, documents and tickets")
    expect(page.locator("html")).to_have_attribute("lang", "en")

    page.select_option("#language-select", "ru")  # submits the form on change
    page.wait_for_load_state()
    expect(page.locator("html")).to_have_attribute("lang", "ru")
    expect(page.locator("#content h1")).to_have_text("Базы знаний, документы и тикеты")
    expect(page.locator("#site-name")).to_have_text("Портал знаний")

    # The choice is kept: the next page is Russian too.
    page.goto("/admin/knowledge/knowledgebase/")
    expect(page.locator(".object-tools")).to_contain_text("Песочница поиска")

    page.select_option("#language-select", "en")
    page.wait_for_load_state()
    expect(page.locator(".object-tools")).to_contain_text("Search playground")


def test_the_inbox_and_a_ticket_in_russian(page, help_centre):
    kb, tickets = help_centre
    admin_login_ru(page)
    page.goto("/admin/tickets/ticket/")
    expect(page.locator("#content h1")).to_have_text("Входящие")
    expect(page.locator("#result_list thead")).to_contain_text("Уверенность")
    expect(page.locator("#result_list")).to_contain_text("Ждёт проверки")
    expect(page.locator("#changelist-filter")).to_contain_text("язык")
    page.set_viewport_size({"width": 1280, "height": 720})
    snap(page, "inbox-ru")

    page.click("text=Верните деньги")
    expect(page.locator(".tk-assessment")).to_contain_text("Упоминает иск, юриста, суд или надзорный орган")
    expect(page.locator(".tk-assessment")).to_contain_text("Риск:")
    expect(page.locator("button[name=approve]")).to_have_text("Одобрить и отправить")
    expect(page.locator(".tk-trace")).to_contain_text("Ход разбора")


def test_the_playground_in_russian(page, help_centre):
    kb, _tickets = help_centre
    admin_login_ru(page)
    page.goto(f"/admin/knowledge/knowledgebase/playground/?kb={kb.pk}")
    expect(page.locator("#content h1")).to_have_text("Песочница поиска")
    page.fill("input[name=query]", "сколько идёт доставка")
    page.check("input[name=with_answer]")
    page.click("input[type=submit][value='Искать']")
    expect(page.locator(".kp-hits h2")).to_contain_text("результат")
    expect(page.locator(".kp-answer")).to_contain_text("Источники")
    expect(page.locator(".kp-hit").first).to_contain_text("Доставка")
    page.set_viewport_size({"width": 1280, "height": 900})
    snap(page, "playground-ru")


def test_the_main_pages_in_english(page, help_centre):
    kb, tickets = help_centre
    admin_login(page, "root", "s3cret-pass")
    page.goto("/admin/tickets/ticket/")
    expect(page.locator("#content h1")).to_have_text("Inbox")
    page.click("text=Tracking number")
    expect(page.locator("button[name=approve], .tk-actions")).not_to_have_count(0)
    expect(page.locator(".tk-trace")).to_contain_text("Triage trace")
    page.goto(f"/admin/knowledge/knowledgebase/{kb.pk}/change/")
    expect(page.locator(".kp-summary")).to_contain_text("Contents")
    expect(page.locator("#id_slug")).to_have_value("spravochnyj-centr")  # the Russian name, transliterated
    page.goto(f"/admin/knowledge/knowledgebase/playground/?kb={kb.pk}")
    page.fill("input[name=query]", "tracking number")
    page.click("input[type=submit][value='Search']")
    expect(page.locator(".kp-hits h2")).to_contain_text("hit")


def admin_login_ru(page) -> None:
    """Log in with the browser asking for Russian only (its Accept-Language)."""
    page.set_extra_http_headers({"Accept-Language": "ru-RU,ru;q=0.9"})
    page.goto("/admin/login/")
    expect(page.locator("input[type=submit]")).to_have_value("Войти")
    page.fill("#id_username", "root")
    page.fill("#id_password", "s3cret-pass")
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/")
