"""Python through the standard `ast` module: symbols, references, C0 chunks and entrypoints.

Names are expanded through the module's imports, its own top-level definitions, parameter
annotations and simple local assignments (`gateway = StripeGateway()`), so `gateway.charge()`
becomes `shop.billing.StripeGateway.charge` and resolves later against the project index.
Calls to builtins and decorator expressions are not edges (decorators are C3's business, read by
`python_entrypoints`).
"""

import ast
import builtins

from knowledge.indexing.layers import python_chunks, python_entrypoints, python_facts, tolerant
from knowledge.indexing.layers.code import (
    CodeExtractor,
    CodeFile,
    Entrypoint,
    ProjectIndex,
    Reference,
    Symbol,
    is_test_path,
    line_chunks,
    module_name,
)
from knowledge.indexing.layers.docstrings import doc_summary
from knowledge.indexing.layers.python_chunks import start_line
from knowledge.indexing.layers.python_entrypoints import call_args

BUILTINS = frozenset(dir(builtins))
# Constructors whose module-level instances declare routes or commands.
APP_CONSTRUCTORS = {
    "fastapi.FastAPI": "fastapi", "fastapi.APIRouter": "fastapi", "fastapi.routing.APIRouter": "fastapi",
    "flask.Flask": "flask", "flask.Blueprint": "flask",
    "ninja.NinjaAPI": "ninja", "ninja.Router": "ninja",
    "typer.Typer": "typer",
    "click.Group": "click",
}
# One file's share of the index: a generated module of 200,000 assignments is not 200,000 symbols.
MAX_SYMBOLS, MAX_REFERENCES = 5_000, 20_000
NAMED_PREFIX = "name:"  # a prefix given by a name, resolved across the project
URL_FUNCTIONS = {"django.urls.path": "path", "django.urls.re_path": "re_path", "django.conf.urls.url": "url"}


class PythonExtractor(CodeExtractor):
    language = "python"
    extensions = (".py",)

    def parse(self, path: str, text: str, module: str | None = None) -> CodeFile:
        file = CodeFile(path=path, module=module_name(path) if module is None else module, language="python",
                        text=text,
                        is_test=is_test_path(path))
        tree, file.warnings, recovered = tolerant.parse_python(text)
        if tree is None:
            # Still citable: the source is kept as plain line chunks, with the definitions tree-sitter saw.
            file.parse_error = file.warnings[-1]
            file.chunks = line_chunks(text, 1, text.rstrip("\n").count("\n") + 1, "text")
            last = text.rstrip("\n").count("\n") + 1
            module = file.module.rsplit(".", 1)[-1] or path
            file.symbols.append(Symbol(f"{path}#", file.module, module, "module", f"module {file.module}", "",
                                       file.module, path, 1, last))
        else:
            reader = _Reader(file, tree)
            reader.read()
            if reader.dropped:
                file.warnings.append(f"{reader.dropped:,} symbols and references beyond the first "
                                     f"{MAX_SYMBOLS:,} / {MAX_REFERENCES:,} of the file not indexed")
        tolerant.add_definitions(file, recovered)
        return file

    def entrypoints(self, file: CodeFile, index: ProjectIndex) -> list[Entrypoint]:
        return python_entrypoints.entrypoints(file, index)


