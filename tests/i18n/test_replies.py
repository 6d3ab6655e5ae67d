"""Refusals and e-mail replies per agent and per language of the ticket; language detection; slugs."""

from django.core.exceptions import ValidationError
from django.test import SimpleTestCase, TestCase, override_settings
from django.utils import translation

from mail import inbound
from portal.languages import detect_language, supported
from portal.slugs import slug_from
from tests.api.base import make_user
from tests.factories import make_kb
from tests.mail import messages
from tests.stubs.smtp_server import SmtpServer
from tickets import inbox, replies, triage
from tickets.models import Agent, Message, ReplyTemplate, Ticket

MAIL = {**inbound.settings.MAIL, "FROM": "Help desk <help@portal.example>", "DOMAIN": "portal.example"}
RUSSIAN_REFUSAL = ("Спасибо за обращение. Мы не нашли надёжного ответа в нашей документации, поэтому вам лично "
                   "ответит наш сотрудник.")
ENGLISH_REFUSAL = ("Thank you for your message. We could not find a reliable answer in our documentation, so a "
                   "member of our team will reply to you personally.")


class DetectionTests(SimpleTestCase):
    def test_it_tells_russian_from_english(self):
        self.assertEqual(detect_language("Где моя посылка? Заказ оформлен три дня назад."), "ru")
        self.assertEqual(detect_language("Where is my parcel? I ordered it three days ago."), "en")

    def test_latin_names_in_a_russian_text_keep_it_russian(self):
        self.assertEqual(detect_language("Не работает вход в Google Workspace через SSO, ошибка AADSTS50011"), "ru")
        self.assertEqual(detect_language("My name is Пётр and the app crashes on login"), "en")

    def test_no_letters_is_the_default_language(self):
        self.assertEqual(detect_language("12345 !!! ???"), "en")
        with override_settings(LANGUAGE_CODE="ru"):
            self.assertEqual(detect_language(""), "ru")

    def test_an_unknown_language_code_falls_back(self):
        self.assertEqual(supported("de"), "en")
        self.assertEqual(supported("ru-RU"), "ru")
        self.assertEqual(supported(None), "en")


class SlugTests(TestCase):
    def test_russian_names_are_transliterated(self):
        self.assertEqual(slug_from("Справочный центр — Возвраты 2026"), "spravochnyj-centr-vozvraty-2026")
        self.assertEqual(slug_from("Щука и ёж"), "shuka-i-yozh")
        self.assertEqual(slug_from("!!!", fallback="base"), "base")

    def test_a_knowledge_base_from_a_russian_name_gets_a_readable_slug(self):
        kb = make_kb(name="База знаний поддержки", slug="")
        self.assertEqual(kb.slug, "baza-znanij-podderzhki")


def submit(test, body, **fields):
    with test.captureOnCommitCallbacks(execute=True):
        ticket = triage.submit_ticket(body=body, customer="ann@example.com", **fields)
    ticket.refresh_from_db()
    return ticket


class RefusalTests(TestCase):
    """No knowledge base can answer these tickets: the refusal speaks the customer's language."""

    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb(name="Пустая база")
        cls.agent = Agent.objects.create(name="Поддержка", is_default=True, confidence_threshold=0.5)
        cls.agent.knowledge_bases.add(cls.kb)

    def draft(self, ticket):
        return ticket.messages.filter(kind=Message.Kind.DRAFT).latest("pk").body

    def test_the_default_refusal_follows_the_ticket_not_the_admin(self):
        with translation.override("en"):
            russian = submit(self, "Как вернуть деньги за заказ?")
        with translation.override("ru"):
            english = submit(self, "How do I get my money back?")
        self.assertEqual((russian.language, english.language), ("ru", "en"))
        self.assertTrue(russian.refused and english.refused)
        self.assertEqual(self.draft(russian), RUSSIAN_REFUSAL)
        self.assertEqual(self.draft(english), ENGLISH_REFUSAL)
        # The trace is written in the customer's language too.
        self.assertEqual(russian.trace[0]["detail"], "Просит вернуть деньги или компенсацию («вернуть деньги»)")
        self.assertEqual(english.trace[0]["detail"], "Asks for a refund or compensation («money back»)")

    def test_an_agents_templates_win_per_language(self):
        ReplyTemplate.objects.create(agent=self.agent, kind=ReplyTemplate.Kind.REFUSAL, language="ru",
                                     text="Агент {agent}: ответим лично, тикет №{ticket}.")
        ReplyTemplate.objects.create(agent=self.agent, kind=ReplyTemplate.Kind.REFUSAL, language="en",
                                     text="We will answer you personally.")
        russian = submit(self, "Как вернуть деньги за заказ?")
        english = submit(self, "How do I get my money back?")
        self.assertEqual(self.draft(russian), f"Агент Поддержка: ответим лично, тикет №{russian.pk}.")
        self.assertEqual(self.draft(english), "We will answer you personally.")

    def test_the_agents_own_refusal_text_covers_languages_without_a_template(self):
        Agent.objects.filter(pk=self.agent.pk).update(refusal_text="Ask a human.")
        ReplyTemplate.objects.create(agent=self.agent, kind=ReplyTemplate.Kind.REFUSAL, language="ru",
                                     text="Спросите сотрудника.")
        self.assertEqual(self.draft(submit(self, "How do I get my money back?")), "Ask a human.")
        self.assertEqual(self.draft(submit(self, "Как вернуть деньги?")), "Спросите сотрудника.")

    def test_an_email_template_needs_the_reply_placeholder(self):
        template = ReplyTemplate(agent=self.agent, kind=ReplyTemplate.Kind.EMAIL, language="ru", text="Привет!")
        with self.assertRaises(ValidationError) as caught, translation.override("ru"):
            template.full_clean()
        self.assertIn("{reply}", str(caught.exception))
        ReplyTemplate(agent=self.agent, kind=ReplyTemplate.Kind.REFUSAL, language="ru", text="Нет.").full_clean()

    def test_unknown_braces_in_a_template_stay_as_written(self):
        self.assertEqual(replies.fill("{reply} {name} {agent}", reply="R", agent="A"), "R {name} A")


