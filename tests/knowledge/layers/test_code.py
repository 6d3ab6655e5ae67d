"""Code layers C0–C4 on the fixture package, row by row."""

from pathlib import Path

from django.test import SimpleTestCase

from knowledge.indexing.layers.code import (
    PlainTextExtractor,
    ProjectIndex,
    is_test_path,
    line_chunks,
    module_name,
    route_key,
)
from knowledge.indexing.layers.code_rows import build_code_rows
from knowledge.indexing.layers.python import PythonExtractor
from knowledge.indexing.layers.store import is_indexable, parse_project

PACKAGE = Path(__file__).resolve().parents[2] / "fixtures" / "sample_pkg"


def project_rows() -> dict[str, list]:
    texts = {p.relative_to(PACKAGE).as_posix(): p.read_text() for p in sorted(PACKAGE.rglob("*.py"))}
    files, index = parse_project(texts)
    extractor = PythonExtractor()
    return {rel: build_code_rows(file, index, extractor) for rel, file in files.items()}


def layer(rows_by_file: dict, name: str, *paths: str) -> list:
    return [row for path, rows in rows_by_file.items() if not paths or path in paths
            for row in rows if row.layer == name]


def pick(rows, *keys):
    return [tuple(row.metadata[key] for key in keys) for row in rows]


