"""Code layers C0–C4, language-neutral: the model an extractor fills, resolution, and the rows.

A `CodeExtractor` per language reads one file into a `CodeFile` (symbols, references, source
chunks) without knowing the rest of the repository. The files of a repository are then added to a
`ProjectIndex`, and only after that are references resolved (C2), entrypoints detected (C3, which
may need an app object declared in another module) and roles derived (C4). Python is implemented
in `knowledge.indexing.layers.python`; any other language registers an extractor in `EXTRACTORS`, or falls
back to `PlainTextExtractor`, which produces C0 line chunks only.
"""

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from knowledge.indexing.layers.rows import LayerRow, stable_id


@dataclass
class Symbol:
    symbol_id: str
    qname: str
    name: str
    kind: str  # module, class, function, method
    signature: str
    parent_id: str
    module: str
    path: str
    line_start: int
    line_end: int
    docstring: str = ""
    decorators: list[str] = field(default_factory=list)
    bases: list[str] = field(default_factory=list)  # references to base classes, as `dst_ref`s


@dataclass
class Reference:
    """A call, import or inheritance edge before resolution.

    `dst_ref` is the target as written, with import aliases expanded (`billing.charge` in a module
    that did `from shop import billing` becomes `shop.billing.charge`). With `via_bases`, the
    member is looked up in the bases of the class named by the prefix (`super().charge()`).
    """

    edge_type: str  # calls, imports, inherits
    src: Symbol
    dst_ref: str
    line: int
    via_bases: bool = False
    external_roots: frozenset = frozenset()


@dataclass
class SourceChunk:
    start: int
    end: int
    chunk_type: str  # module, block, class, function, method, text
    qname: str = ""


@dataclass
class Entrypoint:
    entry_type: str  # http, cli, script
    framework: str
    entrypoint_kind: str
    route_or_command: str
    handler: str  # qualified name of the handler
    declaring_symbol: str
    decorator_text: str
    line: int
    http_method: str = ""
    route_path: str = ""
    lang_payload: dict = field(default_factory=dict)


@dataclass
class CodeFile:
    path: str
    module: str
    language: str
    text: str
    is_test: bool
    symbols: list[Symbol] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    chunks: list[SourceChunk] = field(default_factory=list)
    # Module-level objects that declare entrypoints (`app = FastAPI()`): qualified name → framework.
    objects: dict[str, str] = field(default_factory=dict)
    # Where an app object or urlconf is mounted: child → (parent, path prefix); parent "" is the root.
    mounts: dict[str, tuple[str, str]] = field(default_factory=dict)
    parse_error: str = ""
    extra: dict = field(default_factory=dict)  # extractor-private data for pass 2


