"""The share of the searched chunks holding each term of a question: what keyword search weighs terms by.

Keyword search lets only the terms held by fewer than `COMMON_TERM_SHARE` of the chunks pick
candidates, and weighs each term by ln(1 / its share) (`retrieval._keyword_candidates`). The
shares are the bases' own (`TermStatistics`, taken by the worker as documents change:
`knowledge/indexing/term_statistics.py`), so a base's weights do not move when another base is
added to the database. Each process reads a base's statistics once and again when the base's
`term_statistics_at` changes (every search reads the base rows; the API's remembered rows are read
again after any change to a base: `portal.access`). Over several bases, a term's share is its
share of all their chunks, each base counted by its size. A lexeme a base's statistics do not list
is in one sampled chunk at most, or, when the list was cut at its length, half as common as the
rarest one listed.

A base whose statistics were never taken (created a moment ago, filled in bulk, or from before
them) makes the whole search weigh its terms as before: by ANALYZE's statistics of the whole chunk
table, read every few minutes.
"""

import time
from dataclasses import dataclass

from knowledge.indexing import term_statistics
from knowledge.models import TermStatistics
from knowledge.search import sql
from portal.access import Remembered

# Lexemes of all the bases' statistics a process keeps (a base has at most 2,000): 100 bases' worth,
# ≈ 25 MB at most; the least recently searched bases are read again when needed.
LEXEMES_REMEMBERED = 200_000
TABLE_SHARES_SECONDS = 300


@dataclass(frozen=True)
class BaseShares:
    chunks: int
    shares: dict[str, float]
    unlisted: float


def shares(cursor, kbs, lexemes: list[str]) -> dict[str, float] | None:
    """Each distinct lexeme's share of the bases' chunks (in the order given), or None when there are no
    statistics to weigh by."""
    if not lexemes:
        return None
    per_base = base_shares(kbs)
    if per_base is None:
        table = _table_shares(cursor)
        if not table:
            return None
        unlisted = min(table.values()) / 2
        return {lexeme: table.get(lexeme, unlisted) for lexeme in lexemes}
    total = sum(base.chunks for base in per_base)
    if not total:
        return None
    return {lexeme: sum(base.chunks * base.shares.get(lexeme, base.unlisted) for base in per_base) / total
            for lexeme in lexemes}


_remembered = Remembered(LEXEMES_REMEMBERED, weight=lambda base: len(base.shares))


def base_shares(kbs) -> list[BaseShares] | None:
    """Each base's statistics, or None when one of the bases has none."""
    if any(kb.term_statistics_at is None for kb in kbs):
        return None
    found = {kb.pk: _remembered.get(kb.pk, kb.term_statistics_at) for kb in kbs}
    if missing := [kb for kb in kbs if found[kb.pk] is None]:
        rows = TermStatistics.objects.filter(pk__in=[kb.pk for kb in missing]).values_list(
            "pk", "chunks", "sampled", "lexemes")
        read = {kb_id: _from_row(chunks, sampled, lexemes) for kb_id, chunks, sampled, lexemes in rows}
        for kb in missing:
            if kb.pk not in read:
                return None
            found[kb.pk] = read[kb.pk]
            _remembered.put(kb.pk, kb.term_statistics_at, read[kb.pk])
    return list(found.values())


def _from_row(chunks: int, sampled: int, lexemes: dict[str, int]) -> BaseShares:
    if not sampled:
        return BaseShares(0, {}, 0.0)
    listed = {lexeme: count / sampled for lexeme, count in lexemes.items()}
    # Unless the list is full, every lexeme in two sampled chunks or more is in it, so one not listed is in
    # one at most; not listed in a full list, it is rarer than the rarest listed (taken as half as common).
    cut = len(listed) >= term_statistics.LEXEMES_KEPT
    return BaseShares(chunks, listed, min(listed.values()) / 2 if cut else 1 / sampled)


_UNREAD = {"at": float("-inf"), "values": {}}
# Never read is "at" minus infinity, not 0: the monotonic clock counts from the machine's boot, and a
# process started in its first minutes would have gone without them until then.
_table: dict = dict(_UNREAD)


def forget() -> None:
    """Read every statistic again on the next search, as a new process does."""
    _table.update(_UNREAD)
    _remembered.clear()


def _table_shares(cursor) -> dict[str, float]:
    """ANALYZE's most-common-lexeme shares for the whole chunk table, re-read every few minutes."""
    if time.monotonic() - _table["at"] > TABLE_SHARES_SECONDS:
        cursor.execute(sql.LEXEME_FREQUENCIES)
        _table.update(at=time.monotonic(), values={lexeme: float(freq) for lexeme, freq in cursor.fetchall()})
    return _table["values"]
