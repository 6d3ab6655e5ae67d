"""What a Python module declares besides its symbols, read off its `ast` tree after `python._Reader`.

* The package `setup.py` declares: its `setup(name=…, description=…)` strings (`file.extra["package_name"]`
  and `["package_description"]`, as a manifest gives them: the project's name for the README beside it).
* Command lines: `setup(entry_points={"console_scripts": [...]})` in `setup.py` (`file.extra["scripts"]`),
  and argparse parsers (`ArgumentParser(prog=…)`, `add_subparsers().add_parser("serve")`, `add_argument`,
  `set_defaults(func=serve)`; `file.extra["parsers"]`, named once the project is known by
  `parser_entrypoints`) — C3 `cli` entrypoints.
* Environment variables read: `os.environ["X"]`, `os.environ.get("X")`, `os.getenv("X")`,
  `environ.get("X")` after `from os import environ`, `"X" in os.environ`, `env("X")` / `env.bool("X")`
  on a django-environ or environs `Env()` or a Starlette `Config()`, python-decouple's `config("X")`,
  a helper of the module that reads the variable its first argument names (`def env_bool(name): …
  os.environ.get(name)` makes `env_bool("DEBUG")` a read), and the fields of a pydantic-settings
  `BaseSettings` class (`env_prefix` first) — `file.extra["env"]`, made D6 rows by `code_rows.env_rows`.
* Django settings read: `settings.X`, `getattr(settings, "X", default)`, `hasattr(settings, "X")` on
  `django.conf.settings` — `file.extra["settings"]`, D6 rows of `target_type = setting`.
* Functions handed to a task queue: the callable (or its dotted path as a string) given to
  `async_task`, `schedule`, `enqueue`, `send_task`, … and functions called with `.delay()` or
  `.apply_async()` — `file.extra["queued"]`, which make them C4 tasks; a module defining such a
  queueing function is the queue's own API (`file.extra["queue_api"]`).
* Names the module re-exports (`from .main import set_key` in `dotenv/__init__.py`, `from .x import *`
  limited by `__all__`), so `ProjectIndex.resolve` can follow `dotenv.set_key` to `dotenv.main.set_key`.
"""

import ast
from collections.abc import Callable

from knowledge.indexing.layers.code import CodeFile, Entrypoint, ProjectIndex
from knowledge.indexing.layers.manifests import script_entrypoints

ENV_READS = ("os.environ.get", "os.getenv", "os.environ.setdefault", "os.environ.pop", "decouple.config")
SETUP_FUNCTIONS = ("setuptools.setup", "distutils.core.setup", "setup")
PARSER_CONSTRUCTORS = ("argparse.ArgumentParser", "ArgumentParser")
ENV_CLASSES = ("environ.Env", "environs.Env", "starlette.config.Config", "decouple.AutoConfig")
SETTINGS_BASES = ("pydantic_settings.BaseSettings", "pydantic.BaseSettings", "pydantic.v1.BaseSettings")
# Calls that queue the function given as an argument (by reference or dotted path), and methods of a task
# function that queue it.
QUEUE_CALLS = {"async_task", "async_iter", "schedule", "enqueue", "enqueue_call", "enqueue_in", "enqueue_at",
               "send_task", "add_job"}
QUEUE_METHODS = {"delay", "apply_async", "kiq"}
SETTINGS_OBJECTS = ("django.conf.settings",)
PARSER_CALLS = {"ArgumentParser", "add_subparsers", "add_parser", "add_argument", "set_defaults"}


def scan(file: CodeFile, tree: ast.Module, expand: Callable[[ast.AST], str], aliases: dict[str, str],
         source: Callable[[ast.AST], str]) -> None:
    """Fill `file.extra` with the module's scripts, environment variables and re-exports."""
    nodes = list(ast.walk(tree))  # once: walking a large module is most of the cost
    file.extra["scripts"] = _setup_scripts(file, nodes, expand)
    if file.path.rpartition("/")[2] == "setup.py":
        file.extra.update(_setup_metadata(nodes, expand))
    file.extra["parsers"] = _Parsers(file, expand, source).read(nodes)
    file.extra["env"] = sorted(env_reads(file, nodes, expand) + settings_fields(file, tree, expand),
                               key=lambda item: item["line"])
    file.extra["settings"] = settings_reads(file, nodes, expand)
    file.extra["queued"] = queued(file, nodes, expand)
    file.extra["queue_api"] = any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                                  and node.name in QUEUE_CALLS for node in tree.body)
    file.extra["reexports"] = {f"{file.module}.{local}": target for local, target in aliases.items()
                               if target != f"{file.module}.{local}"}
    file.extra["star_exports"] = {file.module: _star_imports(file, tree)}
    exported = next((node.value for node in tree.body if isinstance(node, ast.Assign)
                     and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)), None)
    if isinstance(exported, (ast.List, ast.Tuple)):
        file.extra["all"] = [e.value for e in exported.elts
                             if isinstance(e, ast.Constant) and isinstance(e.value, str)]


