"""Synthetic knowledge for the scale benchmark: clustered unit vectors and topic-flavoured text.

Vectors have the default embedder's dimension (384) and a two-level cluster structure (topics,
then sub-topics, then noise), like real embeddings; each chunk gets ~60 words drawn from a
Zipf-distributed vocabulary plus its topic's words. `synthetic_documents` and `copy_chunks` write
them the way a re-index does (documents in bulk, chunks by binary COPY), for bench/scale.py and
bench/load_filler.py.
"""

import numpy as np

DIM = 384
CHUNKS_PER_DOCUMENT = 100
WORDS_PER_CHUNK = 60
VOCABULARY = 20_000


class Corpus:
    """Clustered unit vectors and topic-flavoured text for one knowledge base."""

    def __init__(self, n: int, rng: np.random.Generator):
        self.rng = rng
        self.n_topics = max(4, n // 1000)
        self.topics = unit(rng.standard_normal((self.n_topics, DIM)))
        self.subtopics = unit(rng.standard_normal((self.n_topics, 20, DIM)))
        # Zipf-like word frequencies; every topic prefers 30 words of the middle of the vocabulary.
        ranks = np.arange(1, VOCABULARY + 1)
        word_p = (1 / ranks) / (1 / ranks).sum()
        self.word_pool = rng.choice(VOCABULARY, size=200_000, p=word_p)  # drawn once; sampling it is cheap
        self.topic_words = rng.integers(200, VOCABULARY, size=(self.n_topics, 30))

    def vectors(self, topics: np.ndarray) -> np.ndarray:
        sub = self.rng.integers(0, 20, size=len(topics))
        noise = self.rng.standard_normal((len(topics), DIM), dtype=np.float32) / np.float32(np.sqrt(DIM))
        return unit(self.topics[topics] + 0.7 * self.subtopics[topics, sub] + 0.6 * noise).astype(np.float32)

    def texts(self, topics: np.ndarray) -> list[str]:
        common = self.word_pool[self.rng.integers(0, len(self.word_pool), size=(len(topics), WORDS_PER_CHUNK - 15))]
        own = self.topic_words[topics][np.arange(len(topics))[:, None], self.rng.integers(0, 30, (len(topics), 15))]
        words = np.concatenate([common, own], axis=1)
        return [" ".join(f"w{w}" for w in row) for row in words]

    def query_text(self, topic: int) -> str:
        picks = [*self.rng.choice(self.topic_words[topic], 2, replace=False),
                 self.word_pool[self.rng.integers(0, len(self.word_pool))], self.rng.integers(0, VOCABULARY)]
        return " ".join(f"w{w}" for w in picks)


def unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def synthetic_documents(kb, uri_prefix: str, title: str, n_chunks: int, first: int = 0) -> list:
    """Ready documents of CHUNKS_PER_DOCUMENT chunks each, enough for `n_chunks`, numbered from `first`."""
    from django.utils import timezone

    from knowledge.models import Document

    now = timezone.now()
    return Document.objects.bulk_create([
        Document(knowledge_base=kb, source_kind="inline", source_uri=f"{uri_prefix}{first + i}", title=f"{title} {i}",
                 status="ready", chunk_count=CHUNKS_PER_DOCUMENT, ingested_at=now)
        for i in range(-(-n_chunks // CHUNKS_PER_DOCUMENT))], batch_size=2000)


COLUMNS = ("document_id", "knowledge_base_id", "position", "layer", "title", "section_path", "parent_heading",
           "content", "token_count", "language", "metadata", "enabled", "embedding")
TYPES = ["int8", "int8", "int4", "varchar", "varchar", "varchar", "varchar", "text", "int4", "varchar", "jsonb",
         "bool", "vector"]


def copy_chunks(kb, docs: list, start: int, texts: list[str], vectors: np.ndarray) -> None:
    """COPY (binary) chunks `start`, `start + 1`… of `kb`: chunk n is in docs[n // CHUNKS_PER_DOCUMENT]."""
    from django.db import connection
    from pgvector.psycopg import register_vector
    from psycopg.types.json import Jsonb

    register_vector(connection.connection)
    empty = Jsonb({})
    statement = f"COPY knowledge_chunk ({', '.join(COLUMNS)}) FROM STDIN WITH (FORMAT BINARY)"
    with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        copy.set_types(TYPES)
        for i, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
            position = start + i
            doc = docs[position // CHUNKS_PER_DOCUMENT]
            copy.write_row((doc.pk, kb.pk, position % CHUNKS_PER_DOCUMENT, "D0", doc.title, "", "", text,
                            WORDS_PER_CHUNK, "", empty, True, vector))