@override_settings(MAIL=MAIL)
class EmailReplyTests(TestCase):
    def setUp(self):
        self.smtp = SmtpServer().start()
        self.addCleanup(self.smtp.stop)
        override = override_settings(**self.smtp.settings())
        override.enable()
        self.addCleanup(override.disable)
        self.staff = make_user("staff")
        self.agent = Agent.objects.create(name="Поддержка", is_default=True)

    def reply_by_mail(self, body: str, subject: str = "", text: str = "Ответ.") -> str:
        with self.captureOnCommitCallbacks(execute=False):
            received = inbound.receive_message(messages.plain(body, subject=subject))
        Ticket.objects.filter(pk=received.ticket.pk).update(agent=self.agent, status=Ticket.Status.REVIEW)
        with self.captureOnCommitCallbacks(execute=True):
            inbox.send_reply(Ticket.objects.get(pk=received.ticket.pk), user=self.staff, text=text)
        (_recipients, sent), = self.smtp.messages[-1:]
        return sent

    def test_a_russian_ticket_is_answered_with_the_russian_default(self):
        sent = self.reply_by_mail("Где моя посылка? Жду уже неделю.", subject="Посылка",
                                  text="Посылка отправлена сегодня.")
        reply, quoted = sent.get_content().replace("\r\n", "\n").strip().rsplit("\n\n", 1)
        self.assertEqual(reply, "Здравствуйте!\n\nПосылка отправлена сегодня.\n\nС уважением,\nслужба поддержки")
        # The customer's message under it, introduced in their language.
        attribution, line = quoted.split("\n")
        self.assertTrue(attribution.endswith(", Ann <ann@example.com> написал(а):"), attribution)
        self.assertEqual(line, "> Где моя посылка? Жду уже неделю.")
        self.assertEqual(sent["Subject"], "Re: Посылка")

    def test_the_agents_template_in_the_customers_language(self):
        ReplyTemplate.objects.create(agent=self.agent, kind=ReplyTemplate.Kind.EMAIL, language="en",
                                     text="Hi {customer},\n{reply}\n-- {agent}")
        ReplyTemplate.objects.create(agent=self.agent, kind=ReplyTemplate.Kind.EMAIL, language="ru",
                                     text="Добрый день!\n{reply}\n— {agent}")
        english = self.reply_by_mail("Where is my parcel?", subject="Parcel", text="It left today.")
        self.assertEqual(english.get_content().replace("\r\n", "\n").strip().rsplit("\n\n", 1)[0],
                         "Hi ann@example.com,\nIt left today.\n-- Поддержка")
        russian = self.reply_by_mail("Где моя посылка?", subject="Посылка", text="Отправлена сегодня.")
        self.assertEqual(russian.get_content().replace("\r\n", "\n").strip().rsplit("\n\n", 1)[0],
                         "Добрый день!\nОтправлена сегодня.\n— Поддержка")

    def test_a_ticket_without_a_subject_gets_one_in_its_language(self):
        sent = self.reply_by_mail("Где моя посылка?", subject="")
        self.assertEqual(sent["Subject"], "Re: Где моя посылка?")  # the subject made from the first line
        ticket = Ticket.objects.latest("pk")
        Ticket.objects.filter(pk=ticket.pk).update(subject="")
        self.assertEqual(replies.email_subject(Ticket.objects.get(pk=ticket.pk)), "Ваше обращение")
