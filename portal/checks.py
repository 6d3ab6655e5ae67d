"""System checks for configuration mistakes that would otherwise fail later, in a worker."""

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register
from django.db import connection
from django.db.utils import DatabaseError


@register(Tags.database)
def check_vector_extension(app_configs, databases=None, **kwargs):
    if not databases or "default" not in databases:
        return []
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
            available = cursor.fetchone() is not None
    except DatabaseError as exc:
        return [Error(f"Cannot query the database: {exc}", id="portal.E002")]
    if not available:
        return [Error("The PostgreSQL server has no 'vector' extension (pgvector).",
                      hint="Install pgvector on the server, or unset DATABASE_URL to use the embedded server.",
                      id="portal.E001")]
    return []


@register()
def check_settings(app_configs, **kwargs):
    from knowledge.indexing.embedding import REGISTRY

    problems = []
    name = settings.PORTAL["DEFAULT_EMBEDDER"]
    if name not in REGISTRY:
        problems.append(Error(f"PORTAL_DEFAULT_EMBEDDER={name!r} is not a known embedder",
                              hint=f"Use one of: {', '.join(sorted(REGISTRY))}", id="portal.E003"))
    q = settings.Q_CLUSTER
    if q["timeout"] >= q["retry"]:
        problems.append(Error("Q_CLUSTER timeout must be smaller than retry, or tasks run twice",
                              id="portal.E004"))
    if settings.PORTAL["JOB_HEARTBEAT_SECONDS"] >= settings.PORTAL["JOB_STALE_SECONDS"]:
        problems.append(Error("PORTAL_JOB_HEARTBEAT_SECONDS must be smaller than PORTAL_JOB_STALE_SECONDS",
                              hint="A live worker would look dead: the reaper fails its job, and another worker "
                                   "takes over the document it is still ingesting (knowledge/shares.py).",
                              id="portal.E006"))
    if settings.DATABASES["default"].get("OPTIONS", {}).get("server_side_binding"):
        problems.append(Error("server_side_binding is on for the default database",
                              hint="Search sends its HNSW settings and the query in one batch of statements, "
                                   "which needs Django's default client-side binding: remove the option.",
                              id="portal.E005"))
    if not settings.DEBUG and not settings.ALLOWED_HOSTS:
        problems.append(Warning("PORTAL_ALLOWED_HOSTS is empty", id="portal.W001"))
    return problems


@register()
def check_ocr(app_configs, **kwargs):
    from knowledge.indexing.parsing import ocr

    if not settings.PORTAL["OCR_ENABLED"]:
        return []
    problem = ocr.ocr_problem(ocr.DEFAULT_LANGUAGES)
    if problem:
        return [Warning(f"Scanned PDFs and images will not be read: {problem}",
                        hint="Install Tesseract, or set PORTAL_OCR=false to silence this.", id="portal.W002")]
    return []
