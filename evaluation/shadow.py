"""Shadow re-embedding: a base's new embedder or chunking built beside it, evaluated, then switched atomically.

1. `start_switch(kb, embedder=…, chunk_size=…)` refuses while another switch of the base is under
   way, creates the shadow (a hidden knowledge base with the new settings and its own vector index)
   and queues the build job.
2. The job (`run_build`) copies every ready document into the shadow and indexes it there with the
   product's ingestion; a redelivered or resumed job re-does only what is missing or stale. The base
   itself is not touched, so it answers exactly as before while the worker re-embeds.
3. With a golden set, both versions are evaluated (the shadow's documents are mapped back to the
   base's) and the verdict recorded: better, not worse within the tolerance, or worse.
4. `cut_over(switch, force=False)` refuses while building, when worse (unless forced), or when the
   base changed since the build. Otherwise one transaction swaps the two versions' chunks between
   the base's documents and their copies (`_swap`), swaps the settings, and — for a new dimension —
   builds the base's index for it before the commit (readers keep the old index until then). The old
   version stays in the shadow: `confirm` deletes it, `rollback` swaps back.
"""

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Case, F, IntegerField, Value, When
from django.utils import timezone
from django.utils.translation import gettext

from evaluation import runs
from evaluation.exceptions import SwitchRefusedError
from evaluation.models import EvalRun, GoldenQuestion, GoldenSet, ShadowSwitch
from knowledge import bases
from knowledge.indexing import ingestion, term_statistics, vector_index
from knowledge.indexing.embedding import get_embedder
from knowledge.models import Chunk, Document, Job, KnowledgeBase
from portal.jobs import enqueue

SETTINGS = ("embedder", "embedding_dim", "chunk_size", "chunk_overlap", "chunk_min_size")
CHANGEABLE = ("embedder", "chunk_size", "chunk_overlap", "chunk_min_size")
# Chunk positions of the outgoing version are parked above this while both versions change places
# (the (document, layer, position) constraint is checked row by row).
PARKED = 1_000_000_000
BATCH = 500


def start_switch(kb: KnowledgeBase, *, golden_set: GoldenSet | None = None, tolerance: float = 0.01,
                 auto_switch: bool = False, user=None, **changes) -> ShadowSwitch:
    """Create the shadow with the new settings and queue its build; refused while another switch is under way."""
    target = {name: value for name, value in changes.items() if name in CHANGEABLE and value not in (None, "")}
    if unknown := set(changes) - set(CHANGEABLE):
        raise SwitchRefusedError(gettext("Cannot switch %(names)s; only %(changeable)s")
                                 % {"names": ", ".join(sorted(unknown)), "changeable": ", ".join(CHANGEABLE)})
    if not target or all(getattr(kb, name) == value for name, value in target.items()):
        raise SwitchRefusedError(gettext("Nothing to switch: the base already has these settings"))
    if kb.documents.filter(source_kind=Document.SourceKind.REPOSITORY).exists():
        raise SwitchRefusedError(gettext("Bases with repository sources are re-indexed in place (manage.py reindex)"))
    if golden_set is not None and golden_set.knowledge_base_id != kb.pk:
        raise SwitchRefusedError(gettext("%(set)s belongs to another base") % {"set": golden_set})
    embedder = get_embedder(target.get("embedder", kb.embedder))  # an unknown name fails here
    try:
        with transaction.atomic():
            if active := ShadowSwitch.objects.filter(knowledge_base=kb, status__in=ShadowSwitch.ACTIVE).first():
                raise SwitchRefusedError(
                    gettext("%(switch)s is %(status)s; finish, cancel or confirm it before starting another")
                    % {"switch": active, "status": active.get_status_display().lower()})
            switch = ShadowSwitch.objects.create(
                knowledge_base=kb, golden_set=golden_set, tolerance=tolerance, auto_switch=auto_switch,
                created_by=user, target=target, previous={name: getattr(kb, name) for name in target})
            switch.shadow = bases.create_knowledge_base(
                name=f"{kb.name} (shadow of switch #{switch.pk})"[:200], slug=f"{kb.slug}--shadow-{switch.pk}"[:100],
                embedder=embedder.name, shadow_of=kb, text_search_config=kb.text_search_config,
                **{name: target.get(name, getattr(kb, name)) for name in CHANGEABLE[1:]})
            switch.job = Job.objects.create(kind=Job.Kind.SHADOW, knowledge_base=kb, created_by=user,
                                            options={"switch_id": switch.pk})
            switch.save(update_fields=["shadow", "job"])
            enqueue(switch.job)
    except IntegrityError:
        # Another request started one between our check and our insert.
        raise SwitchRefusedError(gettext("Another switch of %(base)s is under way") % {"base": kb}) from None
    return switch


