"""Documentation layers D0–D6 from one Markdown file with YAML frontmatter.

`build_doc_rows(path, text)` is the entry point. The body is read once into heading sections
(outside code fences); every layer is then a pure function of the frontmatter and those sections:

* D0 one row per section with text (long sections split by `chunking.split_text`); a file with
  no headings at all falls back to fixed-size chunks.
* D1 one catalog card: frontmatter fields, `# Summary` as the summary, `doc_kind` from the path.
* D2 facts (subject, predicate, object): scalar frontmatter fields, `**Key**: value` and
  `- key: value` lines, and tables (two columns: document, key, value; wider: first cell, header, cell).
* D3 entities: frontmatter `entities` and the document's own id.
* D4 workflows from `## Сценарий` / `## Scenario` sections, with bold or heading field labels.
* D5 relations: parent, children, links, related, depends_on and entity mentions as edges.
* D6 integrations from `## Integrations` / `## Интеграции`: sub-headings, bullets or a table.
"""

import re

from knowledge.indexing import chunking
from knowledge.indexing.layers.markdown import (
    BOLD_LABEL,
    INTEGRATIONS_TITLE,
    KEY_VALUE,
    LIST_MARKER,
    SCENARIO_TITLE,
    SUMMARY_TITLE,
    TABLE_ROW,
    TABLE_RULE,
    ParsedDoc,
    Section,
    as_strings,
    as_text,
    classify_doc,
    leading_blank_lines,
    line_of,
    parse_doc,
    read_sections,
)
from knowledge.indexing.layers.rows import LayerRow, stable_id

__all__ = ["build_doc_rows", "classify_doc", "parse_doc", "read_sections"]

MD_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
WIKI_LINK = re.compile(r"\[\[([^\]]+)\]\]")
CODE_REF = re.compile(r"^`([^`]+)`$")

# Frontmatter keys that are not facts: identity, and the keys D3/D5 turn into their own rows.
NOT_FACT_KEYS = {"id", "title", "aliases", "summary", "entities", "parent", "children", "links", "related",
                 "depends_on"}
RELATION_KEYS = {"parent": "parent", "children": "child", "links": "links_to", "related": "related",
                 "depends_on": "depends_on"}

WORKFLOW_FIELDS = {
    "name": ("название", "name", "имя"),
    "preconditions": ("предусловия", "предусловие", "preconditions", "precondition"),
    "trigger": ("триггер", "trigger", "событие"),
    "main_flow": ("основной сценарий", "основной поток", "main flow", "main scenario",
                  "main success scenario"),
    "alternative_flow": ("альтернативный сценарий", "альтернативные сценарии", "альтернативный поток",
                         "alternative flow", "alternative flows", "alternative scenario"),
    "error_handling": ("обработка ошибок", "ошибки", "error handling", "errors", "exceptions"),
    "postconditions": ("постусловие", "постусловия", "postconditions", "postcondition"),
}
WORKFLOW_LABELS = {label: name for name, labels in WORKFLOW_FIELDS.items() for label in labels}
WORKFLOW_SCALARS = ("name", "trigger")

INTEGRATION_KEYS = {
    "target": "target", "цель": "target", "система": "target",
    "target_type": "target_type", "type": "target_type", "тип": "target_type",
    "direction": "direction", "направление": "direction",
    "interaction": "interaction", "взаимодействие": "interaction",
    "via": "via", "channel": "via", "канал": "via", "протокол": "via",
    "purpose": "purpose", "назначение": "purpose", "зачем": "purpose",
}


def build_doc_rows(path: str, text: str, *, chunk_size: int = 2000, chunk_overlap: int = 200,
                   chunk_min_size: int = 200) -> list[LayerRow]:
    """All documentation layer rows (D0–D6) of one Markdown file."""
    doc = parse_doc(path, text)
    return [
        *section_rows(doc, chunk_size=chunk_size, chunk_overlap=chunk_overlap, chunk_min_size=chunk_min_size),
        catalog_row(doc),
        *fact_rows(doc),
        *entity_rows(doc),
        *workflow_rows(doc),
        *relation_rows(doc),
        *integration_rows(doc),
    ]


# --- D0 ---------------------------------------------------------------------------------------------