class _Reader:
    """One pass over a module's tree, filling its `CodeFile`."""

    def __init__(self, file: CodeFile, tree: ast.Module):
        self.file, self.tree = file, tree
        self.aliases: dict[str, str] = {}  # local name → dotted target
        self.imported_roots: set[str] = set()
        self.top_level: set[str] = set()
        self.module_symbol: Symbol | None = None
        self.module_types: dict[str, str] = {}
        self.defined: set[str] = set()  # module-level names already made symbols
        self.dropped = 0  # symbols and references over the caps
        self.file.extra = {"decorated": [], "urlpatterns": []}

    def read(self) -> None:
        lines = self.file.text.rstrip("\n").split("\n")  # no phantom line after the final newline
        module = self.file.module
        self.module_symbol = self.symbol(module.rsplit(".", 1)[-1] or self.file.path, module, "module",
                                         f"module {module}", None, 1, len(lines),
                                         ast.get_docstring(self.tree))
        self.collect_imports()
        definitions = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        self.top_level = {node.name for node in _module_level(self.tree.body) if isinstance(node, definitions)}
        # Module-level instances (`api = NinjaAPI()`) type the calls made on them; decorators keep
        # the variable's own name, which is how C3 finds the app object.
        for node in self.tree.body:
            instance = self.instance(node, {})
            if instance:
                self.module_types[instance[0]] = instance[1]
        for node in self.tree.body:
            self.statement(node, self.module_symbol, None)
        self.file.chunks = python_chunks.chunks(self.file, self.tree, lines)
        python_facts.scan(self.file, self.tree, self.expand, self.aliases, self.source)

    # --- names ------------------------------------------------------------------------------------

    def collect_imports(self) -> None:
        module = self.file.module
        package = module if self.file.path.endswith("__init__.py") else module.rpartition(".")[0]
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    self.aliases[local] = alias.name if alias.asname else alias.name.split(".")[0]
                    self.imported_roots.add(alias.name.split(".")[0])
                    self.reference("imports", self.module_symbol, alias.name, node.lineno)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".") if package else []
                    parts = parts[:len(parts) - (node.level - 1)] if node.level > 1 else parts
                    base = ".".join(p for p in [*parts, base] if p)
                self.imported_roots.add(base.split(".")[0])
                for alias in node.names:
                    if alias.name == "*":
                        continue
                    target = f"{base}.{alias.name}" if base else alias.name
                    self.aliases[alias.asname or alias.name] = target
                    self.reference("imports", self.module_symbol, target, node.lineno)

    def expand(self, node: ast.AST, scope: dict[str, str] | None = None) -> str:
        """The dotted reference an expression names, or "" (a call result, a subscript…)."""
        if isinstance(node, ast.Name):
            if scope and node.id in scope:
                return scope[node.id]
            if node.id in self.aliases:
                return self.aliases[node.id]
            if node.id in self.top_level or node.id in self.module_names:
                return f"{self.file.module}.{node.id}"
            return node.id
        if isinstance(node, ast.Attribute):
            base = self.expand(node.value, scope)
            return f"{base}.{node.attr}" if base else ""
        return ""

    @property
    def module_names(self) -> set[str]:
        if not hasattr(self, "_module_names"):
            assignments = [node for node in self.tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))]
            self._module_names = {t.id for node in assignments
                                  for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                                  if isinstance(t, ast.Name)}
        return self._module_names

    def source(self, node: ast.AST) -> str:
        """The node's text as written (quotes and spacing kept).

        Not `ast.get_source_segment`, which splits the whole file on every call (quadratic on a
        generated module of many assignments).
        """
        if getattr(node, "end_lineno", None) is None:
            return ast.unparse(node)
        if not hasattr(self, "_lines"):
            self._lines = self.file.text.split("\n")
        lines = [line.encode() for line in self._lines[node.lineno - 1:node.end_lineno]]
        if not lines:
            return ast.unparse(node)
        if len(lines) == 1:
            return lines[0][node.col_offset:node.end_col_offset].decode(errors="replace")
        lines[0], lines[-1] = lines[0][node.col_offset:], lines[-1][:node.end_col_offset]
        return b"\n".join(lines).decode(errors="replace")

    # --- symbols ----------------------------------------------------------------------------------

    def symbol(self, name, qname, kind, signature, parent, start, end, docstring, decorators=(),
               bases=()) -> Symbol:
        local = qname[len(self.file.module) + 1:] if qname != self.file.module else ""
        full = len(self.file.symbols) >= MAX_SYMBOLS
        symbol = Symbol(
            symbol_id=f"{self.file.path}#{local}", qname=qname, name=name, kind=kind, signature=signature,
            parent_id=parent.symbol_id if parent else "", module=self.file.module, path=self.file.path,
            line_start=start, line_end=end, docstring=doc_summary(docstring or ""),
            decorators=list(decorators), bases=list(bases),
        )
        if full:
            self.dropped += 1  # still returned: its children name it as their parent
        else:
            self.file.symbols.append(symbol)
        return symbol

    def statement(self, node: ast.stmt, parent: Symbol, cls: Symbol | None, in_block: bool = False) -> None:
        if isinstance(node, ast.ClassDef):
            self.class_def(node, parent)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function_def(node, parent, cls)
        elif cls is None and parent is self.module_symbol and _block_at_module_level(node):
            # What a module defines in a block (`if TYPE_CHECKING:` … `else:`, `try:` … `except ImportError:`) is
            # the module's as much as what it defines at the margin: django-ninja's `class PatchDict` had no row.
            if isinstance(node, ast.If):
                self.calls(node.test, parent, {})
            for child in _block_statements(node):
                self.statement(child, parent, None, in_block=True)
        else:
            if cls is None:
                self.module_statement(node)
                self.variables(node, parent, in_block)
            self.calls(node, parent, {})

    def variables(self, node: ast.stmt, module: Symbol, in_block: bool = False) -> None:
        """Module-level names (`engine = create_engine(…)`, `API_V1_STR = "/api/v1"`) are symbols too; in a block, not
        a fallback for a name imported or defined in another branch (`except ImportError: main = None`)."""
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        for target in targets:
            if in_block and isinstance(target, ast.Name) and target.id in {*self.aliases, *self.top_level}:
                continue
            if isinstance(target, ast.Name) and f"{module.qname}.{target.id}" not in self.defined:
                self.defined.add(f"{module.qname}.{target.id}")
                kind = "constant" if target.id.isupper() else "variable"
                signature = self.source(node)[:200].split("\n", 1)[0]
                self.symbol(target.id, f"{module.qname}.{target.id}", kind, signature, module, node.lineno,
                            node.end_lineno, "")
        self.constant(node, module.qname)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            instance = self.instance(node, {})
            if instance:  # `settings = Settings()`: its attributes are the class's
                self.file.extra.setdefault("instances", {})[f"{module.qname}.{instance[0]}"] = instance[1]

    def constant(self, node: ast.stmt, owner: str) -> None:
        """String values of module and class names (`API_V1_STR = "/api/v1"`), for route prefixes."""
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else \
            node.target if isinstance(node, ast.AnnAssign) else None
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and isinstance(value.value, str):
            self.file.extra.setdefault("constants", {})[f"{owner}.{target.id}"] = value.value

    def class_def(self, node: ast.ClassDef, parent: Symbol) -> None:
        qname = f"{parent.qname}.{node.name}"
        bases = [self.expand(base) for base in node.bases]
        written = [ast.unparse(b) for b in node.bases] + [ast.unparse(k) for k in node.keywords]
        signature = f"class {node.name}({', '.join(written)})" if written else f"class {node.name}"
        cls = self.symbol(node.name, qname, "class", signature, parent, start_line(node), node.end_lineno,
                          help_text(node) or ast.get_docstring(node), [self.source(d) for d in node.decorator_list],
                          [b for b in bases if b])
        for base, written in zip(bases, node.bases, strict=False):
            if base:
                self.reference("inherits", cls, base, written.lineno)
        for child in node.body:
            self.statement(child, cls, cls)
            self.constant(child, qname)

    def function_def(self, node, parent: Symbol, cls: Symbol | None) -> None:
        kind = "method" if cls else "function"
        prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
        returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
        signature = f"{prefix} {node.name}({ast.unparse(node.args)}){returns}"
        decorators = [self.source(d) for d in node.decorator_list]
        symbol = self.symbol(node.name, f"{parent.qname}.{node.name}", kind, signature, parent, start_line(node),
                             node.end_lineno, ast.get_docstring(node), decorators)
        for decorator, text in zip(node.decorator_list, decorators, strict=True):
            func = decorator.func if isinstance(decorator, ast.Call) else decorator
            self.file.extra["decorated"].append((symbol, decorator, self.expand(func), "@" + text))
        scope = self.local_types(node, cls)
        for child in node.body:
            self.calls(child, symbol, scope, cls)

    def local_types(self, node, cls: Symbol | None) -> dict[str, str]:
        """Names whose class is known: `self`, annotated parameters, `x = SomeClass(...)`."""
        scope = {}
        if cls is not None:
            arguments = node.args.posonlyargs + node.args.args
            if arguments and not any(ast.unparse(d) == "staticmethod" for d in node.decorator_list):
                scope[arguments[0].arg] = cls.qname
        for arg in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
            if arg.annotation is not None and isinstance(arg.annotation, (ast.Name, ast.Attribute)):
                scope[arg.arg] = self.expand(arg.annotation)
        for child in ast.walk(node):
            instance = self.instance(child, scope)
            if instance:
                scope[instance[0]] = instance[1]
        return scope

    def instance(self, node: ast.AST, scope: dict[str, str]) -> tuple[str, str] | None:
        """(name, class) for `name = SomeClass(...)`: a capitalised callee is taken for a class."""
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call)):
            return None
        called = self.expand(node.value.func, scope)
        return (node.targets[0].id, called) if called and called.rsplit(".", 1)[-1][:1].isupper() else None

    # --- references -------------------------------------------------------------------------------

    def reference(self, edge_type: str, src: Symbol, dst: str, line: int, via_bases: bool = False) -> None:
        if len(self.file.references) >= MAX_REFERENCES:
            self.dropped += 1
            return
        roots = frozenset(self.imported_roots | ({dst} & BUILTINS))  # `class E(Exception)`: outside the repo
        self.file.references.append(Reference(edge_type, src, dst, line, via_bases, roots))

    def calls(self, node: ast.AST, src: Symbol, scope: dict[str, str], cls: Symbol | None = None) -> None:
        scope = {**self.module_types, **scope}
        for child in ast.walk(node):
            if not isinstance(child, ast.Call):
                continue
            func = child.func
            if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call)
                    and isinstance(func.value.func, ast.Name) and func.value.func.id == "super" and cls):
                self.reference("calls", src, f"{cls.qname}.{func.attr}", child.lineno, via_bases=True)
                continue
            target = self.expand(func, scope)
            # Builtins and their methods (`len()`, `text.split()` on a `str` parameter) are noise.
            if not target or (target.split(".")[0] in BUILTINS and target.split(".")[0] not in self.aliases):
                continue
            self.reference("calls", src, target, child.lineno)

    # --- module-level declarations ----------------------------------------------------------------

    def module_statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            framework = APP_CONSTRUCTORS.get(self.expand(node.value.func))
            _, kwargs = call_args(node.value)
            for target in node.targets:
                if framework and isinstance(target, ast.Name):
                    qname = f"{self.file.module}.{target.id}"
                    self.file.objects[qname] = framework
                    # APIRouter(prefix="/x"), Blueprint(..., url_prefix="/x")
                    prefix = kwargs.get("prefix") or kwargs.get("url_prefix") or self.prefix_name(node.value)
                    if isinstance(prefix, str):
                        self.file.mounts[qname] = ("", prefix)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            self.mount(node.value)
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.AnnAssign)) else []
        if any(isinstance(t, ast.Name) and t.id == "urlpatterns" for t in targets) and node.value is not None:
            self.urlpatterns(node.value)
        if isinstance(node, ast.If) and _is_main_guard(node.test):
            self.file.extra["main_line"] = node.lineno

    def urlpatterns(self, value: ast.expr) -> None:
        for element in getattr(value, "elts", []):
            if not isinstance(element, ast.Call) or len(element.args) < 2:
                continue
            kind = URL_FUNCTIONS.get(self.expand(element.func))
            route = element.args[0]
            if not kind or not (isinstance(route, ast.Constant) and isinstance(route.value, str)):
                continue
            view = element.args[1]
            entry_kind = "urlpattern"
            func = getattr(view, "func", None)
            if isinstance(view, ast.Call) and isinstance(func, ast.Attribute) and func.attr == "as_view":
                view, entry_kind = view.func.value, "class_view"
            handler = "" if isinstance(view, ast.Call) else self.expand(view)
            urlconf = f"{self.file.module}.urlpatterns"
            if handler.endswith(".urls"):  # path("api/", api.urls): a mounted ninja API
                self.file.mounts[handler.removesuffix(".urls")] = (urlconf, route.value)
                continue
            included = self.included(view)
            if included:
                self.file.mounts[included] = (urlconf, route.value)
                continue
            if not handler:
                continue
            self.file.extra["urlpatterns"].append(Entrypoint(
                "http", "django", entry_kind, route.value, handler, f"{self.file.module}.urlpatterns",
                self.source(element), element.lineno, http_method="ANY", route_path=route.value,
                lang_payload={"url_function": kind},
            ))

    def included(self, view: ast.expr) -> str:
        """The urlconf an `include("app.urls")` (or `include(module)`) points at, or ""."""
        if not (isinstance(view, ast.Call) and self.expand(view.func) in ("django.urls.include",
                                                                          "django.conf.urls.include")):
            return ""
        target = view.args[0] if view.args else None
        if isinstance(target, ast.Constant) and isinstance(target.value, str):
            return f"{target.value}.urlpatterns"
        name = self.expand(target) if target is not None else ""
        return f"{name}.urlpatterns" if name else ""

    def prefix_name(self, call: ast.Call) -> str:
        """`prefix=settings.API_V1_STR`: the name, marked for `ProjectIndex.prefix_value`, or ""."""
        for keyword in call.keywords:
            if keyword.arg in ("prefix", "url_prefix") and isinstance(keyword.value, (ast.Name, ast.Attribute)):
                name = self.expand(keyword.value, self.module_types)
                return f"{NAMED_PREFIX}{name}" if name else ""
        return ""

    def mount(self, call: ast.Call) -> None:
        """`api.add_router("/x/", router)`, `app.include_router(router, prefix=…)`, `register_blueprint`."""
        if not isinstance(call.func, ast.Attribute):
            return
        attr, parent = call.func.attr, self.expand(call.func.value)
        args, kwargs = call_args(call)
        if attr == "add_router" and len(call.args) >= 2 and isinstance(args[0], str):
            child = args[1] if isinstance(args[1], str) else self.expand(call.args[1])  # or a dotted path
            prefix = args[0]
        elif attr in ("include_router", "register_blueprint") and call.args:
            child = self.expand(call.args[0])
            prefix = kwargs.get("prefix") or kwargs.get("url_prefix") or self.prefix_name(call) or ""
        else:
            return
        if child and parent and isinstance(prefix, str):
            self.file.mounts[child] = (parent, prefix)


