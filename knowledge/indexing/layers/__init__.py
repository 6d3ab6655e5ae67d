"""The layered index of seed 004: documentation layers D0–D6 and code layers C0–C4.

Each layer row becomes one `Chunk` with `layer` set and the layer's attributes in
`Chunk.metadata`; `content` is a readable rendering that the embedder and full-text search read.

* `markdown`    reading a Markdown file: frontmatter, heading sections, document kind.
* `docs`        Markdown with YAML frontmatter → D0 sections … D6 integrations.
* `code`        source files → C0 chunks, C1 symbols, C2 edges, C3 entrypoints, C4 roles;
                one extractor per language (`python`: the standard `ast` module).
* `repository`  a folder, a git checkout or a zip; the commit sha and the files changed since a commit.
* `store`       turns rows into chunks and stores them per document atomically.

The query side, which plans which layers and filters a question needs, is `knowledge.search.intent`
(plans) and `knowledge.search.planned` (running them).
"""

from knowledge.indexing.layers.rows import CODE_LAYERS, DOC_LAYERS, LAYER_NAMES, LayerRow

__all__ = ["CODE_LAYERS", "DOC_LAYERS", "LAYER_NAMES", "LayerRow"]
