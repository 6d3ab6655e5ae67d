"""The intent router on questions about code: directions of edges, qualified names, code names."""

import pytest
from django.test import SimpleTestCase

from knowledge.indexing.layers import store
from knowledge.search import retrieval
from knowledge.search.intent import code_name, plan_question
from knowledge.search.planned import plan_and_search
from knowledge.search.vocabulary import Vocabulary, load_vocabulary
from tests.factories import make_indexed_repo, make_kb

# A small package whose names clash the way real ones do: a module called `cli`, a method `load`
# beside `json.load`, a document titled with the package's name.
REPO = {
    "cfgkit/__init__.py": '"""Settings from files."""\n',
    "cfgkit/config.py": '''"""The configuration."""

import json

LOGGING_CONFIG = {"version": 1}


def _walk_to_root(path):
    return [path]


class BaseConfig:
    pass


class Config(BaseConfig):
    def load(self, path):
        """Read the settings file."""
        with open(path) as handle:
            return json.load(handle)


def read_raw(path):
    with open(path) as handle:
        return json.load(handle)
''',
    "cfgkit/server.py": '''"""Serving with a configuration."""

from cfgkit.config import Config


class Server:
    def serve(self, path):
        config = Config()
        config.load(path)
''',
    "cfgkit/cli.py": '''"""The command line."""

import click

from cfgkit.server import Server


@click.command()
def run():
    server = Server()
    server.serve("settings.json")
''',
    "tests/test_config.py": '''from cfgkit.config import Config


def test_config_load_reads_the_file():
    assert Config().load
''',
    "docs/reference.md": "# ::: cfgkit\n\nThe reference of the package: how settings are read and served.\n",
}


class CodeNameTests(SimpleTestCase):
    vocabulary = Vocabulary(code={"config", "pkg.settings.config", "logging_config", "pkg.settings.logging_config",
                                  "_walk_to_root", "fetchorders", "pkg.settings"},
                            symbols={"Config", "pkg.settings.Config", "LOGGING_CONFIG", "pkg.settings.LOGGING_CONFIG",
                                     "_walk_to_root", "fetchOrders", "pkg.settings", "lib.response.res.sendFile",
                                     "src.hydration.hydrate"})

    def test_names_spelled_as_the_repository_spells_them_are_code_names(self):
        for question, name in [("Where is Config defined?", "Config"), ("Who uses LOGGING_CONFIG?", "LOGGING_CONFIG"),
                               ("What does _walk_to_root return?", "_walk_to_root"),
                               ("Who calls fetchOrders?", "fetchOrders"),
                               ("Who imports pkg.settings?", "pkg.settings"),
                               ("Where is settings.Config defined?", "settings.Config"),
                               ("Where is res.sendFile defined?", "res.sendFile"),
                               # A plain word asked the doing of, spelled as the bases spell a symbol.
                               ("What does hydrate do?", "hydrate"), ("Что делает hydrate?", "hydrate")]:
            with self.subTest(question=question):
                self.assertEqual(code_name(question, self.vocabulary), name)

    def test_words_the_repository_does_not_define_are_no_code_names(self):
        for question in ["Where is Server defined?", "What is the API timeout?", "Where is the config read?",
                         "What does e.g. the reader do?", "What does hydration do?", "What does the reader do?"]:
            with self.subTest(question=question):
                self.assertEqual(code_name(question, self.vocabulary), "")

    def test_a_backticked_name_is_a_code_name_even_when_the_repository_lacks_it(self):
        plan = plan_question("Who imports `click`?", self.vocabulary)
        self.assertEqual((plan.intent, plan.subject), ("imports", "click"))
        self.assertEqual(plan.steps[0].filters, {"edge_type": "imports", "dst_ref": ["click"]})

    def test_import_questions_in_both_directions(self):
        outgoing = ["What does `pkg.settings` import?", "What does module pkg.settings depend on?",
                    "Which modules does pkg.settings import?", "Что импортирует модуль pkg.settings?",
                    "От чего зависит pkg.settings?"]
        incoming = ["Who imports pkg.settings?", "What depends on pkg.settings?", "Which modules import pkg.settings?",
                    "Кто импортирует pkg.settings?", "Какие модули импортируют pkg.settings?",
                    "Что зависит от pkg.settings?"]
        for question in outgoing:
            with self.subTest(question=question):
                plan = plan_question(question, self.vocabulary)
                self.assertEqual(plan.intent, "imports")
                self.assertEqual(plan.steps[0].filters, {"edge_type": "imports", "src_qname": ["pkg.settings"]})
        for question in incoming:
            with self.subTest(question=question):
                plan = plan_question(question, self.vocabulary)
                self.assertEqual(plan.intent, "imports")
                self.assertEqual(plan.steps[0].filters, {"edge_type": "imports", "dst_ref": ["pkg.settings"]})

    def test_words_inside_a_code_name_trigger_no_intent(self):
        vocabulary = Vocabulary(code={"pkg.cli", "cli"}, symbols={"pkg.cli", "cli"})
        plan = plan_question("What does module pkg.cli depend on?", vocabulary)
        self.assertEqual(plan.intent, "imports")
        self.assertEqual(plan.steps[0].filters, {"edge_type": "imports", "src_qname": ["pkg.cli"]})
        plan = plan_question("What does `cli_helpers.route` return?", Vocabulary(code=set(), symbols=set()))
        self.assertNotIn(plan.intent, {"cli", "entrypoint"})