class CodeLayerTests(SimpleTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.rows = project_rows()

    def test_c0_chunks_follow_symbol_boundaries_and_cover_the_file(self):
        rows = layer(self.rows, "C0", "shop/billing.py")
        self.assertEqual([(r.span_start, r.span_end, r.metadata["chunk_type"], r.metadata["qname"]) for r in rows], [
            (1, 5, "module", "shop.billing"),
            (6, 11, "class", "shop.billing.Gateway"),
            (12, 17, "class", "shop.billing.StripeGateway"),
            (18, 21, "function", "shop.billing.log_payment"),
            (22, 29, "function", "shop.billing.charge"),
        ])
        self.assertEqual(pick(rows, "chunk_index"), [(0,), (1,), (2,), (3,), (4,)])
        self.assertTrue(rows[4].content.startswith("def charge(order: Order, *, retries: int = 3) -> Payment:"))
        self.assertEqual({(r.metadata["module_or_unit"], r.metadata["is_test"], r.language) for r in rows},
                         {("shop.billing", False, "python")})
        # Decorators belong to the function they decorate; the blank lines before go with it.
        api = layer(self.rows, "C0", "shop/api.py")
        self.assertEqual([(r.span_start, r.span_end, r.metadata["chunk_type"]) for r in api],
                         [(1, 9, "module"), (10, 17, "function"), (18, 23, "function")])
        self.assertTrue(api[1].content.startswith('@app.post("/orders")'))
        ninja = layer(self.rows, "C0", "shop/ninja_api.py")
        self.assertEqual(ninja[-1].metadata["chunk_type"], "block")
        self.assertEqual(ninja[-1].content, 'api.add_router("/shop/", router)')

    def test_c0_splits_a_long_class_into_methods(self):
        methods = "\n".join(f"    def m{n}(self):\n        return '{'x' * 300}'\n" for n in range(12))
        file = PythonExtractor().parse("big.py", f"class Big:\n    '''Big.'''\n\n{methods}")
        chunks = [(c.chunk_type, c.qname) for c in file.chunks]
        self.assertEqual(chunks[0], ("class", "big.Big"))
        self.assertEqual(chunks[1:], [("method", f"big.Big.m{n}") for n in range(12)])

    def test_c1_symbols_with_signatures_parents_and_modules(self):
        rows = layer(self.rows, "C1", "shop/billing.py", "shop/models.py")
        self.assertEqual(pick(rows, "kind", "qname", "signature", "parent_symbol_id"), [
            ("module", "shop.billing", "module shop.billing", ""),
            ("class", "shop.billing.Gateway", "class Gateway", "shop/billing.py#"),
            ("method", "shop.billing.Gateway.charge", "def charge(self, amount: float) -> bool",
             "shop/billing.py#Gateway"),
            ("class", "shop.billing.StripeGateway", "class StripeGateway(Gateway)", "shop/billing.py#"),
            ("method", "shop.billing.StripeGateway.charge", "def charge(self, amount: float) -> bool",
             "shop/billing.py#StripeGateway"),
            ("function", "shop.billing.log_payment", "def log_payment(amount: float) -> str", "shop/billing.py#"),
            ("function", "shop.billing.charge", "def charge(order: Order, *, retries: int=3) -> Payment",
             "shop/billing.py#"),
            ("module", "shop.models", "module shop.models", ""),
            ("class", "shop.models.Entity", "class Entity", "shop/models.py#"),
            ("method", "shop.models.Entity.key", "def key(self) -> str", "shop/models.py#Entity"),
            ("class", "shop.models.Order", "class Order(Entity)", "shop/models.py#"),
            ("method", "shop.models.Order.mark_paid", "def mark_paid(self) -> None", "shop/models.py#Order"),
            ("class", "shop.models.Payment", "class Payment(Entity)", "shop/models.py#"),
        ])
        charge = rows[6]
        self.assertEqual((charge.metadata["symbol_id"], charge.metadata["name"], charge.metadata["package_or_module"],
                          charge.metadata["docstring"], charge.metadata["is_test"]),
                         ("shop/billing.py#charge", "charge", "shop.billing", "Charge an order and mark it paid.",
                          False))
        self.assertEqual((charge.span_start, charge.span_end), (24, 29))
        self.assertEqual(rows[10].metadata["bases"], ["shop.models.Entity"])
        self.assertEqual(rows[10].metadata["decorators"], ["dataclass"])
        [test] = [r for r in layer(self.rows, "C1", "tests/test_billing.py") if r.metadata["kind"] == "function"]
        self.assertTrue(test.metadata["is_test"])

    def test_c2_calls_imports_and_inheritance_resolve_across_modules(self):
        rows = layer(self.rows, "C2", "shop/billing.py", "shop/api.py", "shop/urls.py", "shop/ninja_api.py")
        self.assertEqual(pick(rows, "edge_type", "src_qname", "dst_ref", "resolution"), [
            ("imports", "shop.api", "fastapi.APIRouter", "external"),
            ("imports", "shop.api", "fastapi.FastAPI", "external"),
            ("imports", "shop.api", "shop.billing", "resolved"),
            ("imports", "shop.api", "shop.models", "resolved"),
            ("calls", "shop.api", "fastapi.FastAPI", "external"),
            ("calls", "shop.api", "fastapi.APIRouter", "external"),
            ("calls", "shop.api.create_order", "shop.models.Order", "resolved"),
            ("calls", "shop.api.create_order", "shop.billing.charge", "resolved"),
            ("imports", "shop.billing", "json", "external"),
            ("imports", "shop.billing", "shop.models", "resolved"),
            ("imports", "shop.billing", "shop.models", "resolved"),
            ("inherits", "shop.billing.StripeGateway", "shop.billing.Gateway", "resolved"),
            ("calls", "shop.billing.StripeGateway.charge", "shop.billing.log_payment", "resolved"),
            # super().charge() is the base class's method.
            ("calls", "shop.billing.StripeGateway.charge", "shop.billing.Gateway.charge", "resolved"),
            ("calls", "shop.billing.log_payment", "json.dumps", "external"),
            ("calls", "shop.billing.charge", "shop.billing.StripeGateway", "resolved"),
            # `gateway = StripeGateway()` and `order: Order` type the calls made on them.
            ("calls", "shop.billing.charge", "shop.billing.StripeGateway.charge", "resolved"),
            ("calls", "shop.billing.charge", "shop.models.Order.mark_paid", "resolved"),
            ("calls", "shop.billing.charge", "shop.models.Payment", "resolved"),
            ("imports", "shop.ninja_api", "ninja.NinjaAPI", "external"),
            ("imports", "shop.ninja_api", "ninja.Router", "external"),
            ("calls", "shop.ninja_api", "ninja.NinjaAPI", "external"),
            ("calls", "shop.ninja_api", "ninja.Router", "external"),
            ("calls", "shop.ninja_api", "ninja.NinjaAPI.add_router", "external"),
            ("imports", "shop.urls", "django.urls.path", "external"),
            ("imports", "shop.urls", "django.urls.re_path", "external"),
            ("imports", "shop.urls", "shop.views", "resolved"),
            # A module-level variable is not a symbol.
            ("imports", "shop.urls", "shop.ninja_api", "resolved"),  # the module; `api` is a module-level name
            ("calls", "shop.urls", "django.urls.path", "external"),
            ("calls", "shop.urls", "django.urls.re_path", "external"),
            # as_view() comes from Django's View, a third-party base.
            ("calls", "shop.urls", "shop.views.OrderDetail.as_view", "external"),
        ])
        edge = rows[13].metadata
        self.assertEqual((edge["src_symbol_id"], edge["src_name"], edge["dst_symbol_id"], edge["dst_name"],
                          edge["line"]),
                         ("shop/billing.py#StripeGateway.charge", "charge", "shop/billing.py#Gateway.charge", "charge",
                          17))
        self.assertEqual(rows[13].content, "shop.billing.StripeGateway.charge calls shop.billing.Gateway.charge "
                                           "(resolved)\ncharge calls charge")
        callers = [r for r in layer(self.rows, "C2") if r.metadata["dst_ref"] == "shop.billing.charge"
                   and r.metadata["edge_type"] == "calls"]
        self.assertEqual(sorted(r.metadata["src_qname"] for r in callers), [
            "shop.api.create_order", "shop.web.refund", "tests.test_billing.test_charge_marks_the_order_paid"])

    def test_c3_entrypoints_of_every_framework(self):
        rows = layer(self.rows, "C3")
        self.assertEqual(pick(rows, "framework", "entry_type", "entrypoint_kind", "http_method", "route_or_command",
                              "route_key", "handler_symbol"), [
            ("fastapi", "http", "route", "POST", "POST /orders", "/orders", "shop.api.create_order"),
            ("fastapi", "http", "route", "GET", "GET /orders/{order_id}", "/orders/{order_id}", "shop.api.read_order"),
            ("typer", "cli", "command", "", "sync-orders", "", "shop.cli.sync_orders"),
            ("typer", "cli", "command", "", "report", "", "shop.cli.make_report"),
            ("click", "cli", "command", "", "cleanup", "", "shop.cli.cleanup"),
            ("click", "cli", "group", "", "admin", "", "shop.cli.admin"),
            ("click", "cli", "command", "", "purge", "", "shop.cli.purge_cache"),
            # NinjaAPI mounted at path("api/", api.urls); the router at api.add_router("/shop/", router).
            ("ninja", "http", "route", "GET", "GET /api/ping", "/api/ping", "shop.ninja_api.ping"),
            ("ninja", "http", "route", "POST", "POST /api/shop/orders", "/api/shop/orders",
             "shop.ninja_api.create_order_ninja"),
            ("django", "http", "urlpattern", "ANY", "ANY /orders/", "/orders", "shop.views.order_list"),
            ("django", "http", "class_view", "ANY", "ANY /orders/<int:pk>/", "/orders/{pk}", "shop.views.OrderDetail"),
            ("django", "http", "urlpattern", "ANY", "ANY /^legacy/$", "/legacy", "shop.views.order_list"),
            ("flask", "http", "route", "GET", "GET /health", "/health", "shop.web.health"),
            ("flask", "http", "route", "POST", "POST /refunds", "/refunds", "shop.web.refund"),
            ("flask", "http", "route", "PUT", "PUT /refunds", "/refunds", "shop.web.refund"),
        ])
        ninja = rows[8].metadata
        self.assertEqual((ninja["route_path"], ninja["mounted_path"], ninja["declared_route_key"]),
                         ("/orders", "/api/shop/orders", "/orders"))
        self.assertEqual(rows[8].content, "POST /api/shop/orders (declared as /orders) → "
                                          "shop.ninja_api.create_order_ninja (ninja route)\n"
                                          "Create an order through ninja.")
        create = rows[0].metadata
        self.assertEqual((create["handler_symbol_id"], create["declaring_symbol"], create["decorator_text"],
                          create["summary_text"], create["route_path"], create["source_path"]),
                         ("shop/api.py#create_order", "shop.api.app", '@app.post("/orders")',
                          "Create an order and charge it.", "/orders", "shop/api.py"))
        self.assertEqual(rows[0].content, "POST /orders → shop.api.create_order (fastapi route)\n"
                                          "Create an order and charge it.")
        self.assertEqual(rows[1].metadata["declaring_symbol"], "shop.api.router")
        self.assertEqual(rows[10].metadata["declaring_symbol"], "shop.urls.urlpatterns")

    def test_c3_mount_prefixes_of_fastapi_flask_and_django_includes(self):
        texts = {
            "app/api.py": "from fastapi import APIRouter, FastAPI\nfrom app import items\n\napp = FastAPI()\n"
                          "app.include_router(items.router, prefix='/v2')\n",
            "app/items.py": "from fastapi import APIRouter\n\nrouter = APIRouter(prefix='/items')\n\n"
                            "@router.get('/{item_id}')\ndef read_item(item_id: int):\n    pass\n",
            "app/web.py": "from flask import Blueprint, Flask\n\napp = Flask(__name__)\n"
                          "bp = Blueprint('bp', __name__)\n\n"
                          "@bp.route('/hello')\ndef hello():\n    pass\n\n"
                          "@bp.route('/register', methods=('GET', 'POST'))\ndef register():\n    pass\n\n"
                          "app.register_blueprint(bp, url_prefix='/web')\n",
            "site/urls.py": "from django.urls import include, path\n\n"
                            "urlpatterns = [path('shop/', include('shop.urls'))]\n",
            "shop/urls.py": "from django.urls import path\nfrom shop import views\n\n"
                            "urlpatterns = [path('cart/<int:pk>/', views.cart)]\n",
            "shop/views.py": "def cart(request, pk):\n    pass\n",
        }
        files, index = parse_project(texts)
        rows = [row for rel in texts for row in build_code_rows(files[rel], index, PythonExtractor())
                if row.layer == "C3"]
        self.assertEqual(pick(rows, "route_or_command", "route_key", "declared_route_key"), [
            ("GET /v2/items/{item_id}", "/v2/items/{item_id}", "/{item_id}"),
            ("GET /web/hello", "/web/hello", "/hello"),
            # A tuple of methods (Flask's tutorial: `methods=("GET", "POST")`) is a route of each.
            ("GET /web/register", "/web/register", "/register"),
            ("POST /web/register", "/web/register", "/register"),
            ("ANY /shop/cart/<int:pk>/", "/shop/cart/{pk}", "/cart/{pk}"),
        ])

    def test_c3_django_management_commands_and_main_blocks(self):
        texts = {
            "app/management/commands/sync_stock.py": "from django.core.management.base import BaseCommand\n\n"
                                                     "class Command(BaseCommand):\n    def handle(self, *a, **k):\n"
                                                     "        '''Sync the stock.'''\n",
            "tool.py": "def main():\n    pass\n\nif __name__ == '__main__':\n    main()\n",
        }
        files, index = parse_project(texts)
        rows = [row for rel in texts for row in build_code_rows(files[rel], index, PythonExtractor())]
        entries = [r for r in rows if r.layer == "C3"]
        self.assertEqual(pick(entries, "framework", "entry_type", "entrypoint_kind", "route_or_command",
                              "handler_symbol"), [
            ("django", "cli", "management_command", "sync_stock", "app.management.commands.sync_stock.Command.handle"),
            ("python", "script", "main_block", "tool.py", "tool"),
        ])
        roles = [r for r in rows if r.layer == "C4"]
        self.assertEqual(pick(roles, "qname", "role"), [
            ("app.management.commands.sync_stock.Command", "cli_command"),
            ("app.management.commands.sync_stock.Command.handle", "cli_command"),
            ("tool", "script"),
        ])

    def test_c4_roles_from_entrypoints_bases_and_tests(self):
        rows = layer(self.rows, "C4")
        self.assertEqual(pick(rows, "qname", "role", "roles"), [
            ("shop.api.create_order", "api_handler", ["api_handler"]),
            ("shop.api.read_order", "api_handler", ["api_handler"]),
            ("shop.cli.sync_orders", "cli_command", ["cli_command"]),
            ("shop.cli.make_report", "cli_command", ["cli_command"]),
            ("shop.cli.cleanup", "cli_command", ["cli_command"]),
            ("shop.cli.admin", "cli_command", ["cli_command"]),
            ("shop.cli.purge_cache", "cli_command", ["cli_command"]),
            ("shop.models.Order", "data", ["data"]),
            ("shop.ninja_api.ping", "api_handler", ["api_handler"]),
            ("shop.ninja_api.create_order_ninja", "api_handler", ["api_handler"]),
            # Routed from urls.py: the role is found across files.
            ("shop.views.order_list", "api_handler", ["api_handler"]),
            ("shop.views.OrderDetail", "api_handler", ["api_handler", "view"]),
            ("shop.web.health", "api_handler", ["api_handler"]),
            ("shop.web.refund", "api_handler", ["api_handler"]),
            ("tests.test_billing.test_charge_marks_the_order_paid", "test", ["test"]),
        ])
        # What each is for, as an answer says it: its docstring's first sentence.
        self.assertEqual(rows[0].metadata["summary_text"], "Create an order and charge it.")
        self.assertEqual(rows[11].metadata["evidence"], ["api_handler: django class_view orders/<int:pk>/",
                                                         "view: inherits django.views.View"])
        self.assertEqual(rows[11].content, "shop.views.OrderDetail is an api handler (class)\n"
                                           "api_handler: django class_view orders/<int:pk>/\n"
                                           "view: inherits django.views.View")

    def test_a_syntax_error_is_a_warning_and_tree_sitter_keeps_the_definitions(self):
        file = PythonExtractor().parse("broken.py", "def broken(:\n    pass\n\n\ndef fine():\n    broken()\n")
        rows = build_code_rows(file, ProjectIndex([file]), PythonExtractor())
        self.assertEqual(pick([r for r in rows if r.layer == "C1"], "qname", "kind"),
                         [("broken", "module"), ("broken.fine", "function"), ("broken.broken", "function")])
        self.assertEqual(len(file.warnings), 1)
        self.assertIn("lines 1-2", file.warnings[0])
        # A file that is no Python at all (NUL bytes) keeps its source as text chunks, with the reason.
        file = PythonExtractor().parse("blob.py", "\0\0 not code")
        self.assertIn("not Python source", file.parse_error)
        self.assertEqual([r.layer for r in build_code_rows(file, ProjectIndex([file]), PythonExtractor())],
                         ["C0", "C1"])

    def test_what_a_module_defines_in_a_block_is_its_own(self):
        # django-ninja's patch_dict.py declares `class PatchDict` under `if TYPE_CHECKING:` and assigns it in `else:`;
        # "Where is the class PatchDict defined?" found no row of it. A compatibility shim in `try:` … `except
        # ImportError:` is the module's too; calls in its functions are theirs, not the module's.
        source = ("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    class PatchDict(dict):\n"
                  "        \"\"\"A dict of the fields sent.\"\"\"\nelse:\n    PatchDict = make()\n\ntry:\n"
                  "    from json import dumps\nexcept ImportError:\n    def dumps(value):\n"
                  "        return encode(value)\n\n"
                  "if __name__ == '__main__':\n    def main():\n        pass\n")
        file = PythonExtractor().parse("pkg/patch.py", source)
        rows = build_code_rows(file, ProjectIndex([file]), PythonExtractor())
        symbols = pick([r for r in rows if r.layer == "C1"], "qname", "kind")
        self.assertIn(("pkg.patch.PatchDict", "class"), symbols)
        self.assertNotIn(("pkg.patch.PatchDict", "variable"), symbols)  # (the other branch's fallback)
        self.assertIn(("pkg.patch.dumps", "function"), symbols)
        self.assertNotIn(("pkg.patch.main", "function"), symbols)  # the main guard's block is an entrypoint's
        calls = pick([r for r in rows if r.layer == "C2" and r.metadata.get("edge_type") == "calls"],
                     "src_qname", "dst_ref")
        self.assertIn(("pkg.patch.dumps", "encode"), calls)
        self.assertNotIn(("pkg.patch", "encode"), calls)

    def test_a_long_function_is_cut_at_a_blank_line_so_a_docstring_field_keeps_its_text(self):
        # pluggy's `HookimplMarker.__call__`: its first chunk ended on ":param hookwrapper:", the text under it began
        # the second, so neither said what the option does.
        fields = "".join(f"        :param option{n}:\n" + "".join(
            f"            If ``True``, option {n} makes the hook run in its own way, line {line}.\n"
            for line in range(4)) + "\n" for n in range(8))
        text = f'def hook(**options):\n    """Mark a hook.\n\n{fields}    """\n    return options\n'
        cuts = line_chunks(text, 1, text.count("\n"), "function", "pkg.hook")
        lines = text.split("\n")
        self.assertGreater(len(cuts), 1)
        for cut in cuts[:-1]:
            self.assertEqual(lines[cut.end - 1].strip(), "", cut)  # each ends at a paragraph's end
            self.assertLessEqual(sum(len(line) + 1 for line in lines[cut.start - 1:cut.end]), 2000)
        self.assertEqual([(a.end + 1) for a in cuts[:-1]], [b.start for b in cuts[1:]], "the lines are all covered")
        # A run with no blank line in its last half is cut where it fills up, as before.
        dense = "\n".join(f"x{n} = {n}" + " " * 60 for n in range(60)) + "\n"
        self.assertEqual([(cut.start, cut.end) for cut in line_chunks(dense, 1, 60, "module")], [(1, 29), (30, 57),
                                                                                                  (58, 60)])

    def test_paths_become_module_names_and_test_flags(self):
        self.assertEqual(module_name("src/shop/billing.py"), "shop.billing")
        self.assertEqual(module_name("shop/__init__.py"), "shop")
        self.assertTrue(is_test_path("tests/test_billing.py"))
        self.assertTrue(is_test_path("shop/billing_test.py"))
        self.assertTrue(is_test_path("conftest.py"))
        self.assertFalse(is_test_path("shop/testing_utils.py"))
        self.assertEqual(route_key("orders/<int:pk>/"), "/orders/{pk}")
        self.assertEqual(route_key("^orders/(?P<pk>\\d+)/$"), "/orders/{pk}")
        self.assertEqual(route_key("/orders/{order_id}"), "/orders/{order_id}")


class OtherLanguageTests(SimpleTestCase):
    def test_files_without_a_parser_get_line_chunks_only(self):
        text = "\n".join(f"func f{n}() string {{ return \"{'x' * 80}\" }}" for n in range(40)) + "\n"
        files, index = parse_project({"web/app.go": text})
        rows = build_code_rows(files["web/app.go"], index, PlainTextExtractor())
        self.assertEqual({row.layer for row in rows}, {"C0"})
        self.assertEqual([(row.span_start, row.span_end) for row in rows], [(1, 17), (18, 34), (35, 40)])
        self.assertEqual({(row.language, row.metadata["chunk_type"], row.metadata["module_or_unit"]) for row in rows},
                         {("go", "text", "web.app")})
        # A Vue or Svelte component too: a Vue app's code was not indexed at all.
        self.assertTrue(all(is_indexable(f"web/App.{suffix}") for suffix in ("vue", "svelte", "swift", "dart")))
