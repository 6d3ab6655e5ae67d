"""D6 integrations of a Markdown file: sub-headings, bullets or a table."""

import re

from knowledge.indexing.layers.markdown import (
    BOLD_LABEL,
    INTEGRATIONS_TITLE,
    KEY_VALUE,
    LIST_MARKER,
    TABLE_ROW,
    TABLE_RULE,
    ParsedDoc,
    Section,
    as_text,
)
from knowledge.indexing.layers.rows import LayerRow, stable_id

INTEGRATION_KEYS = {
    "target": "target", "цель": "target", "система": "target",
    "target_type": "target_type", "type": "target_type", "тип": "target_type",
    "direction": "direction", "направление": "direction",
    "interaction": "interaction", "взаимодействие": "interaction",
    "via": "via", "channel": "via", "канал": "via", "протокол": "via",
    "purpose": "purpose", "назначение": "purpose", "зачем": "purpose",
}


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
