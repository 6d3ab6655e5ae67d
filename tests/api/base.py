"""Helpers for API tests: keys with given scopes, and a client that sends them."""

import json
import time

from django.contrib.auth import get_user_model
from django.test import TestCase

from portal.models import ApiKey, Scope

ALL_SCOPES = list(Scope.values)


def start_early_in_a_clock_minute(seconds: float) -> None:
    """Rate-limit counters are per clock minute (a fixed window): unless `seconds` are left of this
    one, wait for the next, so the requests a test counts all share one window."""
    left = 60 - time.time() % 60
    if left < seconds:
        time.sleep(left + 0.05)


def make_user(username: str = "integrator"):
    user, _ = get_user_model().objects.get_or_create(username=username, defaults={"email": f"{username}@example.com"})
    return user


def make_key(*, scopes=None, knowledge_bases=(), owner=None, **fields) -> tuple[ApiKey, str]:
    """A saved key and its full token."""
    key = ApiKey(name=fields.pop("name", "test key"), owner=owner or make_user(),
                 scopes=ALL_SCOPES if scopes is None else scopes, **fields)
    token = key.issue_token()
    key.save()
    key.knowledge_bases.set(knowledge_bases)
    return key, token


class ApiTestCase(TestCase):
    """`self.api(method, path, token=…, data=…)` against /api/v1/ through Django's full stack."""

    def api(self, method: str, path: str, *, token: str | None = None, data=None, files=None, **extra):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        url = f"/api/v1{path}"
        call = getattr(self.client, method.lower())
        if files is not None:
            return call(url, data={**(data or {}), "files": files}, headers=headers, **extra)
        if data is not None and method.lower() in ("post", "put", "patch"):
            return call(url, data=json.dumps(data), content_type="application/json", headers=headers, **extra)
        return call(url, data=data, headers=headers, **extra)

    def assertError(self, response, status: int, code: str | None = None):
        self.assertEqual(response.status_code, status, response.content[:500])
        body = response.json()
        self.assertEqual(set(body), {"error"})
        self.assertTrue(body["error"]["message"])
        if code:
            self.assertEqual(body["error"]["code"], code)
        return body["error"]
