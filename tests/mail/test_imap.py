"""Polling a real IMAP server over TLS on 127.0.0.1 (tests/stubs/imap_server.py)."""

import imaplib
import ssl
from importlib import import_module

from django.apps import apps
from django.test import TestCase, override_settings
from django_q.models import Schedule

from mail import imap, inbound
from tests.mail import messages
from tests.stubs.imap_server import ImapServer
from tickets.models import Ticket


class ImapPollTests(TestCase):
    def setUp(self):
        self.server = ImapServer()
        self.addCleanup(self.server.stop)

    def poll(self, **overrides) -> dict:
        with override_settings(MAIL={**inbound.settings.MAIL, **self.server.settings(**overrides)}):
            return imap.poll_mailbox()

    def test_unseen_messages_become_tickets_and_are_marked_seen(self):
        first = self.server.add(messages.plain("Where is my parcel?"))
        self.server.add(messages.plain("Out of office", Auto_Submitted="auto-replied"))
        self.server.add(b"Subject: no sender\r\n\r\nhello\r\n")
        counts = self.poll()
        self.assertEqual(counts, {"ticket": 1, "ignored": 1, "refused": 1})
        self.assertEqual(self.server.seen, {1, 2, 3})
        self.assertEqual(Ticket.objects.get().messages.get().body, "Where is my parcel?")
        self.assertIn(f"UID FETCH {first} (BODY.PEEK[])", self.server.commands)
        # Nothing left unseen: the next poll files nothing.
        self.assertEqual(self.poll(), {})

    def test_a_message_seen_again_after_a_crash_is_not_a_second_ticket(self):
        self.server.add(messages.plain("Where is my parcel?"))
        self.poll()
        self.server.seen.clear()  # as if the poll had died before marking it
        self.assertEqual(self.poll(), {"duplicate": 1})
        self.assertEqual(Ticket.objects.count(), 1)

    def test_an_untrusted_certificate_and_a_wrong_password_fail_loudly(self):
        self.server.add(messages.plain("x"))
        with self.assertRaises(ssl.SSLError):
            self.poll(IMAP_CA_FILE="")
        with self.assertRaises(imaplib.IMAP4.error):
            self.poll(IMAP_PASSWORD="wrong")
        self.assertFalse(Ticket.objects.exists())

    def test_without_a_host_the_poll_does_nothing(self):
        self.assertEqual(self.poll(IMAP_HOST=""), {})

    def test_the_poll_is_scheduled_every_minute(self):
        # Declared by the migration; run here again, as a test case before this one may have flushed the table.
        import_module("mail.migrations.0002_imap_schedule").create_schedule(apps, None)
        schedule = Schedule.objects.get(name="mail-poll-imap")
        self.assertEqual((schedule.func, schedule.schedule_type, schedule.minutes),
                         ("mail.tasks.run_poll_imap", Schedule.MINUTES, 1))