class ProjectIndex:
    """Every symbol, module and app object of a repository, for cross-file resolution."""

    def __init__(self, files: list[CodeFile] = ()):
        self.symbols: dict[str, Symbol] = {}
        self.modules: set[str] = set()
        self.roots: set[str] = set()
        self.objects: dict[str, str] = {}
        self.mounts: dict[str, tuple[str, str]] = {}
        self.own_prefixes: dict[str, str] = {}  # APIRouter(prefix=…), Blueprint(url_prefix=…)
        # Handler qualified name → entrypoints it serves; filled by `detect_entrypoints`.
        self.entrypoints: dict[str, list[Entrypoint]] = {}
        for file in files:
            self.add(file)

    def add(self, file: CodeFile) -> None:
        if file.module:
            self.modules.add(file.module)
            self.roots.add(file.module.split(".")[0])
        for symbol in file.symbols:
            self.symbols.setdefault(symbol.qname, symbol)
        self.objects.update(file.objects)
        for child, (parent, prefix) in file.mounts.items():
            if parent:
                self.mounts[child] = (parent, prefix)
            else:
                self.own_prefixes[child] = prefix

    def mounted_path(self, owner: str, path: str) -> str:
        """`path` as served: the prefixes of the objects and urlconfs `owner` is mounted under, joined."""
        def join(prefix: str, path: str) -> str:
            return prefix.rstrip("/") + "/" + path.lstrip("/") if prefix else path

        seen = set()
        while owner and owner not in seen:
            seen.add(owner)
            path = join(self.own_prefixes.get(owner, ""), path)
            owner, prefix = self.mounts.get(owner, ("", ""))
            path = join(prefix, path)
        return path

    def detect_entrypoints(self, files: list[CodeFile], extractors: dict[str, "CodeExtractor"]) -> None:
        """Entrypoints of every file, so a view gets its role even when its route is declared elsewhere."""
        self.entrypoints = {}
        for file in files:
            extractor = extractors.get(file.language)
            for entry in extractor.entrypoints(file, self) if extractor and file.symbols else []:
                self.entrypoints.setdefault(entry.handler, []).append(entry)

    def resolve(self, ref: str, *, via_bases: bool = False,
                external_roots=frozenset()) -> tuple[str, Symbol | None]:
        """("resolved", symbol), ("external", None) or ("unresolved", None) for a reference."""
        if via_bases:
            prefix, _, member = ref.rpartition(".")
            found = self.member(prefix, member, skip_self=True)
            return ("resolved", found) if found else ("unresolved", None)
        if ref in self.symbols:
            return "resolved", self.symbols[ref]
        parts = ref.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            owner = self.symbols.get(".".join(parts[:cut]))
            if owner is None:
                continue
            if owner.kind == "class":
                found = self.member(owner.qname, parts[cut])
                if found and cut == len(parts) - 1:
                    return "resolved", found
                if not found and any(base not in self.symbols for base in self.ancestors(owner.qname)):
                    return "external", None  # reached through a third-party base: `Document.objects.filter`
            break
        root = parts[0]
        if root in external_roots and root not in self.roots:
            return "external", None
        return "unresolved", None

    def member(self, class_qname: str, name: str, *, skip_self: bool = False,
               depth: int = 0) -> Symbol | None:
        """`name` defined on the class or, depth first, on its bases (a simple MRO)."""
        cls = self.symbols.get(class_qname)
        if cls is None or depth > 20:
            return None
        if not skip_self and f"{class_qname}.{name}" in self.symbols:
            return self.symbols[f"{class_qname}.{name}"]
        for base in cls.bases:
            found = self.member(base, name, depth=depth + 1)
            if found:
                return found
        return None

    def ancestors(self, class_qname: str, depth: int = 0) -> list[str]:
        """Base references of a class and, for bases in the project, of theirs."""
        cls = self.symbols.get(class_qname)
        if cls is None or depth > 20:
            return []
        found = []
        for base in cls.bases:
            found.append(base)
            found.extend(self.ancestors(base, depth + 1))
        return found


class CodeExtractor:
    """One language: read a file into a `CodeFile`, then detect entrypoints with the project index."""

    language = ""
    extensions: tuple[str, ...] = ()

    def parse(self, path: str, text: str) -> CodeFile:
        raise NotImplementedError

    def entrypoints(self, file: CodeFile, index: ProjectIndex) -> list[Entrypoint]:
        return []


class PlainTextExtractor(CodeExtractor):
    """Languages without a parser yet: C0 chunks of whole lines, nothing else."""

    language = "text"
    extensions = (".js", ".jsx", ".ts", ".tsx", ".go", ".rs", ".java", ".kt", ".rb", ".php", ".c", ".h",
                  ".cpp", ".cs", ".sh", ".sql")

    def parse(self, path: str, text: str) -> CodeFile:
        language = PurePosixPath(path).suffix.lstrip(".")
        last_line = text.rstrip("\n").count("\n") + 1
        return CodeFile(path=path, module=module_name(path), language=language, text=text,
                        is_test=is_test_path(path), chunks=line_chunks(text, 1, last_line, "text"))


def module_name(path: str) -> str:
    """`src/shop/billing.py` → `shop.billing`; `shop/__init__.py` → `shop`."""
    parts = list(PurePosixPath(path).with_suffix("").parts)
    if parts and parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


TEST_PATH = re.compile(r"(^|/)(tests?|testing)/|(^|/)test_[^/]*$|_tests?\.[^/]+$|(^|/)conftest\.py$")


def is_test_path(path: str) -> bool:
    return bool(TEST_PATH.search(path))


