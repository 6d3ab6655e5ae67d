"""Next.js file-system routes as entrypoints (C3): the route is the file's path, not a call."""

import re
from pathlib import PurePosixPath

from knowledge.indexing.layers.code import CodeFile, Entrypoint

NEXT_METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}
NEXT_PAGE = re.compile(r"(^|/)(?P<kind>pages|app)/(?P<route>.*?)(?P<file>/?(page|route|index)?)\.(t|j)sx?$")


def next_routes(file: CodeFile) -> list[Entrypoint]:
    """Next.js file routes: `pages/…` and `app/…/page.tsx` pages, `pages/api/…` and `app/…/route.ts` handlers."""
    match = NEXT_PAGE.search(file.path)
    if match is None or file.is_test:
        return []
    kind, route, stem = match.group("kind"), match.group("route"), PurePosixPath(file.path).stem
    if kind == "app" and stem not in ("page", "route"):
        return []
    if kind == "pages" and stem.startswith("_"):
        return []
    segments = [s for s in route.split("/") if s and not (s.startswith("(") and s.endswith(")"))]
    if kind == "pages" and stem == "index" and segments and segments[-1] == "index":
        segments = segments[:-1]
    path = "/" + "/".join(re.sub(r"^\[\.{0,3}(\w+)\]$", r"{\1}", s) for s in segments)
    exported = {s.name: s for s in file.symbols if s.parent_id == f"{file.path}#"}
    if stem == "route":
        return [Entrypoint("http", "nextjs", "route_handler", f"{method} {path}", symbol.qname, file.module,
                           f"export function {method}", symbol.line_start, http_method=method, route_path=path)
                for method, symbol in exported.items() if method in NEXT_METHODS]
    api = kind == "pages" and segments[:1] == ["api"]
    handler = next((s.qname for s in file.symbols if s.kind == "function" and s.parent_id == f"{file.path}#"),
                   file.module)
    return [Entrypoint("http" if api else "page", "nextjs", "api_route" if api else "page",
                       f"{'ANY' if api else 'GET'} {path}", handler, file.module, file.path, 1,
                       http_method="ANY" if api else "GET", route_path=path)]
