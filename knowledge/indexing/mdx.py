"""MDX (Markdown with JSX: Docusaurus', Nextra's and Storybook's documentation pages) read as the Markdown it is
written in, line for line: the ES module lines (`import Tabs from '@theme/Tabs';`, `export const meta = {…}`), the
lines that are only components' tags (`<Tabs>`, `<TabItem value="npm" label="npm">`, `</TabItem>`, `<Callout />`)
and JSX comments (`{/* … */}`) are left out, blank, so a citation's line is the file's; the Markdown between the tags
(a tab's text and its code) stays, and so does a component's text inside a sentence (`The <Highlight>kit</Highlight>
is small.`). Code blocks and spans are as written, and HTML's own tags (lower case: `<details>`) are left to the
Markdown reader.
"""

import re

from knowledge.indexing.markdown import fence_end, fence_opener, outside_code_spans

# An ES module statement at the margin; a multi-line one goes on to the line ending it (`from '…';`, or a closing `}`).
_MODULE_LINE = re.compile(r"(?:import|export)\b")
_MODULE_END = re.compile(r"""(?:\bfrom\s*['"][^'"]*['"]|^\s*import\s*['"][^'"]*['"]|[;}\])])\s*;?\s*$""")
# A line of components' tags only: `<Tabs groupId="pm">`, `</TabItem>`, `<Admonition type="tip" />` (a component's
# name opens with a capital or holds a dot, `<Tabs.Item>`; an attribute's value may hold `>` inside its quotes).
_TAG = r"""</?[A-Z][\w]*(?:\.[\w]+)*(?:\s+(?:[^<>"'{}]|"[^"]*"|'[^']*'|\{[^{}]*\})*)?/?>"""
_TAGS_LINE = re.compile(rf"\s*(?:{_TAG}\s*)+")
_INLINE_TAG = re.compile(_TAG)
_COMMENT = re.compile(r"\s*\{/\*.*?\*/\}\s*")


def mdx_as_markdown(text: str) -> str:
    """`text` (MDX) without its module lines, its lines of components' tags and its JSX comments: blank lines in
    their places."""
    lines = text.split("\n")
    out = list(lines)
    number = 0
    while number < len(lines):
        line = lines[number]
        if (marker := fence_opener(line)) is not None:
            number = fence_end(lines, number, marker) + 1  # code, as written
        elif _MODULE_LINE.match(line):
            end = number
            while end < len(lines) - 1 and not _MODULE_END.search(lines[end]) and lines[end + 1].strip():
                end += 1
            out[number:end + 1] = [""] * (end + 1 - number)
            number = end + 1
        else:
            if _TAGS_LINE.fullmatch(line) or _COMMENT.fullmatch(line):
                out[number] = ""
            elif "<" in line:  # a component inside a sentence: its text stays ("The <Highlight>kit</Highlight> is")
                out[number] = outside_code_spans(line, lambda text: _INLINE_TAG.sub("", text))
            number += 1
    return "\n".join(out)
