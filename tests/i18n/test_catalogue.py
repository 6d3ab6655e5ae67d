"""The Russian catalogue: complete, nothing fuzzy, placeholders kept, compiles, and current.

`test_every_marked_string_is_in_the_catalogue` runs Django's makemessages on a copy of the
sources: a string marked in the code but missing from locale/ru (someone forgot to run
makemessages) fails here, as does one that was never translated.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest
from django.apps import apps
from django.conf import settings
from django.utils import translation

from portal import catalogues
from portal.catalogues import compile_catalogues

PO = Path(settings.BASE_DIR) / "locale" / "ru" / "LC_MESSAGES" / "django.po"
PERCENT = re.compile(r"%\(\w+\)[-#0 +]*\d*(?:\.\d+)?[sdrf]")
BRACES = re.compile(r"\{\w*\}")


@pytest.fixture(scope="module")
def catalogue():
    return polib.pofile(str(PO))


def forms(entry) -> list[str]:
    return list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]


def test_nothing_is_missing_fuzzy_or_obsolete(catalogue):
    assert catalogue.untranslated_entries() == []
    assert catalogue.fuzzy_entries() == []
    assert catalogue.obsolete_entries() == []
    assert not catalogue.metadata_is_fuzzy
    assert len(catalogue.translated_entries()) > 500
    for entry in catalogue:
        assert all(form.strip() for form in forms(entry)), entry.msgid


def test_placeholders_survive_translation(catalogue):
    for entry in catalogue:
        for form in forms(entry):
            assert sorted(PERCENT.findall(form)) == sorted(PERCENT.findall(entry.msgid_plural or entry.msgid)) \
                or sorted(PERCENT.findall(form)) == sorted(PERCENT.findall(entry.msgid)), entry.msgid
            assert sorted(BRACES.findall(form)) == sorted(BRACES.findall(entry.msgid)), entry.msgid


def test_russian_plurals_have_every_form(catalogue):
    assert "nplurals=4" in catalogue.metadata["Plural-Forms"]
    for entry in catalogue:
        if entry.msgid_plural:
            assert sorted(entry.msgstr_plural) == [0, 1, 2, 3], entry.msgid


@pytest.mark.skipif(not shutil.which("msgfmt"), reason="GNU gettext's msgfmt is not installed")
def test_msgfmt_checks_pass(tmp_path):
    result = subprocess.run(["msgfmt", "--check", "-o", str(tmp_path / "django.mo"), str(PO)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_pure_python_compiler_writes_a_catalogue_django_reads(tmp_path):
    target = tmp_path / "ru" / "LC_MESSAGES"
    target.mkdir(parents=True)
    shutil.copy(PO, target / "django.po")
    assert compile_catalogues(tmp_path) == [target / "django.mo"]
    assert compile_catalogues(tmp_path) == []  # up to date: nothing written again
    mo = polib.mofile(str(target / "django.mo"))
    assert mo.find("Search playground").msgstr == "Песочница поиска"
    with translation.override("ru"):
        assert translation.gettext("Search playground") == "Песочница поиска"
        assert translation.ngettext("%(count)d ticket queued for triage.", "%(count)d tickets queued for triage.",
                                    5) % {"count": 5} == "5 тикетов поставлено в очередь на разбор."


@pytest.mark.skipif(not shutil.which("xgettext"), reason="GNU gettext's xgettext is not installed")
def test_every_marked_string_is_in_the_catalogue(tmp_path):
    root = Path(settings.BASE_DIR)
    copy = tmp_path / "src"
    top_level = {".venv", "var", ".git", "node_modules", "tests", "bench", "docs"}

    def ignore(folder, names):
        skipped = {name for name in names if name == "__pycache__" or name.endswith(".mo")}
        return skipped | (top_level & set(names) if Path(folder) == root else set())

    shutil.copytree(root, copy, ignore=ignore)
    # The copy's settings must not start an embedded database: makemessages never connects.
    env = {**os.environ, "DATABASE_URL": "postgres://nobody@127.0.0.1:9/none", "PORTAL_VAR_DIR": str(tmp_path / "var")}
    result = subprocess.run([sys.executable, "manage.py", "makemessages", "-l", "ru", "--no-location",
                             "--ignore", "var"], cwd=copy, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    fresh = polib.pofile(str(copy / "locale" / "ru" / "LC_MESSAGES" / "django.po"))
    missing = [entry.msgid for entry in fresh if not entry.obsolete and not entry.translated()]
    assert missing == [], "marked in the code but not translated in locale/ru (run makemessages): " + repr(missing)


def test_the_portal_compiles_a_missing_catalogue_when_it_starts(tmp_path, monkeypatch):
    # `manage.py runserver` right after a clone, without bin/up: the Russian admin must not be English.
    target = tmp_path / "ru" / "LC_MESSAGES"
    target.mkdir(parents=True)
    shutil.copy(PO, target / "django.po")
    monkeypatch.setattr(catalogues, "LOCALE_DIR", tmp_path)
    apps.get_app_config("portal").ready()
    assert polib.mofile(str(target / "django.mo")).find("Search playground").msgstr == "Песочница поиска"