MAX_CHUNK_CHARS = 2000


def line_chunks(text: str, start: int, end: int, chunk_type: str, qname: str = "",
                max_chars: int = MAX_CHUNK_CHARS) -> list[SourceChunk]:
    """Lines `start..end` (1-based, inclusive) cut into runs of at most `max_chars` characters."""
    lines = text.split("\n")
    chunks, first, size = [], start, 0
    for number in range(start, end + 1):
        length = len(lines[number - 1]) + 1 if number <= len(lines) else 1
        if size and size + length > max_chars:
            chunks.append(SourceChunk(first, number - 1, chunk_type, qname))
            first, size = number, 0
        size += length
    if first <= end:
        chunks.append(SourceChunk(first, end, chunk_type, qname))
    return chunks


# --- rows -------------------------------------------------------------------------------------------


def build_code_rows(file: CodeFile, index: ProjectIndex, extractor: CodeExtractor) -> list[LayerRow]:
    """All code layer rows (C0–C4) of one parsed file, resolved against the project."""
    entrypoints = extractor.entrypoints(file, index) if file.symbols else []
    return [
        *chunk_rows(file),
        *symbol_rows(file),
        *edge_rows(file, index),
        *entrypoint_rows(file, entrypoints, index),
        *role_rows(file, index),
    ]


def chunk_rows(file: CodeFile) -> list[LayerRow]:
    """C0: the file's source along symbol boundaries, with line spans."""
    lines = file.text.split("\n")
    rows = []
    for chunk in file.chunks:
        content = "\n".join(lines[chunk.start - 1:chunk.end]).strip("\n")
        if not content.strip():
            continue
        meta = {
            "chunk_index": len(rows),
            "chunk_type": chunk.chunk_type,
            "module_or_unit": file.module,
            "is_test": file.is_test,
            "qname": chunk.qname,
            "source_path": file.path,
            "artifact_type": "CODE",
        }
        if file.parse_error:
            meta["parse_error"] = file.parse_error
        rows.append(LayerRow("C0", file.path, content, meta, section_path=chunk.qname, span_start=chunk.start,
                             span_end=chunk.end, language=file.language))
    return rows


def symbol_rows(file: CodeFile) -> list[LayerRow]:
    """C1: one row per module, class, function and method."""
    rows = []
    for symbol in file.symbols:
        meta = {
            "symbol_id": symbol.symbol_id,
            "qname": symbol.qname,
            "name": symbol.name,
            "kind": symbol.kind,
            "signature": symbol.signature,
            "parent_symbol_id": symbol.parent_id,
            "package_or_module": symbol.module,
            "docstring": symbol.docstring,
            "decorators": symbol.decorators,
            "bases": symbol.bases,
            "is_test": file.is_test,
            "source_path": file.path,
            "artifact_type": "CODE",
        }
        parts = (f"{symbol.kind} {symbol.qname}", symbol.signature, symbol.docstring)
        content = "\n".join(part for part in parts if part)
        rows.append(LayerRow("C1", symbol.qname, content, meta, section_path=symbol.qname,
                             span_start=symbol.line_start, span_end=symbol.line_end, language=file.language))
    return rows


def edge_rows(file: CodeFile, index: ProjectIndex) -> list[LayerRow]:
    """C2: one row per distinct (source, edge type, target), with its resolution status."""
    rows, seen = [], set()
    for ref in file.references:
        key = (ref.src.qname, ref.edge_type, ref.dst_ref)
        if key in seen:
            continue
        seen.add(key)
        resolution, target = index.resolve(ref.dst_ref, via_bases=ref.via_bases,
                                           external_roots=ref.external_roots)
        meta = {
            "edge_id": stable_id(file.path, *key),
            "edge_type": ref.edge_type,
            "src_symbol_id": ref.src.symbol_id,
            "src_qname": ref.src.qname,
            "src_name": ref.src.name,
            "dst_symbol_id": target.symbol_id if target else "",
            "dst_ref": target.qname if target else ref.dst_ref,
            "dst_name": ref.dst_ref.rsplit(".", 1)[-1],
            "resolution": resolution,
            "line": ref.line,
            "is_test": file.is_test,
            "source_path": file.path,
            "artifact_type": "CODE",
        }
        # Dotted names are single tokens to PostgreSQL's parser: the short names make them findable.
        content = (f"{ref.src.qname} {ref.edge_type} {meta['dst_ref']} ({resolution})\n"
                   f"{ref.src.name} {ref.edge_type} {meta['dst_name']}")
        rows.append(LayerRow("C2", f"{ref.src.qname} → {meta['dst_ref']}", content, meta,
                             section_path=ref.src.qname, span_start=ref.line, span_end=ref.line,
                             language=file.language))
    return rows


