"""The URLs a crawl has yet to fetch: breadth-first, with the generated pages of each depth last.

A documentation generator links the pages it makes to list or search the others (Sphinx's
`genindex.html`, `py-modindex.html` and `search.html`, a sitemap page) from every page. A crawl
follows them but does not index them (`generated_page` in `knowledge.indexing.parsing.html`), so
with a small `max_pages` they would spend the budget before the content they list. A URL that
looks like one is fetched after the other pages found at its depth: deprioritised, never dropped.

It looks like one when its page name (the last part of its path, lower-cased, without the
extension; an index page takes its directory's name) is a name generators give such pages, or
the name of a page this crawl already recognised as generated: a generator names them alike in
every version and language of a site.
"""

import heapq
import itertools
from collections.abc import Iterator
from posixpath import splitext
from urllib.parse import unquote, urlsplit

# Sphinx (genindex, py-modindex, search), MkDocs (search, sitemap), Javadoc (index-all,
# allclasses-index, allpackages-index, overview-tree), Doxygen (globals).
GENERATED_NAMES = frozenset({
    "genindex", "modindex", "py-modindex", "search", "sitemap", "index-all", "allclasses", "allclasses-index",
    "allpackages-index", "overview-tree", "globals",
})
GENERATED_PREFIXES = ("genindex-",)  # Sphinx's index split by letter: genindex-A.html, genindex-all.html
INDEX_PAGES = frozenset({"index", "default"})


def page_name(url: str) -> str:
    """The last part of the URL's path, lower-cased, without its extension; "" for a site's root.
    An index page is named after its directory: "/search/index.html" and "/search/" are "search"."""
    parts = [part for part in unquote(urlsplit(url).path).lower().split("/") if part]
    if parts and splitext(parts[-1])[0] in INDEX_PAGES:
        parts.pop()
    return splitext(parts[-1])[0] if parts else ""


class Frontier:
    """URLs with their depth: the shallowest first; at one depth, content pages before the ones that
    look generated; otherwise in the order they were found."""

    def __init__(self) -> None:
        self._heap: list[tuple[int, bool, int, str]] = []
        self._order = itertools.count()
        self.names = set(GENERATED_NAMES)

    def looks_generated(self, url: str) -> bool:
        name = page_name(url)
        return name in self.names or name.startswith(GENERATED_PREFIXES)

    def push(self, url: str, depth: int) -> None:
        heapq.heappush(self._heap, (depth, self.looks_generated(url), next(self._order), url))

    def pop(self) -> tuple[str, int]:
        depth, _, _, url = heapq.heappop(self._heap)
        return url, depth

    def learn(self, url: str) -> None:
        """`url` turned out to be a generated page: waiting URLs of the same name go after the content too."""
        name = page_name(url)
        if not name or self.looks_generated(url):
            return
        self.names.add(name)
        self._heap = [(depth, later or page_name(waiting) == name, order, waiting)
                      for depth, later, order, waiting in self._heap]
        heapq.heapify(self._heap)

    def __len__(self) -> int:
        return len(self._heap)

    def __iter__(self) -> Iterator[tuple[str, int]]:
        """The waiting URLs in the order they would be fetched."""
        return ((url, depth) for depth, _, _, url in sorted(self._heap))
