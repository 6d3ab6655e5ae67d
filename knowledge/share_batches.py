"""One large document's embedding shared by every free participant of its job, batch by batch.

A job shares its documents among workers (`knowledge/shares.py`), but one long manual would keep
one worker busy while the others wait. So the participant holding a document whose chunks to embed
number at least `PORTAL_INGEST_SPLIT_CHUNKS` stages its batches as `EmbeddingBatch` rows and works
through them as the others do (`knowledge/leases.py`): claim the next batch without vectors with a
lease its heartbeat renews, embed it, store its vectors. A participant with no document
left to claim takes batches of the documents others hold (`help_with_batch`). When every batch
has vectors, the holder reads them back in order, deletes the rows and swaps the chunks in — the
same atomic swap as a document embedded alone, so a death anywhere leaves no duplicates. A dead
helper's batch is taken again when its lease runs out (once: a batch whose worker died twice
fails its document), and a dead holder's document is taken over with the batches already
embedded kept (matched by position, embedder and inputs).
"""

import logging
import time
from collections.abc import Callable
from datetime import timedelta
from itertools import accumulate

import numpy as np
from django.conf import settings
from django.db.models import Count, Max, Q, QuerySet, Sum

from knowledge import leases
from knowledge.exceptions import KnowledgeError
from knowledge.indexing.chunks import Progress, embed_locally, failure_message
from knowledge.indexing.embedding import get_embedder
from knowledge.models import EmbeddingBatch, Job, JobItem

logger = logging.getLogger(__name__)

# How often the holder looks again while helpers embed its last batches.
POLL_SECONDS = 0.25


class SharedEmbedding:
    """`embed_chunks`' batch embedding for a document a participant holds (`chunks.BatchEmbedding`):
    a small document is embedded here; a large one by every free participant of the job."""

    def __init__(self, item: JobItem, token: str, *, lease: timedelta, invite: Callable[[int], None]):
        self.item, self.token, self.lease, self.invite = item, token, lease, invite

    def __call__(self, embedder: str, batches: list[list[str]], progress: Progress | None) -> list[np.ndarray]:
        split, shares = settings.PORTAL["INGEST_SPLIT_CHUNKS"], settings.PORTAL["INGEST_SHARES"]
        total = sum(map(len, batches))
        if not split or total < split or len(batches) < 2 or shares < 2:
            return embed_locally(embedder, batches, progress)
        staged = EmbeddingBatch.objects.filter(item=self.item)
        try:
            if _stage(self.item, embedder, batches) < len(batches):
                self.invite(len(batches))
            self._work_through(staged, total, progress)
            return _vectors(staged)
        finally:
            staged.delete()

    def _work_through(self, staged: QuerySet, total: int, progress: Progress | None) -> None:
        reported = None
        while True:
            batch = leases.claim_next(staged, self.token, lease=self.lease)
            if batch is not None:
                _embed(batch, self.token, raise_errors=True)
            done, left, error = _state(staged)
            if error:
                raise KnowledgeError(error)
            if progress and done != reported:
                progress(done, total)
                reported = done
            if not left:
                return
            if batch is None:  # the rest are with helpers: wait for them (or for their leases to run out)
                time.sleep(POLL_SECONDS)


def help_with_batch(job: Job, token: str, *, lease: timedelta) -> bool:
    """Embed one batch of a document another live participant of `job` holds; False when none waits."""
    batch = leases.claim_next(leases.others_waiting(EmbeddingBatch, job, token), token, lease=lease)
    if batch is None:
        return False
    _embed(batch, token, raise_errors=False)
    return True


def forget(job: Job) -> None:
    """Batches a job left behind (its holder failed or died and nobody took the document over)."""
    EmbeddingBatch.objects.filter(item__job=job).delete()


def _stage(item: JobItem, embedder: str, batches: list[list[str]]) -> int:
    """The document's batches as rows; an earlier holder's batches with the same inputs keep their
    vectors. Returns how many were kept."""
    wanted = dict(zip(accumulate(map(len, batches), initial=0), batches))  # first chunk's index → inputs
    rows = EmbeddingBatch.objects.filter(item=item)
    kept = {position: pk for pk, position, name, inputs in
            rows.filter(vectors__isnull=False, error="").values_list("pk", "position", "embedder", "inputs")
            if name == embedder and wanted.get(position) == inputs}
    rows.exclude(pk__in=list(kept.values())).delete()
    EmbeddingBatch.objects.bulk_create([
        EmbeddingBatch(item=item, position=position, embedder=embedder, inputs=inputs, size=len(inputs))
        for position, inputs in wanted.items() if position not in kept
    ])
    return len(kept)


def _embed(batch: EmbeddingBatch, token: str, *, raise_errors: bool) -> None:
    """Embed the batch and store its vectors while still holding it; a helper records a failure on
    the batch (its holder fails the document with it), the holder raises it."""
    mine = EmbeddingBatch.objects.filter(pk=batch.pk, claimed_by=token)
    try:
        vectors = np.asarray(get_embedder(batch.embedder).embed_passages(batch.inputs), dtype=np.float32)
    except Exception as exc:
        if raise_errors:
            raise
        logger.exception("%s: embedding failed", batch)
        mine.update(error=failure_message(exc), lease_until=None)
        return
    mine.update(vectors=vectors.tobytes(), dim=vectors.shape[1], lease_until=None)


def _state(staged: QuerySet) -> tuple[int, int, str]:
    """(chunks embedded, batches left, an error or "") of a document's batches, in one statement."""
    state = staged.aggregate(done=Sum("size", filter=Q(vectors__isnull=False), default=0),
                             left=Count("pk", filter=Q(vectors__isnull=True)), error=Max("error", default=""))
    return state["done"], state["left"], state["error"]


def _vectors(staged: QuerySet) -> list[np.ndarray]:
    vectors: list[np.ndarray] = []
    for size, dim, data in staged.order_by("position").values_list("size", "dim", "vectors"):
        vectors.extend(np.frombuffer(data, dtype=np.float32).reshape(size, dim))
    return vectors
