"""What an API request may reach — its key, the bases it may search — remembered between requests,
never stale.

Every request reads its key by token and every search the bases the key may search. Both change
rarely (an admin revokes a key, limits it to other bases, adds or edits a base), yet reading them
cost two statements and ≈ 0.65 ms of each request on the bench machine. Each process keeps what
it read, tagged with the *access version*: one row (`AccessVersion`) that database triggers set
to a new number from a sequence, in the same transaction as any change to an API key other than
its last use, to a key's base limits, or to a knowledge base (migrations portal 0009, knowledge
0016). A request reads the version first — in the statement that counts it against its key's
rate limit when the key is remembered, in the one that reads the key when it is not — and uses
what is remembered only when it is tagged with that version. So a
revoked key, or a base taken from a key, is refused by the very next request in every process,
exactly as without the memory. What is remembered was read after the version it is tagged
with, so it can only be newer than that version; numbers are never reused (a rolled-back change
leaves a gap). Expiry, the IP allow-list and scopes are checked on every request, as before.

A key's limits (the bases it is limited to, which its other endpoints check) are read and
remembered with it. Only keys that authenticated are remembered (a flood of bad tokens fills
nothing), and both memories are bounded. Each request gets fresh model instances built from the remembered values.
"""

import hmac
import threading
from collections import OrderedDict

from django.db import models

from portal import rate_limit, rows
from portal.models import TOKEN_PREFIX, AccessVersion, ApiKey, hash_token

KEYS_REMEMBERED = 1000
# Rows, not lists: a client asking for many different lists of up to 100 bases stays within a few MB.
BASE_ROWS_REMEMBERED = 20000
_VERSION = f"SELECT value FROM {AccessVersion._meta.db_table} WHERE id = 1"
_PK = [field.attname for field in ApiKey._meta.concrete_fields].index("id")
_LIMITS = ApiKey.knowledge_bases.through._meta.db_table


class Remembered:
    """A bounded, thread-safe map of `key → (version, values)`, least recently used dropped first.

    `size` bounds the sum of the entries' weights (`weight(values)`; 1 each by default)."""

    def __init__(self, size: int, weight=lambda values: 1) -> None:
        self.size, self.weight, self._items, self._lock = size, weight, OrderedDict(), threading.Lock()
        self._total = 0

    def get(self, key, version: int | None) -> tuple | list | None:
        """The values remembered for `key` at `version`, or None."""
        if version is None:
            return None
        with self._lock:
            found = self._items.get(key)
            if found is None or found[0] != version:
                return None
            self._items.move_to_end(key)
            return found[1]

    def put(self, key, version: int | None, values) -> None:
        if version is None:
            return
        weight = max(1, self.weight(values))
        with self._lock:
            if (old := self._items.pop(key, None)) is not None:
                self._total -= old[2]
            self._items[key] = (version, values, weight)
            self._total += weight
            while self._total > self.size:
                self._total -= self._items.popitem(last=False)[1][2]

    def peek(self, key) -> tuple | list | None:
        """The values remembered for `key` at any version (to be checked with `get`), or None."""
        found = self._items.get(key)
        return None if found is None else found[1]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._total = 0


keys = Remembered(KEYS_REMEMBERED)
base_lists = Remembered(BASE_ROWS_REMEMBERED, weight=len)


def current_version() -> int | None:
    """The access version now; None when its row is missing (a flushed test database): remember nothing."""
    found = rows.fetch(_VERSION, [])
    return found[0][0] if found else None


def key_for_token(token: str) -> ApiKey | None:
    """The key a bearer token belongs to, whatever its state, or None.

    Set on it: `.access_version`, `.knowledge_base_ids` (its limits, read with it), and for a
    remembered key `.request_number`: it is counted against its rate limit by the statement that
    reads the version (for `ApiKeyThrottle`), one statement for both; `.rate_counted` says whether it
    was (its number is None when the store failed)."""
    parts = token.split("_")
    if len(parts) != 3 or parts[0] != TOKEN_PREFIX:
        return None
    digest = hash_token(token)
    number, counted = None, False
    if (remembered := keys.peek(digest)) is not None:
        number, version = rate_limit.count_request(remembered[0][_PK], read_too=f"({_VERSION})")
        counted = True
        if version is None:  # counted in Redis, or the store failed
            version = current_version()
        if (remembered := keys.get(digest, version)) is not None:
            return _key(*remembered, version, number, counted)
    # The key, the version and the key's limits in one statement: one snapshot, one round trip.
    found = rows.fetch(f"SELECT {rows.select_list(ApiKey, 'k')}, ({_VERSION}), "
                       f"ARRAY(SELECT l.knowledgebase_id FROM {_LIMITS} l WHERE l.apikey_id = k.id ORDER BY 1) "
                       f"FROM {ApiKey._meta.db_table} k WHERE k.prefix = %s", [parts[1]])
    if not found:
        return None
    values, version, limits = found[0][:-2], found[0][-2], tuple(found[0][-1])
    key = _key(values, limits, version, number, counted)
    if not hmac.compare_digest(key.hashed_secret, digest):
        return None
    keys.put(digest, version, (values, limits))
    return key


def remember_use(token: str, key: ApiKey) -> None:
    """After `key.touch()` wrote its last use: the remembered key has it too (else it writes again)."""
    limits = tuple(sorted(key.knowledge_base_ids or ()))
    keys.put(hash_token(token), getattr(key, "access_version", None), (rows.values(key), limits))


def bases(key: ApiKey, model: type[models.Model], ids: list[int] | None, statement: tuple[str, dict]) -> list:
    """The instances of `statement`'s rows — the bases `key` may search among `ids` — remembered per key and ids.

    Without an access version on `key` (not read by `key_for_token`) the statement is simply run."""
    version = getattr(key, "access_version", None)
    name = (key.pk, None if ids is None else tuple(sorted(ids)))
    remembered = base_lists.get(name, version)
    if remembered is None:
        remembered = rows.fetch(*statement)
        base_lists.put(name, version, remembered)
    return [rows.instance(model, values) for values in remembered]


def _key(values: tuple, limits: tuple, version: int | None, number: int | None, counted: bool) -> ApiKey:
    key = rows.instance(ApiKey, values)
    key.access_version, key.request_number, key.rate_counted = version, number, counted
    key.knowledge_base_ids = set(limits) or None  # the cached property, already known
    return key
