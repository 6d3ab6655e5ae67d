"""A question naming something its knowledge base never mentions is not answered with an extract."""

import pytest
from django.db import connection
from django.test import SimpleTestCase, TestCase
from django.test.utils import CaptureQueriesContext

from knowledge.indexing import term_statistics
from knowledge.search import answers, reasons, unmentioned
from knowledge.search.unmentioned import names, unmentioned_names
from tests.base import explain
from tests.factories import make_document, make_kb

DEPLOYING = ("# Deploying to production\n\nTo deploy the application, run it with Gunicorn behind a reverse proxy. "
             "Start Gunicorn with four worker processes and point the proxy at its socket.")
UPLOADS = ("# Uploading files\n\nTo upload files, add a file field to the form; uploaded files are stored in the "
           "upload folder until the request ends.")
SETTINGS = "# Settings\n\nThe application reads its settings from environment variables when Gunicorn starts it."


class NamesTests(SimpleTestCase):
    def test_names_are_written_with_capitals_inside_the_sentence(self):
        self.assertEqual(names("How do I deploy Flask on Kubernetes?"), ["Flask", "Kubernetes"])
        self.assertEqual(names("Can it convert Markdown to PDF or use GraphQL on an iPhone?"),
                         ["Markdown", "PDF", "GraphQL", "iPhone"])
        self.assertEqual(names("Как оплатить через СБП в приложении Беларусбанка?"), ["СБП", "Беларусбанка"])
        self.assertEqual(names("Python-Markdown: does it render LaTeX?"), ["Python-Markdown", "LaTeX"])

    def test_a_sentences_first_word_is_no_name(self):
        self.assertEqual(names("Deploy it how? Docker or not."), [])
        self.assertEqual(names("«Kubernetes» — нужен ли он?\n- Docker тоже"), [])

    def test_capitals_as_a_style_are_no_names(self):
        self.assertEqual(names("How Do I Reset My Password In The App?"), [])
        self.assertEqual(names("I CANNOT LOG IN TO MY ACCOUNT, HELP"), [])
        # Capitalised every word, an acronym or mixed case still names something.
        self.assertEqual(names("How Do I Export To PDF From The iPhone App?"), ["PDF", "iPhone"])

    def test_code_addresses_and_single_letters_are_no_names(self):
        self.assertEqual(names("What does Flask.config hold, and who is admin@Example.com? I ask, A or B."), [])
        # Nor two letters: "ES modules" (dotenv's README says "ES6" and "ESM"), "UI", "DB".
        self.assertEqual(names("How do I use it with ES modules, in the UI or the DB?"), [])
        self.assertEqual(names("Is `Retrying` or retry_If used in src/Retry.py?"), [])

    def test_capitals_joined_by_a_slash_are_one_name(self):
        self.assertEqual(names("Does it support HTTP/3 over TCP/IP, or CI/CD in src/App?"),
                         ["HTTP/3", "TCP/IP", "CI/CD"])

    def test_a_persons_name_is_no_name_of_what_is_asked(self):
        self.assertEqual(names("My colleague John can't log in, how do I reset his password?"), [])
        self.assertEqual(names("How do I add my wife Maria Petrova as a second cardholder?"), [])
        self.assertEqual(names("Can Dr. Smith or Mrs Jones see my results?"), [])
        self.assertEqual(names("Можно ли моему мужу Ивану Петрову получить карту?"), [])
        self.assertEqual(names("Может ли г-н Иванов получить карту для нашего бухгалтера Анны?"), [])
        # Who they are is said with a word for a person: a browser, a tool or a product stays a name.
        self.assertEqual(names("Does it work in my browser Firefox, with our tool Jira?"), ["Firefox", "Jira"])

    def test_a_full_stop_or_a_colon_after_a_name_ends_the_sentence(self):
        self.assertEqual(names("It runs on Kubernetes. It runs on Nomad: fine"), ["Kubernetes", "Nomad"])


class UnmentionedAnswersTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb(name="Acme Cloud help", description="Answers about the Acme Cloud service.")
        make_document(cls.kb, DEPLOYING, title="Deploying", source_uri="https://docs.example.com/deploying")
        make_document(cls.kb, UPLOADS, title="Uploads", source_uri="https://docs.example.com/uploads")
        make_document(cls.kb, SETTINGS, title="Settings", source_uri="https://docs.example.com/settings")
        for n in range(20):  # so that a name in two chunks is not in most of them
            make_document(cls.kb, f"# Region {n}\n\nThe monthly report of region {n} lists its sales and returns.",
                          title=f"Region {n}")
        term_statistics.take(cls.kb.pk)
        cls.kb.refresh_from_db()

    def test_a_question_naming_what_the_base_never_mentions_is_refused(self):
        result = answers.answer("How do I deploy the application on Kubernetes?", [self.kb.pk], threshold=0.0)
        self.assertTrue(result.refused)
        self.assertIn("unmentioned_name", result.reasons)
        self.assertEqual(result.citations, [])
        self.assertTrue(result.sources)  # what was found is still shown to staff
        self.assertEqual(result.unmentioned, ["Kubernetes"])
        self.assertEqual(reasons.reason_sentences(["unmentioned_name"], "en", unmentioned=result.unmentioned),
                         ["The question names “Kubernetes”, which the knowledge base never mentions: an extract of "
                          "other sources would not answer it."])
        self.assertEqual(reasons.reason_sentences(["unmentioned_name"], "ru", unmentioned=["Kubernetes", "Nomad"]),
                         ["В вопросе названо «Kubernetes», «Nomad», о чём база знаний нигде не говорит: выдержка из "
                          "других источников не ответила бы на него."])
        # Without the names (a caller that has only the codes), the sentence says "something".
        self.assertEqual(reasons.reason_sentences(["unmentioned_name"], "ru"),
                         ["В вопросе названо то, о чём база знаний нигде не говорит: выдержка из других источников "
                          "не ответила бы на него."])

    def test_a_name_the_base_holds_is_answered(self):
        result = answers.answer("How do I deploy the application with Gunicorn?", [self.kb.pk], threshold=0.0)
        self.assertFalse(result.refused, result.reasons)
        self.assertIn("Gunicorn", result.text)

    def test_the_bases_own_name_and_description_count_as_mentioned(self):
        self.assertEqual(unmentioned_names("How do I upload files to Acme Cloud?", [self.kb]), [])
        self.assertFalse(answers.answer("How do I upload files to Acme Cloud?", [self.kb.pk], threshold=0.0).refused)

    def test_a_misspelt_name_of_a_common_word_is_taken_for_it(self):
        self.assertEqual(unmentioned_names("Should I run Gunicron with four workers?", [self.kb]), [])
        # Short words are a letter away from too many others to be read as misspellings.
        self.assertEqual(unmentioned_names("Can it run Guni on Nomad?", [self.kb]), ["Guni", "Nomad"])

    def test_a_question_also_naming_what_the_base_knows_is_about_that(self):
        # Gunicorn is in 2 of the 23 chunks: something the base knows, so the question is left to the
        # other rules; the base's own name in every chunk would not count.
        self.assertEqual(unmentioned_names("Can Gunicorn run on Nomad?", [self.kb]), [])
        self.assertEqual(unmentioned_names("Can the Region report run on Nomad?", [self.kb]), ["Nomad"])

    def test_a_statement_is_searched_for_evidence_not_asked_about(self):
        # A claim to check words its names as it likes ("PGE2" for a page's "prostaglandin E2").
        self.assertEqual(unmentioned_names("The application runs on Nomad.", [self.kb]), [])
        self.assertEqual(unmentioned_names("Does the application run on Nomad", [self.kb]), ["Nomad"])
        self.assertEqual(unmentioned_names("Как запустить приложение в Nomad", [self.kb]), ["Nomad"])
        # Only the sentences that ask: who writes, from where, is no part of the question.
        self.assertEqual(unmentioned_names("Hi, this is Anna from Nomad Corp. How do I upload files?", [self.kb]), [])
        self.assertEqual(unmentioned_names("Uploads work. Deploys too.\nDoes it run on Nomad?", [self.kb]), ["Nomad"])
        # Initials end no sentence, so the name after them is inside the one that asks.
        self.assertEqual(unmentioned_names("Кто такой А. С. Пушкин?", [self.kb]), ["Пушкин"])

    def test_a_name_in_the_other_alphabet_is_the_same_name(self):
        faq = make_kb(text_search_config="russian")
        make_document(faq, "# Карточки\n\nКарточкой «Мир» можно платить на OZON и Wildberries. Уведомления "
                           "приходят в Telegram. Оплата телефоном Самсунг тоже работает.", title="Карточки")
        self.assertEqual(unmentioned_names("Можно ли платить картой на Озоне?", [faq]), [])
        self.assertEqual(unmentioned_names("Есть ли уведомления в Телеграме?", [faq]), [])
        self.assertEqual(unmentioned_names("Can I pay with a Samsung phone?", [faq]), [])
        self.assertEqual(unmentioned_names("Можно ли платить на Lamoda?", [faq]), ["Lamoda"])
        # A card called MORE (an English stop word, indexed nowhere) is not the Russian "море".
        self.assertEqual(unmentioned_names("Как оформить карту MORE?", [faq]), [])

    def test_each_base_is_searched_with_its_own_text_search_configuration(self):
        other = make_kb(text_search_config="english")
        make_document(other, "# Orchestration\n\nThe service runs on Kubernetes clusters.", title="Orchestration")
        self.assertEqual(unmentioned_names("Does it run on Kubernetes?", [self.kb]), ["Kubernetes"])
        self.assertEqual(unmentioned_names("Does it run on Kubernetes?", [self.kb, other]), [])
        self.assertEqual(unmentioned_names("Does it run on Nomad?", [self.kb, other]), ["Nomad"])

    def test_a_slashed_name_is_looked_up_whole(self):
        self.assertEqual(unmentioned_names("Does Gunicorn speak HTTP/3?", [self.kb]), [])  # Gunicorn is known
        self.assertEqual(unmentioned_names("Does the application speak HTTP/3?", [self.kb]), ["HTTP/3"])


