"""Routes declared in JavaScript and TypeScript code, read by `typescript._Reader` (this is its mixin).

Express (`router.get("/x", handler)`, `app.use("/api", router)` mounts — also of a router a required
or imported module exports), React Router (`<Route path element>`, `{path, element}` objects) and
TanStack `createFileRoute("/x")`. Next.js file routes are `nextjs`'s.
"""

import re

from tree_sitter import Node

from knowledge.indexing.layers import commonjs
from knowledge.indexing.layers.code import Entrypoint

EXPRESS_METHODS = {"get", "post", "put", "patch", "delete", "options", "head", "all"}


class RouteReader:
    """Route declarations of one file; `typescript._Reader` provides `file`, `text()` and `expand()`."""

    def routes(self, root: Node) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            if node.type == "call_expression":
                self.route_call(node)
            elif node.type in ("jsx_self_closing_element", "jsx_opening_element") and \
                    self.text(node.child_by_field_name("name")) == "Route":
                attributes = {self.text(a.named_children[0]): a.named_children[-1] for a in node.named_children
                              if a.type == "jsx_attribute" and len(a.named_children) == 2}
                self.page(attributes.get("path"), attributes.get("element") or attributes.get("component"),
                          node, "react-router")
            elif node.type == "object":
                pairs = {self.text(p.child_by_field_name("key")): p.child_by_field_name("value")
                         for p in node.named_children if p.type == "pair"}
                if "path" in pairs and ("element" in pairs or "component" in pairs or "Component" in pairs):
                    element = pairs.get("element") or pairs.get("component") or pairs.get("Component")
                    self.page(pairs["path"], element, node, "react-router")
            stack.extend(node.named_children)

    def route_call(self, node: Node) -> None:
        callee, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        args = arguments.named_children if arguments is not None else []
        if callee is None or not args:
            return
        if self.text(callee) == "createFileRoute" and args[0].type == "string":  # TanStack Router
            parent = node.parent.parent if node.parent is not None else None  # createFileRoute("/x")({…})
            options = parent.child_by_field_name("arguments") if parent is not None else None
            component = None
            for obj in options.named_children if options is not None else []:
                for pair in (p for p in obj.named_children if p.type == "pair"):
                    if self.text(pair.child_by_field_name("key")) == "component":
                        component = pair.child_by_field_name("value")
            self.page(args[0], component, node, "tanstack-router")
            return
        if callee.type != "member_expression" or args[0].type not in ("string", "template_string"):
            return
        owner = self.text(callee.child_by_field_name("object"))
        method = self.text(callee.child_by_field_name("property"))
        path = self.text(args[0]).strip("'\"`")
        declaring = f"{self.file.module}.{owner}"
        if method == "use" and len(args) >= 2:
            child = self.expand(self.text(args[-1])) if args[-1].type in ("identifier", "member_expression") else ""
            spec = commonjs.required(args[-1])[0]  # app.use("/api", require("./routes/orders"))
            child = self.module_ref(spec) if spec else child
            if child:
                self.file.mounts[child] = (declaring, path)
            return
        if method not in EXPRESS_METHODS or not path.startswith("/") or len(args) < 2:
            return
        handler = args[-1]
        name = (self.expand(self.text(handler)) or f"{self.file.module}.{self.text(handler)}") \
            if handler.type in ("identifier", "member_expression") else self.enclosing(node)
        if handler.type == "function_expression" and handler.child_by_field_name("name") is not None:
            name = next((s.qname for s in self.file.symbols if s.line_start == handler.start_point.row + 1
                         and s.name == self.text(handler.child_by_field_name("name"))), name)
        http = "ANY" if method == "all" else method.upper()
        self.file.objects[declaring] = "express"
        self.file.extra["routes"].append(Entrypoint(
            "http", "express", "route", f"{http} {path}", name, declaring, self.text(node).split("\n", 1)[0][:200],
            node.start_point.row + 1, http_method=http, route_path=path))

    def page(self, path: Node | None, element: Node | None, node: Node, framework: str) -> None:
        route = self.text(path).strip("'\"`{} ") if path is not None else ""
        if not route:
            return
        name = ""
        if element is not None:
            match = re.search(r"<\s*([A-Za-z_][\w.]*)|^\{?\s*([A-Za-z_][\w.]*)\s*\}?$", self.text(element))
            if match:
                written = match.group(1) or match.group(2)
                name = self.expand(written) or f"{self.file.module}.{written}"
        self.file.extra["routes"].append(Entrypoint(
            "page", framework, "page", f"GET {route}", name or self.enclosing(node), self.file.module,
            self.text(node).split("\n", 1)[0][:200], node.start_point.row + 1, http_method="GET", route_path=route))

    def enclosing(self, node: Node) -> str:
        row = node.start_point.row + 1
        inside = [s for s in self.file.symbols
                  if s.kind in ("function", "method") and s.line_start <= row <= s.line_end]
        return max(inside, key=lambda s: s.line_start).qname if inside else self.file.module
