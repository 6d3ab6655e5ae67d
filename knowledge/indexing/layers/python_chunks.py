"""C0 source chunks of a Python module read by `ast`: each class and function alone, other
top-level statements grouped, long classes cut at their methods."""

import ast

from knowledge.indexing.layers.code import MAX_CHUNK_CHARS, CodeFile, SourceChunk, line_chunks


def chunks(file: CodeFile, tree: ast.Module, lines: list[str]) -> list[SourceChunk]:
    """Top-level statements grouped: each class and function alone, other statements together.

    Comments and blank lines before a statement go with it, so the chunks cover the file.
    """
    segments: list[list] = []  # [start, end, type, qname, node]
    for node in tree.body:
        qname = f"{file.module}.{getattr(node, 'name', '')}"
        if isinstance(node, ast.ClassDef):
            segments.append([start_line(node), node.end_lineno, "class", qname, node])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            segments.append([start_line(node), node.end_lineno, "function", qname, node])
        elif segments and segments[-1][2] in ("block", "module"):
            segments[-1][1] = node.end_lineno
        else:
            segments.append([start_line(node), node.end_lineno, "module" if not segments else "block",
                             file.module, node])
    found, previous_end = [], 0
    for index, (start, end, chunk_type, qname, node) in enumerate(segments):
        start = previous_end + 1
        if index == len(segments) - 1:
            end = len(lines)
        found.extend(_split(file, lines, start, end, chunk_type, qname, node))
        previous_end = end
    return found


def _split(file: CodeFile, lines, start, end, chunk_type, qname, node) -> list[SourceChunk]:
    if sum(len(line) + 1 for line in lines[start - 1:end]) <= MAX_CHUNK_CHARS:
        return [SourceChunk(start, end, chunk_type, qname)]
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    methods = [n for n in getattr(node, "body", []) if isinstance(n, functions)]
    if chunk_type != "class" or not methods:
        return line_chunks(file.text, start, end, chunk_type, qname)
    # A long class: its header, then each method with the comments above it.
    found = line_chunks(file.text, start, start_line(methods[0]) - 1, "class", qname)
    for method, following in zip(methods, [*methods[1:], None], strict=False):
        method_end = start_line(following) - 1 if following else end
        method_start = found[-1].end + 1 if found else start
        found.extend(line_chunks(file.text, method_start, method_end, "method", f"{qname}.{method.name}"))
    return found


def start_line(node: ast.AST) -> int:
    """The first line of a statement, its decorators included."""
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])