@transaction.atomic
def resume(switch: ShadowSwitch, *, user=None) -> ShadowSwitch:
    """Bring an evaluated shadow up to date with the base (changed documents only) and evaluate again."""
    switch = ShadowSwitch.objects.select_for_update().get(pk=switch.pk)
    if switch.status != ShadowSwitch.Status.EVALUATED:
        raise SwitchRefusedError(gettext("%(switch)s is %(status)s; only an evaluated one resumes")
                                 % {"switch": switch, "status": switch.get_status_display().lower()})
    switch.job = Job.objects.create(kind=Job.Kind.SHADOW, knowledge_base_id=switch.knowledge_base_id,
                                    created_by=user, options={"switch_id": switch.pk})
    switch.status, switch.verdict, switch.message = ShadowSwitch.Status.BUILDING, "", ""
    switch.save(update_fields=["job", "status", "verdict", "message"])
    enqueue(switch.job)
    return switch


# --- Building ------------------------------------------------------------------------------------

def run_build(job: Job) -> None:
    """The job's body: build the shadow, evaluate both versions, cut over when asked and allowed.

    A retried job (a new row, see `knowledge.jobs.retry`) takes the switch over and resumes the build.
    """
    switch = ShadowSwitch.objects.select_related("knowledge_base", "shadow").get(pk=job.options["switch_id"])
    if switch.status != ShadowSwitch.Status.BUILDING:
        return
    if switch.job_id != job.pk:
        switch.job = job
        switch.save(update_fields=["job"])
    stopped = _build(switch, job)
    if stopped:
        _finish(switch, ShadowSwitch.Status.CANCELLED, gettext("Cancelled while building; the base was not changed"))
        return
    evaluate_switch(switch)
    if switch.auto_switch and switch.verdict in (ShadowSwitch.Verdict.BETTER, ShadowSwitch.Verdict.NOT_WORSE):
        cut_over(switch)


def _build(switch: ShadowSwitch, job: Job) -> bool:
    """Index a copy of every ready document in the shadow; True when cancelled."""
    kb, shadow = switch.knowledge_base, switch.shadow
    copies = {copy.metadata.get("copy_of"): copy for copy in shadow.documents.defer("text")}
    live = kb.documents.filter(status=Document.Status.READY).order_by("pk")
    job.record(done=0, total=live.count())
    for done, document in enumerate(live.iterator(chunk_size=100), start=1):
        if job.should_stop():
            return True
        copy = copies.get(document.pk)
        if copy is not None and copy.status == Document.Status.READY and copy.sha256 == document.sha256:
            job.record(done=done, unchanged=1)
            continue
        result = _index_copy(shadow, document, copy)
        if result.outcome == "failed":
            job.add_failure(document.title or document.source_uri, result.error)
        job.record(done=done, chunks=result.document.chunk_count if result.outcome != "failed" else 0)
    return False


