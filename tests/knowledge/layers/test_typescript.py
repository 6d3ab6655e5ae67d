"""TypeScript and JavaScript: symbols, imports, calls, components, DTOs and routes, through tree-sitter."""

from django.test import SimpleTestCase

from knowledge.indexing.layers import store
from knowledge.indexing.layers.code_rows import build_code_rows

FRONTEND = {
    "web/src/auth.ts": (
        'import axios from "axios";\n\n/** A user as the API sends it. */\nexport interface UserPublic {\n'
        "  id: number;\n  email: string;\n}\n\nexport const API_URL = \"/api/v1\";\n\n"
        "/** Log a user in. */\nexport async function login(email: string): Promise<UserPublic> {\n"
        "  return axios.post(API_URL + \"/login\", { email });\n}\n"),
    "web/src/components/LoginForm.tsx": (
        'import { login } from "../auth";\n\nexport default function LoginForm() {\n'
        '  const submit = () => login("a@b.c");\n  return <form onSubmit={submit} />;\n}\n'),
    "web/src/App.tsx": (
        'import { Route, Routes } from "react-router-dom";\nimport LoginForm from "@/components/LoginForm";\n\n'
        "export const App = () => (\n  <Routes>\n    <Route path=\"/login\" element={<LoginForm />} />\n"
        "  </Routes>\n);\n\nclass Store extends Base<number> {\n  load() {\n    return 1;\n  }\n}\n"),
    "server/index.js": (
        'import express from "express";\nimport { listUsers } from "./users.js";\n\n'
        "const app = express();\nconst router = express.Router();\nrouter.get(\"/users\", listUsers);\n"
        'router.post("/users", (req, res) => res.send("ok"));\napp.use("/api", router);\n'),
    "server/users.js": "export function listUsers(req, res) {\n  res.json([]);\n}\n",
    "web/app/items/[id]/page.tsx": "export default function ItemPage() {\n  return <div />;\n}\n",
    "web/app/api/items/route.ts": "export async function GET() {\n  return Response.json([]);\n}\n"
                                  "export async function POST() {\n  return Response.json({});\n}\n",
    "web/src/broken.ts": "export function fine() {\n  return 1;\n}\n\nfunction bad( {\n  return 2;\n",
}


def rows_of(texts: dict[str, str]) -> dict[str, list]:
    code_files, index = store.parse_project(texts)
    return {path: build_code_rows(file, index, store.EXTRACTORS["." + path.rsplit(".", 1)[-1]])
            for path, file in code_files.items()}, code_files


def meta(rows, layer, *keys):
    return [tuple(row.metadata.get(key) for key in keys) for row in rows if row.layer == layer]