def section_rows(doc: ParsedDoc, *, chunk_size: int, chunk_overlap: int,
                 chunk_min_size: int) -> list[LayerRow]:
    """D0: one row per section with text; fixed-size chunks when the body has no headings."""
    settings = {"chunk_size": chunk_size, "overlap": chunk_overlap, "min_size": chunk_min_size}
    rows: list[LayerRow] = []

    def add(section: Section | None, content: str, start: int, end: int) -> None:
        path, title = (section.section_path, section.title) if section else ("", "")
        meta = {**doc.meta(), "section_path": path, "section_title": title, "order": len(rows)}
        rows.append(LayerRow("D0", doc.title, content, meta, section_path=path, span_start=start,
                             span_end=end))

    if not any(s.level for s in doc.sections):
        for piece in chunking.split_text(doc.body, **settings):
            add(None, piece.content, line_of(doc.body, piece.start, doc.body_line),
                line_of(doc.body, piece.end - 1, doc.body_line))
        return rows
    for section in doc.sections:
        text = section.text
        if not text:
            continue
        heading = f"{'#' * section.level} {section.title}\n\n" if section.level else ""
        if len(text) <= chunk_size:
            add(section, heading + text, section.line, section.end_line)
            continue
        # Offsets in `text` map to file lines once the leading blank lines of the body are counted.
        first = section.line + 1 + leading_blank_lines(section.body)
        for piece in chunking.split_text(text, **settings):
            add(section, heading + piece.content, line_of(text, piece.start, first),
                line_of(text, piece.end - 1, first))
    return rows


# --- D1 ---------------------------------------------------------------------------------------------


def catalog_row(doc: ParsedDoc) -> LayerRow:
    """D1: the document's card; its content is the summary, not the whole document."""
    fm = doc.frontmatter
    summary = next((s.text for s in doc.sections if SUMMARY_TITLE.match(s.title)), "")
    summary = " ".join(summary.split()) or _first_paragraph(doc)
    meta = {
        "document_id": doc.doc_id,
        "type": as_text(fm.get("type")),
        "name": as_text(fm.get("name")),
        "title": doc.title,
        "aliases": as_strings(fm.get("aliases")),  # other names the router recognises (any language)
        "module": as_text(fm.get("module")),
        "domain": as_text(fm.get("domain")),
        "subdomain": as_text(fm.get("subdomain")),
        "layer": as_text(fm.get("layer")),
        "status": as_text(fm.get("status")),
        "updated_at": as_text(fm.get("updated_at")),
        "tags": as_strings(fm.get("tags")),
        "entities": [name for name, _ in _entities(fm)],
        "parent": as_text(fm.get("parent")),
        "children": as_strings(fm.get("children")),
        "links": [target for target, _ in _links(fm.get("links"))],
        "source_path": doc.path,
        "summary_text": summary,
        "doc_kind": doc.doc_kind,
        "artifact_type": "DOCS",
    }
    content = f"{doc.title}\n\n{summary}" if summary else doc.title
    last_line = doc.body_line + doc.body.rstrip().count("\n")
    return LayerRow("D1", doc.title, content, meta, span_start=1, span_end=last_line)


def _first_paragraph(doc: ParsedDoc) -> str:
    for section in doc.sections:
        for paragraph in re.split(r"\n\s*\n", section.text):
            if paragraph.strip():
                return " ".join(paragraph.split())[:500]
    return ""


# --- D2 ---------------------------------------------------------------------------------------------


def fact_rows(doc: ParsedDoc) -> list[LayerRow]:
    """D2: one row per (subject, predicate, object)."""
    facts = []  # (subject, predicate, object, anchor, line)
    for key, value in doc.frontmatter.items():
        if key in NOT_FACT_KEYS:
            continue
        for item in (value if isinstance(value, list) else [value]):
            if item not in (None, "", [], {}) and not isinstance(item, dict):
                facts.append((doc.doc_id, key, as_text(item), f"frontmatter.{key}", 1))
    for section in _fact_sections(doc):
        facts.extend(_section_facts(doc, section))
    rows = []
    for subject, predicate, obj, anchor, line in facts:
        meta = {
            "fact_id": stable_id(doc.path, subject, predicate, obj),
            "subject_id": subject,
            "predicate": predicate,
            "object": obj,
            "object_ref": _reference(obj),
            "anchor": anchor,
            "tags": as_strings(doc.frontmatter.get("tags")),
            "document_id": doc.doc_id,
            "source_path": doc.path,
        }
        rows.append(LayerRow("D2", doc.title, f"{subject} {predicate}: {obj}", meta,
                             section_path="" if anchor.startswith("frontmatter.") else anchor,
                             span_start=line, span_end=line))
    return rows


