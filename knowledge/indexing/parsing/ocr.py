"""OCR on CPU with Tesseract: the text of scanned pages and images.

`parse_file()` marks the pages it found without a text layer (`metadata["ocr_wanted"]`); the worker
then calls `recognise_pages()`, which reads them one at a time — each page rendered and recognised
in a forked child under the parse memory limit and `PORTAL_OCR_PAGE_TIMEOUT` — reporting after every
page so the job shows progress and can be cancelled between pages. A 300-page scan therefore never
holds more than one page picture in memory. Who reads the pages is the caller's choice
(`read_pages`): this process by default; in a shared job, a long scan's pages are read by every free
worker of the job (`knowledge/share_pages.py`). Tesseract is Debian's CLI (`tesseract-ocr` with the
`-rus`/`-eng` language data); without it the portal still runs and the document says why its scan
was not read.
"""

import csv
import functools
import io
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.utils.translation import gettext

from knowledge.documents import ParsedDocument
from knowledge.exceptions import KnowledgeError, ParseError

from . import images
from .isolation import run_isolated
from .pagetext import join_pages, tidy_pages
from .text import text_too_long

DEFAULT_LANGUAGES = "rus+eng"
LANGUAGES_PATTERN = r"^[a-z_]{3,20}(\+[a-z_]{3,20}){0,5}$"
# A page whose text layer has fewer letters and digits than this is read with OCR instead.
MIN_PAGE_CHARS = 20
# A page read with a lower mean word confidence may be sideways or upside down: Tesseract's orientation
# detection is asked, and the page read again turned (upright pages read at 90 or more, turned ones at
# ≈ 50 here); detection below this confidence is not acted on.
CHECK_ORIENTATION_BELOW = 70.0
MIN_ORIENTATION_CONFIDENCE = 2.0
INSTALL_HINT = "apt-get install tesseract-ocr tesseract-ocr-rus tesseract-ocr-eng"

# Called before the first page and as pages are read with (pages done, pages wanted); returns whether to go on.
PageProgress = Callable[[int, int], bool]


class OcrCancelled(KnowledgeError):
    pass


@dataclass
class OcrPage:
    text: str
    confidence: float | None  # mean word confidence, 0–100; None when no word was found
    rotated: int = 0  # degrees the picture was turned clockwise to read it (a page scanned sideways)


# Reads the wanted pages of a file: (path, page numbers, languages, progress) → each page's OCR.
PageReader = Callable[[Path, list[int], str, PageProgress | None], dict[int, OcrPage]]


def needs_ocr(text: str) -> bool:
    """Whether a page's text layer is too thin to stand for the page."""
    return sum(char.isalnum() for char in text) < MIN_PAGE_CHARS


def ocr_problem(languages: str = DEFAULT_LANGUAGES) -> str:
    """Why OCR cannot run here, or "" when it can."""
    if not settings.PORTAL["OCR_ENABLED"]:
        return gettext("OCR is switched off (PORTAL_OCR=false)")
    if not shutil.which(settings.PORTAL["TESSERACT"]):
        return gettext("Tesseract OCR is not installed on the server (%(hint)s)") % {"hint": INSTALL_HINT}
    missing = [lang for lang in languages.split("+") if lang not in installed_languages(settings.PORTAL["TESSERACT"])]
    if missing:
        packages = " ".join(f"tesseract-ocr-{lang.replace('_', '-')}" for lang in missing)
        return (gettext("Tesseract has no language data for %(languages)s (apt-get install %(packages)s)")
                % {"languages": "+".join(missing), "packages": packages})
    return ""