def _index_copy(shadow: KnowledgeBase, document: Document, copy: Document | None) -> ingestion.IngestResult:
    # The copy never holds the original file: deleting the shadow must not delete the base's files.
    copy = copy or Document.objects.create(
        knowledge_base=shadow, source_kind=document.source_kind, source_uri=document.source_uri, path=document.path,
        title=document.title, mime=document.mime, metadata={**document.metadata, "copy_of": document.pk})
    if document.original_file:
        return ingestion.ingest_file(shadow, document.original_file.path, source_kind=document.source_kind,
                                     source_uri=document.source_uri, title=document.title, document=copy)
    return ingestion.ingest_text(shadow, title=document.title, text=document.text, source_kind=document.source_kind,
                                 source_uri=document.source_uri, mime=document.mime, document=copy)


# --- Evaluating --------------------------------------------------------------------------------------

def evaluate_switch(switch: ShadowSwitch) -> ShadowSwitch:
    """Run the golden set on the serving version and on the shadow, and record the verdict."""
    golden_set = switch.golden_set or _default_golden_set(switch.knowledge_base)
    if golden_set is None:
        switch.verdict = ShadowSwitch.Verdict.NO_GOLDEN_SET
        switch.message = gettext("No golden set with confirmed questions: the cut-over needs a person to force it")
    else:
        serving = gettext("switch #%(id)s: serving version") % {"id": switch.pk}
        built = gettext("switch #%(id)s: new version") % {"id": switch.pk}
        old = runs.evaluate(runs.create_run(golden_set, label=serving))
        new = runs.evaluate(runs.create_run(golden_set, label=built),
                            search_base=switch.shadow, document_map=copy_map(switch.shadow))
        switch.golden_set, switch.old_run, switch.new_run = golden_set, old, new
        switch.verdict, switch.message = verdict(old, new, switch.tolerance)
    switch.status = ShadowSwitch.Status.EVALUATED
    switch.save(update_fields=["golden_set", "old_run", "new_run", "verdict", "message", "status"])
    return switch


def _default_golden_set(kb: KnowledgeBase) -> GoldenSet | None:
    return (kb.golden_sets.filter(questions__status=GoldenQuestion.Status.CONFIRMED).distinct()
            .order_by("name").first())


def copy_map(shadow: KnowledgeBase) -> dict[int, int]:
    """{shadow document id: the base's document id}."""
    return {pk: int(original) for pk, original in shadow.documents.values_list("pk", "metadata__copy_of")
            if original is not None}


def verdict(old: EvalRun, new: EvalRun, tolerance: float) -> tuple[str, str]:
    """Better, not worse or worse, by nDCG@10 (refusal recall when no question names a document)."""
    name = "ndcg@10" if old.metrics.get("ndcg@10") is not None else "refusal_recall"
    before, after = old.metrics.get(name) or 0.0, new.metrics.get(name) or 0.0
    figures = {"metric": name, "before": f"{before:.4f}", "after": f"{after:.4f}", "tolerance": tolerance}
    if after > before:
        return ShadowSwitch.Verdict.BETTER, gettext(
            "Better: %(metric)s %(before)s → %(after)s (tolerance %(tolerance)s)") % figures
    if after >= before - tolerance:
        return ShadowSwitch.Verdict.NOT_WORSE, gettext(
            "Not worse: %(metric)s %(before)s → %(after)s (tolerance %(tolerance)s)") % figures
    return ShadowSwitch.Verdict.WORSE, gettext(
        "Worse: %(metric)s %(before)s → %(after)s (tolerance %(tolerance)s); the cut-over needs a person to force it"
    ) % figures


# --- Cut-over, confirmation, rollback, cancel -----------------------------------------------------------

@dataclass
class _Versions:
    kb: KnowledgeBase
    shadow: KnowledgeBase
    pairs: list[tuple[int, int]]  # (the base's document id, its copy's id)


