"""TypeScript and JavaScript through tree-sitter: symbols, imports, calls, C0 chunks and entrypoints.

Symbols: functions (declarations and `const f = () => …`), classes and their methods, interfaces,
type aliases, enums and other top-level constants; a capitalised function that returns JSX is a
React component. A file that is one wrapped function — `(function () {…})()`, or a UMD wrapper
`(function (root, factory) {…})(this, function () {…})` — has the wrapped function's (the factory's)
statements for its top level, as its module's code is written there; a documented value given to a
member of the module's function or object (`pluralize.plural = replaceWord(…)`) is a symbol as a
function given to one is. Imports are resolved against the repository's files (`./x`, `../y`, `@/`
for the nearest `src/`), so `import { login } from "./auth"` is an edge to the module `web.src.auth`
with the name `login`, and calls through imported names resolve like Python's. Entrypoints: Express
(`app.get("/x", handler)`, `app.use("/api", router)` mounts), Next.js files (`pages/…`,
`pages/api/…`, `app/…/page.tsx`, `app/…/route.ts` with exported `GET`/`POST`…), React Router
(`<Route path element>`, `{path, element}` objects) and TanStack `createFileRoute("/x")`.
A file tree-sitter parses with errors still gives what it could read, and a warning.
"""

import re
from pathlib import PurePosixPath

from tree_sitter import Node

from knowledge.indexing.layers import commonjs, tolerant
from knowledge.indexing.layers.code import (
    CodeExtractor,
    CodeFile,
    Entrypoint,
    ProjectIndex,
    Reference,
    SourceChunk,
    Symbol,
    is_test_path,
    line_chunks,
)
from knowledge.indexing.layers.docstrings import doc_summary, jsdoc_description
from knowledge.indexing.layers.nextjs import next_routes
from knowledge.indexing.layers.script_routes import RouteReader