@functools.cache
def installed_languages(tesseract: str) -> frozenset[str]:
    """The language data Tesseract has (`tesseract --list-langs`)."""
    try:
        listed = subprocess.run([tesseract, "--list-langs"], capture_output=True,
                                text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    return frozenset(line.strip() for line in listed.stdout.splitlines()[1:] if line.strip())


def recognise_pages(parsed: ParsedDocument, path: Path, *, languages: str, force: bool = False,
                    on_page: PageProgress | None = None, max_chars: int | None = None,
                    read_pages: PageReader | None = None) -> ParsedDocument:
    """Put OCR text in place of the pages `parse_file()` found without text (all pages with `force`)."""
    wanted = parsed.metadata.get("ocr_wanted", [])
    if force and path.suffix.lower() == ".pdf":
        wanted = list(range(1, parsed.metadata.get("page_count", 0) + 1))
    if not wanted:
        return parsed
    problem = ocr_problem(languages)
    if problem:
        if not parsed.text.strip():
            raise ParseError(gettext("%(name)s has no text layer (a scan or a picture?) and was not read: %(problem)s")
                             % {"name": path.name, "problem": problem})
        parsed.metadata["ocr_skipped"] = {"pages": wanted, "reason": problem}
        return parsed
    read = (read_pages or read_pages_locally)(path, wanted, languages, on_page)
    texts, confidences, rotated = page_texts(parsed), {}, {}
    # The OCR'd pages are tidied together: their running headers are found among them.
    recognised = tidy_pages({number: read[number].text for number in wanted})
    for number in wanted:
        page = read[number]
        if recognised[number] or number not in texts:
            texts[number] = recognised[number]
        if page.confidence is not None:
            confidences[str(number)] = page.confidence
        if page.rotated:
            rotated[str(number)] = page.rotated
    _set_pages(parsed, texts, max_chars=max_chars, name=path.name)
    mean = round(sum(confidences.values()) / len(confidences), 1) if confidences else None
    parsed.metadata["ocr"] = {"pages": wanted, "languages": languages, "confidence": confidences,
                              "mean_confidence": mean, **({"rotated": rotated} if rotated else {})}
    if not parsed.text.strip():
        raise ParseError(gettext("%(name)s: OCR found no text on %(count)d page(s) (blank or unreadable scan)")
                         % {"name": path.name, "count": len(wanted)})
    return parsed


def read_pages_locally(path: Path, wanted: list[int], languages: str,
                       on_page: PageProgress | None = None) -> dict[int, OcrPage]:
    """Read the pages here, one after another (`PageReader`)."""
    read: dict[int, OcrPage] = {}
    if on_page and not on_page(0, len(wanted)):
        raise cancelled(path, 0, len(wanted))
    for done, number in enumerate(wanted, start=1):
        read[number] = read_page(path, number, languages)
        if on_page and not on_page(done, len(wanted)):
            raise cancelled(path, done, len(wanted))
    return read


def read_page(path: Path, number: int, languages: str) -> OcrPage:
    """One page rendered and recognised in a forked child under the parse memory limit and the page timeout."""
    return run_isolated(lambda: _recognise(path, number, languages),
                        name=gettext("%(file)s page %(number)d") % {"file": path.name, "number": number},
                        timeout=settings.PORTAL["OCR_PAGE_TIMEOUT"])


def cancelled(path: Path, done: int, wanted: int) -> OcrCancelled:
    return OcrCancelled(gettext("%(name)s: OCR cancelled after %(done)d of %(wanted)d pages")
                        % {"name": path.name, "done": done, "wanted": wanted})


def page_texts(parsed: ParsedDocument) -> dict[int, str]:
    """The text of each page, cut from `parsed.text` at the `pages` offsets (joined by a blank line)."""
    texts: dict[int, str] = {}
    if not parsed.pages:
        return texts
    bounds = [start for start, _ in parsed.pages[1:]] + [len(parsed.text) + 2]
    for (start, number), end in zip(parsed.pages, bounds, strict=True):
        texts[number] = parsed.text[start:end - 2]
    return texts


def _set_pages(parsed: ParsedDocument, texts: dict[int, str], *, max_chars: int | None, name: str) -> None:
    text, pages = join_pages(texts)
    max_chars = settings.PORTAL["MAX_TEXT_CHARS"] if max_chars is None else max_chars
    if len(text) > max_chars:
        raise text_too_long(name, max_chars)
    parsed.text, parsed.pages = text, pages


def _recognise(path: Path, number: int, languages: str) -> OcrPage:
    """Render one page and run Tesseract on it (inside the isolated child)."""
    if path.suffix.lower() == ".pdf":
        picture = images.pdf_page(path, number, dpi=settings.PORTAL["OCR_DPI"])
    else:
        picture = images.image_page(path, number)
    timeout = settings.PORTAL["OCR_PAGE_TIMEOUT"]
    with tempfile.TemporaryDirectory(prefix="portal-ocr-") as tmp:
        source = Path(tmp) / "page.png"
        picture.save(source)
        del picture
        page = run_tesseract(source, languages, timeout=timeout)
        if page.confidence is not None and page.confidence >= CHECK_ORIENTATION_BELOW:
            return page
        turn = orientation(source, timeout=timeout)
        if not turn:
            return page
        from PIL import Image  # as images.py: Pillow is loaded by the child that reads a page

        with Image.open(source) as picture:
            picture.rotate(-turn, expand=True).save(source)
        turned = run_tesseract(source, languages, timeout=timeout)
        if (turned.confidence or 0.0) <= (page.confidence or 0.0):
            return page
        turned.rotated = turn
        return turned


def orientation(image: Path, *, timeout: float) -> int:
    """Degrees clockwise Tesseract's orientation detection (`--psm 0`, the `osd` data Debian's
    tesseract-ocr installs) says the picture must be turned to stand upright: 0, 90, 180 or 270; 0
    when it is unsure or cannot tell (too little text, no `osd` data)."""
    try:
        found = subprocess.run([settings.PORTAL["TESSERACT"], str(image), "-", "--psm", "0"], capture_output=True,
                               text=True, timeout=timeout, check=False, env={**os.environ, "OMP_THREAD_LIMIT": "1"})
    except (OSError, subprocess.TimeoutExpired):
        return 0
    turn = re.search(r"^Rotate: (\d+)$", found.stdout, re.MULTILINE)
    confidence = re.search(r"^Orientation confidence: ([\d.]+)$", found.stdout, re.MULTILINE)
    if not turn or not confidence or float(confidence.group(1)) < MIN_ORIENTATION_CONFIDENCE:
        return 0
    return int(turn.group(1)) % 360


def run_tesseract(image: Path, languages: str, *, timeout: float) -> OcrPage:
    """Tesseract's text and mean word confidence for one picture."""
    if not re.match(LANGUAGES_PATTERN, languages):
        raise ParseError(gettext("OCR languages %(languages)s are not Tesseract language codes like rus+eng")
                         % {"languages": repr(languages)})
    base = image.with_suffix("")
    # One thread: the worker shares the CPU with the web server and other workers, and Tesseract's
    # OpenMP threads are slower than one thread on small machines anyway.
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    try:
        subprocess.run([settings.PORTAL["TESSERACT"], str(image), str(base), "-l", languages, "txt", "tsv"],
                       capture_output=True, timeout=timeout, check=True, env=env)
    except subprocess.TimeoutExpired as exc:
        raise ParseError(gettext("OCR of a page took longer than %(seconds)s seconds")
                         % {"seconds": f"{timeout:g}"}) from exc
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        error = detail.decode(errors="replace").strip()[-300:] or exc
        raise ParseError(gettext("Tesseract failed: %(error)s") % {"error": error}) from exc
    text = base.with_suffix(".txt").read_text(encoding="utf-8", errors="replace")
    return OcrPage(text=_tidy(text), confidence=_mean_confidence(base.with_suffix(".tsv")))


def _mean_confidence(tsv: Path) -> float | None:
    rows = csv.DictReader(io.StringIO(tsv.read_text(encoding="utf-8", errors="replace")), delimiter="\t",
                          quoting=csv.QUOTE_NONE)
    scores = [float(row["conf"]) for row in rows if row.get("text", "").strip() and float(row["conf"]) >= 0]
    return round(sum(scores) / len(scores), 1) if scores else None


def _tidy(text: str) -> str:
    # Tesseract ends pages with a form feed and separates paragraphs with blank lines already.
    text = text.replace("\x0c", "").replace("\x00", "")
    return re.sub(r"\n{3,}", "\n\n", text).strip()