@transaction.atomic
def cut_over(switch: ShadowSwitch, *, force: bool = False) -> ShadowSwitch:
    """Serve the new version: refused while building, when worse (unless forced), or when stale."""
    switch = ShadowSwitch.objects.select_for_update(of=("self",)).select_related("job").get(pk=switch.pk)
    if switch.status == ShadowSwitch.Status.BUILDING:
        job = switch.job
        if job is None:
            raise SwitchRefusedError(gettext("The new version is still being built; it switches after its evaluation"))
        raise SwitchRefusedError(gettext(
            "The new version is still being built (job #%(job)s: %(done)s/%(total)s documents); it switches after "
            "its evaluation") % {"job": job.pk, "done": job.progress_done, "total": job.progress_total})
    if switch.status != ShadowSwitch.Status.EVALUATED:
        raise SwitchRefusedError(gettext("%(switch)s is %(status)s; nothing to cut over")
                                 % {"switch": switch, "status": switch.get_status_display().lower()})
    if switch.verdict in (ShadowSwitch.Verdict.WORSE, ShadowSwitch.Verdict.NO_GOLDEN_SET) and not force:
        raise SwitchRefusedError(gettext("Refused: %(reason)s") % {"reason": switch.message})
    _swap(_lock_versions(switch.knowledge_base_id, switch.shadow_id))
    switch.status, switch.forced, switch.switched_at = ShadowSwitch.Status.SWITCHED, force, timezone.now()
    switch.save(update_fields=["status", "forced", "switched_at"])
    return switch


@transaction.atomic
def rollback(switch: ShadowSwitch) -> ShadowSwitch:
    """Serve the old version again (kept in the shadow since the cut-over) and drop the new one."""
    switch = ShadowSwitch.objects.select_for_update().get(pk=switch.pk)
    if switch.status != ShadowSwitch.Status.SWITCHED:
        raise SwitchRefusedError(gettext("%(switch)s is %(status)s; only a switched one rolls back")
                                 % {"switch": switch, "status": switch.get_status_display().lower()})
    _swap(_lock_versions(switch.knowledge_base_id, switch.shadow_id))
    return _finish(switch, ShadowSwitch.Status.ROLLED_BACK, gettext("Rolled back to the previous version"))


def confirm(switch: ShadowSwitch) -> ShadowSwitch:
    """Keep the new version for good: the old one (in the shadow) is deleted."""
    switch.refresh_from_db()
    if switch.status != ShadowSwitch.Status.SWITCHED:
        raise SwitchRefusedError(gettext("%(switch)s is %(status)s; only a switched one is confirmed")
                                 % {"switch": switch, "status": switch.get_status_display().lower()})
    return _finish(switch, ShadowSwitch.Status.CONFIRMED, switch.message)


def cancel(switch: ShadowSwitch) -> ShadowSwitch:
    """Stop a build (the job stops between documents) or drop an evaluated shadow; the base is unchanged."""
    switch.refresh_from_db()
    if switch.status == ShadowSwitch.Status.BUILDING and switch.job and not switch.job.is_finished:
        switch.job.cancel()
        return switch
    if switch.status not in (ShadowSwitch.Status.BUILDING, ShadowSwitch.Status.EVALUATED):
        raise SwitchRefusedError(gettext("%(switch)s is %(status)s; roll it back instead")
                                 % {"switch": switch, "status": switch.get_status_display().lower()})
    return _finish(switch, ShadowSwitch.Status.CANCELLED, gettext("Cancelled; the base was not changed"))


@transaction.atomic
def _finish(switch: ShadowSwitch, status: str, message: str) -> ShadowSwitch:
    if switch.shadow_id:
        bases.delete_knowledge_base(KnowledgeBase.objects.get(pk=switch.shadow_id))
    switch.status, switch.message, switch.finished_at = status, message, timezone.now()
    switch.save(update_fields=["status", "message", "finished_at"])
    return switch


