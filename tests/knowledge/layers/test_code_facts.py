"""Code layers beyond symbols: installed commands and argparse CLIs (C3), environment variables read
(D6), names re-exported through a package's `__init__` (C2)."""

from django.test import SimpleTestCase

from knowledge.indexing.layers.code_rows import build_code_rows
from knowledge.indexing.layers.manifests import MANIFEST_NAMES, ManifestExtractor
from knowledge.indexing.layers.store import EXTRACTORS, parse_project

MANIFESTS = ManifestExtractor()
LANGUAGES = {**{e.language: e for e in EXTRACTORS.values()}, MANIFESTS.language: MANIFESTS}


def rows_of(texts: dict[str, str]) -> dict[str, list]:
    """Rows per file; manifests are parsed beside the code, as `store` does once it lists them."""
    manifests = {rel: text for rel, text in texts.items() if rel.rsplit("/", 1)[-1] in MANIFEST_NAMES}
    files, index = parse_project({rel: text for rel, text in texts.items() if rel not in manifests})
    for rel, text in manifests.items():
        files[rel] = MANIFESTS.parse(rel, text)
        index.add(files[rel])
    index.detect_entrypoints(list(files.values()), LANGUAGES)
    return {rel: build_code_rows(file, index, LANGUAGES[file.language if file.language != "javascript"
                                                         else "typescript"])
            for rel, file in files.items()}


def meta(rows, layer, *keys):
    return [tuple(row.metadata.get(key) for key in keys) for row in rows if row.layer == layer]


SERVER = {
    "uvicorn/__init__.py": "from uvicorn.config import Config\nfrom .main import main, run\n\n"
                           "__all__ = ['main', 'run', 'Config']\n",
    "uvicorn/main.py": "import argparse\n\nfrom uvicorn.config import Config\n\n\ndef run(app):\n    Config(app)\n\n\n"
                       "def serve(args):\n    pass\n\n\nclass ServerError(Exception):\n    pass\n\n\n"
                       "def main():\n    parser = argparse.ArgumentParser(prog='uvicorn')\n"
                       "    parser.add_argument('--port', type=int)\n    commands = parser.add_subparsers()\n"
                       "    serve_cmd = commands.add_parser('serve')\n    serve_cmd.set_defaults(func=serve)\n",
    "uvicorn/config.py": "import os\nfrom os import environ, getenv\n\n\nclass Config:\n"
                         "    def __init__(self, app):\n        self.workers = int(os.environ['WEB_CONCURRENCY'])\n"
                         "        self.root = os.environ.get('ROOT_PATH', '')\n        self.home = getenv('HOME')\n"
                         "        if 'FORWARDED_ALLOW_IPS' in environ:\n            pass\n"
                         "        self.again = os.getenv('WEB_CONCURRENCY')\n",
    "helpers/__init__.py": "from .tools import *\n",
    "helpers/tools.py": "__all__ = ['shown']\n\n\ndef shown():\n    pass\n\n\ndef hidden():\n    pass\n",
    "app.py": "import uvicorn\nfrom uvicorn import Config, run\nfrom helpers import hidden, shown\n\n\n"
              "def go():\n    run(1)\n    uvicorn.run(2)\n    uvicorn.main()\n    Config(3)\n"
              "    shown()\n    hidden()\n",
    "setup.py": "from setuptools import setup\n\nsetup(\n    name='uvicorn',\n"
                "    entry_points={'console_scripts': ['uvicorn-setup = uvicorn.main:main']},\n)\n",
    "tools/setup.py": "import setuptools\n\nENTRY_POINTS = {'gui_scripts': ['uvicorn-tool = uvicorn.main:run']}\n"
                      "setuptools.setup(name='tools', entry_points=ENTRY_POINTS)\n",
    "uvicorn/settings.py": "from pydantic_settings import BaseSettings, SettingsConfigDict\n\n\n"
                           "class Settings(BaseSettings):\n"
                           "    model_config = SettingsConfigDict(env_prefix='uvicorn_')\n"
                           "    host: str = '127.0.0.1'\n    _private: int = 0\n",
    "site/settings.py": "import environ\n\nenv = environ.Env()\nDEBUG = env.bool('DJANGO_DEBUG', default=False)\n"
                        "DATABASES = {'default': env.db()}\nSECRET_KEY = env('DJANGO_SECRET_KEY')\n",
    "site/local.py": "import os\nfrom decouple import config\nfrom starlette.config import Config\n\n"
                     "def env_bool(name, default=False):\n    return os.environ.get(name, str(default)) == '1'\n\n"
                     "DEBUG = env_bool('SITE_DEBUG')\nDATABASE_URL = config('DATABASE_URL', default='')\n"
                     "settings = Config('.env')\nREDIS_URL = settings('REDIS_URL', default='')\n",
    "pyproject.toml": '[project]\nname = "uvicorn"\n\n[project.scripts]\nuvicorn = "uvicorn.main:main"\n\n'
                      '[project.gui-scripts]\nuvicorn-gui = "uvicorn.main:run"\n',
    "legacy/setup.cfg": "[metadata]\nname = legacy\n\n[options.entry_points]\nconsole_scripts =\n"
                        "    legacy-serve = uvicorn.main:serve\n",
    "web/package.json": '{\n  "name": "@acme/web",\n  "bin": {\n    "acme": "./bin/cli.js"\n  },\n'
                        '  "scripts": {\n    "start": "node server.js",\n    "test": "jest"\n  }\n}\n',
    "web/bin/cli.js": "console.log(process.argv);\n",
    "web/server.js": "const port = 3000;\n",
}