def entrypoint_rows(file: CodeFile, entrypoints: list[Entrypoint], index: ProjectIndex) -> list[LayerRow]:
    """C3: HTTP routes, CLI commands and scripts, one row per method and route."""
    rows = []
    for entry in entrypoints:
        handler = index.symbols.get(entry.handler)
        http = entry.entry_type == "http"
        # The path a client calls: the declared one under the prefixes it is mounted with.
        served = index.mounted_path(entry.declaring_symbol, entry.route_path) if http else ""
        served = "/" + served.lstrip("/") if http else ""
        meta = {
            "entry_id": stable_id(file.path, entry.framework, entry.http_method, entry.route_or_command,
                                  entry.handler),
            "entry_type": entry.entry_type,
            "framework": entry.framework,
            "route_or_command": f"{entry.http_method} {served}" if http else entry.route_or_command,
            "handler_symbol_id": handler.symbol_id if handler else "",
            "handler_symbol": entry.handler,
            "declaring_symbol": entry.declaring_symbol,
            "entrypoint_kind": entry.entrypoint_kind,
            "http_method": entry.http_method,
            "route_path": entry.route_path,
            "mounted_path": served,
            "route_key": route_key(served) if http else "",
            "declared_route_key": route_key(entry.route_path) if http else "",
            "decorator_text": entry.decorator_text,
            "summary_text": handler.docstring if handler else "",
            "is_test": file.is_test,
            "lang_payload": entry.lang_payload,
            "source_path": file.path,
            "artifact_type": "CODE",
        }
        end = handler.line_end if handler and handler.path == file.path else entry.line
        rows.append(LayerRow("C3", f"{entry.framework}: {entry.route_or_command}", render_entrypoint(meta),
                             meta, section_path=entry.handler, span_start=entry.line, span_end=end,
                             language=file.language))
    return rows


def render_entrypoint(meta: dict) -> str:
    if meta["entry_type"] == "http":
        head = meta["route_or_command"]
        if route_key(meta["route_path"]) != meta["route_key"]:
            head += f" (declared as {meta['route_path']})"
    else:
        head = f"{meta['entry_type']} {meta['route_or_command']}"
    text = f"{head} → {meta['handler_symbol']} ({meta['framework']} {meta['entrypoint_kind']})"
    return f"{text}\n{meta['summary_text']}" if meta["summary_text"] else text


ROUTE_PARAM = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>|\(\?P<([^>]+)>[^)]*\)|:(\w+)")


def route_key(path: str) -> str:
    """A route in one spelling for matching: `orders/<int:pk>/` and `/orders/{pk}` → `/orders/{pk}`."""
    path = path.strip().replace("^", "").replace("$", "")  # regex anchors, also after a mount prefix
    path = ROUTE_PARAM.sub(lambda m: "{" + next(g for g in m.groups() if g) + "}", path)
    return "/" + path.strip("/")


# --- C4 ---------------------------------------------------------------------------------------------

# Base classes (by the end of their dotted name) that give a class its role.
ROLE_BASES = (
    ("model", ("db.models.Model", "models.Model", "db.models.base.Model", "declarative_base",
               "DeclarativeBase")),
    ("schema", ("pydantic.BaseModel", "ninja.Schema", "ninja.ModelSchema", "forms.Form", "forms.ModelForm")),
    ("admin", ("admin.ModelAdmin", "admin.TabularInline", "admin.StackedInline")),
    ("view", ("views.View", "generic.View", "views.generic.View", "views.generic.TemplateView", "APIView")),
    ("test", ("TestCase", "SimpleTestCase", "TransactionTestCase", "LiveServerTestCase")),
    ("cli_command", ("management.base.BaseCommand", "BaseCommand")),
    ("config", ("apps.AppConfig", "AppConfig")),
    ("migration", ("migrations.Migration",)),
    ("exception", ("Exception", "BaseException", "ValueError", "RuntimeError", "KeyError", "TypeError")),
)
ROLE_ORDER = ("api_handler", "cli_command", "script", "task", "model", "schema", "view", "admin", "test",
              "test_fixture", "exception", "config", "migration", "data")
