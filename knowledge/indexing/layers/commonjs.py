"""CommonJS modules and environment reads in JavaScript and TypeScript, for `typescript._Reader`.

* `const x = require("mod")`, `const { a, b: c } = require("./m")`, `const y = require("./m").y` are
  imports: edges, and names that calls resolve through (not variables of the module).
* `module.exports = router` / `export default router` export the module's router, so a file that
  mounts the module (`app.use("/api/orders", require("./routes/orders"))`) prefixes its routes.
* `export { Button } from "./Button"`, `export * from "./forms"` (a barrel `index.ts`) are imports
  and re-exports: `import { Button } from "@/components"` resolves to `components.Button.Button`.
* `const app = express()` types `app`: `app.use()` is a call of `express.use`, external, not of a
  module variable `app.app.use`.
* `process.env.X`, `process.env["X"]`, `const { X } = process.env`, `import.meta.env.X` are the
  environment variables the file reads (`file.extra["env"]`, D6 rows through `code_rows.env_rows`).
"""

from tree_sitter import Node

ENV_OBJECTS = ("process.env", "import.meta.env")


def required(node: Node | None) -> tuple[str, str]:
    """(specifier, member) of `require("x")` or `require("x").member`, else ("", "")."""
    member = ""
    if node is not None and node.type == "member_expression":
        member = node.child_by_field_name("property").text.decode("utf-8", "replace")
        node = node.child_by_field_name("object")
    if node is None or node.type != "call_expression":
        return "", ""
    callee, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    args = arguments.named_children if arguments is not None else []
    if callee is None or callee.text != b"require" or len(args) != 1 or args[0].type != "string":
        return "", ""
    return args[0].text.decode("utf-8", "replace").strip("'\"`"), member


def is_require(declarator: Node) -> bool:
    return bool(required(declarator.child_by_field_name("value"))[0])


def read_module(reader, statements: list[Node]) -> None:
    """Requires become aliases and import edges; calls made on instances of imported classes are typed."""
    for node in statements:
        node = reader.unexport(node)
        for declarator in node.named_children if node.type in ("lexical_declaration", "variable_declaration") else []:
            if declarator.type == "variable_declarator":
                declare(reader, declarator)


def declare(reader, declarator: Node) -> None:
    name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
    spec, member = required(value)
    if spec:
        target = reader.module_ref(spec) + (f".{member}" if member else "")
        if name.type == "identifier":
            reader.aliases[reader.text(name)] = target
            reader.reference("imports", reader.module, target, declarator)
        for key, local in _pattern(reader, name) if name.type == "object_pattern" else []:
            reader.aliases[local] = f"{target}.{key}"
            reader.reference("imports", reader.module, f"{target}.{key}", declarator)
    elif value is not None and value.type in ("call_expression", "new_expression") and name.type == "identifier":
        callee = value.child_by_field_name("function") or value.child_by_field_name("constructor")
        called = reader.expand(reader.text(callee)) if callee is not None else ""
        if called and called.split(".")[0] in reader.external:  # `express()`, `new Stripe(key)`
            reader.instances[reader.text(name)] = called


def _pattern(reader, pattern: Node) -> list[tuple[str, str]]:
    """(property, local name) of `{ a, b: c, d = 1 }`."""
    found = []
    for child in pattern.named_children:
        if child.type == "shorthand_property_identifier_pattern":
            found.append((reader.text(child), reader.text(child)))
        elif child.type == "object_assignment_pattern":
            left = child.child_by_field_name("left")
            found.append((reader.text(left), reader.text(left)))
        elif child.type == "pair_pattern":
            key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
            if value is not None and value.type == "assignment_pattern":
                value = value.child_by_field_name("left")
            if value is not None and value.type == "identifier":
                found.append((reader.text(key), reader.text(value)))
    return found


def exports(reader, statements: list[Node]) -> None:
    """`module.exports = router` / `export default router`: the module stands for its router when mounted."""
    module = reader.file.module
    for node in statements:
        value = None
        if node.type == "export_statement" and node.child_by_field_name("value") is not None:
            value = node.child_by_field_name("value")
        elif node.type == "expression_statement" and node.named_children[0].type == "assignment_expression":
            assignment = node.named_children[0]
            if reader.text(assignment.child_by_field_name("left")) == "module.exports":
                value = assignment.child_by_field_name("right")
        if value is not None and value.type == "identifier" and reader.text(value) in reader.top:
            exported = f"{module}.{reader.text(value)}"
            reader.file.mounts[exported] = (module, "")
            if module.endswith(".index"):  # `require("./routes")` is `routes/index.js`
                reader.file.mounts[module] = (module.removesuffix(".index"), "")


def reexports(reader, statements: list[Node]) -> None:
    """`export { a, b as c } from "./m"`, `export * from "./m"`, `export * as ns from "./m"`."""
    module = reader.file.module
    names = (module, module.removesuffix(".index")) if module.endswith(".index") else (module,)
    for node in statements:
        source = node.child_by_field_name("source") if node.type == "export_statement" else None
        if source is None:
            continue
        target = reader.module_ref(reader.text(source).strip("'\"`"))
        clause = next((c for c in node.named_children if c.type in ("export_clause", "namespace_export")), None)
        exported = {}
        for spec in clause.named_children if clause is not None and clause.type == "export_clause" else []:
            name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
            # `export { default as Button }`: the module, as a default import is
            exported[reader.text(alias or name)] = target if reader.text(name) == "default" else \
                f"{target}.{reader.text(name)}"
        if clause is not None and clause.type == "namespace_export":
            exported[reader.text(clause.named_children[-1])] = target
        for local, ref in exported.items():
            reader.file.extra["reexports"].update({f"{name}.{local}": ref for name in names
                                                   if f"{name}.{local}" != ref})
        for name in names if clause is None else ():  # export * from "./m"
            reader.file.extra.setdefault("star_exports", {}).setdefault(name, []).append(target)
        for ref in exported.values() or [target]:
            reader.reference("imports", reader.module, ref, node)


def env_reads(reader, root: Node) -> list[dict]:
    """Environment variables read by name, with the line, the way and the function that reads them."""
    found, stack = [], [root]

    def add(name: str, node: Node, via: str) -> None:
        if name:
            found.append({"name": name, "line": node.start_point.row + 1, "via": via,
                          "symbol": reader.enclosing(node)})

    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        owner = node.child_by_field_name("object") or node.child_by_field_name("value")
        # Only short texts are decoded: the object of `f(…a long call…).x` is never `process.env`.
        via = reader.text(owner) if owner is not None and owner.end_byte - owner.start_byte <= 15 else ""
        if node.type == "member_expression" and via in ENV_OBJECTS:
            add(reader.text(node.child_by_field_name("property")), node, via)
        elif node.type == "subscript_expression" and via in ENV_OBJECTS:
            index = node.child_by_field_name("index")
            if index is not None and index.type == "string":
                add(reader.text(index).strip("'\"`"), node, via)
        elif node.type == "variable_declarator" and via in ENV_OBJECTS:  # const { X } = process.env
            pattern = node.child_by_field_name("name")
            for key, _ in _pattern(reader, pattern) if pattern.type == "object_pattern" else []:
                add(key, node, via)
    return sorted(found, key=lambda item: item["line"])
