"""Webhook signatures: `X-Portal-Signature: t=<unix time>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.

The timestamp is inside the signed text, so an old delivery cannot be replayed with a new time;
receivers refuse timestamps older than a few minutes and remember delivery ids they have handled
(the `X-Portal-Delivery` header, the same for every retry of one delivery).
"""

import hashlib
import hmac
import time

HEADER = "X-Portal-Signature"
TOLERANCE_SECONDS = 300


def sign(secret: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def verify(secret: str, header: str, body: bytes, *, tolerance: int = TOLERANCE_SECONDS,
           now: float | None = None) -> bool:
    """True when `header` signs `body` with `secret` and is at most `tolerance` seconds old."""
    parts = dict(item.split("=", 1) for item in header.split(",") if "=" in item)
    try:
        timestamp = int(parts["t"])
    except (KeyError, ValueError):
        return False
    if abs((time.time() if now is None else now) - timestamp) > tolerance:
        return False
    return hmac.compare_digest(sign(secret, timestamp, body), f"t={timestamp},v1={parts.get('v1', '')}")
