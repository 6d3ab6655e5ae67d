"""gunicorn settings for `bin/serve`, the production web server, read from the environment.

Worker processes each load the app (no preload: a forked copy of the master's database
connections and embedder would be shared by accident). With the embedded server, the master
attaches to it before the workers start (`on_starting`), so it stays up while workers are
recycled and stops when the master exits.
"""

import os

from portal.env import env_int, env_str

bind = [address.strip() for address in env_str("PORTAL_BIND", "127.0.0.1:8000").split(",") if address.strip()]
workers = env_int("PORTAL_WEB_WORKERS", 2, minimum=1)
# Threads per worker: requests wait on PostgreSQL and the embedder's lock, so a few threads keep
# a process busy; the embedder itself runs one query at a time per process.
threads = env_int("PORTAL_WEB_THREADS", 4, minimum=1)
# gthread, shedding requests that waited too long for a thread with 503 (portal/web_worker.py).
worker_class = "portal.web_worker.SheddingThreadWorker"
timeout = env_int("PORTAL_WEB_TIMEOUT", 60, minimum=1)
graceful_timeout = env_int("PORTAL_WEB_GRACEFUL_TIMEOUT", 30, minimum=1)
keepalive = env_int("PORTAL_WEB_KEEPALIVE", 5, minimum=0)
# Connections one worker holds open at most (idle keep-alive ones included); the rest wait in the
# listen queue (`backlog`), whose overflow the kernel refuses: memory stays bounded.
worker_connections = env_int("PORTAL_WEB_MAX_CONNECTIONS", 200, minimum=1)
backlog = env_int("PORTAL_WEB_BACKLOG", 2048, minimum=1)
# Recycle workers now and then (with jitter, so they do not all restart at once).
max_requests = env_int("PORTAL_WEB_MAX_REQUESTS", 10000, minimum=0)
max_requests_jitter = max_requests // 10
# Request-line and header limits against oversized requests (bodies: DATA_UPLOAD_MAX_MEMORY_SIZE).
limit_request_line = 8190
limit_request_fields = 100
accesslog = env_str("PORTAL_WEB_ACCESS_LOG") or None
errorlog = "-"
loglevel = env_str("PORTAL_LOG_LEVEL", "INFO").lower()
proc_name = "portal-web"
# No runtime control socket: one fixed path per user would be shared by every server on the machine.
control_socket_disable = True
wsgi_app = "portal.wsgi:application"
raw_env = [f"DJANGO_SETTINGS_MODULE={os.environ.get('DJANGO_SETTINGS_MODULE', 'portal.settings')}"]


def on_starting(server) -> None:
    """Load the settings in the master: with no DATABASE_URL, this starts (or attaches to) the
    embedded server and keeps it up for as long as the master runs. No connection stays open."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
    import django

    django.setup()
