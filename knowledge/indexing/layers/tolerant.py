"""Tolerant parsing with tree-sitter: newer syntax and partial errors still give symbols.

Python's own `ast` refuses a whole file for one statement it cannot read (syntax newer than the
running Python, such as `def first[T](…)` or `type Point = …`, or a real error). Here tree-sitter,
which parses any Python version and recovers from errors, finds the innermost statement around
each line `ast` complains about; that statement is replaced by `pass` (its lines kept, so line
numbers hold) and `ast` tries again, a bounded number of times. The rest of the file is read by
`ast` as usual; the definitions inside the replaced statements are recovered from the tree-sitter
tree (`definitions`), and each replacement is a warning on the file.

`parser(name)` gives a cached tree-sitter parser for `python`, `javascript`, `typescript`, `tsx`.
"""

import ast
import sys
from dataclasses import dataclass
from functools import cache

import tree_sitter_javascript
import tree_sitter_python
import tree_sitter_typescript
from tree_sitter import Language, Node, Parser

from knowledge.indexing.layers.code import CodeFile, Symbol

MAX_REPAIRS = 50
PY_VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"
PY_DEFINITIONS = {"function_definition": "function", "class_definition": "class"}
_LANGUAGES = {
    "python": tree_sitter_python.language,
    "javascript": tree_sitter_javascript.language,
    "typescript": tree_sitter_typescript.language_typescript,
    "tsx": tree_sitter_typescript.language_tsx,
}


@cache
def parser(name: str) -> Parser:
    return Parser(Language(_LANGUAGES[name]()))


@dataclass
class Definition:
    """A class or function tree-sitter found in a region `ast` could not read."""

    name: str
    kind: str  # class, function, method
    scope: list[str]  # names of the enclosing classes and functions, outermost first
    start: int  # 1-based lines
    end: int
    header: str


def parse_python(text: str) -> tuple[ast.Module | None, list[str], list[Definition]]:
    """(module, warnings, definitions recovered) — module None when nothing could be read by `ast`."""
    try:
        return ast.parse(text), [], []
    except (SyntaxError, ValueError) as exc:
        error = exc
    if "\0" in text:
        return None, [f"not Python source ({error})"], []
    source = text.encode("utf-8", "surrogatepass")
    tree = parser("python").parse(source)
    lines = text.split("\n")
    warnings, recovered, replaced = [], [], set()
    # Each repair parses the file again: a big file gets fewer (bounded time on generated files).
    for _ in range(max(3, min(MAX_REPAIRS, 2_000_000 // (len(text) + 1)))):
        line = getattr(error, "lineno", None)
        node = _statement_at(tree.root_node, line - 1, source) if line else None
        if node is None or node.id in replaced:
            break
        replaced.add(node.id)
        start, end = node.start_point.row, node.end_point.row
        indent = lines[start][:len(lines[start]) - len(lines[start].lstrip())]
        lines[start:end + 1] = [indent + "pass"] + [""] * (end - start)
        warnings.append(f"lines {start + 1}-{end + 1}: {getattr(error, 'msg', error)} "
                        f"(not read by Python {PY_VERSION}'s parser; definitions kept from tree-sitter)")
        recovered.extend(definitions(node, text))
        try:
            return ast.parse("\n".join(lines)), warnings, recovered
        except (SyntaxError, ValueError) as exc:
            error = exc
    whole = [d for child in tree.root_node.children for d in definitions(child, text)]
    return None, [*warnings, f"{type(error).__name__}: {error} (definitions kept from tree-sitter)"], whole


def _statement_at(root: Node, row: int, source: bytes) -> Node | None:
    """The innermost statement covering `row` that starts its line (so `pass` can take its place)."""
    found, node = None, root
    while True:
        child = next((c for c in node.named_children if c.start_point.row <= row <= c.end_point.row), None)
        if child is None:
            return found
        line_start = child.start_byte - child.start_point.column
        if ((child.type.endswith("_statement") or child.type in PY_DEFINITIONS
             or child.type == "decorated_definition") and not source[line_start:child.start_byte].strip()):
            found = child
        node = child


def definitions(node: Node, text: str) -> list[Definition]:
    """Every class and function in the subtree, with the names of what encloses it."""
    found = []
    stack = [node]
    while stack:
        current = stack.pop()
        kind = PY_DEFINITIONS.get(current.type)
        name = current.child_by_field_name("name") if kind else None
        if kind and name is not None:
            scope = _scope(current)
            if kind == "function" and scope and scope[-1][1] == "class":
                kind = "method"
            header = current.text.decode("utf-8", "replace").split("\n", 1)[0].rstrip(":")[:200]
            found.append(Definition(name.text.decode("utf-8", "replace"), kind, [s for s, _ in scope],
                                    current.start_point.row + 1, current.end_point.row + 1, header))
        stack.extend(reversed(current.named_children))
    return found


def _scope(node: Node) -> list[tuple[str, str]]:
    scope = []
    parent = node.parent
    while parent is not None:
        kind = PY_DEFINITIONS.get(parent.type)
        name = parent.child_by_field_name("name") if kind else None
        if name is not None:
            scope.insert(0, (name.text.decode("utf-8", "replace"), kind))
        parent = parent.parent
    return scope


def add_definitions(file: CodeFile, recovered: list[Definition]) -> None:
    """Symbols for the definitions only tree-sitter could read (see `tolerant`)."""
    by_qname = {symbol.qname: symbol for symbol in file.symbols}
    for definition in recovered:
        parent_qname = ".".join([file.module, *definition.scope]) if file.module else ".".join(definition.scope)
        qname = f"{parent_qname}.{definition.name}" if parent_qname else definition.name
        if qname in by_qname:
            continue
        parent = by_qname.get(parent_qname)
        local = qname[len(file.module) + 1:] if file.module else qname
        symbol = Symbol(f"{file.path}#{local}", qname, definition.name, definition.kind, definition.header,
                        parent.symbol_id if parent else "", file.module, file.path, definition.start,
                        definition.end)
        file.symbols.append(symbol)
        by_qname[qname] = symbol