@pytest.fixture
def kb(tmp_path):
    return make_indexed_repo(tmp_path / "cfgkit-repo", REPO)


def edges(hits, **meta):
    return [hit for hit in hits if hit.layer == "C2" and all(hit.metadata.get(k) == v for k, v in meta.items())]


@pytest.mark.django_db
def test_what_a_module_imports_lists_its_own_import_edges(kb):
    # cfgkit.server imports cfgkit.config and is imported by cfgkit.cli: the two directions differ.
    for question in ["What does `cfgkit.server` import?", "Что импортирует модуль cfgkit.server?"]:
        plan, hits = plan_and_search(question, [kb.pk])
        found = plan.trace[0]["hits"]
        assert plan.intent == "imports" and found, question
        assert {(hit.metadata["src_qname"], hit.metadata["dst_ref"]) for hit in hits[:found]} == {
            ("cfgkit.server", "cfgkit.config")}, question
    for question in ["Who imports cfgkit.server?", "Кто импортирует cfgkit.server?"]:
        plan, hits = plan_and_search(question, [kb.pk])
        found = plan.trace[0]["hits"]
        assert {(hit.metadata["src_qname"], hit.metadata["dst_ref"]) for hit in hits[:found]} == {
            ("cfgkit.cli", "cfgkit.server")}, question


@pytest.mark.django_db
def test_a_module_named_like_an_intent_word_is_asked_about_as_a_module(kb):
    plan, hits = plan_and_search("What does module cfgkit.cli depend on?", [kb.pk])
    assert plan.intent == "imports"
    assert {hit.metadata["dst_ref"] for hit in edges(hits, src_qname="cfgkit.cli")} >= {"click", "cfgkit.server"}


@pytest.mark.django_db
def test_callers_of_a_qualified_name_are_callers_of_that_method(kb):
    for question in ["Who calls Config.load?", "Which functions call Config.load?", "What calls Config.load?",
                     "Callers of Config.load", "Where is Config.load called?", "Кто вызывает Config.load?"]:
        plan, hits = plan_and_search(question, [kb.pk])
        assert plan.intent == "calls", question
        assert plan.trace[0]["filters"]["dst_ref"][0] == "cfgkit.config.Config.load", question
        assert plan.trace[0]["hits"] == 1, question  # not the calls of json.load
        assert edges(hits)[0].metadata["dst_ref"] == "cfgkit.config.Config.load", question
    # Nothing calls `Server.load`: the bare name is tried, and its hits no longer lead.
    question = "Who calls Server.load?"
    plan, hits = plan_and_search(question, [kb.pk], vocabulary=load_vocabulary([kb.pk]))
    assert plan.trace[0]["filters"] == {"edge_type": "calls", "dst_name": "load"}
    plain = retrieval.search(question, [kb.pk], top_k=8)
    assert [hit.chunk_id for hit in hits[:len(plain)]] == [hit.chunk_id for hit in plain]


