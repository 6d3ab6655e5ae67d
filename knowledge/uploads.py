"""The one upload policy: which files a knowledge base accepts, and why the others are refused.

Every interface (the admin's upload page, the API, the `ingest` command, the demo set-up) asks
`check_uploads` and only decides how to show the refusals: the admin lists them next to the
accepted files, the API answers 413 when a file is over the size limit and 422 when two files
share a name (a document's identity is its file name, so the second would overwrite the first).
"""

from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from knowledge.indexing import parsing

TOO_LARGE, UNSUPPORTED, EMPTY, DUPLICATE = "too_large", "unsupported", "empty", "duplicate"


@dataclass(frozen=True)
class Refusal:
    item: str  # the file name as sent
    reason: str
    kind: str  # TOO_LARGE, UNSUPPORTED, EMPTY or DUPLICATE

    def as_dict(self) -> dict:
        return {"item": self.item, "reason": self.reason}


def unsupported_reason(name: str) -> str:
    """Why a file of this name is refused for its type, or ""."""
    # A .zip is unpacked (knowledge/archives.py): its files are checked one by one.
    if parsing.is_supported(name) or Path(name).suffix.lower() == ".zip":
        return ""
    return _("Unsupported file type. Supported: %(supported)s, .zip") % {
        "supported": ", ".join(parsing.SUPPORTED_EXTENSIONS)}


def check_upload(name: str, size: int) -> Refusal | None:
    """The refusal of one file by its name and size, or None when it is acceptable."""
    if reason := unsupported_reason(name):
        return Refusal(name, reason, UNSUPPORTED)
    limit = settings.PORTAL["MAX_UPLOAD_BYTES"]
    if size > limit:
        reason = _("File is %(size)s bytes, over the %(limit)s-byte limit") % {
            "size": number_format(size, force_grouping=True), "limit": number_format(limit, force_grouping=True)}
        return Refusal(name, reason, TOO_LARGE)
    if size == 0:
        return Refusal(name, _("File is empty"), EMPTY)
    return None


def check_uploads(files: list) -> tuple[list, list[Refusal]]:
    """(accepted files, refusals) for files with `.name` and `.size`; of two files of one name the
    first is kept."""
    accepted, refused, seen = [], [], set()
    for upload in files:
        name = Path(upload.name).name
        refusal = (Refusal(upload.name, _("Another file of this name is in the same upload"), DUPLICATE)
                   if name in seen else check_upload(upload.name, upload.size))
        seen.add(name)
        if refusal:
            refused.append(refusal)
        else:
            accepted.append(upload)
    return accepted, refused
