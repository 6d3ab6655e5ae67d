"""MDX pages (Docusaurus', Nextra's) in a repository are documentation: the Markdown between their components' tags,
every line where it was."""

import pytest

from knowledge.indexing.layers import store
from knowledge.indexing.mdx import mdx_as_markdown
from knowledge.models import Chunk
from tests.factories import make_kb

PAGE = """---
title: Installation
---
import Tabs from '@theme/Tabs';
import {
  TabItem,
} from '@theme/TabItem';
export const versions = {node: 18};

# Installation

{/* editors: keep the tabs in sync with the README */}

<Tabs groupId="package-manager">
<TabItem value="npm" label="npm > 7">

Install it with npm:

```bash
npm install kit
```

</TabItem>
<TabItem value="yarn" label="Yarn">

```bash
yarn add kit
```

</TabItem>
</Tabs>

<details>
<summary>Which Node.js versions?</summary>
Node.js 18 or later.
</details>
"""


def test_its_module_lines_tags_and_comments_are_left_out_line_for_line():
    read = mdx_as_markdown(PAGE)
    assert len(read.split("\n")) == len(PAGE.split("\n")), "every line where it was"
    for gone in ("import Tabs", "TabItem", "} from", "export const", "{/*", "<Tabs", "</Tabs>"):
        assert gone not in read, gone
    for kept in ("# Installation", "Install it with npm:", "npm install kit", "yarn add kit", "<details>",
                 "<summary>Which Node.js versions?</summary>", "title: Installation"):
        assert kept in read, kept
    # Code is as written, whatever it holds; a component inside a sentence leaves its text.
    code = "```js\nimport kit from 'kit';\n<Tabs />\n```"
    assert mdx_as_markdown(code) == code
    assert mdx_as_markdown('The <Highlight color="red">kit</Highlight> is small: see `<Tabs>`, and a < b.') == \
        "The kit is small: see `<Tabs>`, and a < b."


@pytest.mark.django_db
def test_a_repositorys_mdx_pages_are_documentation_layers(tmp_path):
    # A Docusaurus site's pages were not indexed at all: `.mdx` was no documentation.
    repo = tmp_path / "kit"
    (repo / "docs").mkdir(parents=True)
    (repo / "docs" / "installation.mdx").write_text(PAGE)
    kb = make_kb()
    store.index_repository(kb, repo)
    sections = Chunk.objects.filter(knowledge_base=kb, layer="D0",
                                    metadata__source_path="docs/installation.mdx").order_by("position")
    assert [section.section_path for section in sections] == ["Installation", "Installation > Which Node.js versions?"]
    text = "\n".join(section.content for section in sections)
    assert "Install it with npm:" in text and "npm install kit" in text and "Node.js 18 or later." in text
    assert "TabItem" not in text and "import" not in text