@pytest.mark.django_db
def test_a_partly_qualified_name_finds_its_definition(kb):
    plan, hits = plan_and_search("Where is Config.load defined?", [kb.pk])
    assert plan.trace[0]["filters"]["qname"][0] == "cfgkit.config.Config.load"
    assert (hits[0].layer, hits[0].metadata["qname"]) == ("C1", "cfgkit.config.Config.load")


@pytest.mark.django_db
def test_where_a_name_is_used_lists_the_edges_into_it(kb):
    plan, hits = plan_and_search("Where is Config used?", [kb.pk])
    assert plan.intent == "usages"
    sources = {hit.metadata["src_qname"] for hit in edges(hits)}
    assert {"cfgkit.server.Server.serve", "cfgkit.server"} <= sources  # a call and an import
    assert hits[0].layer == "C2"


@pytest.mark.django_db
def test_edges_left_after_the_name_is_dropped_do_not_outrank_plain_search(kb):
    question = "Which classes inherit from Server?"  # no class does; Config inherits from BaseConfig
    plan, hits = plan_and_search(question, [kb.pk])
    assert plan.trace[0]["filters"] == {"edge_type": "inherits"} and plan.trace[0]["hits"]
    plain = retrieval.search(question, [kb.pk], top_k=8)
    assert [hit.chunk_id for hit in hits[:len(plain)]] == [hit.chunk_id for hit in plain]


@pytest.mark.django_db
def test_a_package_name_does_not_make_its_reference_page_the_subject(kb):
    vocabulary = load_vocabulary([kb.pk])
    # The page titled with the package's name (a mkdocstrings title).
    reference = next(identifier for alias, identifier in vocabulary.items() if alias.endswith("cfgkit"))
    for question in ["What does `cfgkit.config` import?", "How does cfgkit read settings?"]:
        plan, _ = plan_and_search(question, [kb.pk], vocabulary=vocabulary)
        assert plan.subject != reference, question
        assert all(reference not in step.filters.values() for step in plan.steps), question
    plan, _ = plan_and_search("Give me an overview of the cfgkit reference page", [kb.pk], vocabulary=vocabulary)
    assert plan.steps[0].filters == {"document_id": reference}


class SubjectTests(SimpleTestCase):
    def test_an_entity_that_is_also_a_class_stays_the_subject(self):
        vocabulary = Vocabulary({"Invoice": "Invoice"}, code={"invoice"}, symbols={"Invoice"})
        plan = plan_question("Какие документы упоминают Invoice?", vocabulary)
        self.assertEqual((plan.intent, plan.steps[0].filters), ("entities", {"entity_name": "Invoice"}))


@pytest.mark.django_db
def test_a_question_about_environment_variables_gets_the_variables_the_code_reads(tmp_path):
    repo = tmp_path / "envkit"
    (repo / "envkit").mkdir(parents=True)
    (repo / "envkit" / "__init__.py").write_text("")
    (repo / "envkit" / "settings.py").write_text(
        "import os\n\n\ndef workers():\n    return int(os.environ.get('ENVKIT_WORKERS', '1'))\n\n\n"
        "def home():\n    return os.getenv('ENVKIT_HOME') or '/srv'\n")
    (repo / "envkit" / "serve.py").write_text(
        "from envkit.settings import workers\n\n\ndef serve():\n    \"\"\"Start the workers the environment asks "
        "for.\"\"\"\n    return [object() for _ in range(workers())]\n")
    # The documentation names a variable too, in the question's words: the code's reads still lead.
    (repo / "README.md").write_text("# envkit\n\n## Environment variables envkit reads\n\n"
                                    "Where is ENVKIT_WORKERS read? envkit reads the environment variable "
                                    "`ENVKIT_WORKERS`.\n")
    kb = make_kb()
    store.index_repository(kb, repo)
    for question in ["Which environment variables does envkit read?", "Какие переменные окружения читает envkit?"]:
        plan, hits = plan_and_search(question, [kb.pk])
        assert plan.intent == "env_vars" and plan.steps[0].filters["target_type"] == "env_var", question
        assert {hit.metadata.get("target") for hit in hits[:2]} == {"ENVKIT_WORKERS", "ENVKIT_HOME"}, question
        assert hits[0].metadata["source_path"] == "envkit/settings.py"
    plan, hits = plan_and_search("Where is ENVKIT_WORKERS read?", [kb.pk])
    assert [(hit.metadata["source_path"], hit.metadata["interaction"]) for hit in hits[:2]] == [
        ("envkit/settings.py", "reads"), ("README.md", "mentioned")]


