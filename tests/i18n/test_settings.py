"""PORTAL_LANGUAGE: the default language, checked when the settings load."""

import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from portal.env import env_choice


def load_settings(language: str) -> subprocess.CompletedProcess:
    """Import the settings in a fresh interpreter with PORTAL_LANGUAGE set (and no database)."""
    env = {**os.environ, "PORTAL_LANGUAGE": language, "DATABASE_URL": "postgres://nobody@127.0.0.1:9/none"}
    code = "import django; django.setup(); from django.conf import settings; print(settings.LANGUAGE_CODE)"
    return subprocess.run([sys.executable, "-c", code], cwd=settings.BASE_DIR, capture_output=True, text=True,
                          env={**env, "DJANGO_SETTINGS_MODULE": "portal.settings"}, timeout=120)


def test_the_installed_languages_are_english_and_russian():
    assert [code for code, _name in settings.LANGUAGES] == ["en", "ru"]
    assert "django.middleware.locale.LocaleMiddleware" in settings.MIDDLEWARE


@pytest.mark.parametrize("value, expected", [("ru", "ru"), ("en", "en"), (" RU ", "ru"), ("", "en")])
def test_portal_language_picks_the_default(value, expected):
    result = load_settings(value)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected


@pytest.mark.parametrize("value", ["de", "russian", "ru-RU", "en_US"])
def test_an_unknown_portal_language_stops_the_start_naming_the_allowed_values(value):
    result = load_settings(value)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert f"PORTAL_LANGUAGE={value!r}" in result.stderr
    assert "use one of: en, ru" in result.stderr


def test_env_choice(monkeypatch):
    monkeypatch.setenv("X_CHOICE", "b")
    assert env_choice("X_CHOICE", "a", ["a", "b"]) == "b"
    monkeypatch.delenv("X_CHOICE")
    assert env_choice("X_CHOICE", "a", ["a", "b"]) == "a"
    monkeypatch.setenv("X_CHOICE", "c")
    with pytest.raises(ImproperlyConfigured, match=r"X_CHOICE='c', use one of: a, b"):
        env_choice("X_CHOICE", "a", ["a", "b"])
