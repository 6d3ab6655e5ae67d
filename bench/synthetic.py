"""Synthetic knowledge for the scale benchmark: clustered unit vectors and topic-flavoured text.

Vectors have the default embedder's dimension (384) and a two-level cluster structure (topics,
then sub-topics, then noise), like real embeddings; each chunk gets ~60 words drawn from a
Zipf-distributed vocabulary plus its topic's words.
"""

import numpy as np

DIM = 384
WORDS_PER_CHUNK = 60
VOCABULARY = 20_000


class Corpus:
    """Clustered unit vectors and topic-flavoured text for one knowledge base."""

    def __init__(self, n: int, rng: np.random.Generator):
        self.rng = rng
        self.n_topics = max(4, n // 1000)
        self.topics = _unit(rng.standard_normal((self.n_topics, DIM)))
        self.subtopics = _unit(rng.standard_normal((self.n_topics, 20, DIM)))
        # Zipf-like word frequencies; every topic prefers 30 words of the middle of the vocabulary.
        ranks = np.arange(1, VOCABULARY + 1)
        word_p = (1 / ranks) / (1 / ranks).sum()
        self.word_pool = rng.choice(VOCABULARY, size=200_000, p=word_p)  # drawn once; sampling it is cheap
        self.topic_words = rng.integers(200, VOCABULARY, size=(self.n_topics, 30))

    def vectors(self, topics: np.ndarray) -> np.ndarray:
        sub = self.rng.integers(0, 20, size=len(topics))
        noise = self.rng.standard_normal((len(topics), DIM), dtype=np.float32) / np.float32(np.sqrt(DIM))
        return _unit(self.topics[topics] + 0.7 * self.subtopics[topics, sub] + 0.6 * noise).astype(np.float32)

    def texts(self, topics: np.ndarray) -> list[str]:
        common = self.word_pool[self.rng.integers(0, len(self.word_pool), size=(len(topics), WORDS_PER_CHUNK - 15))]
        own = self.topic_words[topics][np.arange(len(topics))[:, None], self.rng.integers(0, 30, (len(topics), 15))]
        words = np.concatenate([common, own], axis=1)
        return [" ".join(f"w{w}" for w in row) for row in words]

    def query_text(self, topic: int) -> str:
        picks = [*self.rng.choice(self.topic_words[topic], 2, replace=False),
                 self.word_pool[self.rng.integers(0, len(self.word_pool))], self.rng.integers(0, VOCABULARY)]
        return " ".join(f"w{w}" for w in picks)


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)
