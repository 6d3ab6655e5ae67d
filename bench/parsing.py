"""Parsing and OCR over every file in ../shared/data/documents, per format.

    .venv/bin/python bench/parsing.py [--only pdf,png] [--long-scan 20]

Each format runs in its own process (parsed exactly as the worker does: `parse_file_isolated`, then
`ocr.recognise_pages` for pages without text, then the parse-quality report), so its peak memory
is that process's maximum resident set together with its parse and OCR children (`os.wait4`).
Reported per format: files, parsed, failed (each a clear error), characters, quality flags raised,
OCR pages and seconds per OCR page. Then the scans are checked the way a person reads them: the
three scanned PDFs must contain phrases read off the rendered pages, and a Russian text page
rendered to an image-only PDF must come back with at least 90 % of its words. A miss exits non-zero.
`--long-scan N` also reads an N-page scanned PDF (one scanned page repeated) page by page, to show
that memory stays flat however long the scan.
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = ROOT.parent / "shared" / "data" / "documents"
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

# Read off the rendered pages (pypdfium2 at 300 DPI), not off our own output.
SCANNED_PHRASES = {
    "epson-printout-scan.pdf": ["Optical character recognition", "From Wikipedia, the free encyclopedia",
                                "pattern recognition, artificial intelligence and computer vision"],
    "gutenberg-huckfinn-p22-scan.pdf": ["tip-toeing along a path", "Miss Watson", "stooping down"],
    "typewriter-2400dpi.pdf": ["Linzensoep", "laurier, kruidnagel, kerrie, zout", "3 liter water"],
}
RUSSIAN_PAGE = (DOCUMENTS / "pdf/ru/def_positions.pdf", 1)  # page index 1: 379 words of Russian prose


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="comma-separated extensions (without dots) to measure")
    parser.add_argument("--long-scan", type=int, default=0, help="also OCR a scanned PDF of this many pages")
    parser.add_argument("--worker", default="", help=argparse.SUPPRESS)
    parser.add_argument("--out", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker, Path(args.out))
    files = sorted(path for path in DOCUMENTS.rglob("*") if path.is_file())
    formats = sorted({path.suffix.lower().lstrip(".") for path in files})
    if args.only:
        formats = [fmt for fmt in formats if fmt in args.only.split(",")]
    rows = [run_format(fmt) for fmt in formats]
    if args.long_scan:
        rows.append(run_format(f"long-scan-{args.long_scan}"))
    print_table(rows)
    misses = check_scans()
    sys.exit(1 if misses else 0)


def run_format(fmt: str) -> dict:
    """One format in a child process; its peak memory from the kernel's accounting of that subtree."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        child = subprocess.Popen([sys.executable, __file__, "--worker", fmt, "--out", out.name])
        _, status, usage = os.wait4(child.pid, 0)
        if status:
            raise SystemExit(f"the {fmt} worker failed with status {status}")
        row = json.loads(Path(out.name).read_text())
    row["peak_mb"] = usage.ru_maxrss / 1024
    return row


def worker(fmt: str, out: Path) -> None:
    import django

    django.setup()
    from knowledge.indexing.parsing import ocr, quality
    from knowledge.indexing.parsing.isolation import parse_file_isolated

    row = {"format": fmt, "files": 0, "parsed": 0, "failed": 0, "chars": 0, "flags": collections.Counter(),
           "ocr_pages": 0, "ocr_seconds": 0.0, "errors": [], "flagged": []}
    for path in _files(fmt, out.parent):
        row["files"] += 1
        try:
            parsed = parse_file_isolated(path)
            started = time.perf_counter()
            parsed = ocr.recognise_pages(parsed, path, languages="rus+eng")
            if parsed.metadata.get("ocr"):
                row["ocr_pages"] += len(parsed.metadata["ocr"]["pages"])
                row["ocr_seconds"] += time.perf_counter() - started
            report = quality.assess(parsed, encoding=quality.file_encoding(path))
        except Exception as exc:  # noqa: BLE001 - every failure is counted and named, none stops the run
            row["failed"] += 1
            row["errors"].append(f"{path.name}: {exc}"[:160])
            continue
        row["parsed"] += 1
        row["chars"] += len(parsed.text)
        row["flags"].update(report["flags"])
        if report["flags"]:
            row["flagged"].append(f"{path.name}: {', '.join(report['flags'])}")
    if fmt.startswith("long-scan-"):
        (out.parent / f"{fmt}.pdf").unlink(missing_ok=True)
    out.write_text(json.dumps(row, ensure_ascii=False))


