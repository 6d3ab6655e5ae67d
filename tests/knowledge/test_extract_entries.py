"""An extract over FAQ entries (when no entry clearly matches the question): an entry's answer opening with
a yes or a no answers its own question, which the reader of the extract never sees."""

from django.test import TestCase

from knowledge.search import composer
from tests.knowledge.test_composer import hit


def entry(n: int, question: str, answer: str):
    return hit(n, answer, entry={"kind": "faq", "question": question})


class YesNoTests(TestCase):
    def test_another_entrys_yes_is_not_quoted(self):
        # Seen on a bank's FAQ: "Как стать клиентом банка через интернет?" was answered with the right entry's
        # sentence and then "Да, такая возможность предусмотрена для клиентов малого бизнеса…" of another.
        sources = [entry(1, "Как стать клиентом банка онлайн?",
                         "Стать клиентом банка можно онлайн через сайт банка или мобильное приложение."),
                   entry(2, "Можно ли подключить бизнес к интернет-банку онлайн?",
                         "Да, такая возможность предусмотрена для клиентов банка, подключенных к интернет-банку.")]
        text = composer.compose("Как стать клиентом банка через интернет?", sources, entry_match=False).text
        self.assertEqual(text, "Стать клиентом банка можно онлайн через сайт банка или мобильное приложение. [1]")

    def test_the_first_entrys_yes_and_prose_replies_are_quoted(self):
        sources = [entry(1, "Can I pay my bill online?", "Yes, you can pay your bill online in the customer portal."),
                   hit(2, "No, a bill paid online is never charged a fee by the portal.")]
        text = composer.compose("Can I pay my bill online in the portal?", sources, entry_match=False).text
        self.assertIn("Yes, you can pay your bill online in the customer portal. [1]", text)
        self.assertIn("No, a bill paid online is never charged a fee by the portal. [2]", text)

    def test_a_one_word_reply_comes_with_what_it_goes_on_with(self):
        # dotenv's FAQ: "Should I commit my .env file?" — "No." then "Unless you encrypt it with dotenvx." The
        # reply was too short to quote, and the answer said "Unless you encrypt it with dotenvx." alone.
        section = hit(1, "### Should I commit my .env file?\n\nNo.\n\nUnless you encrypt it with dotenvx. Then we "
                         "recommend you do.")
        text = composer.compose("Should I commit my .env file?", [section], entry_match=False).text
        self.assertTrue(text.startswith("No. [1] Unless you encrypt it with dotenvx. [1]"), text)
        # Debian's FAQ: "Как обновить систему до следующего выпуска?" opened "Да." — no yes-or-no question.
        text = composer.compose("How do I commit my .env file safely?", [section], entry_match=False).text
        self.assertNotIn("No.", text)
        # Another entry's one-word reply answers its own question: not brought along.
        sources = [entry(1, "How do I open an account?", "Open an account in the mobile application in minutes."),
                   entry(2, "Can a minor open an account online?", "No.\n\nA minor opens an account in a branch "
                                                                     "with a parent.")]
        text = composer.compose("How do I open an account for a minor?", sources, entry_match=False).text
        self.assertNotIn("No.", text)
        # Nor another section's, under its own question.
        sources = [hit(1, "### What if I committed my .env file?\n\nRemove it and rotate every secret it held."),
                   hit(2, "### Should I commit my .env file?\n\nNo.\n\nUnless you encrypt it with dotenvx.")]
        text = composer.compose("What if I committed my .env file by mistake?", sources, entry_match=False).text
        self.assertNotIn("No.", text)


class LongEntryTests(TestCase):
    def test_a_section_longer_than_an_faqs_answer_is_quoted_whole_but_not_as_an_entrys_answer(self):
        # A manual's section under a question heading ("Как мне поддерживать систему в актуальном состоянии?", 3,500
        # characters of Debian's FAQ) matched as an entry: an entry's answer may be sent without review.
        paragraph = "Run the update command of the package manager, then answer its questions, and reboot. "
        long = entry(1, "How do I keep my system up to date?", paragraph * 20)
        composition = composer.compose("How do I keep my system up to date?", [long], entry_match=True)
        self.assertEqual(composition.text, f"{(paragraph * 20).strip()} [1]")
        self.assertFalse(composition.entry_match)
        short = entry(1, "How do I keep my system up to date?", paragraph * 5)
        self.assertTrue(composer.compose("How do I keep my system up to date?", [short], entry_match=True).entry_match)
