"""Who decides the language: the admin's selector (a cookie), then Accept-Language, then
PORTAL_LANGUAGE; the API's error messages follow the same choice. Bad input falls back."""

import time

from django.contrib.auth import get_user_model
from django.test import TestCase, override_settings
from django.urls import reverse

from tests.api.base import ApiTestCase, make_key

BIG_HEADER = ",".join(f"x{n:04d}-zz;q=0.{n % 9 + 1}" for n in range(700))  # ~10 KB of unknown languages


class AdminLanguageTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.root = get_user_model().objects.create_superuser("root", password="pw")

    def setUp(self):
        self.client.force_login(self.root)

    def index(self, **headers):
        return self.client.get(reverse("admin:index"), headers=headers)

    def test_the_default_is_english(self):
        response = self.index()
        self.assertEqual(response.headers["Content-Language"], "en")
        self.assertContains(response, "Knowledge bases, documents and tickets")

    @override_settings(LANGUAGE_CODE="ru")
    def test_portal_language_ru_makes_russian_the_default(self):
        response = self.index()
        self.assertEqual(response.headers["Content-Language"], "ru")
        self.assertContains(response, "Базы знаний, документы и тикеты")

    def test_the_browser_asks_for_russian(self):
        response = self.index(accept_language="ru-RU,ru;q=0.9,en;q=0.8")
        self.assertEqual(response.headers["Content-Language"], "ru")
        self.assertIn("Accept-Language", response.headers["Vary"])

    def test_the_selector_switches_and_remembers(self):
        response = self.index()
        self.assertContains(response, 'action="/i18n/setlang/"')
        self.assertContains(response, '<option value="ru" lang="ru">Русский</option>', html=True)
        response = self.client.post(reverse("set_language"), {"language": "ru", "next": "/admin/"})
        self.assertRedirects(response, "/admin/", fetch_redirect_response=False)
        self.assertEqual(self.client.cookies["django_language"].value, "ru")
        # The choice wins over the browser's own preference.
        response = self.index(accept_language="en")
        self.assertEqual(response.headers["Content-Language"], "ru")
        self.assertContains(response, '<option value="ru" lang="ru" selected>Русский</option>', html=True)

    def test_the_selector_is_on_the_login_page_too(self):
        self.client.logout()
        response = self.client.get(reverse("admin:login"), headers={"accept-language": "ru"})
        self.assertContains(response, 'id="language-switcher"')
        self.assertContains(response, "Войти")

    def test_a_language_that_is_not_installed_falls_back_to_the_default(self):
        # Django has German for its own apps, so set_language keeps the choice in the cookie, but
        # German is not one of LANGUAGES: the page falls back to the default all the same.
        self.client.post(reverse("set_language"), {"language": "de", "next": "/admin/"})
        response = self.index(accept_language="de-DE,fr;q=0.8")
        self.assertEqual(response.headers["Content-Language"], "en")
        with override_settings(LANGUAGE_CODE="ru"):
            self.assertEqual(self.index(accept_language="de").headers["Content-Language"], "ru")

    def test_a_10_kb_accept_language_header_falls_back_to_the_default(self):
        self.assertGreater(len(BIG_HEADER), 10_000)
        started = time.perf_counter()
        response = self.index(accept_language=BIG_HEADER)
        self.assertEqual(response.status_code, 200)
        self.assertEqual(response.headers["Content-Language"], "en")
        # Russian hidden after the first 500 characters is not looked for (Django reads no further).
        response = self.index(accept_language=BIG_HEADER + ",ru")
        self.assertEqual(response.headers["Content-Language"], "en")
        self.assertLess(time.perf_counter() - started, 5)  # a generous bound: the parse is bounded


class ApiLanguageTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.key, cls.token = make_key(scopes=["read"])

    def error(self, response) -> str:
        return response.json()["error"]["message"]

    def test_errors_follow_accept_language(self):
        response = self.api("get", "/knowledge-bases", HTTP_ACCEPT_LANGUAGE="ru")
        self.assertEqual(response.status_code, 401)
        self.assertEqual(self.error(response), "Передайте API-ключ в заголовке 'Authorization: Bearer <ключ>'")
        self.assertEqual(response.headers["Content-Language"], "ru")
        self.assertEqual(response.json()["error"]["code"], "unauthorized")  # codes never change
        response = self.api("get", "/knowledge-bases", HTTP_ACCEPT_LANGUAGE="en-GB")
        self.assertEqual(self.error(response), "Send an API key as 'Authorization: Bearer <key>'")

    def test_scope_not_found_and_validation_errors_in_russian(self):
        russian = {"HTTP_ACCEPT_LANGUAGE": "ru"}
        response = self.api("post", "/knowledge-bases", token=self.token, data={"name": "x"}, **russian)
        self.assertEqual((response.status_code, self.error(response)), (403, "У API-ключа нет права 'write'"))
        response = self.api("get", "/knowledge-bases/999999", token=self.token, **russian)
        self.assertEqual((response.status_code, self.error(response)), (404, "Не найдено"))
        response = self.api("get", "/no-such-thing", token=self.token, **russian)
        self.assertEqual(self.error(response), "По адресу /api/v1/no-such-thing нет операции API")
        response = self.api("get", "/knowledge-bases?page=zero", token=self.token, **russian)
        self.assertEqual(response.status_code, 422)
        self.assertTrue(self.error(response).startswith("Некорректные данные: page"), self.error(response))

    def test_unknown_and_oversized_accept_language_fall_back_to_english(self):
        for header in ("de-DE,fr;q=0.9", "*", "ru;q=zzz", BIG_HEADER):
            with self.subTest(header=header[:40]):
                response = self.api("get", "/knowledge-bases", HTTP_ACCEPT_LANGUAGE=header)
                self.assertEqual(response.status_code, 401)
                self.assertEqual(self.error(response), "Send an API key as 'Authorization: Bearer <key>'")

    @override_settings(LANGUAGE_CODE="ru")
    def test_portal_language_is_the_apis_default_too(self):
        response = self.api("get", "/knowledge-bases")
        self.assertEqual(self.error(response), "Передайте API-ключ в заголовке 'Authorization: Bearer <ключ>'")