def _fact_sections(doc: ParsedDoc) -> list[Section]:
    """Sections whose lines are read for facts: not the summary, scenarios or integrations."""
    skipped: set[int] = set()
    for section in doc.sections:
        if SCENARIO_TITLE.match(section.title) or INTEGRATIONS_TITLE.match(section.title):
            skipped.update(id(s) for s in [section, *doc.descendants(section)])
        elif SUMMARY_TITLE.match(section.title):
            skipped.add(id(section))
    return [s for s in doc.sections if id(s) not in skipped]


def _section_facts(doc: ParsedDoc, section: Section) -> list[tuple]:
    facts = []
    table: list[list[str]] = []
    table_line = 0
    for offset, line in enumerate(section.body + [""], start=1):
        number = section.line + offset
        row = TABLE_ROW.match(line)
        if row:
            if not table:
                table_line = number
            if not TABLE_RULE.match(line):
                table.append([cell.strip() for cell in row.group(1).split("|")])
            continue
        if table:
            facts.extend(_table_facts(doc, section, table, table_line))
            table = []
        match = BOLD_LABEL.match(line) or KEY_VALUE.match(line)
        if match:
            key = (match.groupdict().get("label") or match.group("key")).strip()
            value = (match.groupdict().get("rest") or match.groupdict().get("value") or "").strip()
            if value:
                facts.append((doc.doc_id, _predicate(key), value, section.section_path, number))
    return facts


def _table_facts(doc: ParsedDoc, section: Section, table: list[list[str]], line: int) -> list[tuple]:
    header, rows = table[0], table[1:]
    facts = []
    for index, cells in enumerate(rows, start=1):
        # A two-column table of short keys is the document's own key/value list; otherwise each row
        # is about its first cell (a sentence makes a poor predicate).
        if len(header) == 2 and len(cells) >= 2 and len(cells[0]) <= 40 and len(cells[0].split()) <= 5:
            facts.append((doc.doc_id, _predicate(cells[0]), cells[1], section.section_path, line + index + 1))
            continue
        for column, value in zip(header[1:], cells[1:], strict=False):
            if value and cells[0]:
                facts.append((cells[0], _predicate(column), value, section.section_path, line + index + 1))
    return facts


def _predicate(label: str) -> str:
    return "_".join(label.strip().strip(":").lower().split())


def _reference(value: str) -> str:
    """The target a fact's object points at, when it is written as a link or a code reference."""
    for pattern in (MD_LINK, WIKI_LINK):
        match = pattern.search(value)
        if match:
            return match.group(1)
    match = CODE_REF.match(value.strip())
    return match.group(1) if match else ""


# --- D3 ---------------------------------------------------------------------------------------------


def entity_rows(doc: ParsedDoc) -> list[LayerRow]:
    """D3: the document's own id and every entity its frontmatter names."""
    fm = doc.frontmatter
    entities = [(doc.doc_id, "document"), *_entities(fm)]
    rows = []
    for name, entity_type in entities:
        meta = {
            "entity_name": name,
            "entity_type": entity_type,
            "document_id": doc.doc_id,
            "document_type": as_text(fm.get("type")),
            "module": as_text(fm.get("module")),
            "domain": as_text(fm.get("domain")),
            "subdomain": as_text(fm.get("subdomain")),
            "tags": as_strings(fm.get("tags")),
            "source_path": doc.path,
        }
        rows.append(LayerRow("D3", doc.title, f"{name} ({entity_type}) — {doc.title}", meta))
    return rows


def _entities(fm: dict) -> list[tuple[str, str]]:
    """(name, type) pairs from `entities`: plain strings or mappings with `name`/`id` and `type`."""
    found = []
    for item in fm.get("entities") or []:
        if isinstance(item, dict):
            name = as_text(item.get("name") or item.get("id"))
            if name:
                found.append((name, as_text(item.get("type")) or "entity"))
        elif as_text(item):
            found.append((as_text(item), "entity"))
    return found


# --- D4 ---------------------------------------------------------------------------------------------