@pytest.mark.django_db
def test_who_imports_a_package_finds_the_names_imported_from_it(tmp_path):
    repo = tmp_path / "greeter"
    (repo / "greeter").mkdir(parents=True)
    (repo / "greeter" / "__init__.py").write_text("")
    (repo / "greeter" / "say.py").write_text("from click import echo\n\n\ndef hello():\n    echo('hello')\n")
    (repo / "greeter" / "check.py").write_text("from click.testing import CliRunner\n\n\ndef runner():\n"
                                                "    return CliRunner()\n")
    (repo / "greeter" / "plain.py").write_text("import json\n\n\ndef dump(value):\n    return json.dumps(value)\n")
    kb = make_kb()
    store.index_repository(kb, repo)
    plan, hits = plan_and_search("Who imports `click`?", [kb.pk])
    assert plan.trace[0]["filters"] == {"edge_type": "imports", "dst_root": "click"}  # no `import click` anywhere
    assert {hit.metadata.get("src_qname") for hit in hits[:2]} == {"greeter.say", "greeter.check"}


class CommandAndVariableNameTests(SimpleTestCase):
    VOCABULARY = Vocabulary({"Gunicorn": "README.md", "README": "README.md"}, code={"qcluster", "gunicornc"},
                            symbols={"qcluster", "gunicornc"}, commands={"qcluster", "gunicornc"},
                            env_vars={"WEB_CONCURRENCY"}, readmes={"README.md"})

    def test_a_command_named_by_a_plain_word_filters_on_that_command(self):
        for question, command in [("What does the qcluster command do?", "qcluster"),
                                  ("Which options does the gunicornc command accept?", "gunicornc"),
                                  ("Что делает команда qcluster?", "qcluster")]:
            plan = plan_question(question, self.VOCABULARY)
            assert (plan.intent, plan.steps[0].filters) == ("cli", {"entry_type": "cli",
                                                                    "route_or_command": command}), question

    def test_a_question_for_the_installed_commands_lists_them(self):
        for question in ["What commands does gunicorn install?", "Which management commands are there?",
                         "Какие команды устанавливает пакет?"]:
            plan = plan_question(question, self.VOCABULARY)
            assert [(step.layers, step.filters) for step in plan.steps] == [
                (["C3"], {"entry_type": "cli"}), (["C4"], {"role": "cli_command"})], question

    def test_where_a_variable_is_read_filters_on_that_variable(self):
        for question in ["Where is WEB_CONCURRENCY read?", "Где читается WEB_CONCURRENCY?"]:
            plan = plan_question(question, self.VOCABULARY)
            assert (plan.intent, plan.steps[0].filters) == (
                "env_vars", {"target_type": "env_var", "target": "WEB_CONCURRENCY"}), question

    def test_a_question_asking_for_environment_variables_lists_them_and_one_about_them_does_not(self):
        for question in ["Which environment variables does the server read?",
                         "Does it read any environment variables?", "What env vars are supported?",
                         "Какие переменные окружения читает сервер?",
                         "Какие ещё переменные окружения есть?"]:
            assert plan_question(question, self.VOCABULARY).intent == "env_vars", question
        # dotenv's FAQ: "What happens to environment variables that were already set?" was answered with the index's
        # rows of the variables its README names ("`dotenv` mentions DOTENV_OVERRIDE (env var).").
        for question in ["What happens to environment variables that were already set?",
                         "Does it override environment variables set by the shell?",
                         "Что происходит с уже заданными переменными окружения?"]:
            assert plan_question(question, self.VOCABULARY).intent != "env_vars", question

    def test_the_project_named_by_its_readme_asks_about_the_whole_repository(self):
        # "read" is no "README": English words match by their endings only.
        plan = plan_question("Which environment variables does the server read?", self.VOCABULARY)
        assert (plan.subject, plan.steps[0].filters) == ("", {"target_type": "env_var"})
        plan = plan_question("Which environment variables does gunicorn read?", self.VOCABULARY)
        assert (plan.subject, plan.steps[0].filters) == ("README.md", {"target_type": "env_var"})

    def test_a_list_of_exceptions_is_the_exception_role(self):
        for question in ["List all exceptions", "Какие исключения определены?"]:
            plan = plan_question(question, self.VOCABULARY)
            assert (plan.intent, plan.steps[0].filters) == ("roles", {"role": "exception"}), question


