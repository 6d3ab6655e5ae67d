"""Slugs from names in any of the portal's languages: Russian is transliterated, never dropped.

Django's `slugify` keeps ASCII only after NFKD, so "Справочный центр" would become "" (and a
knowledge base without a slug). The table is the one Django's admin uses in `urlify.js` for the
slug it pre-fills as you type, so a base created in the admin and one created through the API
from the same name get the same slug.
"""

from django.utils.text import slugify

RUSSIAN = {
    "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "yo", "ж": "zh", "з": "z", "и": "i",
    "й": "j", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r", "с": "s", "т": "t",
    "у": "u", "ф": "f", "х": "h", "ц": "c", "ч": "ch", "ш": "sh", "щ": "sh", "ъ": "", "ы": "y", "ь": "",
    "э": "e", "ю": "yu", "я": "ya",
    # Ukrainian letters that Russian lacks (urlify.js has them too)
    "є": "ye", "і": "i", "ї": "yi", "ґ": "g",
}
TRANSLITERATION = str.maketrans({**RUSSIAN, **{k.upper(): v.capitalize() for k, v in RUSSIAN.items()}})


def transliterate(text: str) -> str:
    """Cyrillic letters as Latin ones; everything else unchanged."""
    return text.translate(TRANSLITERATION)


def slug_from(name: str, *, max_length: int = 100, fallback: str = "item") -> str:
    """A URL slug for `name`: transliterated, lower case, hyphens; `fallback` when nothing is left."""
    return slugify(transliterate(name))[:max_length].strip("-") or fallback
