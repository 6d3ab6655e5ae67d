"""Code layer rows C0–C4 from the language-neutral model of `code.py`, once the project is indexed.

C0 source chunks, C1 symbols, C2 edges (references resolved against the `ProjectIndex`), C3
entrypoints (routes, commands, scripts, with the path they are served at) and C4 semantic roles.
"""

import re

from knowledge.indexing.layers.code import (
    CodeExtractor,
    CodeFile,
    Entrypoint,
    ProjectIndex,
    Symbol,
    route_key,
)
from knowledge.indexing.layers.docstrings import doc_summary
from knowledge.indexing.layers.rows import LayerRow, stable_id

# --- C0–C3 -------------------------------------------------------------------------------------------


def build_code_rows(file: CodeFile, index: ProjectIndex, extractor: CodeExtractor) -> list[LayerRow]:
    """All code layer rows (C0–C4) of one parsed file, resolved against the project."""
    entrypoints = extractor.entrypoints(file, index)
    return [
        *chunk_rows(file),
        *symbol_rows(file),
        *edge_rows(file, index),
        *entrypoint_rows(file, entrypoints, index),
        *role_rows(file, index),
        *env_rows(file),
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
            "kind": symbol.kind,  # module, class, function, method, constant, variable
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
        imported = ""
        if ref.edge_type == "imports":
            resolution, target, imported = index.resolve_import(ref.dst_ref, external_roots=ref.external_roots)
        else:
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
            **({"imported_name": imported} if imported else {}),
            # The top package an import reads from: "who imports click" finds `from click import echo` too.
            **({"dst_root": ref.dst_ref.split(".")[0]} if ref.edge_type == "imports" else {}),
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
        handler = index.handler(entry.handler)
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
            "handler_symbol": handler.qname if handler else entry.handler,
            "declaring_symbol": entry.declaring_symbol,
            "entrypoint_kind": entry.entrypoint_kind,
            "http_method": entry.http_method,
            "route_path": entry.route_path,
            "mounted_path": served,
            "route_key": route_key(served) if http else "",
            "unresolved_prefix": "{?" in served,
            "declared_route_key": route_key(entry.route_path) if http else "",
            "decorator_text": entry.decorator_text,
            "summary_text": _summary(entry, handler, index),
            "is_test": file.is_test,
            "lang_payload": entry.lang_payload,
            "source_path": file.path,
            "artifact_type": "CODE",
        }
        end = handler.line_end if handler and handler.path == file.path else entry.line
        rows.append(LayerRow("C3", f"{entry.framework}: {entry.route_or_command}", render_entrypoint(meta),
                             meta, section_path=meta["handler_symbol"], span_start=entry.line, span_end=end,
                             language=file.language))
    return rows


def _summary(entry, handler, index: ProjectIndex) -> str:
    """What an entrypoint says it does: its handler's docstring, else (a command) its class's, which for a
    Django management command is its `help`."""
    if handler and handler.docstring:
        return handler.docstring
    declaring = index.symbols.get(entry.declaring_symbol) if entry.entry_type == "cli" else None
    return declaring.docstring if declaring else ""


def env_rows(file: CodeFile) -> list[LayerRow]:
    """D6: one row per environment variable (`os.getenv("X")`, `process.env.X`) or Django setting
    (`settings.X`) the file reads, as the documentation's D6 has one per variable a page mentions, with
    every line that reads it."""
    rows = []
    for kind, target_type, reads_of in (("environment variable", "env_var", file.extra.get("env", [])),
                                        ("setting", "setting", file.extra.get("settings", []))):
        found: dict[str, list[dict]] = {}
        for read in reads_of:
            found.setdefault(read["name"], []).append(read)
        rows.extend(_read_row(file, kind, target_type, name, reads) for name, reads in found.items())
    return rows


def _read_row(file: CodeFile, kind: str, target_type: str, name: str, reads: list[dict]) -> LayerRow:
    source = file.module or file.path
    first = reads[0]
    symbols = list(dict.fromkeys(read["symbol"] for read in reads))
    meta = {
        # A setting and a variable of one name read by one file are two rows.
        "integration_id": stable_id(file.path, name, "reads", *([target_type] if target_type != "env_var" else [])),
        "source_id": source, "source_type": "module",
        "target": name, "target_type": target_type, "direction": "inbound", "interaction": "reads",
        "via": first["via"], "purpose": "",
        "details": {"lines": [read["line"] for read in reads], "symbols": symbols,
                    "via": list(dict.fromkeys(read["via"] for read in reads))},
        "domain": "", "subdomain": "", "anchor": symbols[0], "line": first["line"], "is_test": file.is_test,
        "source_path": file.path, "artifact_type": "CODE",
    }
    where = ", ".join(f"{file.path}:{read['line']}" for read in reads[:5])
    line = file.text.split("\n")[first["line"] - 1].strip()[:200]
    content = (f"{source} reads the {kind} {name} ({first['via']}) in {', '.join(symbols[:5])} at {where}\n{line}")
    return LayerRow("D6", f"{source} → {name}", content, meta, section_path=symbols[0],
                    span_start=first["line"], span_end=reads[-1]["line"], language=file.language)