@pytest.mark.django_db
def test_commands_and_environment_variables_are_in_the_vocabulary(tmp_path):
    repo = tmp_path / "workers"
    (repo / "workers").mkdir(parents=True)
    (repo / "workers" / "__init__.py").write_text("from .run import start\n")
    (repo / "workers" / "run.py").write_text("import os\n\n\ndef start():\n    \"\"\"Start the workers.\"\"\"\n"
                                             "    return int(os.environ.get('WORKER_COUNT', '2'))\n")
    (repo / "pyproject.toml").write_text('[project]\nname = "workers"\n\n[project.scripts]\n'
                                         'qstart = "workers:start"\n')
    (repo / "README.md").write_text("# Workers\n\nStarts workers.\n")
    kb = make_kb()
    store.index_repository(kb, repo)
    vocabulary = load_vocabulary([kb.pk])
    assert (vocabulary.commands, vocabulary.env_vars, vocabulary.readmes) == ({"qstart"}, {"WORKER_COUNT"},
                                                                             {"README.md"})
    plan, hits = plan_and_search("What does the qstart command do?", [kb.pk])
    assert plan.trace[0]["filters"] == {"entry_type": "cli", "route_or_command": "qstart"}
    assert [hit.metadata.get("qname") for hit in hits[:2] if hit.layer == "C0"] == ["workers.run.start"]
    plan, hits = plan_and_search("Where is WORKER_COUNT read?", [kb.pk])
    assert (hits[0].layer, hits[0].metadata["target"], hits[0].metadata["span_start"]) == ("D6", "WORKER_COUNT", 6)


@pytest.mark.django_db
def test_a_question_about_the_settings_code_reads_gets_them(tmp_path):
    repo = tmp_path / "queuekit"
    (repo / "queuekit").mkdir(parents=True)
    (repo / "queuekit" / "__init__.py").write_text("")
    (repo / "queuekit" / "conf.py").write_text(
        "import os\n\nfrom django.conf import settings\n\n\nclass Conf:\n    conf = settings.Q_CLUSTER.copy()\n"
        "    tz = getattr(settings, 'TIME_ZONE', 'UTC')\n    home = os.environ.get('QUEUEKIT_HOME')\n")
    (repo / "README.md").write_text("# queuekit\n\nAdd it to `INSTALLED_APPS` in your `settings.py`.\n")
    kb = make_kb()
    store.index_repository(kb, repo)
    assert load_vocabulary([kb.pk]).settings == {"Q_CLUSTER", "TIME_ZONE", "INSTALLED_APPS"}
    for question in ["Which settings does queuekit read?", "Какие настройки читает queuekit?"]:
        plan, hits = plan_and_search(question, [kb.pk])
        assert (plan.intent, plan.steps[0].filters) == ("settings", {"target_type": "setting"}), question
        assert {hit.metadata.get("target") for hit in hits[:3]} == {"Q_CLUSTER", "TIME_ZONE", "INSTALLED_APPS"}
    plan, hits = plan_and_search("Where is Q_CLUSTER read?", [kb.pk])
    assert plan.trace[0]["filters"] == {"target_type": "setting", "target": "Q_CLUSTER"}
    assert (hits[0].metadata["source_path"], hits[0].metadata["span_start"]) == ("queuekit/conf.py", 7)
    # The environment's variables are asked for apart.
    plan, hits = plan_and_search("Which environment variables does queuekit read?", [kb.pk])
    assert hits[0].metadata.get("target") == "QUEUEKIT_HOME"
    # A how-to asks the documentation, not the settings the code reads (django-constance's "How do I read a
    # constance setting in code?" got the rows of `constance.settings`, which quote nothing to a how-to).
    plan, _ = plan_and_search("How do I read a queuekit setting in code?", [kb.pk])
    assert plan.intent != "settings", plan


