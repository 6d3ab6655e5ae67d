"""manage.py import_tickets FILE.jsonl — store tickets from JSON lines and triage them, with a summary.

Each line is an object with the customer's text in `text`, `body`, `question` or `message`, and
optionally `id` (kept as the external id, so importing the same file twice adds nothing),
`subject`, `customer`, `channel`; every other field (category, intent, priority, …) is kept in
the ticket's metadata. This reads both files of `shared/data/tickets/`.
"""

import json
from collections import Counter
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from tickets import reports, triage
from tickets.models import Ticket

TEXT_FIELDS = ("text", "body", "question", "message")
KNOWN_FIELDS = {"id", "subject", "customer", "channel", *TEXT_FIELDS}


def read_jsonl(path: Path):
    """(line number, object) for every non-empty line; bad lines raise CommandError with the number."""
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CommandError(f"{path}:{number}: not JSON ({exc})") from exc
            if not isinstance(row, dict):
                raise CommandError(f"{path}:{number}: expected an object")
            yield number, row


def customer_text(row: dict) -> str:
    return next((str(row[field]) for field in TEXT_FIELDS if row.get(field)), "")


class Command(BaseCommand):
    help = "Import tickets from a JSONL file and triage them (in the foreground), then print a summary."

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path)
        parser.add_argument("--limit", type=int, default=0, help="Import at most this many lines.")
        parser.add_argument("--no-triage", action="store_true", help="Only store the tickets.")
        parser.add_argument("--channel", default=Ticket.Channel.IMPORT, choices=Ticket.Channel.values)

    def handle(self, *args, path: Path, limit: int, no_triage: bool, channel: str, **options):
        if not path.exists():
            raise CommandError(f"No such file: {path}")
        # Every line is checked before any is stored: a bad line 34 must not leave 33 tickets behind.
        rows = list(read_jsonl(path))[:limit or None]
        empty = [str(number) for number, row in rows if not customer_text(row).strip()]
        if empty:
            raise CommandError(f"{path}: no text in any of {', '.join(TEXT_FIELDS)} on line(s) "
                               f"{', '.join(empty[:20])}{' …' if len(empty) > 20 else ''}; nothing was imported")
        created, skipped, ids = 0, 0, []
        for _, row in rows:
            ticket, is_new = self.store(row, channel)
            created, skipped = created + is_new, skipped + (not is_new)
            ids.append(ticket.pk)
        self.stdout.write(f"{created} ticket(s) imported, {skipped} already there.")
        if not no_triage:
            self.triage(ids)
        self.print_summary(Ticket.objects.filter(pk__in=ids))

    def store(self, row: dict, channel: str) -> tuple[Ticket, bool]:
        body = customer_text(row)
        external_id = str(row.get("id") or "")
        existing = Ticket.objects.filter(channel=channel, external_id=external_id).first() if external_id else None
        if existing:
            return existing, False
        metadata = {key: value for key, value in row.items() if key not in KNOWN_FIELDS}
        with transaction.atomic():
            ticket = triage.submit_ticket(subject=str(row.get("subject") or ""), body=body,
                                          customer=str(row.get("customer") or ""), channel=channel,
                                          external_id=external_id, metadata=metadata, triage=False)
        return ticket, True

    def triage(self, ids: list[int]) -> None:
        orchestrator = triage.TriageOrchestrator()
        pending = Ticket.objects.filter(pk__in=ids, status__in=[Ticket.Status.NEW, Ticket.Status.ERROR])
        total = pending.count()
        for done, ticket_id in enumerate(pending.order_by("pk").values_list("pk", flat=True), start=1):
            ticket = triage.claim(ticket_id)
            if ticket:
                orchestrator.triage(ticket)
            if done % 25 == 0 or done == total:
                self.stderr.write(f"  triaged {done}/{total}")

    def print_summary(self, tickets) -> None:
        counts = reports.summary_counts(tickets)
        outcome, risk = counts["outcome"], counts["risk"]
        self.stdout.write(self.style.SUCCESS(f"Summary of {tickets.count()} ticket(s):"))
        for label in ("auto-replied", "sent to review", "refused", "failed"):
            self.stdout.write(f"  {label:<15} {outcome.get(label, 0)}")
        self.stdout.write("  by risk level:  " + ", ".join(f"{level} {risk[level]}" for level in
                                                        ("low", "medium", "high", "unassessed") if level in risk))
        agents = Counter(tickets.values_list("agent__name", flat=True))
        by_agent = ", ".join(f"{name or 'none'} {n}" for name, n in agents.most_common())
        self.stdout.write("  by agent:       " + by_agent)
        reasons = Counter(r["code"] for reasons in tickets.values_list("risk_reasons", flat=True) for r in reasons)
        if reasons:
            self.stdout.write("  risk reasons:   " + ", ".join(f"{code} {n}" for code, n in reasons.most_common()))
