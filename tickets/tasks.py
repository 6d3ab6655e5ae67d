"""django-q2 entry points: each takes a ticket id and calls one domain function.

`register()` runs from `TicketsConfig.ready()`, so `portal.jobs.enqueue_task("triage", id)` finds it.
"""

from portal.jobs import register as register_task
from tickets import triage


def run_triage(ticket_id: int) -> None:
    triage.triage_ticket(ticket_id)


def register() -> None:
    register_task(triage.TASK, run_triage)