class LookUpPlanTests(TestCase):
    def test_a_name_is_looked_up_through_the_full_text_index(self):
        # Through the bases' own index, an absent name walked every chunk of the bases (0.07-0.2 s a
        # question at 100k chunks); through the full-text index it costs a few milliseconds.
        kb = make_kb()
        for n in range(5):
            make_document(kb, f"# Page {n}\n\nThe application runs behind Gunicorn.", title=f"Page {n}")
        params = {"config": kb.text_search_config, "about": "", "kb_ids": [kb.pk], "name0": "Nomad",
                  "query0": "'nomad'"}
        plan = explain(unmentioned._PRESENT.replace("{n}", "0"), params)
        self.assertIn("knowledge_chunk_fts_idx", plan)
        self.assertNotIn("knowledge_base_id_", plan)
        with CaptureQueriesContext(connection) as queries:
            self.assertEqual(unmentioned_names("Does it run on Nomad?", [kb]), ["Nomad"])
        self.assertTrue(any("'enable_seqscan', 'off'" in query["sql"] for query in queries.captured_queries))


@pytest.fixture
def chat(openai_stub, settings):
    settings.OPENAI = {**settings.OPENAI, "CHAT_MODEL": "stub-model", "BASE_URL": openai_stub.base_url,
                       "API_KEY": "test", "TIMEOUT": 5.0, "MAX_RETRIES": 0}
    return openai_stub


@pytest.mark.django_db
def test_a_chat_model_is_left_to_say_what_its_sources_do_not_cover(chat):
    kb = make_kb()
    make_document(kb, DEPLOYING, title="Deploying")
    make_document(kb, UPLOADS, title="Uploads")
    chat.reply = "The sources describe Gunicorn behind a proxy, not Kubernetes [1]."
    result = answers.answer("How do I deploy the application on Kubernetes?", [kb.pk], threshold=0.0)
    assert not result.refused
    assert "unmentioned_name" not in result.reasons
    assert result.generator == "openai:stub-model"