def enclosing(file: CodeFile, line: int) -> str:
    """The innermost function or method around `line`, else the module."""
    inside = [s for s in file.symbols if s.kind in ("function", "method") and s.line_start <= line <= s.line_end]
    return max(inside, key=lambda s: s.line_start).qname if inside else file.module


def _setup_scripts(file: CodeFile, nodes: list[ast.AST], expand) -> list[Entrypoint]:
    found = []
    for node in nodes:
        if isinstance(node, ast.Call) and expand(node.func) in SETUP_FUNCTIONS:
            for keyword in (k for k in node.keywords if k.arg == "entry_points"):
                value = keyword.value
                if isinstance(value, ast.Name):  # entry_points=ENTRY_POINTS, a module-level dict
                    value = next((n.value for n in nodes if isinstance(n, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == value.id for t in n.targets)), value)
                try:
                    groups = ast.literal_eval(value)
                except (ValueError, SyntaxError, TypeError):
                    continue
                if isinstance(groups, dict):
                    found.extend(script_entrypoints(groups, "setuptools", file.path, file.text, value.lineno))
    return found


def _setup_metadata(nodes: list[ast.AST], expand) -> dict[str, str]:
    """The package's name and description a `setup()` call gives as strings, as a manifest's
    (`package_name`, `package_description`): colorlog declares `setup(name="colorlog", description="Add colours
    to the output of Python's logging module.")` and nothing else does."""
    found = {}
    for node in nodes:
        if isinstance(node, ast.Call) and expand(node.func) in SETUP_FUNCTIONS:
            for keyword in node.keywords:
                if keyword.arg in ("name", "description") and isinstance(keyword.value, ast.Constant) and isinstance(
                        keyword.value.value, str) and keyword.value.value.strip():
                    found[f"package_{keyword.arg}"] = " ".join(keyword.value.value.split())[:500]
    return found


