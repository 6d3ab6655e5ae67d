import json
from io import StringIO

from django.core.management import CommandError, call_command
from django.test import TestCase

from tests.conftest import DATA
from tests.tickets.helpers import make_help_centre
from tickets.models import Message, Ticket


class ImportTicketsTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb, cls.documents, cls.agent = make_help_centre()

    def write(self, tmp_rows):
        path = self.tmp / "tickets.jsonl"
        path.write_text("\n".join(json.dumps(row, ensure_ascii=False) for row in tmp_rows) + "\n", encoding="utf-8")
        return path

    def setUp(self):
        import tempfile
        from pathlib import Path

        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.tmp = Path(folder.name)

    def run_command(self, *args):
        out, err = StringIO(), StringIO()
        call_command("import_tickets", *map(str, args), stdout=out, stderr=err)
        return out.getvalue()

    def test_it_imports_triages_and_summarises(self):
        path = self.write([
            {"id": "a1", "text": "How long does standard delivery take?", "category": "SHIPPING", "intent": "x"},
            {"id": "a2", "question": "Хочу вернуть деньги, подам в суд!", "category": "Refunds"},
            {"id": "a3", "text": "How do I reset my password?"},
        ])
        out = self.run_command(path)
        self.assertIn("3 ticket(s) imported, 0 already there.", out)
        # Only the delivery question has a matching FAQ entry; the password answer is an extract.
        self.assertIn("auto-replied    1", out)
        self.assertIn("sent to review  2", out)
        self.assertIn("by risk level:  low 2, high 1", out)
        self.assertIn("risk reasons:   legal_threat 1, refund 1", out)
        ticket = Ticket.objects.get(external_id="a1")
        self.assertEqual((ticket.channel, ticket.metadata), ("import", {"category": "SHIPPING", "intent": "x"}))
        self.assertEqual(Ticket.objects.get(external_id="a2").messages.get(kind=Message.Kind.CUSTOMER).body,
                         "Хочу вернуть деньги, подам в суд!")

    def test_importing_the_same_file_again_adds_nothing(self):
        path = self.write([{"id": "b1", "text": "How long does standard delivery take?"}])
        self.run_command(path)
        out = self.run_command(path)
        self.assertIn("0 ticket(s) imported, 1 already there.", out)
        self.assertEqual(Ticket.objects.get().triage_count, 1)

    def test_it_reads_both_shared_samples(self):
        for name in ("en_support_messages.jsonl", "ru_bank_faq_vtb_by.jsonl"):
            with self.subTest(name=name):
                out = self.run_command(DATA / "tickets" / name, "--limit", 3, "--no-triage")
                self.assertIn("3 ticket(s) imported", out)
        self.assertEqual(Ticket.objects.filter(status=Ticket.Status.NEW).count(), 6)
        faq = Ticket.objects.get(external_id="ru-vtb-000")
        self.assertEqual(faq.subject, "Как стать клиентом банка онлайн?")
        self.assertIn("answer", faq.metadata)

    def test_a_bad_line_names_its_number(self):
        path = self.tmp / "bad.jsonl"
        path.write_text('{"text": "ok"}\n{oops\n', encoding="utf-8")
        with self.assertRaisesMessage(CommandError, "bad.jsonl:2: not JSON"):
            self.run_command(path, "--no-triage")
        self.assertFalse(Ticket.objects.exists())  # the good line before it was not stored either

    def test_a_line_without_text_stops_the_import_before_anything_is_stored(self):
        path = self.write([{"id": "c1", "text": "Where is my parcel?"}, {"id": "c2", "text": "Refund please"},
                           {"id": "c3", "subject": "no text"}, {"id": "c4", "text": ""}])
        with self.assertRaisesMessage(CommandError, "on line(s) 3, 4; nothing was imported"):
            self.run_command(path)
        self.assertFalse(Ticket.objects.exists())
