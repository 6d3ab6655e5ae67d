"""Every page the portal adds to the admin, rendered in Russian: no English UI word may be left.

The data is Russian (a base, a document, a job with failures, a triaged ticket with a draft, its
sources and trace), so an English word on these pages can only come from a string that was not
marked for translation or has no Russian in the catalogue. The same pages in English show that
the default language still speaks English.
"""

from django.contrib.auth import get_user_model
from django.test import TestCase, override_settings
from django.urls import reverse

from evaluation.models import GoldenQuestion, GoldenSet
from knowledge.models import Chunk, Job
from tests.factories import make_document, make_kb
from tests.i18n.helpers import english_words, visible_text
from tickets import triage
from tickets.models import Agent, Message, Ticket

REFUNDS = """# Возврат денег

## Сроки возврата
Деньги возвращаются на карту в течение пяти рабочих дней после того, как возвращённая посылка
поступит на склад. Для возврата нужны номер заказа и причина.

## Обмен
Обмен на другой размер бесплатен в течение тридцати дней после доставки."""

DELIVERY = """# Доставка

## Сроки доставки
Обычная доставка занимает от трёх до пяти рабочих дней. Экспресс-доставка приходит на следующий
рабочий день, если заказ оформлен до полудня."""


class RussianAdminPagesTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.root = get_user_model().objects.create_superuser("root", password="pw")
        cls.kb = make_kb(name="Справочный центр", description="Ответы службы поддержки")
        cls.doc = make_document(cls.kb, REFUNDS, title="Возврат денег", source_uri="https://help.example/vozvrat")
        make_document(cls.kb, DELIVERY, title="Доставка", source_uri="https://help.example/dostavka")
        cls.job = Job.objects.create(kind=Job.Kind.INGEST, knowledge_base=cls.kb, status=Job.Status.FAILED,
                                     progress_done=2, progress_total=3, counters={"created": 2, "failed": 1},
                                     failures=[{"item": "отчёт.pdf", "reason": "файл повреждён"}])
        cls.agent = Agent.objects.create(name="Поддержка", is_default=True, confidence_threshold=0.3)
        cls.agent.knowledge_bases.add(cls.kb)
        cls.golden = GoldenSet.objects.create(knowledge_base=cls.kb, name="Вопросы клиентов")
        GoldenQuestion.objects.create(golden_set=cls.golden, question="Сколько идёт доставка?")

    def setUp(self):
        self.client.force_login(self.root)
        self.client.cookies["django_language"] = "ru"
        with self.captureOnCommitCallbacks(execute=True):
            self.ticket = triage.submit_ticket(subject="Сроки доставки", customer="анна@пример.рф",
                                               body="Сколько дней занимает обычная доставка? Вы должны вернуть "
                                                    "деньги, иначе я подам в суд!")
        self.ticket.refresh_from_db()

    def pages(self) -> dict[str, str]:
        kb, doc, job, ticket = self.kb.pk, self.doc.pk, self.job.pk, self.ticket.pk
        chunk = Chunk.objects.filter(document=self.doc).first().pk
        return {
            "index": reverse("admin:index"),
            "bases": reverse("admin:knowledge_knowledgebase_changelist"),
            "base": reverse("admin:knowledge_knowledgebase_change", args=[kb]),
            "upload": reverse("admin:knowledge_knowledgebase_upload", args=[kb]),
            "reindex": reverse("admin:knowledge_knowledgebase_reindex", args=[kb]),
            "playground": reverse("admin:knowledge_knowledgebase_playground") + f"?kb={kb}",
            "documents": reverse("admin:knowledge_document_changelist"),
            "document": reverse("admin:knowledge_document_change", args=[doc]),
            "chunks": reverse("admin:knowledge_chunk_changelist"),
            "chunk": reverse("admin:knowledge_chunk_change", args=[chunk]),
            "jobs": reverse("admin:knowledge_job_changelist"),
            "job": reverse("admin:knowledge_job_change", args=[job]),
            "add url": reverse("admin:crawler_crawledpage_add_url", args=[kb]),
            "crawl": reverse("admin:crawler_crawledpage_crawl", args=[kb]),
            "crawled pages": reverse("admin:crawler_crawledpage_changelist"),
            "inbox": reverse("admin:tickets_ticket_changelist"),
            "ticket": reverse("admin:tickets_ticket_change", args=[ticket]),
            "gap report": reverse("admin:tickets_ticket_report"),
            "write an answer": reverse("admin:knowledge_knowledgebase_write_entry") + "?question=Сроки%20доставки",
            "agents": reverse("admin:tickets_agent_changelist"),
            "agent": reverse("admin:tickets_agent_change", args=[self.agent.pk]),
            "api keys": reverse("admin:portal_apikey_changelist"),
            "golden sets": reverse("admin:evaluation_goldenset_changelist"),
            "golden set": reverse("admin:evaluation_goldenset_change", args=[self.golden.pk]),
            "golden questions": reverse("admin:evaluation_goldenquestion_changelist"),
            "golden import": reverse("admin:evaluation_goldenset_import", args=[self.golden.pk]),
            "evaluation runs": reverse("admin:evaluation_evalrun_changelist"),
            "evaluation trend": reverse("admin:evaluation_evalrun_trend", args=[kb]),
            "feedback": reverse("admin:evaluation_feedback_changelist"),
            "shadow switches": reverse("admin:evaluation_shadowswitch_changelist"),
            "shadow switch form": reverse("admin:evaluation_shadowswitch_add"),
            "api key form": reverse("admin:portal_apikey_add"),
            "api requests": reverse("admin:portal_apirequest_changelist"),
        }

    def assert_russian(self, name: str, response) -> None:
        self.assertEqual(response.status_code, 200, name)
        self.assertEqual(response.headers.get("Content-Language"), "ru", name)
        text = visible_text(response.content.decode())
        self.assertEqual(english_words(text), [], f"{name}: {text[:3000]}")

    def test_every_custom_page_is_russian(self):
        for name, url in self.pages().items():
            with self.subTest(page=name):
                self.assert_russian(name, self.client.get(url))

    def test_the_change_log_speaks_russian_around_its_data(self):
        # django-auditlog lists the changed fields by their names (data, not UI): only its own
        # words are checked, from our catalogue (it ships no Russian).
        response = self.client.get(reverse("admin:auditlog_logentry_changelist"))
        self.assertEqual(response.status_code, 200)
        self.assertEqual(response.headers.get("Content-Language"), "ru")
        self.assertContains(response, "Журнал изменений")
        self.assertNotContains(response, "Audit log")
        self.assertNotContains(response, "Resource Type")

    def test_the_playground_results_and_answer_are_russian(self):
        response = self.client.post(reverse("admin:knowledge_knowledgebase_playground"),
                                    {"query": "сроки доставки", "knowledge_bases": [self.kb.pk], "mode": "hybrid",
                                     "top_k": 5, "with_answer": "on"})
        self.assert_russian("playground results", response)
        self.assertContains(response, "Источники")
        self.assertContains(response, "результат")

    def test_the_ticket_page_translates_reasons_and_labels(self):
        response = self.client.get(reverse("admin:tickets_ticket_change", args=[self.ticket.pk]))
        self.assert_russian("ticket", response)
        # The risk rule's reason, stored in English, is shown in the reader's language.
        self.assertContains(response, "Упоминает иск, юриста, суд или надзорный орган")
        self.assertContains(response, "Русский")  # the customer's language, detected on arrival

    def test_messages_after_actions_are_russian(self):
        response = self.client.post(reverse("admin:tickets_ticket_note", args=[self.ticket.pk]), {"text": ""},
                                    follow=True)
        self.assert_russian("note refused", response)
        response = self.client.post(reverse("admin:tickets_ticket_reject", args=[self.ticket.pk]),
                                    {"reason": "дубликат"}, follow=True)
        self.assert_russian("rejected", response)
        self.assertContains(response, f"Тикет №{self.ticket.pk} отклонён; ответ не отправлен.")

    def test_error_pages_are_russian(self):
        response = self.client.get("/admin/knowledge/nothing-here/")
        self.assertEqual(response.status_code, 404)
        self.assertEqual(english_words(visible_text(response.content.decode())), [])
        self.assertContains(response, "Страница не найдена", status_code=404)
        staff = get_user_model().objects.create_user("staff", password="pw", is_staff=True)
        self.client.force_login(staff)
        self.client.cookies["django_language"] = "ru"
        response = self.client.get(reverse("admin:tickets_ticket_report"))
        self.assertEqual(response.status_code, 403)
        self.assertEqual(english_words(visible_text(response.content.decode())), [])
        self.assertContains(response, "Доступ запрещён", status_code=403)

    @override_settings(LANGUAGE_CODE="en")
    def test_the_same_pages_speak_english_by_default(self):
        del self.client.cookies["django_language"]
        for name, url in self.pages().items():
            with self.subTest(page=name):
                response = self.client.get(url)
                self.assertEqual(response.status_code, 200, name)
                self.assertEqual(response.headers.get("Content-Language"), "en", name)
        response = self.client.get(reverse("admin:tickets_ticket_change", args=[self.ticket.pk]))
        self.assertContains(response, "Mentions legal action, a lawyer, a court or a regulator")
        self.assertContains(response, "Approve and send")
        self.assertEqual(Message.objects.filter(ticket=self.ticket, kind=Message.Kind.CUSTOMER).count(), 1)
        self.assertEqual(Ticket.objects.get(pk=self.ticket.pk).language, "ru")
