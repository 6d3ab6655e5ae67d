"""A real Redis server on 127.0.0.1 for the tests of the Redis broker and cache (Debian's redis-server)."""

import shutil
import socket
import subprocess
import tempfile
import time
from contextlib import contextmanager
from importlib.util import find_spec

AVAILABLE = bool(shutil.which("redis-server") and find_spec("redis"))
WHY_NOT = "needs Debian's redis-server and the redis package (bin/test installs both when it runs as root)"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def running_redis():
    """Start a throw-away Redis (no persistence) and yield its URL; stopped on exit."""
    import redis

    port = _free_port()
    folder = tempfile.mkdtemp(prefix="portal-redis-")
    process = subprocess.Popen(
        ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
         "--dir", folder], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"redis-server did not start: {process.stderr.read().decode()[-500:]}") from None
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)
