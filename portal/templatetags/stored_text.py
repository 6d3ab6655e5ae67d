"""`{{ value|translated }}`: a message a worker stored, in the reader's language (portal/stored_text.py)."""

from django import template

from portal import stored_text

register = template.Library()


@register.filter
def translated(text):
    return stored_text.translated(text)
