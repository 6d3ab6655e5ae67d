"""The shared HNSW index of every embedding dimension the bases use (knowledge/indexing/vector_index.py).

On an install with many chunks this builds one graph per dimension over all of them, with the
server's maintenance_work_mem; writers to the chunk table wait for it (readers do not).
"""

from django.db import migrations


def create_shared_indexes(apps, schema_editor):
    from knowledge.indexing import vector_index

    KnowledgeBase = apps.get_model("knowledge", "KnowledgeBase")
    for dim in sorted(set(KnowledgeBase.objects.values_list("embedding_dim", flat=True))):
        vector_index.ensure_shared_index(dim)


def drop_shared_indexes(apps, schema_editor):
    from knowledge.indexing import vector_index

    KnowledgeBase = apps.get_model("knowledge", "KnowledgeBase")
    for dim in sorted(set(KnowledgeBase.objects.values_list("embedding_dim", flat=True))):
        vector_index.drop_shared_index(dim)


class Migration(migrations.Migration):

    dependencies = [
        ("knowledge", "0013_job_items"),
    ]

    operations = [
        migrations.RunPython(create_shared_indexes, drop_shared_indexes),
    ]