@pytest.mark.django_db
def test_what_the_project_is_made_of_lists_its_modules_the_most_imported_first(tmp_path):
    repo = tmp_path / "shopkit"
    (repo / "shopkit").mkdir(parents=True)
    (repo / "shopkit" / "__init__.py").write_text('"""A tiny shop."""\n')
    (repo / "shopkit" / "db.py").write_text('"""Database access: the engine and sessions."""\n\nENGINE = 1\n')
    (repo / "shopkit" / "orders.py").write_text('"""Orders and their lines."""\n\nfrom shopkit.db import ENGINE\n')
    (repo / "shopkit" / "main.py").write_text('"""The command line."""\n\nfrom shopkit import db, orders\n'
                                              'from shopkit.db import ENGINE\n\n\ndef main():\n    pass\n')
    (repo / "tests").mkdir()
    (repo / "tests" / "test_db.py").write_text("from shopkit.db import ENGINE\n")
    kb = make_kb()
    store.index_repository(kb, repo)
    for question in ["What are the main modules?", "Из каких модулей состоит проект?"]:
        plan, hits = plan_and_search(question, [kb.pk])
        assert (plan.intent, plan.steps[0].filters["kind"]) == ("overview", "module"), question
        modules = [hit.metadata["qname"] for hit in hits if hit.layer == "C1"]
        assert modules[:3] == ["shopkit", "shopkit.db", "shopkit.orders"], question
        assert "tests.test_db" not in modules
        assert "Database access" in hits[1].content
    # A question about importers is still one.
    assert plan_question("Which modules import shopkit.db?", load_vocabulary([kb.pk])).intent == "imports"


@pytest.mark.django_db
def test_the_code_callers_come_before_the_tests_unless_tests_are_asked_for(tmp_path):
    repo = tmp_path / "pay-repo"
    # The tests' names say what the question says; the code's caller does not.
    tests = "".join(f"\n\ndef test_who_calls_charge_{n}():\n    assert charge({n})\n" for n in range(6))
    for path, text in {"pay/core.py": "def charge(amount):\n    return amount\n",
                       "pay/api.py": "from pay.core import charge\n\n\ndef checkout(cart):\n    return charge(cart)\n",
                       "tests/test_core.py": f"from pay.core import charge{tests}"}.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    kb = make_kb()
    store.index_repository(kb, repo)
    plan, hits = plan_and_search("Who calls charge?", [kb.pk])
    assert [hit.metadata["src_qname"] for hit in edges(hits)][:1] == ["pay.api.checkout"]
    plan, hits = plan_and_search("Which tests call charge?", [kb.pk])
    assert edges(hits)[0].metadata["is_test"]


class ProjectQuestionTests(SimpleTestCase):
    """"What is schedule?" naming the project: its README's card first (what the project says it is). The
    Documentation section ("Schedule's documentation lives at …") and related projects were quoted before."""

    VOCABULARY = Vocabulary({"Commander.js": "Readme.md", "Tenacity": "docs/index.rst", "tenacity": "README.rst",
                             "Guide": "docs/guide.md"}, readmes={"Readme.md", "README.rst"})

    def test_a_question_asking_what_the_project_is_plans_its_readmes_card_first(self):
        for question, readme in [("What is commander?", "Readme.md"), ("What is Commander.js used for?", "Readme.md"),
                                 ("What does Commander do?", "Readme.md"), ("Что такое commander?", "Readme.md"),
                                 # The README, though the question's words name the documentation's index first.
                                 ("What is tenacity?", "README.rst")]:
            plan = plan_question(question, self.VOCABULARY)
            assert (plan.intent, plan.steps[0].layers, plan.steps[0].filters) == (
                "project", ["D1"], {"document_id": readme}), question

    def test_other_questions_are_not_about_the_project(self):
        for question in ["What is the guide?", "How do I install commander?", "What is the default timeout?",
                         "What does commander do with unknown options?"]:
            assert plan_question(question, self.VOCABULARY).intent != "project", question