class CodeFactTests(SimpleTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.rows = rows_of(SERVER)

    def test_console_scripts_of_every_manifest_are_commands_handled_by_their_function(self):
        entries = [entry for path in ("pyproject.toml", "legacy/setup.cfg", "setup.py", "tools/setup.py")
                   for entry in meta(self.rows[path], "C3", "entry_type", "framework", "entrypoint_kind",
                                     "route_or_command", "handler_symbol", "handler_symbol_id")]
        self.assertEqual(entries, [
            ("cli", "pyproject", "console_script", "uvicorn", "uvicorn.main.main", "uvicorn/main.py#main"),
            ("cli", "pyproject", "gui_script", "uvicorn-gui", "uvicorn.main.run", "uvicorn/main.py#run"),
            ("cli", "setuptools", "console_script", "legacy-serve", "uvicorn.main.serve", "uvicorn/main.py#serve"),
            ("cli", "setuptools", "console_script", "uvicorn-setup", "uvicorn.main.main", "uvicorn/main.py#main"),
            # entry_points=ENTRY_POINTS, a dict of the module
            ("cli", "setuptools", "gui_script", "uvicorn-tool", "uvicorn.main.run", "uvicorn/main.py#run"),
        ])
        [script] = [row for row in self.rows["pyproject.toml"] if row.layer == "C3"][:1]
        self.assertEqual((script.span_start, script.metadata["decorator_text"]), (5, 'uvicorn = "uvicorn.main:main"'))
        self.assertEqual(script.content, "cli uvicorn → uvicorn.main.main (pyproject console_script)")
        # The handler is a CLI command, whichever file declares it.
        roles = dict(meta(self.rows["uvicorn/main.py"], "C4", "qname", "role"))
        self.assertEqual(roles["uvicorn.main.main"], "cli_command")
        # The manifest itself stays searchable as text.
        self.assertEqual({row.layer for row in self.rows["pyproject.toml"]}, {"C0", "C3"})

    def test_package_json_bin_and_scripts(self):
        entries = meta(self.rows["web/package.json"], "C3", "entry_type", "entrypoint_kind", "route_or_command",
                       "handler_symbol", "handler_symbol_id")
        self.assertEqual(entries, [
            ("cli", "bin", "acme", "web.bin.cli", "web/bin/cli.js#"),
            ("script", "npm_script", "npm run start", "web.server", "web/server.js#"),
            ("script", "npm_script", "npm run test", "", ""),
        ])
        [test] = [row for row in self.rows["web/package.json"] if row.layer == "C3"][2:]
        self.assertEqual(test.content, 'script npm run test → "test": "jest" (npm npm_script)')

    def test_a_broken_manifest_is_a_warning(self):
        file = MANIFESTS.parse("pyproject.toml", "[project\nname = 1\n")
        self.assertEqual(MANIFESTS.entrypoints(file, None), [])
        self.assertIn("could not be read", file.warnings[0])
        # A table where one is expected, or none: nothing to read, nothing to fail on.
        file = MANIFESTS.parse("pyproject.toml", '[project]\nscripts = "x"\n')
        self.assertEqual((MANIFESTS.entrypoints(file, None), file.warnings), ([], []))

    def test_argparse_parsers_and_subcommands_are_commands(self):
        entries = meta(self.rows["uvicorn/main.py"], "C3", "framework", "entrypoint_kind", "route_or_command",
                       "handler_symbol", "lang_payload")
        self.assertEqual(entries, [
            ("argparse", "parser", "uvicorn", "uvicorn.main.main", {"arguments": ["--port"]}),
            ("argparse", "subcommand", "uvicorn serve", "uvicorn.main.serve", {"arguments": []}),
        ])
        roles = dict(meta(self.rows["uvicorn/main.py"], "C4", "qname", "role"))
        self.assertEqual(roles["uvicorn.main.serve"], "cli_command")

    def test_environment_variables_read_are_d6_rows_with_their_lines(self):
        rows = [row for row in self.rows["uvicorn/config.py"] if row.layer == "D6"]
        self.assertEqual(meta(rows, "D6", "target", "target_type", "interaction", "via", "line", "source_id"), [
            ("WEB_CONCURRENCY", "env_var", "reads", "os.environ[]", 7, "uvicorn.config"),
            ("ROOT_PATH", "env_var", "reads", "os.environ.get", 8, "uvicorn.config"),
            ("HOME", "env_var", "reads", "os.getenv", 9, "uvicorn.config"),
            ("FORWARDED_ALLOW_IPS", "env_var", "reads", "in os.environ", 10, "uvicorn.config"),
        ])
        first = rows[0]
        self.assertEqual(first.metadata["details"], {"lines": [7, 12], "symbols": ["uvicorn.config.Config.__init__"],
                                                     "via": ["os.environ[]", "os.getenv"]})
        self.assertEqual((first.span_start, first.span_end, first.metadata["source_path"]),
                         (7, 12, "uvicorn/config.py"))
        self.assertIn("WEB_CONCURRENCY", first.content)
        self.assertIn("uvicorn/config.py:7", first.content)

    def test_the_fields_of_a_settings_class_are_environment_variables(self):
        self.assertEqual(meta(self.rows["uvicorn/settings.py"], "D6", "target", "via", "line", "anchor"),
                         [("UVICORN_HOST", "pydantic-settings", 6, "uvicorn.settings.Settings")])

    def test_django_environ_reads_are_environment_variables(self):
        self.assertEqual(meta(self.rows["site/settings.py"], "D6", "target", "via", "line"),
                         [("DJANGO_DEBUG", "environ.Env", 4), ("DJANGO_SECRET_KEY", "environ.Env", 6)])

    def test_decouple_starlette_config_and_the_modules_own_helpers_are_environment_variables(self):
        self.assertEqual(meta(self.rows["site/local.py"], "D6", "target", "via", "line"),
                         [("SITE_DEBUG", "env_bool", 8), ("DATABASE_URL", "decouple.config", 9),
                          ("REDIS_URL", "starlette.config.Config", 11)])

    def test_calls_through_a_package_reexport_resolve_to_the_definition(self):
        edges = meta(self.rows["app.py"], "C2", "edge_type", "dst_ref", "resolution")
        self.assertIn(("calls", "uvicorn.main.run", "resolved"), edges)  # `from .main import run` in __init__
        self.assertIn(("calls", "uvicorn.config.Config", "resolved"), edges)
        # `from .main import main` in the package hides the submodule `uvicorn.main`.
        self.assertIn(("calls", "uvicorn.main.main", "resolved"), edges)
        self.assertIn(("calls", "helpers.tools.shown", "resolved"), edges)  # `import *` and `__all__`
        self.assertIn(("calls", "helpers.hidden", "unresolved"), edges)  # not in `__all__`

    def test_builtin_bases_are_external(self):
        edges = meta(self.rows["uvicorn/main.py"], "C2", "edge_type", "src_qname", "dst_ref", "resolution")
        self.assertIn(("inherits", "uvicorn.main.ServerError", "Exception", "external"), edges)


def test_a_console_script_naming_a_reexported_function_is_handled_by_its_definition():
    rows = rows_of({
        "fetcher/__init__.py": "try:\n    from ._main import main\nexcept ImportError:\n    main = None\n",
        "fetcher/_main.py": "def main():\n    \"\"\"A command line client.\"\"\"\n",
        "fetcher/cli/__init__.py": "from .__main__ import detect\n",
        "fetcher/cli/__main__.py": "def detect(argv=None):\n    \"\"\"Guess the encoding of files.\"\"\"\n",
        "pyproject.toml": '[project]\nname = "fetcher"\n\n[project.scripts]\nfetch = "fetcher:main"\n'
                          'guess = "fetcher.cli:detect"\n',
    })
    assert meta(rows["pyproject.toml"], "C3", "route_or_command", "handler_symbol", "handler_symbol_id",
                "summary_text") == [
        ("fetch", "fetcher._main.main", "fetcher/_main.py#main", "A command line client."),
        ("guess", "fetcher.cli.__main__.detect", "fetcher/cli/__main__.py#detect", "Guess the encoding of files."),
    ]
    assert dict(meta(rows["fetcher/_main.py"], "C4", "qname", "role"))["fetcher._main.main"] == "cli_command"
    assert dict(meta(rows["fetcher/cli/__main__.py"], "C4", "qname", "role"))["fetcher.cli.__main__.detect"] \
        == "cli_command"


def test_setting_or_deleting_an_environment_variable_is_no_read():
    rows = rows_of({"master.py": "import os\n\n\ndef spawn(fd):\n    os.environ['SERVER_SOFTWARE'] = 'x'\n"
                                 "    os.environ['CHILD_FD'] = str(fd)\n    del os.environ['OLD_PID']\n"
                                 "    return os.environ['CHILD_FD']\n"})
    assert meta(rows["master.py"], "D6", "target", "line", "details") == [
        ("CHILD_FD", 8, {"lines": [8], "symbols": ["master.spawn"], "via": ["os.environ[]"]})]


def test_a_parser_without_prog_is_named_after_the_console_script_running_it():
    rows = rows_of({
        "ctl/cli.py": "import argparse\n\n\ndef main():\n    parser = argparse.ArgumentParser(description='x')\n"
                      "    parser.add_argument('--socket')\n    sub = parser.add_subparsers()\n"
                      "    sub.add_parser('show')\n    parser.parse_args()\n\n\n"
                      "if __name__ == '__main__':\n    main()\n",
        "tool/cli.py": "import argparse\n\n\ndef build():\n    parser = argparse.ArgumentParser()\n"
                       "    return parser\n\n\ndef run():\n    build().parse_args()\n",
        "tool/config.py": "import argparse\n\n\nclass Config:\n    def parser(self):\n"
                          "        parser = argparse.ArgumentParser(**{'prog': self.prog})\n"
                          "        parser.add_argument('-v')\n        return parser\n",
        "loose/__main__.py": "import argparse\n\nparser = argparse.ArgumentParser()\nparser.parse_args()\n",
        "pyproject.toml": '[project]\nname = "ctl"\n\n[project.scripts]\nctlc = "ctl.cli:main"\n'
                          'tool = "tool.cli:run"\n',
    })
    assert meta(rows["ctl/cli.py"], "C3", "route_or_command", "entrypoint_kind", "handler_symbol")[:2] == [
        ("ctlc", "parser", "ctl.cli.main"), ("ctlc show", "subcommand", "ctl.cli.main")]
    # Built by a function that the console script's function calls.
    assert meta(rows["tool/cli.py"], "C3", "route_or_command", "handler_symbol") == [("tool", "tool.cli.build")]
    # A method building a parser for its caller, named by no one, is no command.
    assert meta(rows["tool/config.py"], "C3", "route_or_command") == []
    assert "cli_command" not in dict(meta(rows["tool/config.py"], "C4", "qname", "role")).values()
    assert meta(rows["loose/__main__.py"], "C3", "route_or_command")[:1] == [("loose",)]


def test_tasks_are_functions_handed_to_a_queue_not_the_queue_itself():
    rows = rows_of({
        "queue/tasks.py": "def async_task(func, *args):\n    pass\n\n\ndef result(task_id):\n    pass\n",
        "queue/tests/tasks.py": "def word_multiply(x, word):\n    return x * word\n",
        "queue/tests/test_queue.py": "from queue.tasks import async_task\n\n\ndef test_it():\n"
                                     "    async_task('queue.tests.tasks.word_multiply', 2, 'x')\n",
        "shop/tasks.py": "def send_receipt(order_id):\n    pass\n\n\ndef _helper():\n    pass\n",
        "shop/jobs.py": "def rebuild(day):\n    pass\n",
        "shop/views.py": "from shop.jobs import rebuild\nfrom rq import Queue\n\n\ndef view(q: Queue):\n"
                         "    q.enqueue(rebuild, 1)\n",
    })

    def tasks(path):
        return [(qname, evidence) for qname, role, evidence in meta(rows[path], "C4", "qname", "role", "evidence")
                if role == "task"]

    assert tasks("queue/tasks.py") == []  # the queue's API: it queues functions
    assert tasks("queue/tests/tasks.py") == [
        ("queue.tests.tasks.word_multiply", ["task: queued by async_task at queue/tests/test_queue.py:5"])]
    assert tasks("shop/tasks.py") == [("shop.tasks.send_receipt", ["task: function in a tasks module"])]
    assert tasks("shop/jobs.py") == [("shop.jobs.rebuild", ["task: queued by enqueue at shop/views.py:6"])]


def test_django_settings_read_are_d6_setting_rows():
    rows = rows_of({"queue/conf.py": "from django.conf import settings\n\n\nclass Conf:\n"
                                     "    conf = settings.Q_CLUSTER.copy()\n\n\ndef tz():\n    if settings.USE_TZ:\n"
                                     "        return getattr(settings, 'TIME_ZONE', 'UTC')\n"
                                     "    settings.DEBUG = True\n    return settings.Q_CLUSTER.get('name')\n"})
    assert meta(rows["queue/conf.py"], "D6", "target", "target_type", "interaction", "via", "details") == [
        ("Q_CLUSTER", "setting", "reads", "settings.X",
         {"lines": [5, 12], "symbols": ["queue.conf", "queue.conf.tz"], "via": ["settings.X"]}),
        ("USE_TZ", "setting", "reads", "settings.X",
         {"lines": [9], "symbols": ["queue.conf.tz"], "via": ["settings.X"]}),
        ("TIME_ZONE", "setting", "reads", "getattr(settings)",
         {"lines": [10], "symbols": ["queue.conf.tz"], "via": ["getattr(settings)"]}),
    ]
    [row] = [row for row in rows["queue/conf.py"] if row.layer == "D6" and row.metadata["target"] == "USE_TZ"]
    assert "reads the setting USE_TZ" in row.content