def workflow_rows(doc: ParsedDoc) -> list[LayerRow]:
    """D4: one row per `Сценарий`/`Scenario` section, its labelled parts as attributes."""
    rows = []
    for section in doc.sections:
        match = SCENARIO_TITLE.match(section.title)
        if not match:
            continue
        fields = _workflow_fields(section, doc.descendants(section))
        name = fields.get("name") or match.group("name").strip() or doc.title
        nested = doc.descendants(section)
        meta = {
            "workflow_id": stable_id(doc.doc_id, name, section.section_path),
            "document_id": doc.doc_id,
            "workflow_name": name,
            "preconditions": fields.get("preconditions", []),
            "trigger": fields.get("trigger", ""),
            "main_flow": fields.get("main_flow", []),
            "alternative_flow": fields.get("alternative_flow", []),
            "error_handling": fields.get("error_handling", []),
            "postconditions": fields.get("postconditions", []),
            "source_path": doc.path,
            "anchor": section.section_path,
        }
        end = (nested[-1] if nested else section).end_line
        rows.append(LayerRow("D4", name, render_workflow(meta), meta, section_path=section.section_path,
                             span_start=section.line, span_end=end))
    return rows


def _workflow_fields(section: Section, nested: list[Section]) -> dict:
    collected: dict[str, list[str]] = {}
    current = None
    lines = list(section.body)
    for sub in nested:
        lines.append(f"**{sub.title}**:")  # a `### Триггер` sub-heading is a label too
        lines.extend(sub.body)
    for line in lines:
        match = BOLD_LABEL.match(line)
        label = match and WORKFLOW_LABELS.get(" ".join(match.group("label").lower().split()))
        if label:
            current = label
            rest = match.group("rest").strip()
            collected[current] = [part.strip() for part in rest.split(";") if part.strip()] if rest else []
        elif current and line.strip():
            collected[current].append(LIST_MARKER.sub("", line).strip())
    fields: dict = {}
    for name, values in collected.items():
        fields[name] = " ".join(values) if name in WORKFLOW_SCALARS else values
    return fields


def render_workflow(meta: dict) -> str:
    parts = [f"Workflow: {meta['workflow_name']}"]
    labels = (("Preconditions", "preconditions"), ("Trigger", "trigger"), ("Main flow", "main_flow"),
              ("Alternative flow", "alternative_flow"), ("Error handling", "error_handling"),
              ("Postconditions", "postconditions"))
    for label, key in labels:
        value = meta[key]
        if isinstance(value, list) and value:
            parts.append(f"{label}:\n" + "\n".join(f"- {item}" for item in value))
        elif value:
            parts.append(f"{label}: {value}")
    return "\n".join(parts)


# --- D5 ---------------------------------------------------------------------------------------------


def relation_rows(doc: ParsedDoc) -> list[LayerRow]:
    """D5: edges from the frontmatter (parent, children, links, …) and entity mentions."""
    edges = []
    for key, relation in RELATION_KEYS.items():
        value = doc.frontmatter.get(key)
        targets = _links(value) if key == "links" else [(t, relation) for t in as_strings(value)]
        edges.extend((target, kind if key == "links" else relation, f"frontmatter.{key}")
                     for target, kind in targets)
    edges.extend((name, "mentions", "frontmatter.entities") for name, _ in _entities(doc.frontmatter))
    rows = []
    for target, relation, anchor in edges:
        meta = {
            "relation_id": stable_id(doc.doc_id, target, relation, anchor),
            "source_id": doc.doc_id,
            "relation_type": relation,
            "target_id": target,
            "anchor": anchor,
            "document_id": doc.doc_id,
            "source_path": doc.path,
        }
        rows.append(LayerRow("D5", doc.title, f"{doc.doc_id} {relation} {target}", meta))
    return rows


def _links(value) -> list[tuple[str, str]]:
    """(target, relation) pairs from `links`: strings, or mappings with a target and a type."""
    found = []
    for item in value if isinstance(value, list) else ([value] if value else []):
        if isinstance(item, dict):
            target = as_text(item.get("id") or item.get("target") or item.get("url") or item.get("href"))
            if target:
                found.append((target, as_text(item.get("type") or item.get("rel")) or "links_to"))
        elif as_text(item):
            found.append((as_text(item), "links_to"))
    return found


