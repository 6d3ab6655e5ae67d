"""Creating, changing and deleting knowledge bases together with their vector indexes."""

from django.conf import settings
from django.db import transaction
from django.utils.text import slugify

from knowledge.indexing import calibration, vector_index
from knowledge.indexing.embedding import get_embedder
from knowledge.models import Chunk, KnowledgeBase


def create_knowledge_base(*, name: str, slug: str = "", description: str = "", embedder: str = "",
                          **settings_overrides) -> KnowledgeBase:
    """Create a knowledge base and its HNSW index in one transaction.

    An embedder that states no similarity floor is calibrated first (`calibration`), outside the
    transaction: it may be a server across the network.
    """
    embedder_name = embedder or settings.PORTAL["DEFAULT_EMBEDDER"]
    floor = calibration.floor_for_new_base(embedder_name)
    with transaction.atomic():
        return _create(name, slug, description, embedder_name, floor, settings_overrides)


def _create(name: str, slug: str, description: str, embedder_name: str, floor: float | None,
            settings_overrides: dict) -> KnowledgeBase:
    kb = KnowledgeBase(
        similarity_floor=floor,
        name=name,
        slug=slug or slugify(name)[:100],
        description=description,
        embedder=embedder_name,
        embedding_dim=get_embedder(embedder_name).dim,
        text_search_config=settings_overrides.pop("text_search_config", settings.PORTAL["TEXT_SEARCH_CONFIG"]),
        chunk_size=settings_overrides.pop("chunk_size", settings.PORTAL["CHUNK_SIZE"]),
        chunk_overlap=settings_overrides.pop("chunk_overlap", settings.PORTAL["CHUNK_OVERLAP"]),
        chunk_min_size=settings_overrides.pop("chunk_min_size", settings.PORTAL["CHUNK_MIN_SIZE"]),
        **settings_overrides,
    )
    kb.full_clean()
    kb.save()
    vector_index.create_kb_index(kb.pk, kb.embedding_dim)
    return kb


EDITABLE_FIELDS = ("name", "slug", "description", "text_search_config", "chunk_size", "chunk_overlap",
                   "chunk_min_size", "ocr_languages")


def update_knowledge_base(kb: KnowledgeBase, **changes) -> KnowledgeBase:
    """Change a base's names or settings; chunking and language apply to documents after a re-index.

    The embedder is not among them: switching it re-embeds everything (`jobs.start_reindex`).
    """
    unknown = set(changes) - set(EDITABLE_FIELDS)
    if unknown:
        raise ValueError(f"Not editable here: {', '.join(sorted(unknown))}")
    for field, value in changes.items():
        setattr(kb, field, value)
    kb.full_clean()
    kb.save(update_fields=[*changes, "updated_at"])
    return kb


@transaction.atomic
def delete_knowledge_base(kb: KnowledgeBase) -> None:
    """Drop the base's index, then the base with its documents and chunks (and its shadows, likewise)."""
    for shadow in kb.shadows.all():
        delete_knowledge_base(shadow)
    vector_index.drop_kb_index(kb.pk)
    for document in kb.documents.exclude(original_file=""):
        document.original_file.delete(save=False)
    kb.delete()


@transaction.atomic
def switch_embedder(kb: KnowledgeBase, embedder_name: str) -> None:
    """Point the base at another embedder; existing vectors are cleared until re-embedded.

    The old vectors have another dimension and cannot share the new index, so they are dropped
    here (keyword search keeps working) and the index is rebuilt after the re-index job's bulk
    load, which is far faster than inserting into a live HNSW graph.
    """
    embedder = get_embedder(embedder_name)
    vector_index.drop_kb_index(kb.pk)
    Chunk.objects.filter(knowledge_base=kb).update(embedding=None)
    kb.embedder, kb.embedding_dim = embedder.name, embedder.dim
    kb.similarity_floor = calibration.floor_for_new_base(embedder_name)
    kb.save(update_fields=["embedder", "embedding_dim", "similarity_floor", "updated_at"])
