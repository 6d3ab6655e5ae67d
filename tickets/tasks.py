"""django-q2 entry points: each takes a ticket id and calls one domain function."""

from tickets import triage


def run_triage(ticket_id: int) -> None:
    triage.triage_ticket(ticket_id)
