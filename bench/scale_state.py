"""What `bench/scale.py --reuse` keeps between runs: the corpora, the random state, the load
timings and the exact references of the database it loaded, in bench/.cache (ours, so unpickling
it is safe)."""

import pickle
import sys
from collections.abc import Callable
from pathlib import Path

from common import CACHE_DIR


def state_path(args) -> Path:
    return CACHE_DIR / f"scale-{args.chunks}-{args.bases}-{args.seed}.pickle"


def save_state(args, corpora, rng, timings) -> None:
    """What --reuse needs to measure the loaded database again: the corpora and the random state."""
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    for stale in CACHE_DIR.glob(f"scale-{args.chunks}-{args.bases}-*.pickle"):  # a database holds one setup
        stale.unlink()
    state_path(args).write_bytes(pickle.dumps({"corpora": corpora, "rng": rng, "timings": timings}))


def reuse_state(args):
    """The bases, corpora, random state and load timings of the last run with the same setup."""
    from knowledge.indexing import vector_index
    from knowledge.models import Chunk, KnowledgeBase

    path = state_path(args)
    kbs = list(KnowledgeBase.objects.order_by("pk"))
    if (not path.exists() or len(kbs) != args.bases or Chunk.objects.count() != args.chunks
            or not all(vector_index.kb_index_exists(kb.pk) for kb in kbs)):
        sys.exit(f"Nothing to reuse for {args.chunks} chunks in {args.bases} base(s): run once without --reuse")
    state = pickle.loads(path.read_bytes())  # written by this script (bench/.cache is ours)
    if sorted(state["corpora"]) != [kb.pk for kb in kbs]:
        sys.exit("The bench database no longer matches the saved state: run once without --reuse")
    return kbs, state["corpora"], state["rng"], state["timings"]


def remembered(args, key: str, compute: Callable):
    """`compute()`, kept in the saved state under `key`."""
    path = state_path(args)
    state = pickle.loads(path.read_bytes())
    if key not in state:
        state[key] = compute()
        path.write_bytes(pickle.dumps(state))
    return state[key]
