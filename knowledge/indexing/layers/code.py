"""Code layers C0–C4, language-neutral: the model an extractor fills, resolution, and the rows.

A `CodeExtractor` per language reads one file into a `CodeFile` (symbols, references, source
chunks) without knowing the rest of the repository. The files of a repository are then added to a
`ProjectIndex`, and only after that are references resolved (C2), entrypoints detected (C3, which
may need an app object declared in another module) and roles derived (C4). Python is implemented
in `knowledge.indexing.layers.python`; any other language registers an extractor in `EXTRACTORS`, or
falls back to `PlainTextExtractor`, which produces C0 line chunks only. The rows of each layer are
built from this model by `knowledge.indexing.layers.code_rows`.
"""

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath


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
    parse_error: str = ""  # the file could not be parsed at all (its source is kept as text chunks)
    warnings: list[str] = field(default_factory=list)  # parts not understood, each shown on the document
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
        self.file_roots: dict[str, str] = {}  # Python file → its module root ("" or "folder/")
        self.labels: dict[str, str] = {}  # the docs' Sphinx labels and files → their titles (rst.sphinx_targets)
        self.constants: dict[str, str] = {}  # qualified name → string value (module and class names)
        self.instances: dict[str, str] = {}  # module-level instance → its class (`settings = Settings()`)
        self.unresolved_prefixes: set[str] = set()
        # Names a module imports, so `dotenv.set_key` is `dotenv.main.set_key` when `dotenv/__init__.py`
        # did `from .main import set_key`; modules whose public names a module takes with `import *`.
        self.reexports: dict[str, str] = {}
        self.star_exports: dict[str, list[str]] = {}
        self.exported: dict[str, list[str]] = {}  # a module's `__all__`
        self.queued: list[dict] = []  # functions handed to a task queue: target, via, path, line
        self._tasks: dict[str, str] | None = None
        self.console_scripts: dict[str, list[str]] = {}  # a console script's target → the commands running it
        self.package_names: dict[str, list[str]] = {}  # a folder ("" the root) → its manifests' package names
        self.package_descriptions: dict[str, str] = {}  # a folder → what its first manifest describing it says
        self.unparsed: dict[str, str] = {}  # a code file its extractor failed on → why (`store.parse_project`)
        for file in files:
            self.add(file)

    def add(self, file: CodeFile) -> None:
        if file.module:
            self.modules.add(file.module)
            self.roots.add(file.module.split(".")[0])
        for symbol in file.symbols:
            self.symbols.setdefault(symbol.qname, symbol)
        self.objects.update(file.objects)
        self.constants.update(file.extra.get("constants", {}))
        self.instances.update(file.extra.get("instances", {}))
        self.reexports.update(file.extra.get("reexports", {}))
        for module, sources in file.extra.get("star_exports", {}).items():  # module → modules it takes `*` from
            self.star_exports.setdefault(module, []).extend(sources)
        if "all" in file.extra:
            self.exported[file.module] = file.extra["all"]
        self.queued.extend(file.extra.get("queued", []))
        if file.extra.get("package_name"):
            folder = file.path.rpartition("/")[0]
            self.package_names.setdefault(folder, []).append(file.extra["package_name"])
        if file.extra.get("package_description"):
            self.package_descriptions.setdefault(file.path.rpartition("/")[0], file.extra["package_description"])
        self._tasks = None
        for entry in [*file.extra.get("entrypoints", []), *file.extra.get("scripts", [])]:
            if entry.entrypoint_kind == "console_script":
                self.console_scripts.setdefault(entry.handler, []).append(entry.route_or_command)
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
            path = join(self.prefix_value(self.own_prefixes.get(owner, "")), path)
            owner, prefix = self.mounts.get(owner, ("", ""))
            path = join(self.prefix_value(prefix), path)
        return path

    def prefix_value(self, prefix: str) -> str:
        """A literal prefix as it is; a named one (`name:app.core.config.settings.API_V1_STR`) through
        the project's string constants and instances, else `{?name}` (an unresolved prefix)."""
        if not prefix.startswith("name:"):
            return prefix
        name = prefix.removeprefix("name:")
        owner, _, attribute = name.rpartition(".")
        value = self.constants.get(name)
        if value is None and owner in self.instances:
            cls = self.instances[owner]
            value = self.constants.get(f"{cls}.{attribute}")
            for base in self.ancestors(cls) if value is None else []:
                value = self.constants.get(f"{base}.{attribute}", value)
        if value is None:
            self.unresolved_prefixes.add(name)
            return "{?" + name.rsplit(".", 1)[-1] + "}"
        return value

    def detect_entrypoints(self, files: list[CodeFile], extractors: dict[str, "CodeExtractor"]) -> None:
        """Entrypoints of every file, so a view gets its role even when its route is declared elsewhere."""
        self.entrypoints = {}
        for file in files:
            extractor = extractors.get(file.language)
            for entry in extractor.entrypoints(file, self) if extractor else []:
                handler = self.handler(entry.handler)
                self.entrypoints.setdefault(handler.qname if handler else entry.handler, []).append(entry)

    def queued_task(self, qname: str) -> str:
        """How the function `qname` is handed to a task queue somewhere in the repository, or ""."""
        if self._tasks is None:
            self._tasks = {}
            for item in self.queued:
                symbol = self.symbols.get(item["target"]) or self.handler(item["target"])
                if symbol:
                    self._tasks.setdefault(symbol.qname, f"queued by {item['via']} at {item['path']}:{item['line']}")
        return self._tasks.get(qname, "")

    def handler(self, ref: str) -> Symbol | None:
        """The symbol an entrypoint's handler names, also through a package's re-export: the console
        script `httpx = "httpx:main"` runs `httpx._main.main` when `httpx/__init__.py` imports it."""
        resolution, symbol = self.resolve(ref)
        return symbol if resolution == "resolved" else None

    def resolve(self, ref: str, *, via_bases: bool = False,
                external_roots=frozenset(), depth: int = 0) -> tuple[str, Symbol | None]:
        """("resolved", symbol), ("external", None) or ("unresolved", None) for a reference."""
        if via_bases:
            prefix, _, member = ref.rpartition(".")
            found = self.member(prefix, member, skip_self=True)
            return ("resolved", found) if found else ("unresolved", None)
        # A name a package imports hides its submodule of that name (`from .main import main`).
        if ref in self.symbols and (self.symbols[ref].kind != "module" or ref not in self.reexports):
            return "resolved", self.symbols[ref]
        exported = self.reexported(ref) if depth < 10 else ""
        if exported:
            return self.resolve(exported, external_roots=external_roots, depth=depth + 1)
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

    def reexported(self, ref: str) -> str:
        """`ref` through the names its longest module prefix imports (or takes with `import *`), or ""."""
        parts = ref.split(".")
        for cut in range(len(parts), 0, -1):
            head, rest = ".".join(parts[:cut]), parts[cut:]
            if head in self.symbols and self.symbols[head].kind != "module":
                return ""  # a class or function of the repository: its members are looked up on it
            target = self.reexports.get(head)
            if target is None and rest and head in self.star_exports:
                target = next((f"{source}.{rest[0]}" for source in self.star_exports[head]
                               if rest[0] in self.exported.get(source, [rest[0]])
                               and (f"{source}.{rest[0]}" in self.symbols or f"{source}.{rest[0]}" in self.reexports)),
                              None)
                rest = rest[1:]
            if target and target != head:
                return ".".join([target, *rest])
        return ""

    def resolve_import(self, ref: str, *, external_roots=frozenset()) -> tuple[str, Symbol | None, str]:
        """(resolution, the module imported, the name imported from it) for an import reference.

        `from app.core.db import engine` imports the module `app.core.db` (name `engine`); a
        reference that is not in a module of the repository is resolved like any other.
        """
        for module in (ref, f"{ref}.index"):  # `./components/Button` may be `Button/index.tsx`
            if module in self.modules:
                return "resolved", self.symbols.get(module), ""
        owner, _, name = ref.rpartition(".")
        for module in (owner, f"{owner}.index"):
            if module in self.modules:
                return "resolved", self.symbols.get(module), name
        resolution, target = self.resolve(ref, external_roots=external_roots)
        return resolution, target, ""

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

    def parse(self, path: str, text: str, module: str | None = None) -> CodeFile:
        """The file as a `CodeFile`; `module` is its module name (by default from its path)."""
        raise NotImplementedError

    def entrypoints(self, file: CodeFile, index: ProjectIndex) -> list[Entrypoint]:
        return []


