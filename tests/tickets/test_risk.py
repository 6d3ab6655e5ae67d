from django.test import SimpleTestCase

from tickets import risk
from tickets.models import RiskLevel


class RiskRuleTests(SimpleTestCase):
    def assess(self, text):
        return risk.assess_risk(text)

    def codes(self, text):
        return {reason.code for reason in self.assess(text).reasons}

    def test_a_plain_question_is_low_risk(self):
        assessment = self.assess("How do I reset my password in the mobile app?")
        self.assertEqual(assessment.level, RiskLevel.LOW)
        self.assertEqual(assessment.reasons, [])

    def test_english_rules(self):
        cases = {
            "I will sue you and talk to my lawyer": ("legal_threat", RiskLevel.HIGH),
            "I want a chargeback for this transaction": ("chargeback", RiskLevel.HIGH),
            "I was charged twice for the same order": ("chargeback", RiskLevel.HIGH),
            "please refund my last order": ("refund", RiskLevel.MEDIUM),
            "my card number is 4111 1111 1111 1111": ("personal_data", RiskLevel.HIGH),
            "someone hacked my account and changed the e-mail": ("security", RiskLevel.HIGH),
            "you are a bunch of idiots": ("abuse", RiskLevel.HIGH),
            "where are my fucking invoices": ("profanity", RiskLevel.MEDIUM),
            "this is unacceptable, worst service ever": ("anger", RiskLevel.MEDIUM),
            "how do you use my personal data?": ("personal_data_request", RiskLevel.MEDIUM),
        }
        for text, (code, level) in cases.items():
            with self.subTest(text=text):
                assessment = self.assess(text)
                self.assertIn(code, {r.code for r in assessment.reasons})
                self.assertEqual(assessment.level, level)

    def test_russian_rules_match_inflected_words(self):
        cases = {
            "Подам на вас в суд, мой адвокат уже готовит иск": "legal_threat",
            "Хочу оспорить операцию, я её не совершал": "chargeback",
            "Верните деньги за подписку, требую возврата": "refund",
            "Мою карту украли, кто-то взломал интернет-банкинг": "security",
            "Вы идиоты, сколько можно": "abuse",
            "Где, бля, мои деньги": "profanity",
            "Это возмутительно, отвратительное обслуживание": "anger",
            "Как вы обрабатываете мои персональные данные?": "personal_data_request",
        }
        for text, code in cases.items():
            with self.subTest(text=text):
                self.assertIn(code, self.codes(text))

    def test_ordinary_banking_questions_are_not_flagged(self):
        for text in ["Как стать клиентом банка онлайн?", "Как искать отделения банка на карте?",
                     "Как сменить ПИН-код карты?", "Какие документы нужны юридическим лицам?",
                     "Where can I track my order?", "I need a courtesy copy of the invoice"]:
            with self.subTest(text=text):
                self.assertEqual(self.assess(text).level, RiskLevel.LOW, self.assess(text).reasons)

    def test_shouting_reads_as_anger(self):
        self.assertIn("anger", self.codes("WHERE IS MY ORDER I PAID LAST WEEK!!!"))

    def test_the_reason_quotes_what_matched(self):
        reason = self.assess("I am going to contact my attorney").reasons[0]
        self.assertEqual(reason.match, "attorney")
        self.assertEqual(reason.as_dict()["code"], "legal_threat")

    def test_a_registered_classifier_can_raise_but_not_lower_the_level(self):
        class AlwaysHigh:
            name = "always-high"

            def assess(self, text):
                return risk.RiskAssessment(RiskLevel.HIGH, [risk.RiskReason("llm", RiskLevel.HIGH, "LLM says so")])

        classifier = AlwaysHigh()
        risk.register_classifier(classifier)
        self.addCleanup(risk.unregister_classifier, classifier)
        assessment = self.assess("How do I reset my password?")
        self.assertEqual(assessment.level, RiskLevel.HIGH)
        self.assertEqual([r.code for r in assessment.reasons], ["llm"])


class ChatRiskClassifierTests(SimpleTestCase):
    """The real openai client against the OpenAI-compatible stub on 127.0.0.1."""

    def setUp(self):
        from tests.stubs.openai_stub import OpenAIStub

        self.stub = OpenAIStub().start()
        self.addCleanup(self.stub.stop)
        self.classifier = risk.ChatRiskClassifier(model="stub-risk", base_url=self.stub.base_url, api_key="k",
                                                  timeout=5)
        risk.register_classifier(self.classifier)
        self.addCleanup(risk.unregister_classifier, self.classifier)

    def test_the_model_can_raise_the_level_with_its_reasons(self):
        self.stub.reply = 'Sure: ```json\n{"level": "high", "reasons": ["threatens to go to the press"]}\n```'
        assessment = risk.assess_risk("I will tell every newspaper about you")
        self.assertEqual(assessment.level, RiskLevel.HIGH)
        self.assertEqual([(r.code, r.reason) for r in assessment.reasons],
                         [("chat", "stub-risk: threatens to go to the press")])
        sent = self.stub.requests[0]["body"]["messages"]
        self.assertIn("<message>\nI will tell every newspaper about you\n</message>", sent[1]["content"])

    def test_the_model_cannot_lower_what_the_rules_found(self):
        self.stub.reply = '{"level": "low", "reasons": []}'
        self.assertEqual(risk.assess_risk("I will sue you").level, RiskLevel.HIGH)

    def test_a_failing_or_malformed_model_is_recorded_and_changes_nothing(self):
        for behaviour, reply in [("error", ""), ("ok", "I think it is fine"), ("ok", '{"level": "extreme"}')]:
            with self.subTest(behaviour=behaviour, reply=reply):
                self.stub.behaviour, self.stub.reply = behaviour, reply
                assessment = risk.assess_risk("How do I reset my password?")
                self.assertEqual(assessment.level, RiskLevel.LOW)
                self.assertEqual([r.code for r in assessment.reasons], ["classifier_failed"])


class ConfiguredChatRiskClassifierTests(SimpleTestCase):
    """PORTAL_RISK_CHAT_MODEL switches the chat classifier on, with the OpenAI-compatible settings."""

    def setUp(self):
        from tests.stubs.openai_stub import OpenAIStub

        self.stub = OpenAIStub().start()
        self.addCleanup(self.stub.stop)

    def configured(self, model):
        from django.conf import settings

        return self.settings(PORTAL={**settings.PORTAL, "RISK_CHAT_MODEL": model},
                             OPENAI={**settings.OPENAI, "BASE_URL": self.stub.base_url, "API_KEY": "k", "TIMEOUT": 5})

    def test_the_configured_model_is_asked(self):
        self.stub.reply = '{"level": "medium", "reasons": ["sounds upset"]}'
        with self.configured("stub-risk"):
            assessment = risk.assess_risk("This is the third time I write to you")
        self.assertEqual(assessment.level, RiskLevel.MEDIUM)
        self.assertEqual([r.reason for r in assessment.reasons], ["stub-risk: sounds upset"])
        self.assertEqual(self.stub.requests[0]["body"]["model"], "stub-risk")

    def test_without_a_model_only_the_rules_run(self):
        with self.configured(""):
            self.assertEqual(risk.assess_risk("This is the third time I write to you").reasons, [])
        self.assertEqual(self.stub.requests, [])