def render_entrypoint(meta: dict) -> str:
    if meta["entry_type"] == "http":
        head = meta["route_or_command"]
        if route_key(meta["route_path"]) != meta["route_key"]:
            head += f" (declared as {meta['route_path']})"
    else:
        head = f"{meta['entry_type']} {meta['route_or_command']}"
    target = meta["handler_symbol"] or meta["decorator_text"]  # an npm script without a file runs a command
    text = f"{head} → {target} ({meta['framework']} {meta['entrypoint_kind']})"
    return f"{text}\n{meta['summary_text']}" if meta["summary_text"] else text


# --- C4 ---------------------------------------------------------------------------------------------

# Base classes (by the end of their dotted name) that give a class its role.
ROLE_BASES = (
    ("model", ("db.models.Model", "models.Model", "db.models.base.Model", "declarative_base",
               "DeclarativeBase", "orm.DeclarativeBase", "DeclarativeBaseNoMeta")),
    ("schema", ("pydantic.BaseModel", "ninja.Schema", "ninja.ModelSchema", "forms.Form", "forms.ModelForm",
                "serializers.Serializer", "serializers.ModelSerializer", "marshmallow.Schema",
                "typing.TypedDict", "TypedDict")),
    ("config", ("pydantic_settings.BaseSettings", "BaseSettings")),
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
            role = {"http": "api_handler", "cli": "cli_command", "page": "view"}.get(entry.entry_type, "script")
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
            "summary_text": doc_summary(symbol.docstring),  # what it is for, as an answer says it
            "package_or_module": symbol.module,
            "is_test": file.is_test,
            "source_path": file.path,
            "artifact_type": "CODE",
        }
        role = ordered[0].replace("_", " ")
        head = f"{symbol.qname} is {'an' if role[0] in 'aeio' else 'a'} {role} ({symbol.kind})"
        content = "\n".join([head, *meta["evidence"]])
        rows.append(LayerRow("C4", symbol.qname, content, meta, section_path=symbol.qname,
                             span_start=symbol.line_start, span_end=symbol.line_end, language=file.language))
    return rows


def symbol_roles(file: CodeFile, symbol: Symbol, index: ProjectIndex) -> list[tuple[str, str]]:
    """Roles a symbol has by itself: its bases, decorators, name and module."""
    found = []
    if symbol.qname in file.extra.get("roles", {}):  # given by the extractor (React components, DTOs)
        found.append(file.extra["roles"][symbol.qname])
    if symbol.kind == "class":
        for base in [*symbol.bases, *index.ancestors(symbol.qname)]:
            for role, suffixes in ROLE_BASES:
                if any(base == s or base.endswith("." + s) for s in suffixes) or (
                        role == "exception" and re.search(r"(Error|Exception)$", base)):
                    found.append((role, f"inherits {base}"))
        sqlmodel = [b for b in [*symbol.bases, *index.ancestors(symbol.qname)] if b.endswith("SQLModel")]
        if sqlmodel:  # SQLModel is a table with `table=True`, else a schema (pydantic)
            table = "table=True" in symbol.signature
            found.append(("model" if table else "schema", f"inherits {sqlmodel[0]}" + (", table=True" * table)))
        if "dataclass" in {d.split("(")[0].rsplit(".", 1)[-1] for d in symbol.decorators}:
            found.append(("data", "@dataclass"))
    for decorator in symbol.decorators:
        name = decorator.split("(")[0]
        if TASK_DECORATORS.search(name):
            found.append(("task", f"@{decorator}"))
        if name.endswith("fixture"):
            found.append(("test_fixture", f"@{decorator}"))
    if symbol.kind in ("function", "method") and index.queued_task(symbol.qname):
        found.append(("task", index.queued_task(symbol.qname)))
    elif symbol.kind == "function" and file.module.rsplit(".", 1)[-1] == "tasks" and not symbol.name.startswith("_") \
            and not file.extra.get("queue_api"):  # `django_q.tasks.async_task` queues tasks; it is none
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
