"""The messages of the API's field errors in the request's language, for the checks pydantic makes.

pydantic words its own errors in English only ("String should have at least 1 character"); the
common kinds are worded here and translated, their limits filled in from the error's context. A
validator's own message is kept as written; a kind not listed keeps pydantic's words.
"""

from django.utils.translation import gettext, gettext_noop

MESSAGES = {
    "missing": gettext_noop("This field is required."),
    "extra_forbidden": gettext_noop("This field is not accepted here."),
    "string_type": gettext_noop("Must be a string."),
    "string_too_short": gettext_noop("Must be at least %(min_length)s characters long."),
    "string_too_long": gettext_noop("Must be at most %(max_length)s characters long."),
    "string_pattern_mismatch": gettext_noop("Does not have the expected form (%(pattern)s)."),
    "too_short": gettext_noop("Must have at least %(min_length)s items."),
    "too_long": gettext_noop("Must have at most %(max_length)s items."),
    "int_type": gettext_noop("Must be a whole number."),
    "int_parsing": gettext_noop("Must be a whole number."),
    "int_from_float": gettext_noop("Must be a whole number."),
    "float_type": gettext_noop("Must be a number."),
    "float_parsing": gettext_noop("Must be a number."),
    "bool_type": gettext_noop("Must be true or false."),
    "bool_parsing": gettext_noop("Must be true or false."),
    "greater_than": gettext_noop("Must be greater than %(gt)s."),
    "greater_than_equal": gettext_noop("Must be at least %(ge)s."),
    "less_than": gettext_noop("Must be less than %(lt)s."),
    "less_than_equal": gettext_noop("Must be at most %(le)s."),
    "literal_error": gettext_noop("Must be one of %(expected)s."),
    "enum": gettext_noop("Must be one of %(expected)s."),
    "list_type": gettext_noop("Must be a list."),
    "dict_type": gettext_noop("Must be an object."),
    "model_type": gettext_noop("Must be an object."),
}


# Kinds whose message is a validator's own, behind pydantic's "Value error, " / "Assertion failed, ".
ERROR_PREFIXED = frozenset({"value_error", "assertion_error"})


def error_message(error: dict) -> str:
    """The message of one of pydantic's errors for a caller: a validator's own words, our wording of the
    common kinds, or pydantic's `msg` (never its text with the errors.pydantic.dev link)."""
    if error.get("type") in ERROR_PREFIXED:
        message = (error.get("ctx") or {}).get("error")
    else:
        message = field_message(error)
    return str(message or error.get("msg", ""))


def field_message(error: dict) -> str | None:
    """`error` (one of pydantic's) in the active language, or None for a kind not worded here."""
    template = MESSAGES.get(error.get("type", ""))
    if template is None:
        return None
    context = {name: str(value) for name, value in (error.get("ctx") or {}).items()}
    if "expected" in context:  # pydantic's "'a', 'b' or 'c'": the "or" is English
        context["expected"] = context["expected"].replace(" or ", ", ")
    try:
        return gettext(template) % context
    except (KeyError, ValueError):  # a context without the limit the wording names
        return None
