"""The parts of one document that every free participant of its job may take: a long document's
embedding batches (`knowledge/share_batches.py`) and a long scan's pages (`knowledge/share_pages.py`).

The participant holding the document stages its parts as rows (`models.job_items.SharedPart`); any
participant claims the next one nobody holds with `FOR UPDATE SKIP LOCKED` and a lease its heartbeat
renews, works on it and stores its result. A part whose worker died is taken again when its lease
runs out, once: a part whose workers died twice is failed, and its holder fails the document.
"""

import logging
from datetime import timedelta

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from knowledge.models import Job, JobItem
from knowledge.models.job_items import SharedPart

logger = logging.getLogger(__name__)


def claim_next(parts: QuerySet, token: str, *, lease: timedelta) -> SharedPart | None:
    """Take the first pending part that nobody holds (or whose holder's lease ran out)."""
    while True:
        now = timezone.now()
        with transaction.atomic():
            part = (parts.select_for_update(skip_locked=True, of=("self",)).filter(parts.model.PENDING)
                    .filter(Q(claimed_by="") | Q(lease_until__lt=now))
                    .select_related("item").order_by("item_id", *parts.model._meta.ordering[1:]).first())
            if part is None:
                return None
            if part.attempts < part.MAX_ATTEMPTS:
                if part.attempts:
                    logger.warning("%s: taking over from %s, whose lease ran out", part, part.claimed_by)
                part.claimed_by, part.lease_until, part.attempts = token, now + lease, part.attempts + 1
                part.save(update_fields=["claimed_by", "lease_until", "attempts"])
                return part
            part.error = part.given_up()
            part.save(update_fields=["error"])


def others_waiting(model: type[SharedPart], job: Job, token: str) -> QuerySet:
    """The parts of documents other live participants of `job` hold."""
    return (model.objects.filter(item__job=job, item__state__in=JobItem.IN_PROGRESS,
                                 item__lease_until__gte=timezone.now())
            .exclude(item__claimed_by=token))


def renew(model: type[SharedPart], token: str, *, until) -> None:
    """The participant's heartbeat: the leases of the parts it works on, like its documents'."""
    model.objects.filter(model.PENDING, claimed_by=token).update(lease_until=until)
