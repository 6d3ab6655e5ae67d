from io import StringIO

from django.core.management import CommandError, call_command
from django.test import TestCase

from tests.factories import make_document, make_kb

PASSWORD = "# Accounts\n\nTo reset a forgotten password, open the profile settings and press Reset password."
EMAIL = "# Email\n\nThe reset password link arrives by email within five minutes."


class SearchCommandTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb(slug="help")
        cls.other = make_kb(slug="other")
        make_document(cls.kb, PASSWORD, title="Accounts", source_uri="https://help.example.com/accounts")
        make_document(cls.other, EMAIL, title="Email")

    def run_command(self, *args):
        out = StringIO()
        call_command("search", *args, stdout=out)
        return out.getvalue()

    def test_it_prints_ranked_hits_with_highlights(self):
        output = self.run_command("help", "reset password", "--top-k", "3")
        self.assertIn("1. Accounts", output)
        self.assertIn("[vector, keyword]", output)
        self.assertIn("https://help.example.com/accounts", output)
        self.assertIn("*password*", output)
        self.assertIn("hybrid: best similarity", output)

    def test_it_searches_several_bases_in_one_mode(self):
        output = self.run_command("help,other", "reset password", "--mode", "keyword")
        self.assertIn("Accounts", output)
        self.assertIn("Email", output)
        self.assertNotIn("[vector", output)

    def test_it_writes_a_grounded_answer_with_sources(self):
        output = self.run_command("help", "how do I reset a forgotten password", "--answer", "--threshold", "0.2")
        self.assertIn("[1]", output)
        self.assertIn("generator: extractive", output)
        self.assertIn("Sources:", output)
        self.assertIn("[1]* Accounts", output)

    def test_a_refusal_says_why(self):
        output = self.run_command("help", "reset password", "--answer", "--threshold", "0.99")
        self.assertIn("below_threshold", output)
        self.assertIn("none (refused)", output)
        output = self.run_command("help", "How do I reset a forgotten password with Okta?", "--answer", "--threshold",
                                  "0.2")
        self.assertIn("unmentioned_name", output)
        self.assertIn("never mentioned in the bases: Okta", output)

    def test_an_unknown_slug_is_an_error(self):
        with self.assertRaisesMessage(CommandError, "'nope'"):
            self.run_command("help,nope", "reset password")
