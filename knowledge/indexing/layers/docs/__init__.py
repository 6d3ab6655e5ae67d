"""Documentation layers D0–D6 from one Markdown file with YAML frontmatter.

`build_doc_rows(path, text)` is the entry point; each layer has its module in this package
(`sections`: D0 and D1, `facts`: D2 and D3, `workflows`, `relations`, `integrations`). The body
is read once into heading sections (outside code fences); every layer is then a pure function of
the frontmatter and those sections:

* D0 one row per section with text (long sections split by `chunking.split_text`); a file with
  no headings at all falls back to fixed-size chunks.
* D1 one catalog card: frontmatter fields, `# Summary` as the summary, `doc_kind` from the path.
* D2 facts (subject, predicate, object): scalar frontmatter fields, `**Key**: value` and
  `- key: value` lines, and tables (two columns: document, key, value; wider: first cell, header, cell).
* D3 entities: frontmatter `entities` and the document's own id.
* D4 workflows from `## Сценарий` / `## Scenario` sections, with bold or heading field labels.
* D5 relations: parent, children, links, related, depends_on and entity mentions as edges.
* D6 integrations from `## Integrations` / `## Интеграции`: sub-headings, bullets or a table.
* And from ordinary Markdown (`ordinary`): D4 from "How to …" sections and numbered steps, D5 from
  links between pages, D6 from mentions of services, environment variables, URLs and ports.
"""

from knowledge.indexing.layers.docs import ordinary
from knowledge.indexing.layers.docs.facts import entity_rows, fact_rows
from knowledge.indexing.layers.docs.integrations import integration_rows
from knowledge.indexing.layers.docs.relations import relation_rows
from knowledge.indexing.layers.docs.sections import catalog_row, section_rows
from knowledge.indexing.layers.docs.workflows import workflow_rows
from knowledge.indexing.layers.markdown import classify_doc, parse_doc, read_sections
from knowledge.indexing.layers.rows import LayerRow

__all__ = ["build_doc_rows", "classify_doc", "parse_doc", "read_sections"]


def build_doc_rows(path: str, text: str, *, chunk_size: int = 2000, chunk_overlap: int = 200,
                   chunk_min_size: int = 200, untitled: str = "") -> list[LayerRow]:
    """All documentation layer rows (D0–D6) of one Markdown file; `untitled`: its title if it has none."""
    doc = parse_doc(path, text, untitled=untitled)
    integrations = integration_rows(doc)
    declared = {row.metadata["target"].lower() for row in integrations}
    return [
        *section_rows(doc, chunk_size=chunk_size, chunk_overlap=chunk_overlap, chunk_min_size=chunk_min_size),
        catalog_row(doc),
        *fact_rows(doc),
        *entity_rows(doc),
        *workflow_rows(doc),
        *ordinary.workflow_rows(doc),
        *relation_rows(doc),
        *ordinary.relation_rows(doc),
        *integrations,
        *(row for row in ordinary.integration_rows(doc) if row.metadata["target"].lower() not in declared),
    ]
