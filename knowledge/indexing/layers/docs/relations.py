"""D5 relations of a Markdown file: frontmatter links and entity mentions as edges."""

from knowledge.indexing.layers.docs.facts import frontmatter_entities
from knowledge.indexing.layers.markdown import (
    ParsedDoc,
    as_strings,
    as_text,
)
from knowledge.indexing.layers.rows import LayerRow, stable_id

RELATION_KEYS = {"parent": "parent", "children": "child", "links": "links_to", "related": "related",
                 "depends_on": "depends_on"}


# --- D5 ---------------------------------------------------------------------------------------------

def relation_rows(doc: ParsedDoc) -> list[LayerRow]:
    """D5: edges from the frontmatter (parent, children, links, …) and entity mentions."""
    edges = []
    for key, relation in RELATION_KEYS.items():
        value = doc.frontmatter.get(key)
        targets = relation_links(value) if key == "links" else [(t, relation) for t in as_strings(value)]
        edges.extend((target, kind if key == "links" else relation, f"frontmatter.{key}")
                     for target, kind in targets)
    edges.extend((name, "mentions", "frontmatter.entities") for name, _ in frontmatter_entities(doc.frontmatter))
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


def relation_links(value) -> list[tuple[str, str]]:
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