def _lock_versions(kb_id: int, shadow_id: int) -> _Versions:
    """Lock both bases and their documents (an ingestion in flight finishes first); refuse if stale."""
    kb = KnowledgeBase.objects.select_for_update().get(pk=kb_id)
    shadow = KnowledgeBase.objects.select_for_update().get(pk=shadow_id)
    live = {pk: (status, sha) for pk, status, sha in Document.objects.select_for_update()
            .filter(knowledge_base=kb).values_list("pk", "status", "sha256")}
    copies = {int(original): (pk, sha) for pk, original, sha in shadow.documents.filter(status=Document.Status.READY)
              .values_list("pk", "metadata__copy_of", "sha256") if original is not None}
    busy = [pk for pk, (status, _) in live.items() if status in (Document.Status.PENDING, Document.Status.INDEXING)]
    stale = [pk for pk, (status, sha) in live.items()
             if status == Document.Status.READY and copies.get(pk, (None, None))[1] != sha]
    if busy or stale:
        raise SwitchRefusedError(gettext(
            "The base changed since the new version was built (%(busy)d document(s) being indexed, %(stale)d without "
            "an up-to-date copy); resume the switch to update the new version")
            % {"busy": len(busy), "stale": len(stale)})
    pairs = [(pk, copies[pk][0]) for pk, (status, _) in live.items() if status == Document.Status.READY]
    return _Versions(kb, shadow, pairs)


def _swap(versions: _Versions) -> None:
    """Exchange the two versions' chunks and settings; the base's index follows its new dimension."""
    kb, shadow = versions.kb, versions.shadow
    for start in range(0, len(versions.pairs), BATCH):
        pairs = versions.pairs[start:start + BATCH]
        Chunk.objects.filter(knowledge_base=kb, document_id__in=[live for live, _ in pairs]).update(
            knowledge_base=shadow, position=F("position") + PARKED, document=_mapping(pairs))
    for start in range(0, len(versions.pairs), BATCH):
        pairs = [(copy, live) for live, copy in versions.pairs[start:start + BATCH]]
        Chunk.objects.filter(knowledge_base=shadow, document_id__in=[copy for copy, _ in pairs],
                             position__lt=PARKED).update(knowledge_base=kb, document=_mapping(pairs))
    Chunk.objects.filter(knowledge_base=shadow, position__gte=PARKED).update(position=F("position") - PARKED)
    _swap_document_counts(versions.pairs)
    old_dim = kb.embedding_dim
    for name in SETTINGS:
        kb_value, shadow_value = getattr(kb, name), getattr(shadow, name)
        setattr(kb, name, shadow_value)
        setattr(shadow, name, kb_value)
    kb.save(update_fields=[*SETTINGS, "updated_at"])
    shadow.save(update_fields=[*SETTINGS, "updated_at"])
    for version in (kb, shadow):  # each now holds the other's chunks
        term_statistics.take_after_commit(version.pk)
    if kb.embedding_dim != old_dim:
        # Only the serving base needs an index now; a rollback rebuilds it for the old dimension.
        vector_index.replace_kb_index(kb.pk, kb.embedding_dim)


def _mapping(pairs: list[tuple[int, int]]) -> Case:
    return Case(*[When(document_id=source, then=Value(target)) for source, target in pairs],
                output_field=IntegerField())


def _swap_document_counts(pairs: list[tuple[int, int]]) -> None:
    documents = Document.objects.defer("text").in_bulk([pk for pair in pairs for pk in pair])
    changed = []
    for live, copy in pairs:
        a, b = documents[live], documents[copy]
        a.chunk_count, b.chunk_count = b.chunk_count, a.chunk_count
        a.config_signature, b.config_signature = b.config_signature, a.config_signature
        a.embedder_signature, b.embedder_signature = b.embedder_signature, a.embedder_signature
        changed += [a, b]
    Document.objects.bulk_update(changed, ["chunk_count", "config_signature", "embedder_signature"], batch_size=BATCH)
