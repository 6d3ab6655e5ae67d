"""Strings of third-party apps that ship no Russian, so that makemessages puts them in our catalogue.

django-auditlog (the model change log in the admin) has no Russian translation; these are the
words of its admin pages that the Django catalogue does not already have. Nothing imports this
module: it exists for `makemessages`, and LOCALE_PATHS makes our catalogue win.
"""

from django.utils.translation import gettext_noop

AUDITLOG = [
    gettext_noop("Audit log"), gettext_noop("log entry"), gettext_noop("log entries"),
    gettext_noop("create"), gettext_noop("update"), gettext_noop("access"),
    gettext_noop("object pk"), gettext_noop("object id"), gettext_noop("object representation"),
    gettext_noop("change message"), gettext_noop("actor"), gettext_noop("Correlation ID"),
    gettext_noop("remote port"), gettext_noop("timestamp"), gettext_noop("additional data"),
    gettext_noop("actor email"), gettext_noop("Changes"), gettext_noop("Resource"), gettext_noop("Resource Type"),
    gettext_noop("Click to filter by records with this correlation id"),
    gettext_noop("Created {repr:s}"), gettext_noop("Updated {repr:s}"), gettext_noop("Deleted {repr:s}"),
    gettext_noop("Logged {repr:s}"),
]