def _block_at_module_level(node: ast.stmt) -> bool:
    """Whether a module-level statement is a block of module-level statements: an `if` (not the main guard, an
    entrypoint of its own) or a `try`."""
    return isinstance(node, ast.Try | ast.TryStar) or isinstance(node, ast.If) and not _is_main_guard(node.test)


def _block_statements(node: ast.stmt) -> list[ast.stmt]:
    """The statements of a block's branches (`_block_at_module_level`), in order."""
    handlers = [statement for handler in getattr(node, "handlers", []) for statement in handler.body]
    return [*node.body, *handlers, *node.orelse, *getattr(node, "finalbody", [])]


def _module_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """A module's statements with those of its blocks (`_block_at_module_level`)."""
    return [statement for node in body for statement in (
        _module_level(_block_statements(node)) if _block_at_module_level(node) else [node])]


def _is_main_guard(test: ast.expr) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators))


def help_text(node: ast.ClassDef) -> str:
    """A class's `help = "…"` (or `_("…")`): what a Django management command says it does (`manage.py help`
    shows it), taken over its docstring, which is often an example ("Example: python manage.py …")."""
    for child in node.body:
        if isinstance(child, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "help" for t in child.targets):
            value = child.value
            if isinstance(value, ast.Call) and len(value.args) == 1:
                value = value.args[0]
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value
    return ""
