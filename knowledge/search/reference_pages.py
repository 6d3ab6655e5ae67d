"""A page of API reference that only names the code it documents, read as that code.

MkDocs projects write their API reference as pages of mkdocstrings identifiers: validators' docs/api/ip_address.md is
"# ip_address" over `::: validators.ip_address.ipv4` and `::: validators.ip_address.ipv6`, which the site renders
from the docstrings. Indexed, such a page is its title alone — nothing an extract can quote — yet its title is what a
question names: "How do I validate an IP address?" found three such pages first and was refused, the docstrings
of `ipv4` and `ipv6` ("Returns whether a given value is a valid IPv4 address.") left out. In the sources, a page of
identifiers only takes the place of the code they name (`with_named_code`): each function's or class's first source
chunk, in the page's order; a page naming modules is dropped.
"""

import re

from knowledge.models import Chunk
from knowledge.search import retrieval
from knowledge.search.hits import SearchHit

# A mkdocstrings identifier: `::: package.module.name` on a line of its own (its options, indented YAML, below it).
_IDENTIFIER = re.compile(r"^:::[ \t]+([A-Za-z_][\w.]*)[ \t]*$", re.MULTILINE)
# What a page of identifiers holds besides them: headings, blank lines, the identifiers' indented options.
_NOTHING_ELSE = re.compile(r"#{1,6}[ \t].*|[ \t]+\S.*|[ \t]*")
# The symbols one page stands for at most.
MOST_NAMED = 3


def named_code(hit: SearchHit) -> list[str]:
    """The qualified names a section of documentation only names (mkdocstrings' `::: name` lines under its headings);
    [] for a section with text of its own."""
    text = hit.content or ""
    if hit.layer != "D0" or ":::" not in text:
        return []
    names = _IDENTIFIER.findall(text)
    rest = _IDENTIFIER.sub("", text).split("\n")
    return names if names and all(_NOTHING_ELSE.fullmatch(line) for line in rest) else []


def with_named_code(hits: list[SearchHit], kb_ids) -> list[SearchHit]:
    """`hits` with each section that only names code in its place, as the source chunks of what it names (each its
    first chunk; a module, or a name no chunk is the symbol of, is dropped); hits kept once, in order."""
    named = {hit.chunk_id: names[:MOST_NAMED] for hit in hits if (names := named_code(hit))}
    if not named:
        return hits
    wanted = {name for names in named.values() for name in names}
    first: dict[str, int] = {}
    # (A module named whole is its members' page: its own chunk says what the module is, "Humanizing functions for
    # numbers.", which answers no question the page was found for; the page is dropped.)
    rows = (Chunk.objects.filter(knowledge_base_id__in=list(kb_ids), enabled=True, layer="C0",
                                 metadata__qname__in=sorted(wanted))
            .exclude(metadata__chunk_type="module")
            .order_by("document_id", "position").values_list("metadata__qname", "id"))
    for qname, chunk_id in rows:
        first.setdefault(qname, chunk_id)
    code = {hit.chunk_id: hit for hit in retrieval.hits_of(list(first.values()))}
    placed, seen = [], set()
    for hit in hits:
        for each in ([code[first[name]] for name in named[hit.chunk_id] if first.get(name) in code]
                     if hit.chunk_id in named else [hit]):
            if each.chunk_id not in seen:
                seen.add(each.chunk_id)
                placed.append(each)
    return placed
