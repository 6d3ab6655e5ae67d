"""`manage.py receive_email < message.eml`: file one e-mail, the way a mail server pipes to a gateway.

Exit status follows sysexits.h, which mail servers understand: 0 filed (or ignored, or a duplicate),
65 (EX_DATAERR) refused for good — the server bounces it —, 75 (EX_TEMPFAIL) try again later.
"""

import sys

from django.core.management.base import BaseCommand
from django.db import DatabaseError

from mail import inbound
from mail.exceptions import MailError

EX_DATAERR, EX_TEMPFAIL = 65, 75


class Command(BaseCommand):
    help = "Read an RFC 822 message on standard input and make it a ticket or a follow-up."

    def handle(self, *args, **options):
        raw = sys.stdin.buffer.read()
        try:
            result = inbound.receive_message(raw)
        except MailError as exc:
            self.stderr.write(f"refused: {exc}")
            sys.exit(EX_DATAERR)
        except DatabaseError as exc:
            self.stderr.write(f"temporary failure: {exc}")
            sys.exit(EX_TEMPFAIL)
        number = result.ticket.pk if result.ticket else None
        self.stdout.write({
            "ticket": f"filed as ticket #{number}",
            "follow_up": f"added to ticket #{number}",
            "duplicate": f"already received (ticket #{number})" if number else "already received",
            "ignored": f"ignored: {result.reason}",
        }[result.outcome])
