from django.core.cache import caches
from django.test import override_settings

from tests.api.base import ApiTestCase, make_key


class RateLimitTests(ApiTestCase):
    def setUp(self):
        caches["api"].clear()

    def test_a_key_over_its_limit_gets_429_with_retry_after(self):
        _, token = make_key()
        _, other = make_key()
        with override_settings(API={**self.settings_api(), "RATE_LIMIT_PER_MINUTE": 3}):
            for _ in range(3):
                self.assertEqual(self.api("get", "/knowledge-bases", token=token).status_code, 200)
            response = self.api("get", "/knowledge-bases", token=token)
            self.assertError(response, 429, "rate_limited")
            self.assertTrue(1 <= int(response["Retry-After"]) <= 60)
            # Limits are per key.
            self.assertEqual(self.api("get", "/knowledge-bases", token=other).status_code, 200)

    def settings_api(self):
        from django.conf import settings

        return settings.API