# --- D6 ---------------------------------------------------------------------------------------------


def integration_rows(doc: ParsedDoc) -> list[LayerRow]:
    """D6: one row per integration listed under `## Integrations`."""
    rows = []
    for section in doc.sections:
        if not INTEGRATIONS_TITLE.match(section.title):
            continue
        nested = doc.descendants(section)
        found = _integrations_from_table(section) or _integrations_from_bullets(section)
        found += [_integration_from_lines(sub.title, sub.body, sub) for sub in nested]
        rows.extend(_integration_row(doc, item) for item in found if item["target"])
    return rows


def _integration_row(doc: ParsedDoc, item: dict) -> LayerRow:
    fm, anchor = doc.frontmatter, item.pop("anchor")
    section, line, end = item.pop("section"), item.pop("line"), item.pop("end")
    meta = {
        "integration_id": stable_id(doc.doc_id, item["target"], anchor),
        "source_id": doc.doc_id,
        "source_type": as_text(fm.get("doc_type") or fm.get("type")),
        **item,
        "domain": as_text(fm.get("domain")),
        "subdomain": as_text(fm.get("subdomain")),
        "source_path": doc.path,
        "anchor": anchor,
    }
    return LayerRow("D6", f"{doc.title} → {item['target']}", render_integration(doc.title, meta), meta,
                    section_path=section, span_start=line, span_end=end)


def _integration_from_lines(target: str, lines: list[str], section: Section) -> dict:
    item = {"target": target, "target_type": "", "direction": "", "interaction": "", "via": "", "purpose": "",
            "details": {}}
    description = []
    for line in lines:
        match = KEY_VALUE.match(line) or BOLD_LABEL.match(line)
        groups = match.groupdict() if match else {}
        key = match and " ".join((groups.get("key") or groups.get("label")).lower().split())
        value = match and (groups.get("value") or groups.get("rest") or "").strip()
        if match and key in INTEGRATION_KEYS:
            item[INTEGRATION_KEYS[key]] = value
        elif match and value:
            item["details"]["_".join(key.split())] = value
        elif line.strip():
            description.append(LIST_MARKER.sub("", line).strip())
    if description:
        item["details"]["description"] = " ".join(description)
    item.update(anchor=section.section_path, section=section.section_path, line=section.line,
                end=section.end_line)
    return item


def _integrations_from_bullets(section: Section) -> list[dict]:
    """`- **Target** free text` bullets with indented `- key: value` bullets under each."""
    items, current, lines = [], None, []
    for line in section.body + ["- "]:
        top = re.match(r"^[-*+]\s+(.*)$", line)
        if top:
            if current:
                items.append(_integration_from_lines(current[0], current[1] + lines, section))
            title = top.group(1).strip()
            bold = re.match(r"^\*\*([^*]+)\*\*\s*[:—–-]?\s*(.*)$", title)
            current = (bold.group(1).strip(), [bold.group(2)]) if bold else ((title, []) if title else None)
            lines = []
        elif current:
            lines.append(line)
    for item in items:
        item["anchor"] = f"{section.section_path} > {item['target']}"
    return items


def _integrations_from_table(section: Section) -> list[dict]:
    rows = [[c.strip() for c in m.group(1).split("|")] for line in section.body
            if (m := TABLE_ROW.match(line)) and not TABLE_RULE.match(line)]
    if len(rows) < 2:
        return []
    header = [" ".join(h.lower().split()) for h in rows[0]]
    if "target" not in [INTEGRATION_KEYS.get(h) for h in header]:
        return []
    items = []
    for cells in rows[1:]:
        lines = [f"- {name}: {value}" for name, value in zip(header, cells, strict=False) if value]
        item = _integration_from_lines("", lines, section)
        item["anchor"] = f"{section.section_path} > {item['target']}"
        items.append(item)
    return items


def render_integration(title: str, meta: dict) -> str:
    head = f"Integration of {title} with {meta['target']}"
    if meta["target_type"]:
        head += f" ({meta['target_type']})"
    parts = [head]
    for label, key in (("Direction", "direction"), ("Interaction", "interaction"), ("Via", "via"),
                       ("Purpose", "purpose")):
        if meta[key]:
            parts.append(f"{label}: {meta[key]}")
    parts.extend(f"{key}: {value}" for key, value in meta["details"].items())
    return "\n".join(parts)
