"""D4–D6 from ordinary Markdown: no frontmatter, no "Scenario" or "Integrations" sections."""

from django.test import SimpleTestCase

from knowledge.indexing.layers.docs import build_doc_rows

PAGE = """# Deployment

See [the settings](../reference/settings.md#database) and [FastAPI](https://fastapi.tiangolo.com/).

## How to recover a password

The user asks for a reset link by e-mail.

## Run it locally

1. Start PostgreSQL and Redis with `docker compose up`.
2. Set `DATABASE_URL` and `SECRET_KEY`.
3. Open http://localhost:8000/docs in a browser.

## Как развернуть

Запустите сервер.
"""


def layer(rows, name):
    return [row.metadata for row in rows if row.layer == name]


def upper_case_names(path: str, page: str) -> dict[str, str]:
    """The UPPER_SNAKE names of the page's D6 rows, with the kind of each."""
    return {m["target"]: m["target_type"] for m in layer(build_doc_rows(path, page), "D6") if m["target"].isupper()}


class OrdinaryMarkdownTests(SimpleTestCase):
    def setUp(self):
        self.rows = build_doc_rows("docs/guide/deploy.md", PAGE)

    def test_how_to_sections_and_numbered_steps_are_workflows(self):
        workflows = {meta["workflow_name"]: meta["main_flow"] for meta in layer(self.rows, "D4")}
        self.assertEqual(list(workflows), ["How to recover a password", "Run it locally", "Как развернуть"])
        self.assertEqual(workflows["Run it locally"][1], "Set `DATABASE_URL` and `SECRET_KEY`.")
        self.assertEqual(workflows["How to recover a password"], ["The user asks for a reset link by e-mail."])

    def test_links_between_pages_are_relations(self):
        self.assertEqual([(m["relation_type"], m["target_id"]) for m in layer(self.rows, "D5")],
                         [("links_to", "docs/reference/settings.md"), ("links_to", "https://fastapi.tiangolo.com/")])
        # A changelog's links to pull requests and issues are no relations; to its pages they are.
        changelog = build_doc_rows("CHANGELOG.md", "# Changelog\n\n## 1.0\n\n- Fix ([#12](https://github.com/a/b/pull/12))"
                                                   ", see [upgrading](docs/upgrade.md).\n")
        self.assertEqual([m["target_id"] for m in layer(changelog, "D5")], ["docs/upgrade.md"])

    def test_services_env_vars_urls_and_ports_are_integrations(self):
        found = {(m["target"], m["target_type"]) for m in layer(self.rows, "D6")}
        self.assertEqual(found, {("PostgreSQL", "external_system"), ("Redis", "external_system"),
                                 ("Docker", "external_system"), ("DATABASE_URL", "env_var"),
                                 ("SECRET_KEY", "env_var"), ("fastapi.tiangolo.com", "url"),
                                 ("localhost:8000", "url"), ("port 8000", "port")})
        [postgres] = [m for m in layer(self.rows, "D6") if m["target"] == "PostgreSQL"]
        self.assertEqual(postgres["details"]["sections"], ["Deployment > Run it locally"])

    def test_a_plain_page_without_any_of_it_adds_nothing(self):
        rows = build_doc_rows("notes.md", "# Notes\n\nJust a paragraph about nothing in particular.\n")
        self.assertEqual({row.layer for row in rows}, {"D0", "D1", "D3"})


def test_settings_in_a_django_readme_are_no_environment_variables():
    page = ("# django-queue\n\n## Installation\n\n- Add `django_queue` to your `INSTALLED_APPS` in your projects "
            "`settings.py`::\n\n       INSTALLED_APPS = (\n           'django_queue',\n       )\n\n"
            "## Configuration\n\nAll configuration is optional. e.g:\n\n.. code:: python\n\n"
            "    # settings.py example\n    Q_CLUSTER = {\n        'workers': 8,\n    }\n\n"
            "Read `settings.CACHE_TIMEOUT` in your code. The worker count comes from `$WORKER_COUNT`;\n"
            "run `export QUEUE_URL=redis://x` first. `BUILD_WITH_MYPYC` isn't set to 1.\n\n"
            "## Environment\n\n- `DEBUG_LEVEL`\n\n## SENTRY_DSN\n\nOptional.\n")
    assert upper_case_names("README.md", page) == {
        "INSTALLED_APPS": "setting", "Q_CLUSTER": "setting", "CACHE_TIMEOUT": "setting",
        "WORKER_COUNT": "env_var", "QUEUE_URL": "env_var", "BUILD_WITH_MYPYC": "env_var", "DEBUG_LEVEL": "env_var",
        "SENTRY_DSN": "env_var"}


def test_a_name_written_without_context_is_a_constant_unless_its_section_configures_something():
    page = ("# Changelog\n\n## 0.24.0\n\n### Fixed\n\n"
            "- Support `SSL_CERT_FILE` and `SSL_CERT_DIR` environment\n  variables. (#307)\n"
            "- Expose `USE_CLIENT_DEFAULT`, the default of `auth`. (#1634)\n- Improve `USER_AGENT`.\n"
            "- Setting `HTTPX_DEBUG=1` enables debug logging.\n\n"
            "## Running it\n\nThe service reads these environment variables:\n\n"
            "- `DATABASE_URL`: where the data is\n- `REDIS_URL`: the broker\n- `SECRET_KEY`: signs cookies\n"
            "- `LOG_LEVEL`: how much to log\n\n"
            "## Configuration\n\n| name | default |\n|---|---|\n| `MAX_WORKERS` | 4 |\n\n"
            "## Notes\n\nThe enum `TUNNEL_ONLY` is gone; `SSL_CERT_FILE` is read at start.\n")
    assert upper_case_names("CHANGELOG.md", page) == {
        "SSL_CERT_FILE": "env_var", "SSL_CERT_DIR": "env_var", "USE_CLIENT_DEFAULT": "constant",
        "USER_AGENT": "constant", "HTTPX_DEBUG": "env_var", "DATABASE_URL": "env_var", "REDIS_URL": "env_var",
        "SECRET_KEY": "env_var", "LOG_LEVEL": "env_var", "MAX_WORKERS": "env_var", "TUNNEL_ONLY": "constant"}


def test_a_mentions_kind_is_said_in_words():
    # dotenv's rows said "(env var)": quoted, and searched by "Which environment variables does dotenv read?", they
    # shared only "dotenv" with it, and the answer was refused.
    page = "# Service\n\nThe service reads these environment variables:\n\n- `DATABASE_URL`: where the data is\n"
    [row] = [row for row in build_doc_rows("README.md", page) if row.layer == "D6"]
    assert row.content.startswith("Service mentions DATABASE_URL (environment variable), in: Service"), row.content
