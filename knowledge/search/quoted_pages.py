"""The page a citation names: where the quoted text is, not where its chunk starts.

A chunk of a PDF or a scan may run over a page break; it keeps the first words of each page that
starts inside it (`metadata["page_breaks"]`: `[[page, words], …]`, `knowledge.indexing.chunks`).
The sentence an answer quotes before a source's marker is looked up, as its words, among that
source's words (`words.same_words`: no markup, punctuation or bullets), and the page whose first
words come last before it is the page cited. A sentence not found (a chat model's own words) cites
the page the chunk starts on, as before.
"""

import dataclasses

from knowledge.search.citations import MARKER, marker_numbers
from knowledge.search.words import same_words

_PROBE = 40  # characters of a quoted sentence's words looked for among its source's


def with_quoted_pages(text: str, sources: list) -> list:
    """`sources` (search hits, numbered from 1) with each cited one's page the page its quoted text is on."""
    quoted = _first_quotes(text)
    pages = [_page(hit, quoted.get(number, "")) for number, hit in enumerate(sources, start=1)]
    return [hit if page == hit.page else dataclasses.replace(hit, page=page) for hit, page in zip(sources, pages)]


def _first_quotes(text: str) -> dict[int, str]:
    """{source number: the first sentence quoted before one of its markers}."""
    quotes, start = {}, 0
    for match in MARKER.finditer(text or ""):
        before = text[start:match.start()]
        start = match.end()
        sentence = before.strip().split("\n")[-1]
        for number in marker_numbers(match[1]):
            if sentence and number not in quotes:
                quotes[number] = sentence
    return quotes


def _page(hit, sentence: str) -> int | None:
    breaks = (hit.metadata or {}).get("page_breaks")
    if not breaks or not sentence or hit.page is None:
        return hit.page
    content = same_words(hit.content)
    at = content.find(same_words(sentence)[:_PROBE])
    if at < 0:
        return hit.page
    page = hit.page
    for number, words in breaks:
        found = content.find(same_words(words))
        if 0 <= found <= at:
            page = number
    return page