class ScriptTests(SimpleTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.rows, cls.files = rows_of(FRONTEND)

    def test_symbols_with_kinds_signatures_and_docs(self):
        self.assertEqual(meta(self.rows["web/src/auth.ts"], "C1", "qname", "kind", "docstring"), [
            ("web.src.auth", "module", ""),
            ("web.src.auth.UserPublic", "interface", "A user as the API sends it."),
            ("web.src.auth.API_URL", "constant", ""),
            ("web.src.auth.login", "function", "Log a user in."),
        ])
        self.assertIn(("web.src.App.Store.load", "method"), meta(self.rows["web/src/App.tsx"], "C1", "qname", "kind"))
        self.assertEqual(self.files["server/index.js"].language, "javascript")

    def test_a_declaration_file_is_the_module_it_declares(self):
        # chalk's `source/index.d.ts` was the module `source.index.d`: its symbols `source.index.d.ChalkInstance`.
        declaration = "/** Main object. */\nexport interface ChalkInstance {\n  level: number;\n}\n"
        rows, _ = rows_of({"source/index.d.ts": declaration,
                           "types/util.d.mts": "export type Level = 0 | 1;\n",
                           "web/src/index.ts": 'import { ChalkInstance } from "../../source/index";\n'})
        self.assertEqual([qname for qname, in meta(rows["source/index.d.ts"], "C1", "qname")],
                         ["source.index", "source.index.ChalkInstance"])
        self.assertEqual(meta(rows["types/util.d.mts"], "C1", "qname")[0], ("types.util",))
        self.assertIn(("imports", "source.index", "resolved"),
                      meta(rows["web/src/index.ts"], "C2", "edge_type", "dst_ref", "resolution"))

    def test_a_folder_required_is_its_index_module(self):
        # semver's `bin/semver.js` does `const semver = require('../')`: the repository's root, which no module name
        # could be made of, and the whole repository failed to index.
        rows, _ = rows_of({"index.js": "module.exports = { parse: (v) => v }\n",
                           "bin/semver.js": "const semver = require('../')\nsemver.parse('1.0.0')\n",
                           "lib/a.js": "const here = require('.')\nconst up = require('../lib/')\n",
                           "lib/index.js": "module.exports = {}\n"})
        self.assertIn(("imports", "index", "resolved"), meta(rows["bin/semver.js"], "C2", "edge_type", "dst_ref",
                                                             "resolution"))
        self.assertEqual({ref for kind, ref in meta(rows["lib/a.js"], "C2", "edge_type", "dst_ref")
                          if kind == "imports"}, {"lib.index"})

    def test_imports_and_calls_resolve_across_files(self):
        edges = meta(self.rows["web/src/components/LoginForm.tsx"], "C2", "edge_type", "src_qname", "dst_ref",
                     "resolution")
        self.assertIn(("imports", "web.src.components.LoginForm", "web.src.auth", "resolved"), edges)
        self.assertIn(("calls", "web.src.components.LoginForm.LoginForm", "web.src.auth.login", "resolved"), edges)
        app = meta(self.rows["web/src/App.tsx"], "C2", "edge_type", "dst_ref", "resolution")
        self.assertIn(("imports", "web.src.components.LoginForm", "resolved"), app)  # through `@/`
        self.assertIn(("imports", "react-router-dom.Route", "external"), app)
        self.assertIn(("calls", "axios.post", "external"), meta(self.rows["web/src/auth.ts"], "C2", "edge_type",
                                                                 "dst_ref", "resolution"))

    def test_components_are_views_and_interfaces_dtos(self):
        roles = {q: r for rows in self.rows.values() for q, r in meta(rows, "C4", "qname", "role")}
        self.assertEqual(roles["web.src.components.LoginForm.LoginForm"], "view")
        self.assertEqual(roles["web.src.auth.UserPublic"], "schema")

    def test_express_nextjs_and_react_router_routes_are_entrypoints(self):
        routes = {r: (f, h) for rows in self.rows.values()
                  for r, f, h in meta(rows, "C3", "route_or_command", "framework", "handler_symbol")}
        self.assertEqual(routes["GET /api/users"], ("express", "server.users.listUsers"))
        self.assertEqual(routes["POST /api/users"][0], "express")
        self.assertEqual(routes["GET /items/{id}"], ("nextjs", "web.app.items.[id].page.ItemPage"))
        self.assertEqual(routes["GET /api/items"], ("nextjs", "web.app.api.items.route.GET"))
        self.assertEqual(routes["POST /api/items"], ("nextjs", "web.app.api.items.route.POST"))
        self.assertEqual(routes["GET /login"], ("react-router", "web.src.components.LoginForm"))

    def test_a_syntax_error_keeps_what_can_be_read_and_warns(self):
        broken = self.files["web/src/broken.ts"]
        self.assertIn("web.src.broken.fine", [symbol.qname for symbol in broken.symbols])
        self.assertIn("syntax error", broken.warnings[0])
        self.assertEqual(self.files["web/src/auth.ts"].warnings, [])


class SnippetRouteTests(SimpleTestCase):
    def test_a_route_decorator_on_an_undefined_app_is_still_a_route(self):
        # Documentation examples decorate with an `api` they never define.
        texts = {"docs/src/query.py": '@api.get("/weapons/search")\ndef search(q: str):\n    return q\n',
                 "docs/src/other.py": '@cache.get("key")\ndef cached():\n    pass\n'}
        rows, _ = rows_of(texts)
        self.assertEqual(meta(rows["docs/src/query.py"], "C3", "route_or_command", "framework", "handler_symbol"),
                         [("GET /weapons/search", "unknown", "docs.src.query.search")])
        self.assertEqual(meta(rows["docs/src/other.py"], "C3", "route_or_command"), [])


COMMONJS = {
    "server/app.js": (
        "const express = require('express');\nconst morgan = require('morgan');\n"
        "const ordersRouter = require('./routes/orders');\n\nconst app = express();\napp.use(morgan('dev'));\n"
        "app.use('/api/orders', ordersRouter);\napp.use('/health', require('./routes/health'));\n"
        "const port = process.env.PORT || 3000;\napp.listen(port);\n"),
    "server/routes/orders.js": (
        "const express = require('express');\nconst { chargeCard } = require('../services/payment');\n\n"
        "const router = express.Router();\n\nrouter.post('/:id/pay', async function payOrder(req, res) {\n"
        "  await chargeCard(req.params.id, process.env['STRIPE_KEY']);\n  res.json({});\n});\n\n"
        "module.exports = router;\n"),
    "server/routes/health.js": (
        "const { Router } = require('express');\nconst router = Router();\n"
        "router.get('/live', (req, res) => res.send('ok'));\nexport default router;\n"),
    "server/services/payment.js": "function chargeCard(id, key) {\n  return id;\n}\n"
                                  "module.exports = { chargeCard };\n",
    "web/src/components/index.ts": 'export { Button, Card as Tile } from "./Button";\n'
                                   'export * from "./forms";\nexport { default as Modal } from "./Modal";\n',
    "web/src/components/Modal.tsx": "export default function Modal() {}\n",
    "web/src/components/Button.tsx": "export function Button() {}\nexport function Card() {}\n",
    "web/src/components/forms.tsx": "export function LoginForm() {}\n",
    "web/src/App.tsx": 'import { Button, Tile, LoginForm, Modal } from "@/components";\n'
                       "export function App() {\n  Button();\n  Tile();\n  LoginForm();\n  Modal();\n}\n",
    "web/src/config.ts": "const { API_URL, DEBUG: debug } = process.env;\nexport const mode = import.meta.env.MODE;\n"
                         "export class ConfigError extends Error {}\n",
}


class CommonJsTests(SimpleTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.rows, cls.files = rows_of(COMMONJS)

    def test_requires_are_imports_and_not_variables(self):
        app = meta(self.rows["server/app.js"], "C2", "edge_type", "dst_ref", "resolution")
        self.assertIn(("imports", "express", "external"), app)
        self.assertIn(("imports", "morgan", "external"), app)
        self.assertIn(("calls", "morgan", "external"), app)  # a package, not a variable of the module
        self.assertIn(("imports", "server.routes.orders", "resolved"), app)
        self.assertIn(("imports", "server.routes.health", "resolved"), app)  # required inside a call
        orders = meta(self.rows["server/routes/orders.js"], "C2", "edge_type", "dst_ref", "imported_name")
        self.assertIn(("imports", "server.services.payment", "chargeCard"), orders)
        qnames = [q for rows in self.rows.values() for q, in meta(rows, "C1", "qname")]
        qnames += [row.metadata["qname"] for rows in self.rows.values() for row in rows if row.layer == "C0"]
        self.assertNotIn("server.app.morgan", qnames)
        self.assertEqual([q for q in qnames if "{" in q], [])  # `const { chargeCard } = require(…)`

    def test_calls_on_an_instance_of_a_package_are_external_calls_of_it(self):
        app = meta(self.rows["server/app.js"], "C2", "src_qname", "dst_ref", "resolution")
        self.assertIn(("server.app", "express.use", "external"), app)
        self.assertEqual([d for _, d, _ in app if d.startswith("server.app.app.")], [])

    def test_a_named_function_handler_is_a_function_with_its_calls(self):
        edges = meta(self.rows["server/routes/orders.js"], "C2", "edge_type", "src_qname", "dst_ref", "resolution")
        self.assertIn(("calls", "server.routes.orders.payOrder", "server.services.payment.chargeCard", "resolved"),
                      edges)
        routes = meta(self.rows["server/routes/orders.js"], "C3", "route_or_command", "handler_symbol")
        self.assertEqual(routes, [("POST /api/orders/:id/pay", "server.routes.orders.payOrder")])

    def test_a_router_a_required_module_exports_is_mounted_under_its_prefix(self):
        routes = meta(self.rows["server/routes/health.js"], "C3", "route_or_command", "route_key")
        self.assertEqual(routes, [("GET /health/live", "/health/live")])

    def test_names_a_barrel_index_reexports_resolve_to_their_definitions(self):
        edges = meta(self.rows["web/src/App.tsx"], "C2", "edge_type", "dst_ref", "resolution")
        self.assertIn(("calls", "web.src.components.Button.Button", "resolved"), edges)  # not the module Button
        self.assertIn(("calls", "web.src.components.Button.Card", "resolved"), edges)  # `Card as Tile`
        self.assertIn(("calls", "web.src.components.forms.LoginForm", "resolved"), edges)  # `export *`
        self.assertIn(("calls", "web.src.components.Modal", "resolved"), edges)  # `export { default as Modal }`
        index = meta(self.rows["web/src/components/index.ts"], "C2", "edge_type", "dst_ref", "imported_name")
        self.assertIn(("imports", "web.src.components.Button", "Card"), index)

    def test_builtin_bases_are_external(self):
        self.assertIn(("inherits", "Error", "external"),
                      meta(self.rows["web/src/config.ts"], "C2", "edge_type", "dst_ref", "resolution"))

    def test_environment_variables_read_are_d6_rows(self):
        self.assertEqual(meta(self.rows["server/app.js"], "D6", "target", "via", "line", "anchor"),
                         [("PORT", "process.env", 9, "server.app")])
        self.assertEqual(meta(self.rows["server/routes/orders.js"], "D6", "target", "anchor"),
                         [("STRIPE_KEY", "server.routes.orders.payOrder")])
        self.assertEqual(meta(self.rows["web/src/config.ts"], "D6", "target", "via"),
                         [("API_URL", "process.env"), ("DEBUG", "process.env"), ("MODE", "import.meta.env")])


MEMBER_FUNCTIONS = {
    "lib/response.js": (
        "var res = Object.create(http.ServerResponse.prototype);\nmodule.exports = res;\n\n"
        "/** Set the status code. */\nres.status = function status(code) {\n  this.statusCode = code;\n"
        "  return this;\n};\n/**\n * Links.\n */\n\nres.links = function(links) {\n  return format(links);\n};\n\n"
        "exports.helper = (x) => format(x);\n\nfunction Router() {}\n\n"
        "Router.prototype.handle = function handle(req) {\n  return format(req);\n};\n\n"
        "function format(value) {\n  return value;\n}\n"),
}


class MemberFunctionTests(SimpleTestCase):
    """Functions a CommonJS module defines by assignment (`res.send = function send(…)`, express's style)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.rows = rows_of(MEMBER_FUNCTIONS)[0]["lib/response.js"]

    def test_they_are_symbols_anonymous_ones_too_and_a_prototype_s_are_its_methods(self):
        symbols = meta(self.rows, "C1", "qname", "kind", "docstring")
        # Members of the module's object `res` (so "res.send" names them), `exports.x` the module's own.
        for symbol in [("lib.response.res.status", "function", "Set the status code."),
                       ("lib.response.res.links", "function", "Links."), ("lib.response.helper", "function", ""),
                       ("lib.response.Router.handle", "method", "")]:
            self.assertIn(symbol, symbols)
        self.assertIn(("calls", "lib.response.res.links", "lib.response.format"),
                      meta(self.rows, "C2", "edge_type", "src_qname", "dst_ref"))

    def test_each_is_a_source_chunk_of_its_own(self):
        chunks = {row.metadata["qname"]: (row.metadata["chunk_type"], row.span_start)
                  for row in self.rows if row.layer == "C0"}
        # Each from its first line, its JSDoc's, or the blank line before it (the chunks cover the file).
        self.assertEqual(chunks.get("lib.response.res.status"), ("function", 3))
        self.assertEqual(chunks.get("lib.response.res.links"), ("function", 9))  # its JSDoc, a blank line, it
        self.assertIn(chunks.get("lib.response.Router.handle"), [("function", 20), ("function", 21)])


UMD = (
    "/* global define */\n\n(function (root, pluralize) {\n  if (typeof module === 'object') {\n"
    "    module.exports = pluralize();\n  } else {\n    root.pluralize = pluralize();\n  }\n"
    "})(this, function () {\n  var rules = [];\n\n  /**\n   * Replace a word with the updated word.\n   */\n"
    "  function replaceWord (rules) {\n    return function (word) { return word; };\n  }\n\n"
    "  /**\n   * Pluralize or singularize a word.\n   */\n  function pluralize (word, count) {\n"
    "    return pluralize.plural(word);\n  }\n\n  /**\n   * Pluralize a word.\n   */\n"
    "  pluralize.plural = replaceWord(rules);\n\n  pluralize.cache = {};\n\n"
    "  /**\n   * Add a pluralization rule to the collection.\n   */\n"
    "  pluralize.addPluralRule = function (rule, replacement) {\n    rules.push([rule, replacement]);\n  };\n\n"
    "  return pluralize;\n});\n")


class WrappedModuleTests(SimpleTestCase):
    """A file that is one wrapped function: its function's statements are the module's top level."""

    def test_a_umd_factory_s_functions_and_documented_members_are_the_module_s(self):
        # pluralize.js is a UMD wrapper around a factory: the module had no symbol but itself, and "How do I add a
        # plural rule?" found no `addPluralRule`.
        rows = rows_of({"pluralize.js": UMD})[0]["pluralize.js"]
        symbols = meta(rows, "C1", "qname", "kind", "docstring")
        for symbol in [("pluralize.replaceWord", "function", "Replace a word with the updated word."),
                       ("pluralize.pluralize", "function", "Pluralize or singularize a word."),
                       ("pluralize.pluralize.plural", "variable", "Pluralize a word."),
                       ("pluralize.pluralize.addPluralRule", "function",
                        "Add a pluralization rule to the collection.")]:
            self.assertIn(symbol, symbols)
        self.assertNotIn("pluralize.pluralize.cache", [qname for qname, *_ in symbols])  # undocumented: no API
        self.assertIn(("calls", "pluralize.pluralize.plural", "pluralize.replaceWord"),
                      meta(rows, "C2", "edge_type", "src_qname", "dst_ref"))
        chunks = {row.metadata["qname"]: row.span_start for row in rows if row.layer == "C0"}
        self.assertEqual(chunks.get("pluralize.pluralize.addPluralRule"), 32)  # with its JSDoc
        self.assertEqual(min(row.span_start for row in rows if row.layer == "C0"), 1)  # the chunks cover the file

    def test_an_iife_s_statements_are_the_module_s_and_a_test_s_callback_is_not(self):
        rows, _ = rows_of({"lib/once.js": ";(function () {\n  'use strict';\n  function once(fn) {\n    return fn;\n"
                                          "  }\n  window.once = once;\n})();\n",
                           "lib/bang.js": "!function () {\n  function twice(fn) {\n    return fn;\n  }\n}();\n",
                           "test/once.js": "describe('once', function () {\n  function helper() {}\n});\n"})
        self.assertIn(("lib.once.once", "function"), meta(rows["lib/once.js"], "C1", "qname", "kind"))
        self.assertIn(("lib.bang.twice", "function"), meta(rows["lib/bang.js"], "C1", "qname", "kind"))
        self.assertNotIn(("test.once.helper", "function"), meta(rows["test/once.js"], "C1", "qname", "kind"))


def test_a_method_s_call_on_this_is_a_call_of_its_class_s_method():
    rows = rows_of({"src/client.ts": (
        "export class Client {\n  fetch() {\n    return this.build();\n  }\n  build() {\n    return 1;\n  }\n}\n"
        "export class Sub extends Client {\n  run() {\n    return this.fetch();\n  }\n}\n")})[0]["src/client.ts"]
    edges = meta(rows, "C2", "edge_type", "src_qname", "dst_ref", "resolution")
    assert ("calls", "src.client.Client.fetch", "src.client.Client.build", "resolved") in edges
    assert [edge for edge in edges if edge[1] == "src.client.Sub.run"][0][3] == "resolved"  # Client's, inherited


def test_a_factorys_functions_it_hands_out_are_its_symbols():
    # debug's `setup(env)` builds `createDebug` and sets `createDebug.enable = enable`: "Where is the enable function
    # defined?" found no symbol of `enable`. A helper it keeps to itself stays no symbol.
    rows = rows_of({"src/common.js": (
        "function setup(env) {\n  createDebug.enable = enable;\n\n  /**\n  * Enables a debug mode by namespaces.\n"
        "  */\n  function enable(namespaces) {\n    createDebug.save(namespaces);\n  }\n\n"
        "  function disable() {\n    return helper();\n  }\n\n  function helper() {\n    return '';\n  }\n\n"
        "  return {enable, off: disable};\n}\n\nmodule.exports = setup;\n")})[0]["src/common.js"]
    symbols = meta(rows, "C1", "qname", "kind", "docstring")
    assert ("src.common.setup.enable", "function", "Enables a debug mode by namespaces.") in symbols
    assert ("src.common.setup.disable", "function", "") in symbols
    assert "src.common.setup.helper" not in [qname for qname, *_ in symbols]
