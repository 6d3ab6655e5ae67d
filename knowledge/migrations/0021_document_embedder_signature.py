import hashlib
import json

from django.db import migrations, models

# The versions the documents stored before this migration were built with (knowledge.indexing.parsing
# and chunking bumped them with it): a document whose configuration signature is theirs, with its base's
# embedder, holds that embedder's vectors.
PREVIOUS_VERSIONS = {"parser": "22", "chunker": "4"}


def _digest(parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:32]


def record_embedder_signatures(apps, schema_editor):
    """Give the documents built under the previous versions their base's embedder signature, so the rebuild
    the new versions ask for reuses their vectors (knowledge.indexing.chunks.reuse_vectors) instead of
    re-embedding every base. The same digests as chunks.config_signature and chunks.embedder_signature."""
    from knowledge.exceptions import EmbedderError
    from knowledge.indexing.embedding import get_embedder

    KnowledgeBase = apps.get_model("knowledge", "KnowledgeBase")
    Document = apps.get_model("knowledge", "Document")
    for kb in KnowledgeBase.objects.all():
        try:
            embedder = get_embedder(kb.embedder)
            vectors = [embedder.name, embedder.version, kb.embedding_dim]
        except (EmbedderError, ImportError):
            continue  # an embedder this installation cannot load: its documents re-embed, as before
        previous = _digest({**PREVIOUS_VERSIONS, "embedder": vectors, "fts": kb.text_search_config, "chunking": {
            "chunk_size": kb.chunk_size, "overlap": kb.chunk_overlap, "min_size": kb.chunk_min_size}})
        Document.objects.filter(knowledge_base=kb, config_signature=previous).update(
            embedder_signature=hashlib.sha256(json.dumps(vectors).encode()).hexdigest()[:32])


class Migration(migrations.Migration):

    dependencies = [
        ('knowledge', '0020_overlap_message'),
    ]

    operations = [
        migrations.AddField(
            model_name='document',
            name='embedder_signature',
            field=models.CharField(blank=True, help_text="Embedder (name, version, dimension) its chunks' vectors were made with.", max_length=64, verbose_name='embedder signature'),
        ),
        migrations.RunPython(record_embedder_signatures, migrations.RunPython.noop),
    ]
