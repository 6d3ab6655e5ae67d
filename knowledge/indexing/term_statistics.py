"""Taking a base's term statistics (`TermStatistics`): how many of its chunks hold each lexeme.

Every swap or deletion of a document's chunks counts what it changed against its base once it has
committed (`count_changes_after_commit`); when the count passes a tenth of the base (and a few
chunks, so a small base is not taken again for every document), or the base was never taken or is
stemmed another way now, they are taken again — as autovacuum decides when to ANALYZE a table.
Taking them reads at most `SAMPLE` chunks chosen at random (`ts_stat` over their full-text
vectors: ≈ 50 ms per 6,000 chunks on the bench machine) and keeps the `LEXEMES_KEPT` most common
lexemes found in two chunks or more. Two workers finishing documents of one base at once take
them once: the second finds the first's lock and leaves it. A failure to take them is logged and
leaves the swap that asked for them done (the minute's sweep tries again).
"""

from django.db import connection, transaction
from django.utils import timezone

from knowledge.models import Chunk, KnowledgeBase, TermStatistics

SAMPLE = 30_000
LEXEMES_KEPT = 2_000
# Taken again after this share of the base's chunks (plus STALE_CHUNKS) were written or deleted.
STALE_SHARE = 0.1
STALE_CHUNKS = 20
_LOCK_CLASS = 7_340_021  # pg_try_advisory_xact_lock's first key: term statistics, the second the base

_COUNT = (f"UPDATE {TermStatistics._meta.db_table} s SET changed = s.changed + %s "
          f"FROM {KnowledgeBase._meta.db_table} kb WHERE s.knowledge_base_id = %s AND kb.id = s.knowledge_base_id "
          "RETURNING s.changed, s.chunks, s.text_search_config, kb.text_search_config")
_LEXEMES = "SELECT word, ndoc FROM ts_stat(%s) WHERE ndoc > 1 ORDER BY ndoc DESC, word LIMIT %s"


def count_changes_after_commit(kb_id: int, chunks: int) -> None:
    """Once the current transaction commits, count `chunks` written or deleted in the base, and take
    its statistics again when that makes them stale."""
    if chunks:
        # A function, not a partial: Django names a failing robust callback by its __qualname__.
        transaction.on_commit(lambda: count_changes(kb_id, chunks), robust=True)


def take_after_commit(kb_id: int) -> None:
    """Once the current transaction commits, take the base's statistics again, however much changed."""
    transaction.on_commit(lambda: take(kb_id), robust=True)


def count_changes(kb_id: int, chunks: int) -> bool:
    """Count the changed chunks; take the statistics again when they are stale. True when taken."""
    with connection.cursor() as cursor:
        cursor.execute(_COUNT, [chunks, kb_id])
        found = cursor.fetchone()
    if found is not None and not _stale(*found):
        return False
    return take(kb_id)  # (which finds a base deleted meanwhile gone)


def take_due() -> int:
    """Take the statistics of every base that has none or whose are stale (the worker's minute
    schedule: bases filled in bulk or from before these statistics, a count lost to a crash between a
    swap's commit and its count); the number taken."""
    taken = 0
    for kb_id in KnowledgeBase.objects.filter(term_statistics__isnull=True).values_list("pk", flat=True):
        taken += take(kb_id)
    for stats in TermStatistics.objects.select_related("knowledge_base").defer("lexemes"):
        if _stale(stats.changed, stats.chunks, stats.text_search_config, stats.knowledge_base.text_search_config):
            taken += take(stats.knowledge_base_id)
    return taken


def _stale(changed: int, chunks: int, taken_with: str, config: str) -> bool:
    return taken_with != config or changed > STALE_SHARE * chunks + STALE_CHUNKS


def take(kb_id: int) -> bool:
    """Read the lexemes of (a sample of) the base's chunks and store them; False when another process
    holds the base's lock (it is taking them) or the base is gone."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [_LOCK_CLASS, kb_id])
        if not cursor.fetchone()[0]:
            return False
        config = KnowledgeBase.objects.filter(pk=kb_id).values_list("text_search_config", flat=True).first()
        if config is None:
            return False
        chunks = Chunk.objects.filter(knowledge_base_id=kb_id).count()
        cursor.execute(_LEXEMES, [_sample_query(kb_id, chunks), LEXEMES_KEPT])
        lexemes = dict(cursor.fetchall())
        now = timezone.now()
        TermStatistics.objects.update_or_create(knowledge_base_id=kb_id, defaults={
            "text_search_config": config, "chunks": chunks, "sampled": min(chunks, SAMPLE),
            "changed": 0, "lexemes": lexemes, "taken_at": now})
        KnowledgeBase.objects.filter(pk=kb_id).update(term_statistics_at=now)
    return True


def _sample_query(kb_id: int, chunks: int) -> str:
    """The statement `ts_stat` runs (a text: the base's id is an integer written into it)."""
    table, kb_id = Chunk._meta.db_table, int(kb_id)
    if chunks <= SAMPLE:
        return (f"SELECT search_vector FROM {table} "
                f"WHERE knowledge_base_id = {kb_id} AND search_vector IS NOT NULL")
    return (f"SELECT search_vector FROM {table} WHERE search_vector IS NOT NULL AND id IN "
            f"(SELECT id FROM {table} WHERE knowledge_base_id = {kb_id} ORDER BY random() LIMIT {SAMPLE})")
