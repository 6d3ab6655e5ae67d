"""D4 workflows from the scenario sections of a Markdown file."""

from knowledge.indexing.layers.markdown import (
    BOLD_LABEL,
    LIST_MARKER,
    SCENARIO_TITLE,
    ParsedDoc,
    Section,
)
from knowledge.indexing.layers.rows import LayerRow, stable_id

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