TASK_DECORATORS = re.compile(r"(^|\.)(shared_task|task|job|periodic_task|actor)$")


def role_rows(file: CodeFile, index: ProjectIndex) -> list[LayerRow]:
    """C4: one row per symbol that plays a role (API handler, model, task, test, config, CLI…)."""
    evidence: dict[str, dict[str, str]] = {}

    def add(qname: str, role: str, why: str) -> None:
        evidence.setdefault(qname, {}).setdefault(role, why)

    for symbol in file.symbols:
        for entry in index.entrypoints.get(symbol.qname, []):
            role = {"http": "api_handler", "cli": "cli_command"}.get(entry.entry_type, "script")
            add(symbol.qname, role, f"{entry.framework} {entry.entrypoint_kind} {entry.route_or_command}")
        for role, why in symbol_roles(file, symbol, index):
            add(symbol.qname, role, why)
    rows = []
    for symbol in file.symbols:
        roles = evidence.get(symbol.qname)
        if not roles:
            continue
        ordered = sorted(roles, key=ROLE_ORDER.index)
        meta = {
            "symbol_id": symbol.symbol_id,
            "qname": symbol.qname,
            "name": symbol.name,
            "kind": symbol.kind,
            "role": ordered[0],
            "roles": ordered,
            "evidence": [f"{role}: {roles[role]}" for role in ordered],
            "package_or_module": symbol.module,
            "is_test": file.is_test,
            "source_path": file.path,
            "artifact_type": "CODE",
        }
        head = f"{symbol.qname} is a {ordered[0].replace('_', ' ')} ({symbol.kind})"
        content = "\n".join([head, *meta["evidence"]])
        rows.append(LayerRow("C4", symbol.qname, content, meta, section_path=symbol.qname,
                             span_start=symbol.line_start, span_end=symbol.line_end, language=file.language))
    return rows


def symbol_roles(file: CodeFile, symbol: Symbol, index: ProjectIndex) -> list[tuple[str, str]]:
    """Roles a symbol has by itself: its bases, decorators, name and module."""
    found = []
    if symbol.kind == "class":
        for base in [*symbol.bases, *index.ancestors(symbol.qname)]:
            for role, suffixes in ROLE_BASES:
                if any(base == s or base.endswith("." + s) for s in suffixes) or (
                        role == "exception" and re.search(r"(Error|Exception)$", base)):
                    found.append((role, f"inherits {base}"))
        if "dataclass" in {d.split("(")[0].rsplit(".", 1)[-1] for d in symbol.decorators}:
            found.append(("data", "@dataclass"))
    for decorator in symbol.decorators:
        name = decorator.split("(")[0]
        if TASK_DECORATORS.search(name):
            found.append(("task", f"@{decorator}"))
        if name.endswith("fixture"):
            found.append(("test_fixture", f"@{decorator}"))
    if symbol.kind == "function" and file.module.rsplit(".", 1)[-1] == "tasks":
        found.append(("task", "function in a tasks module"))
    if file.is_test and symbol.kind in ("function", "method") and symbol.name.startswith("test"):
        found.append(("test", "test function"))
    if file.is_test and symbol.kind == "class" and symbol.name.startswith("Test"):
        found.append(("test", "test class"))
    if symbol.kind == "module":
        stem = file.path.rsplit("/", 1)[-1]
        if stem in ("settings.py", "conf.py", "config.py", "apps.py") or "/settings/" in file.path:
            found.append(("config", f"configuration module {stem}"))
        if "/migrations/" in f"/{file.path}":
            found.append(("migration", "migrations package"))
    return found
