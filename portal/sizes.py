"""Sizes in messages people read: "1.5 MB" or "200,000 bytes", in the active language's words and
number format ("1,5 МБ", "200 000 байт" in Russian). One helper for the crawler's refusals and the
parser's, which are stored in the portal's language and shown in the reader's (portal/stored_text.py)."""

from django.utils.formats import number_format
from django.utils.translation import gettext

MEGABYTE = 1024 * 1024


def file_size(size: int) -> str:
    """`size` bytes as people read it: megabytes to one decimal from 1 MB, bytes below."""
    if size >= MEGABYTE:
        # Rounded first: number_format cuts the decimals that the format spec `,.1f` rounds.
        megabytes = number_format(round(size / MEGABYTE, 1), 1, force_grouping=True)
        return gettext("%(size)s MB") % {"size": megabytes}
    return gettext("%(size)s bytes") % {"size": number_format(size, force_grouping=True)}
