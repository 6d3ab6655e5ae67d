"""Hand edits to a document's chunks: new text for one chunk, a chunk taken out of search, a chunk
added by hand (a Q/A entry, a missing fact).

Each edit embeds only the chunk it touches (never its document again) and writes the chunk, its
vector and its full-text vector in one short transaction, so search reflects it at once. Tickets
keep their own snapshots of the text they cited (`tickets.TicketSource`), so an edit never rewrites
an answer already given; the ticket page shows the source as changed instead.

Chunks added by hand are marked `metadata["manual"]` and survive a rebuild of their document from its
source (`chunks.replace_chunks`); edits to parsed chunks last until the source itself changes.
"""

from django.db import transaction
from django.db.models import Max
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from knowledge.exceptions import KnowledgeError
from knowledge.indexing import chunking
from knowledge.indexing.chunks import embed_chunks
from knowledge.indexing.search_text import chunk_search_vector
from knowledge.models import Chunk, Document

MAX_CHUNK_CHARS = 20_000


def _clean(content: str) -> str:
    content = content.strip()
    if not content:
        raise KnowledgeError(_("A chunk needs some text"))
    if len(content) > MAX_CHUNK_CHARS:
        raise KnowledgeError(_("A chunk holds at most %(limit)s characters; this text has %(count)s") % {
            "limit": number_format(MAX_CHUNK_CHARS, force_grouping=True),
            "count": number_format(len(content), force_grouping=True)})
    return content


def _index_text(chunk: Chunk) -> None:
    """Recompute the chunk's full-text vector the way `replace_chunks` does for a whole document."""
    config = chunk.knowledge_base.text_search_config
    Chunk.objects.filter(pk=chunk.pk).update(
        search_vector=chunk_search_vector(chunk.document.title, config))


def edit_chunk(chunk: Chunk, content: str) -> Chunk:
    """Give one chunk new text: re-embedded and re-indexed on its own, searchable as soon as this returns."""
    chunk.content = _clean(content)
    chunk.token_count = chunking.token_estimate(chunk.content)
    chunk.metadata = {**chunk.metadata, "edited": True}
    chunk.embedding = None  # a vector is reused when present (chunks.embed_chunks): this one is stale
    embed_chunks(chunk.knowledge_base, [chunk])  # slow part, outside the transaction
    with transaction.atomic():
        chunk.save(update_fields=["content", "token_count", "metadata", "embedding"])
        _index_text(chunk)
    return chunk


@transaction.atomic
def add_chunk(document: Document, *, content: str, section_path: str = "") -> Chunk:
    """A chunk written by hand, appended to the document's own chunks and searchable at once."""
    kb = document.knowledge_base
    chunk = Chunk(document=document, knowledge_base=kb, layer="D0", title=document.title,
                  section_path=section_path.strip()[:1000], content=_clean(content), metadata={"manual": True})
    chunk.parent_heading = chunk.section_path.rsplit(" > ", 1)[-1][:500]
    chunk.token_count = chunking.token_estimate(chunk.content)
    embed_chunks(kb, [chunk])
    # Lock the document: a rebuild of its chunks must not interleave with the new position.
    Document.objects.select_for_update().filter(pk=document.pk).first()
    last = document.chunks.filter(layer="D0").aggregate(last=Max("position"))["last"]
    chunk.position = 0 if last is None else last + 1
    chunk.save()
    _index_text(chunk)
    Document.objects.filter(pk=document.pk).update(chunk_count=document.chunks.count())
    return chunk