def _files(fmt: str, tmp: Path) -> list[Path]:
    if not fmt.startswith("long-scan-"):
        return sorted(p for p in DOCUMENTS.rglob(f"*.{fmt}") if p.is_file())
    from pypdf import PdfReader, PdfWriter

    writer, page = PdfWriter(), PdfReader(DOCUMENTS / "pdf/scanned/epson-printout-scan.pdf").pages[0]
    for _ in range(int(fmt.rsplit("-", 1)[1])):
        writer.add_page(page)
    path = tmp / f"{fmt}.pdf"
    with path.open("wb") as f:
        writer.write(f)
    return [path]


def print_table(rows: list[dict]) -> None:
    print("| format | files | parsed | failed | characters | flags raised | OCR pages | s / OCR page | peak MB |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|")
    for row in rows:
        flags = ", ".join(f"{name} {count}" for name, count in sorted(row["flags"].items())) or "—"
        per_page = f"{row['ocr_seconds'] / row['ocr_pages']:.2f}" if row["ocr_pages"] else "—"
        print(f"| {row['format']} | {row['files']} | {row['parsed']} | {row['failed']} | {row['chars']:,} | {flags} "
              f"| {row['ocr_pages']} | {per_page} | {row['peak_mb']:,.0f} |", flush=True)
    flagged = [item for row in rows for item in row["flagged"]]
    if flagged:
        print("\nFlagged files (parse quality):")
        for item in flagged:
            print(f"- {item}")
    failures = [error for row in rows for error in row["errors"]]
    if failures:
        print("\nFailed files (each a clear error on its document):")
        for error in failures:
            print(f"- {error}")


def check_scans() -> int:
    """Phrases on the scanned PDFs and the Russian page's word recall; the number of misses."""
    import django

    django.setup()
    import pypdfium2 as pdfium
    from pypdf import PdfReader

    from knowledge.indexing.parsing import ocr
    from knowledge.indexing.parsing.isolation import parse_file_isolated

    misses = 0
    print("\n| scan | phrases found |\n|---|---|")
    for name, phrases in SCANNED_PHRASES.items():
        path = DOCUMENTS / "pdf/scanned" / name
        text = " ".join(ocr.recognise_pages(parse_file_isolated(path), path, languages="rus+eng").text.split())
        found = [phrase in text for phrase in phrases]
        misses += found.count(False)
        print(f"| {name} | {sum(found)} of {len(phrases)} |")
    source, index = RUSSIAN_PAGE
    with tempfile.TemporaryDirectory() as tmp:
        document = pdfium.PdfDocument(str(source))
        scan = Path(tmp) / "russian-scan.pdf"
        document[index].render(scale=300 / 72, grayscale=True).to_pil().save(scan, "PDF", resolution=300)
        document.close()
        recognised = ocr.recognise_pages(parse_file_isolated(scan), scan, languages="rus+eng").text
    # A word hyphenated at a line end is one word, as the portal now reads it ("предше-/ствующие").
    printed = re.sub(r"(\w)-\s*\n\s*(\w)", r"\1\2", PdfReader(source).pages[index].extract_text())
    expected = collections.Counter(re.findall(r"\w+", printed.lower()))
    found = collections.Counter(re.findall(r"\w+", recognised.lower()))
    recall = sum((expected & found).values()) / sum(expected.values())
    print(f"\nRussian page rendered to an image PDF ({source.name}, page {index + 1}, "
          f"{sum(expected.values())} words): {recall:.1%} of its words recognised")
    misses += recall < 0.9
    return misses


if __name__ == "__main__":
    main()
