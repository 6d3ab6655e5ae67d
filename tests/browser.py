"""Headless Chromium (Debian's package) driven by Playwright, for browser tests against `live_server`.

Never a downloaded browser build: the executable is /usr/bin/chromium (or PORTAL_CHROMIUM), started
with the flags that keep it off the network. Tests that use the `page` fixture are skipped with a
reason when no Chromium is installed; `bin/test` installs it where it can (root with apt-get).
"""

import os
import shutil

import pytest

CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
]


def chromium_path() -> str | None:
    return os.environ.get("PORTAL_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def browser():
    executable = chromium_path()
    if not executable:
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread; the test body's ORM calls are still
    # plain synchronous code, so Django's async-safety guard is relaxed for browser tests only.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(base_url=live_server.url)
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def admin_login(page, username: str, password: str) -> None:
    page.goto("/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/")