GRAMMARS = {".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
            ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript"}
FUNCTIONS = {"function_declaration", "generator_function_declaration", "function_expression", "arrow_function",
             "function"}
DTO_NAME = re.compile(r"(Dto|DTO|Request|Response|Input|Output|Payload|Schema|Create|Update|Public|Params|Body|"
                      r"Model|Entity|Record)s?$")
DTO_FOLDER = re.compile(r"(^|/)(types|models|schemas?|dto|client|api)(/|$)")
# Built-in classes a class may extend (the language's, the browser's), as Python's builtins.
GLOBALS = {"Error", "TypeError", "RangeError", "SyntaxError", "ReferenceError", "EvalError", "URIError",
           "AggregateError", "Array", "Map", "Set", "WeakMap", "WeakSet", "Promise", "Object", "Function",
           "EventTarget", "Event", "CustomEvent", "HTMLElement"}
JS_TEST = re.compile(r"\.(test|spec)\.[jt]sx?$|(^|/)(__tests__|tests?|e2e)/")


def module_name(path: str) -> str:
    """`web/src/auth.ts` → `web.src.auth`; `web/src/index.tsx` → `web.src.index`; a declaration file is the
    module it declares: `source/index.d.ts` → `source.index`, as `import … from "./index"` reads it."""
    stem = PurePosixPath(path).with_suffix("")
    if stem.suffix == ".d" and PurePosixPath(path).suffix in (".ts", ".mts", ".cts"):
        stem = stem.with_suffix("")
    return ".".join(stem.parts)


class ScriptExtractor(CodeExtractor):
    language = "typescript"
    extensions = tuple(GRAMMARS)

    def parse(self, path: str, text: str, module: str | None = None) -> CodeFile:
        grammar = GRAMMARS[PurePosixPath(path).suffix.lower()]
        file = CodeFile(path=path, module=module or module_name(path),
                        language="javascript" if grammar == "javascript" else "typescript", text=text,
                        is_test=is_test_path(path) or bool(JS_TEST.search(path)))
        tree = tolerant.parser(grammar).parse(text.encode("utf-8", "surrogatepass"))
        _Reader(file, tree.root_node).read()
        if tree.root_node.has_error:
            errors = _errors(tree.root_node)
            file.warnings.append(f"{len(errors)} syntax error(s) tree-sitter recovered from, first at line "
                                 f"{errors[0] + 1 if errors else '?'}; what it could read is indexed")
        return file

    def entrypoints(self, file: CodeFile, index: ProjectIndex) -> list[Entrypoint]:
        found = list(file.extra.get("routes", []))
        found.extend(next_routes(file))
        for entry in found:
            if entry.handler and entry.handler not in index.symbols:
                entry.handler = _resolve_name(entry.handler, index)
        return found


def _errors(root: Node) -> list[int]:
    rows, stack = [], [root]
    while stack and len(rows) < 100:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            rows.append(node.start_point.row)
        elif node.has_error:
            stack.extend(node.children)
    return sorted(rows)


def _resolve_name(ref: str, index: ProjectIndex) -> str:
    _, target, name = index.resolve_import(ref)
    if target is not None and name and f"{target.qname}.{name}" in index.symbols:
        return f"{target.qname}.{name}"
    return ref


class _Reader(RouteReader):
    def __init__(self, file: CodeFile, root: Node):
        self.file, self.root = file, root
        self.aliases: dict[str, str] = {}
        self.external: set[str] = set()
        self.instances: dict[str, str] = {}  # `app` of `const app = express()` → `express`
        self.top: set[str] = set()
        self.by_qname: dict[str, Symbol] = {}  # the file's symbols so far
        self.assigned: dict[int, str] = {}  # start byte of `res.send = function …` → the function's qname
        self.file.extra = {"routes": [], "roles": {}, "reexports": {}}
        self.statements = module_body(root)  # the module's top level

    def text(self, node: Node | None) -> str:
        return node.text.decode("utf-8", "replace") if node is not None else ""

    def read(self) -> None:
        last = self.file.text.rstrip("\n").count("\n") + 1
        module = self.file.module
        self.module = self.symbol(module.rsplit(".", 1)[-1], module, "module", f"module {module}", None,
                                  self.root)
        self.module.line_start, self.module.line_end = 1, last
        for node in self.statements:
            if node.type == "import_statement":
                self.import_statement(node)
        commonjs.read_module(self, self.statements)
        self.top = {name for node in self.statements for name in self.declared_names(node)}
        for node in self.statements:
            self.declaration(node, self.module)
        self.routes(self.root)
        commonjs.exports(self, self.statements)
        commonjs.reexports(self, self.statements)
        self.file.extra["env"] = commonjs.env_reads(self, self.root)
        self.file.chunks = self.chunks(last)

    # --- names --------------------------------------------------------------------------------------

    def import_statement(self, node: Node) -> None:
        source = node.child_by_field_name("source")
        target = self.module_ref(self.text(source).strip("'\"`"))
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        names = []
        for child in (clause.named_children if clause else []):
            if child.type == "identifier":  # default import
                self.aliases[self.text(child)] = target
            elif child.type == "namespace_import":
                self.aliases[self.text(child.named_children[-1])] = target
            elif child.type == "named_imports":
                for spec in child.named_children:
                    name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
                    self.aliases[self.text(alias or name)] = f"{target}.{self.text(name)}"
                    names.append(self.text(name))
        for name in names or [""]:
            self.reference("imports", self.module, f"{target}.{name}" if name else target, node)

    def module_ref(self, spec: str) -> str:
        """An import specifier as a module name: relative and `@/` paths against the repository."""
        folder = PurePosixPath(self.file.path).parent
        if spec.startswith("@/") and "src" in folder.parts:
            folder, spec = PurePosixPath(*folder.parts[:folder.parts.index("src") + 1]), "./" + spec[2:]
        if not spec.startswith("."):
            self.external.add(spec.split("/")[0])
            return spec.replace("/", ".")
        parts = list(folder.parts)
        for part in spec.split("/"):
            if part == "..":
                parts = parts[:-1]
            elif part not in (".", ""):
                parts.append(part)
        # A folder (`require('../')`, `import x from '.'`) is its index module, as Node resolves it.
        if not parts or spec.endswith("/") or spec.rpartition("/")[2] in (".", ".."):
            parts.append("index")
        path = PurePosixPath(*parts)
        return module_name(str(path.with_suffix("")) if path.suffix in GRAMMARS else str(path))

    def expand(self, name: str, typed: bool = False, within: Symbol | None = None) -> str:
        head, _, rest = name.partition(".")
        if head == "this" and within is not None and within.kind == "method" and rest and "." not in rest:
            return f"{within.qname.rsplit('.', 1)[0]}.{rest}"  # `this.build()` in a method: its class's
        if typed and head in self.instances:  # a call on `app` of `const app = express()`
            base = self.instances[head]
        elif head in self.aliases:
            base = self.aliases[head]
        elif head in self.top:
            base = f"{self.file.module}.{head}"
        else:
            return ""
        return f"{base}.{rest}" if rest else base

    def declared_names(self, node: Node) -> list[str]:
        node = self.unexport(node)
        name = node.child_by_field_name("name")
        if name is not None:
            return [self.text(name)]
        return [self.text(d.child_by_field_name("name")) for d in node.named_children
                if d.type == "variable_declarator" and d.child_by_field_name("name").type == "identifier"
                and not commonjs.is_require(d)]

    @staticmethod
    def unexport(node: Node) -> Node:
        if node.type == "export_statement":
            inner = node.child_by_field_name("declaration") or node.child_by_field_name("value")
            return inner if inner is not None else node
        return node

    # --- symbols ------------------------------------------------------------------------------------

    def symbol(self, name: str, qname: str, kind: str, signature: str, parent: Symbol | None, node: Node,
               bases=()) -> Symbol:
        local = qname[len(self.file.module) + 1:] if qname != self.file.module else ""
        symbol = Symbol(f"{self.file.path}#{local}", qname, name, kind, signature[:300],
                        parent.symbol_id if parent else "", self.file.module, self.file.path,
                        node.start_point.row + 1, node.end_point.row + 1, self.doc(node), bases=list(bases))
        self.file.symbols.append(symbol)
        self.by_qname.setdefault(qname, symbol)
        return symbol

    def doc(self, node: Node) -> str:
        previous = node.prev_named_sibling
        if previous is not None and previous.type == "comment" and self.text(previous).startswith("/**"):
            return doc_summary(jsdoc_description(self.text(previous)))
        return ""

    def declaration(self, node: Node, parent: Symbol) -> None:
        outer, node = node, self.unexport(node)
        header = self.text(node).split("\n", 1)[0].rstrip("{ ")
        name_node = node.child_by_field_name("name")
        if node.type in ("function_declaration", "generator_function_declaration") and name_node is not None:
            self.function(self.text(name_node), node, node, parent, "function", outer)
        elif node.type in ("class_declaration", "abstract_class_declaration", "class") and name_node is not None:
            self.class_declaration(node, parent, outer)
        elif node.type in ("interface_declaration", "type_alias_declaration", "enum_declaration") and name_node:
            kind = {"interface_declaration": "interface", "type_alias_declaration": "type"}.get(node.type, "enum")
            name = self.text(name_node)
            symbol = self.symbol(name, f"{parent.qname}.{name}", kind, header, parent, outer)
            if kind != "enum" and (DTO_NAME.search(name) or DTO_FOLDER.search(self.file.path)):
                self.file.extra["roles"][symbol.qname] = ("schema", f"TypeScript {kind} used as a DTO")
        elif node.type in ("lexical_declaration", "variable_declaration"):
            for declarator in node.named_children:
                if declarator.type != "variable_declarator":
                    continue
                name = self.text(declarator.child_by_field_name("name"))
                value = declarator.child_by_field_name("value")
                if not name.isidentifier() or commonjs.is_require(declarator):
                    continue
                if value is not None and value.type in FUNCTIONS:
                    self.function(name, value, declarator, parent, "function", outer)
                else:
                    kind = "constant" if name.isupper() else "variable"
                    symbol = self.symbol(name, f"{parent.qname}.{name}", kind, header, parent, outer)
                    if value is not None:
                        self.calls(value, symbol)
        elif node.type == "expression_statement":
            assigned = self.assigned_member(node)
            name, owner, value = assigned or ("", "", None)
            prototype = owner.endswith(".prototype")
            owner = owner.removesuffix(".prototype")
            # A member of the module's own object, function or class; `exports.x` is the module's.
            holder = self.by_qname.get(f"{parent.qname}.{owner}")
            if value is not None and value.type in FUNCTIONS:
                self.function(name, value, node, holder or parent,
                              "method" if holder and prototype else "function", outer)
            elif value is not None and holder is not None and self.doc(outer):
                # A documented value given to the module's own function or object: `pluralize.plural =
                # replaceWord(…)` under "/** Pluralize a word. */" is as much its API as a function.
                self.calls(value, self.symbol(name, f"{holder.qname}.{name}", "variable", header, holder, outer))
            else:
                self.calls(node, parent)
                return
            self.assigned[node.start_byte] = f"{(holder or parent).qname}.{name}"

    def assigned_member(self, node: Node) -> tuple[str, str, Node] | None:
        """(name, object, value) of a member given a value, as CommonJS modules define functions:
        `res.send = function send(…) {…}` (object "res"), `exports.helper = (x) => …`,
        `Router.prototype.handle = …` (object "Router.prototype"). None for any other statement, and
        for `module.exports = …` (the module itself)."""
        expression = node.named_children[0] if node.named_children else None
        if expression is None or expression.type != "assignment_expression":
            return None
        left, value = expression.child_by_field_name("left"), expression.child_by_field_name("right")
        if left is None or left.type != "member_expression" or value is None or self.text(left) == "module.exports":
            return None
        owner = self.text(left.child_by_field_name("object"))
        return self.text(left.child_by_field_name("property")), owner, value

    def class_declaration(self, node: Node, parent: Symbol, outer: Node) -> None:
        name = self.text(node.child_by_field_name("name"))
        bases = []
        for heritage in (c for c in node.children if c.type == "class_heritage"):
            for clause in heritage.named_children:
                for value in clause.named_children:
                    ref = self.expand(self.text(value).split("<")[0]) or self.text(value).split("<")[0]
                    if ref in GLOBALS:  # `class NotFound extends Error`: outside the repository
                        self.external.add(ref)
                    bases.append(ref)
        header = self.text(node).split("\n", 1)[0].rstrip("{ ")
        cls = self.symbol(name, f"{parent.qname}.{name}", "class", header, parent, outer, bases)
        for base in bases:
            self.reference("inherits", cls, base, node)
        body = node.child_by_field_name("body")
        for member in body.named_children if body is not None else []:
            if member.type == "method_definition":
                self.function(self.text(member.child_by_field_name("name")), member, member, cls, "method", member)

    def function(self, name: str, node: Node, declarator: Node, parent: Symbol, kind: str, outer: Node) -> None:
        parameters = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        signature = f"{'function' if kind == 'function' else 'method'} {name}{self.text(parameters)}"
        symbol = self.symbol(name, f"{parent.qname}.{name}", kind, signature, parent, outer)
        if name[:1].isupper() and _has_jsx(node):
            self.file.extra["roles"][symbol.qname] = ("view", "React component (returns JSX)")
        body = node.child_by_field_name("body")
        if body is not None:
            self.calls(body, symbol)
        if body is not None and body.type == "statement_block":
            self.exposed_functions(body, symbol)

    def exposed_functions(self, body: Node, owner: Symbol) -> None:
        """The functions a function's body declares and hands out — set as members of what it builds, or returned in
        an object — as symbols of it: a factory's API. debug's `setup(env)` declares `function enable(namespaces)`
        and sets `createDebug.enable = enable`; "Where is the enable function defined?" found no symbol of it."""
        declared = {self.text(name): node for node in body.named_children
                    if node.type in ("function_declaration", "generator_function_declaration")
                    and (name := node.child_by_field_name("name")) is not None}
        exposed = set()
        for node in body.named_children:
            assigned = self.assigned_member(node) if node.type == "expression_statement" else None
            if assigned and assigned[2].type == "identifier":
                exposed.add(self.text(assigned[2]))
            returned = node.named_children[0] if node.type == "return_statement" and node.named_children else None
            for member in returned.named_children if returned is not None and returned.type == "object" else []:
                value = member.child_by_field_name("value") if member.type == "pair" else member
                if value is not None and value.type in ("identifier", "shorthand_property_identifier"):
                    exposed.add(self.text(value))
        for name in sorted(exposed & declared.keys(), key=lambda name: declared[name].start_byte):
            self.function(name, declared[name], declared[name], owner, "function", declared[name])

    # --- references ---------------------------------------------------------------------------------

    def reference(self, edge_type: str, src: Symbol, dst: str, node: Node) -> None:
        self.file.references.append(Reference(edge_type, src, dst, node.start_point.row + 1,
                                              external_roots=frozenset(self.external)))

    def calls(self, node: Node, src: Symbol) -> None:
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type in ("call_expression", "new_expression"):
                callee = current.child_by_field_name("function") or current.child_by_field_name("constructor")
                spec = commonjs.required(current)[0]  # a `require("x")` inside code is an import
                if spec:
                    self.reference("imports", src, self.module_ref(spec), current)
                elif callee is not None and callee.type in ("identifier", "member_expression"):
                    target = self.expand(self.text(callee), typed=True, within=src)
                    if target:
                        self.reference("calls", src, target, current)
            elif current.type == "function_expression" and current != node and current.child_by_field_name("name"):
                # `router.post("/x", function pay() {…})`: a named handler is a function of its own.
                self.function(self.text(current.child_by_field_name("name")), current, current, src, "function",
                              current)
                continue
            elif current.type in ("jsx_opening_element", "jsx_self_closing_element"):
                target = self.expand(self.text(current.child_by_field_name("name")))
                if target:  # <Component /> is a call of the component
                    self.reference("calls", src, target, current)
            stack.extend(current.named_children)

    # --- C0 -----------------------------------------------------------------------------------------

    def chunks(self, last: int) -> list[SourceChunk]:
        """Each top-level declaration alone, with the comment right above it (its JSDoc), other
        statements grouped; the chunks cover the file."""
        segments: list[list] = []
        nodes = self.statements
        for index, node in enumerate(nodes):
            start, end = node.start_point.row + 1, node.end_point.row + 1
            qname = self.declared_qname(node)
            following = nodes[index + 1] if index + 1 < len(nodes) else None
            if (node.type == "comment" and following is not None and self.declared_qname(following)
                    and following.start_point.row <= node.end_point.row + 2):
                continue  # right above it, or a blank line between: the declaration's chunk starts with it
            if qname:
                segments.append([start, end, "function", qname])
            elif segments and segments[-1][2] == "block":
                segments[-1][1] = end
            else:
                segments.append([start, end, "block", self.file.module])
        found, previous = [], 0
        for index, (_, end, chunk_type, qname) in enumerate(segments):
            end = last if index == len(segments) - 1 else end
            if end > previous:
                found.extend(line_chunks(self.file.text, previous + 1, end, chunk_type, qname))
            previous = max(previous, end)
        return found or line_chunks(self.file.text, 1, last, "text")

    def declared_qname(self, node: Node) -> str:
        """The qname of what a top-level statement declares (a function, class, variable; a function
        assigned to a member), or "" for other statements."""
        if node.start_byte in self.assigned:
            return self.assigned[node.start_byte]
        if node.type in ("import_statement", "expression_statement", "comment"):
            return ""
        names = self.declared_names(node)
        return f"{self.file.module}.{names[0]}" if names else ""


def module_body(root: Node) -> list[Node]:
    """The statements of a module's top level: the program's, or those of the function a program of one
    wrapped function runs — `(function () {…})()`, `!function () {…}()`, and the factory of a UMD wrapper,
    `(function (root, factory) {…})(this, function () {…})` (pluralize's: its wrapper only exports what
    the factory returns)."""
    statements = [node for node in root.named_children if node.type not in ("comment", "empty_statement")]
    if len(statements) != 1 or statements[0].type != "expression_statement" or not statements[0].named_children:
        return root.named_children
    call = _unwrapped(statements[0].named_children[0])
    callee = _unwrapped(call.child_by_field_name("function")) if call.type == "call_expression" else None
    if callee is None or callee.type not in FUNCTIONS:  # `describe("x", function () {…})` is no wrapper
        return root.named_children
    arguments = call.child_by_field_name("arguments")
    factories = [node for node in map(_unwrapped, arguments.named_children if arguments else [])
                 if node.type in FUNCTIONS]
    body = (factories[-1] if factories else callee).child_by_field_name("body")
    return body.named_children if body is not None and body.type == "statement_block" else root.named_children


def _unwrapped(node: Node | None) -> Node | None:
    """The expression inside parentheses and a unary operator: `(function () {…})`, `!function () {…}()`."""
    while node is not None and node.type in ("parenthesized_expression", "unary_expression") and node.named_children:
        node = node.named_children[-1] if node.type == "parenthesized_expression" else \
            node.child_by_field_name("argument")
    return node


def _has_jsx(node: Node) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type.startswith("jsx_"):
            return True
        stack.extend(current.named_children)
    return False
