"""Zip uploads: every supported file inside becomes a document whose path keeps its folders.

An archive is untrusted input twice over: its names and its sizes. Names that climb out of the
archive (`../`), absolute names (`/etc/x`, `C:\\x`), symbolic links, nested archives and encrypted
members are refused one by one, each with its reason; sizes are checked as declared (members,
total) and again while reading, in bounded chunks, so a zip bomb that lies about its sizes stops
at the limit instead of filling the disk or the memory. Nothing is written under the member's own
name: the bytes go to the document's storage like any upload.
"""

import stat
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from knowledge.indexing.parsing import ZIP_ERRORS

ARCHIVE_EXTENSIONS = (".zip",)
MAX_MEMBERS = 10_000
# An archive may unpack to this many times the upload limit in all; each member to the upload limit.
EXPANSION_FACTOR = 20
READ_CHUNK = 1024 * 1024
# Files archivers add that are nobody's document.
NOISE = ("__MACOSX/", ".DS_Store", "Thumbs.db", "desktop.ini")


class ArchiveError(Exception):
    """The archive as a whole cannot be read (damaged, or over a limit before anything is unpacked)."""


@dataclass
class Member:
    path: str  # folders/inside/the/archive.pdf, always relative and clean
    upload: SimpleUploadedFile


def is_archive(name: str) -> bool:
    return PurePosixPath(name).suffix.lower() in ARCHIVE_EXTENSIONS


def unpack(upload, *, check: Callable[[str, int], str]) -> tuple[list[Member], list[dict]]:
    """The archive's files as uploads, and `{"item", "reason"}` for every member refused.

    `check(name, size)` is the upload check for one file ("" when acceptable).
    """
    limit = settings.PORTAL["MAX_UPLOAD_BYTES"]
    try:
        with zipfile.ZipFile(upload) as archive:
            infos = archive.infolist()
            _check_totals(infos, limit)
            members, refused = _read_members(archive, infos, limit, check)
    except ArchiveError as exc:
        return [], [{"item": upload.name, "reason": str(exc)}]
    except ZIP_ERRORS:
        return [], [{"item": upload.name, "reason": _("The archive is damaged: it is not a readable ZIP file")}]
    # Members are named inside their archive: "handbook.zip: Setup/install.md".
    return members, [{**item, "item": f"{upload.name}: {item['item']}"} for item in refused]


def _check_totals(infos: list[zipfile.ZipInfo], limit: int) -> None:
    if len(infos) > MAX_MEMBERS:
        raise ArchiveError(_("The archive holds %(count)s files; the limit is %(limit)s")
                           % {"count": _number(len(infos)), "limit": _number(MAX_MEMBERS)})
    declared = sum(info.file_size for info in infos)
    if declared > EXPANSION_FACTOR * limit:
        raise ArchiveError(_("The archive unpacks to %(size)s bytes; the limit is %(limit)s")
                           % {"size": _number(declared), "limit": _number(EXPANSION_FACTOR * limit)})


def _read_members(archive: zipfile.ZipFile, infos: list[zipfile.ZipInfo], limit: int,
                  check: Callable[[str, int], str]) -> tuple[list, list]:
    members, refused, seen = [], [], set()
    budget = EXPANSION_FACTOR * limit
    for info in infos:
        if info.is_dir() or any(part in info.filename for part in NOISE):
            continue
        path, reason = member_path(info)
        if not reason and path.lower() in seen:
            reason = _("Another file of this path is in the archive")
        if not reason:
            reason = _refusal(info, path) or check(path, info.file_size)
        if reason:
            refused.append({"item": info.filename, "reason": reason})
            continue
        try:
            data = _read(archive, info, min(limit, budget))
        except ZIP_ERRORS:
            refused.append({"item": info.filename, "reason": _("The file is damaged inside the archive")})
            continue
        if data is None:
            reason = _("Unpacks to more than %(limit)s bytes (a zip bomb?)") % {"limit": _number(min(limit, budget))}
            refused.append({"item": info.filename, "reason": reason})
            budget = 0
            continue
        budget -= len(data)
        seen.add(path.lower())
        members.append(Member(path, SimpleUploadedFile(PurePosixPath(path).name, data)))
    return members, refused


def member_path(info: zipfile.ZipInfo) -> tuple[str, str]:
    """The member's clean relative path, or a reason to refuse its name."""
    name = info.filename.replace("\\", "/")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "", _("Absolute paths are not allowed in an archive")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        return "", _("Paths that climb out of the archive (..) are not allowed")
    if any("\x00" in part for part in parts) or not parts:
        return "", _("The file name is not valid")
    return "/".join(parts), ""


def _refusal(info: zipfile.ZipInfo, path: str) -> str:
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        return _("Symbolic links are not followed")
    if info.flag_bits & 0x1:
        return _("The file is encrypted; remove the password and upload it again")
    if is_archive(path):
        return _("Archives inside archives are not unpacked; upload that archive on its own")
    return ""


def _number(value: int) -> str:
    """`value` with thousands grouped the active language's way ("1,000"; "1 000" in Russian)."""
    return number_format(value, force_grouping=True)


def _read(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes | None:
    """The member's bytes, or None when it inflates past `limit` whatever its header says."""
    parts, size = [], 0
    with archive.open(info) as stream:
        for chunk in iter(lambda: stream.read(READ_CHUNK), b""):
            size += len(chunk)
            if size > limit:
                return None
            parts.append(chunk)
    return b"".join(parts)
