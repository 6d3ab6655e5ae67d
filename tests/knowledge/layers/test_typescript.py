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