class _Parsers:
    """argparse parsers and their subcommands, by the variables that hold them within one function."""

    def __init__(self, file: CodeFile, expand, source):
        self.file, self.expand, self.source = file, expand, source
        self.parsers: dict[tuple[str, str], dict] = {}  # (enclosing, variable) → what is known of it
        self.subparsers: dict[tuple[str, str], tuple[str, str]] = {}  # add_subparsers() result → its parser

    def read(self, nodes: list[ast.AST]) -> list[dict]:
        calls = sorted((n for n in nodes if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
        targets = {id(n.value): n.targets[0] for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1}
        for call in calls:
            self.call(call, targets.get(id(call)))
        for node in nodes:  # `return parser`: the function builds the parser for its caller
            if self.parsers and isinstance(node, ast.Return) and isinstance(node.value, ast.Name):
                parser = self.parsers.get((enclosing(self.file, node.lineno), node.value.id))
                if parser:
                    parser["returned"] = True
        return [{**parser, "key": key, "scope": key[0]} for key, parser in self.parsers.items()]

    def call(self, call: ast.Call, target: ast.expr | None) -> None:
        func = call.func
        attr = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if attr not in PARSER_CALLS or (attr != "ArgumentParser" and not self.parsers):
            return  # most calls: no need to know the function around them
        scope = enclosing(self.file, call.lineno)
        name = self.expand(target) if target is not None else ""
        if attr == "ArgumentParser" and self.expand(func) in PARSER_CONSTRUCTORS:
            prog = _keyword(call, "prog")
            self.add(scope, name, prog, None, call)
            return
        if not isinstance(func, ast.Attribute):
            return
        owner = (scope, self.expand(func.value))
        if func.attr == "add_subparsers" and owner in self.parsers and name:
            self.subparsers[(scope, name)] = owner
        elif func.attr == "add_parser" and owner in self.subparsers and call.args:
            command = call.args[0].value if isinstance(call.args[0], ast.Constant) else None
            if isinstance(command, str):
                self.add(scope, name or f"<{command}>", command, self.subparsers[owner], call)
        elif func.attr == "add_argument" and owner in self.parsers:
            flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            self.parsers[owner]["arguments"].extend(flags[:1])
        elif func.attr == "set_defaults" and owner in self.parsers:
            handler = next((k.value for k in call.keywords if k.arg in ("func", "handler", "command")), None)
            if isinstance(handler, (ast.Name, ast.Attribute)):
                self.parsers[owner]["handler"] = self.expand(handler)

    def add(self, scope: str, variable: str, name: str, parent, call: ast.Call) -> None:
        self.parsers[(scope, variable or f"<parser {call.lineno}>")] = {
            "name": name, "parent": parent, "handler": "", "arguments": [], "line": call.lineno,
            "returned": False, "text": self.source(call).split("\n", 1)[0][:200]}


def parser_entrypoints(file: CodeFile, index: ProjectIndex) -> list[Entrypoint]:
    """The file's argparse parsers as C3 commands, subcommands as `prog serve`.

    A parser without `prog` has argparse's default, the name of the script that runs it: the console
    script whose function builds the parser (or calls the function of the module that does), else the
    module (the package for `__main__.py`). A parser a function only builds and returns for its caller
    (`Config.parser()`), with no name of its own, is no command.
    """
    parsers = {parser["key"]: parser for parser in file.extra.get("parsers", [])}

    def command(key) -> str:
        parser = parsers[key]
        if parser["parent"] is not None:
            parent = command(parser["parent"])
            return f"{parent} {parser['name']}" if parent else ""
        if parser["name"]:
            return parser["name"]
        script = _console_script(file, index, parser["scope"])
        return script or ("" if parser["returned"] else _default_prog(file))

    found = []
    for key, parser in parsers.items():
        name = command(key)
        if name:
            found.append(Entrypoint(
                "cli", "argparse", "parser" if parser["parent"] is None else "subcommand", name,
                parser["handler"] or parser["scope"], parser["scope"], parser["text"], parser["line"],
                lang_payload={"arguments": parser["arguments"]}))
    return found


def _console_script(file: CodeFile, index: ProjectIndex, function: str) -> str:
    """The installed command run by `function`, or by a function of its module that calls it."""
    callers = set()
    for ref in file.references:
        if ref.edge_type == "calls" and ref.src.qname != function:
            called = index.handler(ref.dst_ref)
            if called and called.qname == function:
                callers.add(ref.src.qname)
    for target, names in index.console_scripts.items():
        handler = index.handler(target)
        if handler and (handler.qname == function or handler.qname in callers):
            return names[0]
    return ""


def _default_prog(file: CodeFile) -> str:
    """argparse's own default, the script's name: the package for `__main__.py`."""
    parts = file.module.split(".")
    return parts[-2] if parts[-1] == "__main__" and len(parts) > 1 else parts[-1]


def _keyword(call: ast.Call, name: str) -> str:
    value = next((k.value for k in call.keywords if k.arg == name), None)
    return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else ""


def env_reads(file: CodeFile, nodes: list[ast.AST], expand) -> list[dict]:
    """Environment variables named by a string literal, with the line and the way they are read."""
    found = []

    def add(name, node, via: str) -> None:
        if isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value:
            found.append({"name": name.value, "line": node.lineno, "via": via,
                          "symbol": enclosing(file, node.lineno)})

    # `env = environ.Env()` (django-environ, environs): `env("X")`, `env.bool("X")` read variables.
    readers = {expand(t): expand(node.value.func) for node in nodes if isinstance(node, ast.Assign)
               and isinstance(node.value, ast.Call) and expand(node.value.func) in ENV_CLASSES for t in node.targets}
    helpers = _env_helpers(nodes, expand)
    for node in nodes:
        if isinstance(node, ast.Call) and node.args and expand(node.func) in ENV_READS:
            add(node.args[0], node, expand(node.func))
        elif helpers and isinstance(node, ast.Call) and node.args and isinstance(node.func, ast.Name) \
                and node.func.id in helpers:
            add(node.args[0], node, node.func.id)
        elif readers and isinstance(node, ast.Call) and node.args and (
                expand(node.func) in readers or isinstance(node.func, ast.Attribute)
                and expand(node.func.value) in readers):
            add(node.args[0], node, readers.get(expand(node.func)) or readers[expand(node.func.value)])
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and expand(node.value) == "os.environ":
            add(node.slice, node, "os.environ[]")  # `os.environ["X"] = v` and `del os.environ["X"]` read nothing
        elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops) \
                and any(expand(c) == "os.environ" for c in node.comparators):
            add(node.left, node, "in os.environ")
    return sorted(found, key=lambda item: item["line"])


def settings_reads(file: CodeFile, nodes: list[ast.AST], expand) -> list[dict]:
    """Django settings the module reads: `settings.X` (also `settings.X.get(…)`), `getattr(settings, "X", …)`
    and `hasattr(settings, "X")`, with the line, the way and the function."""
    found = []
    for node in nodes:
        name, via = "", ""
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and node.attr.isupper() \
                and expand(node.value) in SETTINGS_OBJECTS:
            name, via = node.attr, "settings.X"
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("getattr", "hasattr") \
                and len(node.args) >= 2 and expand(node.args[0]) in SETTINGS_OBJECTS \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            name, via = node.args[1].value, f"{node.func.id}(settings)"
        if name:
            found.append({"name": name, "line": node.lineno, "via": via, "symbol": enclosing(file, node.lineno)})
    return sorted(found, key=lambda item: item["line"])


def queued(file: CodeFile, nodes: list[ast.AST], expand) -> list[dict]:
    """Functions the module hands to a task queue: `async_task(send_mail, …)`, `enqueue("app.tasks.x")`,
    `send_mail.delay(…)`; each with the reference as written (expanded) or the dotted path."""
    found = []
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        target = ""
        if name in QUEUE_METHODS and isinstance(func, ast.Attribute):
            target = expand(func.value)
        elif name in QUEUE_CALLS:
            for arg in [*node.args, *(k.value for k in node.keywords if k.arg in ("func", "f", "task"))]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and "." in arg.value:
                    target = arg.value
                elif isinstance(arg, (ast.Name, ast.Attribute)):
                    target = expand(arg)
                if target:
                    break
        if target:
            found.append({"target": target, "via": name, "line": node.lineno, "path": file.path})
    return found


def _env_helpers(nodes: list[ast.AST], expand) -> set[str]:
    """The module's functions that read the environment variable their first parameter names."""
    helpers = set()
    for function in nodes:
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or not function.args.args:
            continue
        first = function.args.args[0].arg
        for node in ast.walk(function):
            read = (node.args[0] if isinstance(node, ast.Call) and node.args and expand(node.func) in ENV_READS
                    else node.slice if isinstance(node, ast.Subscript) and expand(node.value) == "os.environ"
                    else None)
            if isinstance(read, ast.Name) and read.id == first:
                helpers.add(function.name)
                break
    return helpers


def settings_fields(file: CodeFile, tree: ast.Module, expand) -> list[dict]:
    """The fields of a pydantic-settings class, each read from the environment variable of its name
    (upper-cased, after the class's `env_prefix`)."""
    found = []
    for cls in (node for node in tree.body if isinstance(node, ast.ClassDef)):
        if not any(expand(base) in SETTINGS_BASES for base in cls.bases):
            continue
        prefix = ""
        for node in cls.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and any(
                    isinstance(t, ast.Name) and t.id == "model_config" for t in node.targets):
                prefix = _keyword(node.value, "env_prefix") or prefix
            elif isinstance(node, ast.ClassDef) and node.name == "Config":  # pydantic 1
                prefix = next((s.value.value for s in node.body if isinstance(s, ast.Assign)
                               and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)
                               and any(getattr(t, "id", "") == "env_prefix" for t in s.targets)), prefix)
        for node in cls.body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                    and not node.target.id.startswith("_") and node.target.id != "model_config":
                found.append({"name": f"{prefix}{node.target.id}".upper(), "line": node.lineno,
                              "via": "pydantic-settings", "symbol": f"{file.module}.{cls.name}"})
    return found


def _star_imports(file: CodeFile, tree: ast.Module) -> list[str]:
    """Modules a `from x import *` of the module's own top level takes every public name from."""
    package = file.module if file.path.endswith("__init__.py") else file.module.rpartition(".")[0]
    found = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[:len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join(p for p in [*parts, base] if p)
            found.append(base)
    return found
