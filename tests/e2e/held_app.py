"""A WSGI app for the web worker's tests: holds each request `?seconds` (default 0), answers its process id
(and the serving thread's in the `X-Thread` header)."""

import os
import threading
import time
from urllib.parse import parse_qs

from django.conf import settings

if not settings.configured:
    settings.configure(USE_I18N=False)  # the worker's 503 for a shed request translates its message


def application(environ, start_response):
    seconds = float(parse_qs(environ.get("QUERY_STRING", "")).get("seconds", ["0"])[0])
    time.sleep(min(seconds, 10))
    body = str(os.getpid()).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body))),
                              ("X-Thread", str(threading.get_ident()))])
    return [body]
