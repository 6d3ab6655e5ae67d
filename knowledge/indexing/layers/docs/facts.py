"""D2 facts (subject, predicate, object) and D3 entities of a Markdown file."""

import re

from knowledge.indexing.layers.markdown import (
    BOLD_LABEL,
    INTEGRATIONS_TITLE,
    KEY_VALUE,
    SCENARIO_TITLE,
    SUMMARY_TITLE,
    TABLE_ROW,
    TABLE_RULE,
    ParsedDoc,
    Section,
    as_strings,
    as_text,
)
from knowledge.indexing.layers.rows import LayerRow, stable_id

MD_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
WIKI_LINK = re.compile(r"\[\[([^\]]+)\]\]")
CODE_REF = re.compile(r"^`([^`]+)`$")


# Frontmatter keys that are not facts: identity, and the keys D3/D5 turn into their own rows.
NOT_FACT_KEYS = {"id", "title", "aliases", "summary", "entities", "parent", "children", "links", "related",
                 "depends_on"}


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
    # A changelog's "- deps: qs@6.13.0" or "**Breaking**: …" notes a release's change: no fact about it.
    for section in _fact_sections(doc) if doc.doc_kind != "changelog" else []:
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
    entities = [(doc.doc_id, "document"), *frontmatter_entities(fm)]
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


def frontmatter_entities(fm: dict) -> list[tuple[str, str]]:
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
