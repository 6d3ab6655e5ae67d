"""What a customer asks, without the letter around it: greeting, sign-off and signature (English and Russian)."""

from django.test import SimpleTestCase

from knowledge.search.salutations import REPLY_PREFIX, is_salutation, strip_salutations

QUESTION_EN = "My parcel has not arrived.\nCan you check order 10452?"
QUESTION_RU = "Как заблокировать карточку, если я её потерял?"

LETTERS = [
    ("greeting and sign-off", f"Hello,\n\n{QUESTION_EN}\n\nKind regards,\nAnn", QUESTION_EN),
    ("named greeting, thanks with a signature block", f"Hi Anna,\n{QUESTION_EN}\n\nThanks in advance!\nAnn Smith\n"
     "Head of Procurement, ACME Ltd.\n+1 555 0100", QUESTION_EN),
    ("RFC 3676 signature", f"{QUESTION_EN}\n\n-- \nAnn Smith | ACME Ltd. | www.acme.example", QUESTION_EN),
    ("phone footer", f"{QUESTION_EN}\n\nSent from my iPhone", QUESTION_EN),
    ("Outlook mobile footer", f"Dear support team,\n{QUESTION_EN}\nBest regards\n\nGet Outlook for Android",
     QUESTION_EN),
    ("Russian letter", f"Здравствуйте!\n\n{QUESTION_RU}\n\nС уважением,\nАнна Петрова\n"
     "менеджер по закупкам ООО «Ромашка»\nтел. +375 29 123-45-67", QUESTION_RU),
    ("Russian greeting on the question's line", f"Добрый день! {QUESTION_RU}\nСпасибо!", QUESTION_RU),
    ("a greeting and a full stop", f"Добрый день. {QUESTION_RU}", QUESTION_RU),
    ("a greeting before a comma", "Здравствуйте, подскажите, пожалуйста, тарифы", "подскажите, пожалуйста, тарифы"),
    ("a letter on one line", f"Здравствуйте! {QUESTION_RU} С уважением, Анна", QUESTION_RU),
    ("an English letter on one line", "Hi, can you check order 10452? Thanks in advance, Ann",
     "can you check order 10452?"),
    ("Russian thanks for the help, phone footer", f"Доброго времени суток.\n{QUESTION_RU}\nЗаранее спасибо за помощь"
     "\n\nОтправлено из мобильной Почты Mail.ru", QUESTION_RU),
]


class StripSalutationsTests(SimpleTestCase):
    def test_the_letter_around_the_question_goes(self):
        for name, letter, question in LETTERS:
            with self.subTest(name):
                self.assertEqual(strip_salutations(letter), question)

    def test_what_the_customer_asks_is_never_touched(self):
        for text in (
            "Hello world example does not compile.\nIt fails on Windows.",  # a greeting word, not a greeting
            "Thanks for the quick reply, but the parcel is still missing.\nWhat now?",
            "My parcel is late.\nBest price for express delivery?",
            "Спасибо, что ответили. Но карта всё ещё заблокирована.",
            "Where is it?\n\n-- not a delimiter, a dash in the text",
            "First, the card is blocked.\n--\nSecond, how do I change the PIN?",  # a question below "--"
            "Is it free? Thanks to your app I saved a lot.",  # a sentence that opens with "Thanks"
        ):
            with self.subTest(text):
                self.assertEqual(strip_salutations(text), text)

    def test_a_message_of_courtesies_alone_is_kept_whole(self):
        for text in ("Hello!", "Спасибо, всё получил!\nАнна", "Thanks,\nAnn\n\nSent from my iPhone"):
            with self.subTest(text):
                self.assertEqual(strip_salutations(text), text)

    def test_a_subject_that_only_greets_says_nothing(self):
        self.assertTrue(is_salutation("Здравствуйте!"))
        self.assertTrue(is_salutation("Hi Anna,"))
        self.assertFalse(is_salutation("Hello world example"))
        self.assertFalse(is_salutation("Карта заблокирована"))
        self.assertEqual(REPLY_PREFIX.sub("", "RE: Fwd: Отв[2]: Карта").strip(), "Карта")
