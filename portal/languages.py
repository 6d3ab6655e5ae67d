"""The portal's languages: which one a customer wrote in, and text in a given language.

Only the languages of `settings.LANGUAGES` (Russian and English) are told apart; the detector
counts letters, because a Russian ticket often carries Latin product names, URLs and error codes,
and an English one now and then a Cyrillic name.
"""

import re

from django.conf import settings
from django.utils import translation

CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
LATIN = re.compile(r"[a-z]", re.IGNORECASE)
# Share of Cyrillic among the letters above which a text counts as Russian.
RUSSIAN_SHARE = 0.3


def detect_language(text: str) -> str:
    """'ru' or 'en' for a customer's text; the portal's default language when it has no letters."""
    sample = text[:20_000]  # enough to decide; a long paste costs nothing more
    cyrillic, latin = len(CYRILLIC.findall(sample)), len(LATIN.findall(sample))
    if not cyrillic and not latin:
        return default_language()
    return "ru" if cyrillic / (cyrillic + latin) >= RUSSIAN_SHARE else "en"


def default_language() -> str:
    """PORTAL_LANGUAGE, as a code of `settings.LANGUAGES`."""
    return translation.get_supported_language_variant(settings.LANGUAGE_CODE)


def supported(language: str | None) -> str:
    """`language` if the portal has it, else the default (an unknown or empty code never fails)."""
    try:
        return translation.get_supported_language_variant(language or "")
    except LookupError:
        return default_language()


def translate(message: str, language: str) -> str:
    """`message` (a msgid of the catalogue) in `language`, whatever language is active."""
    with translation.override(supported(language)):
        return translation.gettext(message)
