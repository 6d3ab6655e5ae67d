"""A dry run of ingestion: how a file would be parsed and cut into chunks by a knowledge base's
settings, with nothing stored and nothing embedded."""

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from knowledge import uploads
from knowledge.exceptions import KnowledgeError
from knowledge.indexing import chunking, parsing
from knowledge.models import KnowledgeBase


@dataclass
class PreviewChunk:
    position: int
    section_path: str
    page: int | None
    token_count: int
    content: str


@dataclass
class Preview:
    name: str
    title: str
    mime: str
    char_count: int
    chunks: list[PreviewChunk] = field(default_factory=list)


def preview_upload(kb: KnowledgeBase, upload) -> Preview:
    """Parse `upload` (a file with `.name`, `.size`, `.chunks()`) and chunk its text as `kb` would.

    Raises `KnowledgeError` naming the file when the upload policy refuses it or it cannot be parsed.
    """
    name = Path(upload.name).name
    if refusal := uploads.check_upload(name, upload.size):
        raise KnowledgeError(f"{name}: {refusal.reason}")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        with open(path, "wb") as handle:
            for piece in upload.chunks():
                handle.write(piece)
        parsed = parsing.parse_file(path)
    pieces = chunking.split_text(parsed.text, **kb.chunking)
    return Preview(name=name, title=parsed.title or name, mime=parsed.mime, char_count=len(parsed.text), chunks=[
        PreviewChunk(position=n, section_path=piece.section_path, token_count=chunking.token_estimate(piece.content),
                     page=parsing.page_at(parsed.pages, piece.start) if parsed.pages else None, content=piece.content)
        for n, piece in enumerate(pieces)])
