"""Python entrypoints (C3) from the model `python.PythonExtractor` fills: decorated routes and commands
(FastAPI, Flask, ninja, Typer, Click, with the framework read off the decorated object), Django
urlpatterns and management commands, and `if __name__ == "__main__"` blocks.
"""

import ast
import re

from knowledge.indexing.layers.code import CodeFile, Entrypoint, ProjectIndex, Symbol
from knowledge.indexing.layers.python_facts import parser_entrypoints

HTTP_METHODS = ("get", "post", "put", "patch", "delete", "head", "options", "trace")
CLICK_DECORATORS = {"click.command": "command", "click.group": "group"}
MANAGEMENT_COMMAND = re.compile(r"(^|/)management/commands/(?P<name>[^/_][^/]*)\.py$")


def entrypoints(file: CodeFile, index: ProjectIndex) -> list[Entrypoint]:
    """C3 of one parsed Python file: decorated routes and commands, urlpatterns, management commands,
    a `__main__` block."""
    found = []
    for handler, decorator, expanded, text in file.extra.get("decorated", []):
        found.extend(_decorator_entrypoints(handler, decorator, expanded, text, index))
    found.extend(file.extra.get("urlpatterns", []))
    found.extend(file.extra.get("scripts", []))  # setup.py console scripts
    found.extend(parser_entrypoints(file, index))
    match = MANAGEMENT_COMMAND.search(file.path)
    command = index.symbols.get(f"{file.module}.Command")
    if match and command and command.path == file.path:
        name = match.group("name")
        found.append(Entrypoint("cli", "django", "management_command", name,
                                f"{file.module}.Command.handle", command.qname, f"manage.py {name}",
                                command.line_start))
    if file.extra.get("main_line"):
        found.append(Entrypoint("script", "python", "main_block", file.path, file.module, file.module,
                                'if __name__ == "__main__"', file.extra["main_line"]))
    return found


def _decorator_entrypoints(handler: Symbol, decorator: ast.expr, expanded: str, text: str,
                           index: ProjectIndex) -> list[Entrypoint]:
    """Entrypoints declared by one decorator, with the framework read off the decorated object."""
    call = decorator if isinstance(decorator, ast.Call) else None
    if expanded in CLICK_DECORATORS:
        return [_command(handler, "click", CLICK_DECORATORS[expanded], call, expanded, text)]
    owner, _, attr = expanded.rpartition(".")
    framework = index.objects.get(owner)
    if not framework and owner in index.symbols and any(
            d.split("(")[0].endswith(("click.group", ".group")) for d in index.symbols[owner].decorators):
        framework = "click"  # a function decorated with @click.group() is a group
    if not framework and "." not in owner and attr in HTTP_METHODS:
        # `@api.get("/items")` on a name the file never defines (documentation examples, snippets):
        # still a route when its path is a literal one.
        path = call_args(call)[0][:1]
        framework = "unknown" if path and isinstance(path[0], str) and path[0].startswith("/") else ""
    if not framework:
        return []
    if framework in ("typer", "click"):
        if attr in ("command", "group"):
            return [_command(handler, framework, attr, call, owner, text)]
        return []
    args, kwargs = call_args(call)
    if attr in HTTP_METHODS or attr == "websocket":
        methods, path = [attr.upper()], args[0] if args else kwargs.get("path", "")
    elif attr in ("route", "api_route"):
        methods, path = kwargs.get("methods") or ["GET"], args[0] if args else kwargs.get("path", "")
    elif attr == "api_operation" and framework == "ninja":
        methods = args[0] if args else kwargs.get("methods", [])
        path = args[1] if len(args) > 1 else kwargs.get("path", "")
    else:
        return []
    if not isinstance(path, str):
        return []
    # (`methods=("GET", "POST")`, Flask's tutorial, is two methods, not the route of "('GET', 'POST')".)
    methods = [str(method).upper() for method in (methods if isinstance(methods, list | tuple | set) else [methods])]
    return [Entrypoint("http", framework, "route", f"{method} {path}", handler.qname, owner, text,
                       handler.line_start, http_method=method, route_path=path)
            for method in methods]


def _command(handler: Symbol, framework: str, kind: str, call, owner: str, text: str) -> Entrypoint:
    args, kwargs = call_args(call)
    name = args[0] if args and isinstance(args[0], str) else kwargs.get("name")
    # Typer and Click (7+) name a command after its function, underscores turned into dashes.
    name = name if isinstance(name, str) else handler.name.replace("_", "-")
    return Entrypoint("cli", framework, kind, name, handler.qname, owner, text, handler.line_start)


def call_args(call) -> tuple[list, dict]:
    if call is None:
        return [], {}
    return [literal(a) for a in call.args], {k.arg: literal(k.value) for k in call.keywords if k.arg}


def literal(node: ast.expr):
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return None
