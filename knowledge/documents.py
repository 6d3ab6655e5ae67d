"""Plain data shapes passed between parsing, chunking and ingestion."""

from dataclasses import dataclass, field


@dataclass
class ParsedDocument:
    """What a parser extracted from a file.

    `text` is Markdown-flavoured plain text: headings as `#` lines so the chunker can build heading
    paths. `pages` maps character offsets in `text` to page numbers: a list of
    `(start_offset, page_number)` pairs in ascending order (PDF only; empty otherwise).
    """

    text: str
    title: str
    mime: str
    metadata: dict = field(default_factory=dict)
    pages: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class TextChunk:
    """One chunk cut from a text: `content == text[start:end]` of the text it came from."""

    content: str
    start: int
    end: int
    heading_path: list[str] = field(default_factory=list)

    @property
    def section_path(self) -> str:
        return " > ".join(self.heading_path)
