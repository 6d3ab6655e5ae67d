"""Compile the translation catalogues (locale/<lang>/LC_MESSAGES/*.po → .mo) without GNU gettext.

`bin/test` and `bin/up` use Django's `compilemessages` (which needs gettext's `msgfmt`) when it is
installed and this otherwise; the test run and the portal's start-up (`PortalConfig.ready`, for a
checkout run with `manage.py` alone) also call it, so a fresh checkout never serves stale or missing
translations. The .mo files are build output and are not committed.
"""

import os
from pathlib import Path

import polib

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"


def compile_catalogues(locale_dir: Path = LOCALE_DIR) -> list[Path]:
    """Write the .mo of every .po that is newer than its .mo (or has none); return those written."""
    written = []
    for po_path in sorted(locale_dir.glob("*/LC_MESSAGES/*.po")):
        mo_path = po_path.with_suffix(".mo")
        if mo_path.exists() and mo_path.stat().st_mtime >= po_path.stat().st_mtime:
            continue
        # Like msgfmt: fuzzy entries are left out, so a guessed translation never reaches a user.
        # Written aside and renamed: processes starting together (test workers, a server's) never read half a file.
        partial = mo_path.with_name(f"{mo_path.stem}.{os.getpid()}.mo")
        polib.pofile(str(po_path)).save_as_mofile(str(partial))
        partial.replace(mo_path)
        written.append(mo_path)
    return written


if __name__ == "__main__":
    for path in compile_catalogues():
        print(f"compiled {path}")