class PlainTextExtractor(CodeExtractor):
    """Languages without a parser yet: C0 chunks of whole lines, nothing else."""

    language = "text"
    extensions = (".js", ".jsx", ".ts", ".tsx", ".go", ".rs", ".java", ".kt", ".rb", ".php", ".c", ".h",
                  ".cpp", ".cs", ".sh", ".sql", ".vue", ".svelte", ".swift", ".scala", ".lua", ".dart", ".ex", ".exs")

    def parse(self, path: str, text: str, module: str | None = None) -> CodeFile:
        language = PurePosixPath(path).suffix.lstrip(".")
        last_line = text.rstrip("\n").count("\n") + 1
        return CodeFile(path=path, module=module_name(path) if module is None else module, language=language,
                        text=text,
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
    """Lines `start..end` (1-based, inclusive) cut into runs of at most `max_chars` characters, each ending at a
    blank line where one is in its last half: a paragraph stays whole — a docstring's `:param hookwrapper:` with the
    text under it (pluggy's `HookimplMarker.__call__` was cut between them), a block of code with its comment."""
    lines = text.split("\n")
    chunks, first, size = [], start, 0
    number = start
    while number <= end:
        length = len(lines[number - 1]) + 1 if number <= len(lines) else 1
        if size and size + length > max_chars:
            last = _last_blank(lines, first, number - 1, size // 2)
            chunks.append(SourceChunk(first, last, chunk_type, qname))
            first, size, number = last + 1, 0, last + 1
            continue
        size += length
        number += 1
    if first <= end:
        chunks.append(SourceChunk(first, end, chunk_type, qname))
    return chunks


def _last_blank(lines: list[str], first: int, last: int, within: int) -> int:
    """The last of lines `first..last` (1-based) to end a run at: the last blank one within the run's last `within`
    characters, else `last`."""
    seen = 0
    for number in range(last, first, -1):
        if not lines[number - 1].strip():
            return number
        seen += len(lines[number - 1]) + 1
        if seen > within:
            break
    return last


ROUTE_PARAM = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>|\(\?P<([^>]+)>[^)]*\)|:(\w+)")


def route_key(path: str) -> str:
    """A route in one spelling for matching: `orders/<int:pk>/` and `/orders/{pk}` → `/orders/{pk}`."""
    path = path.strip().replace("^", "").replace("$", "")  # regex anchors, also after a mount prefix
    path = ROUTE_PARAM.sub(lambda m: "{" + next(g for g in m.groups() if g) + "}", path)
    return "/" + path.strip("/")
