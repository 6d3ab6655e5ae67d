"""A long scan's OCR: one uploaded scan read by one worker against two, in one run.

    .venv/bin/python bench/scan.py [--pages 24] [--rounds 2] [--setups 1,2] [--embedder hash]

The scan is pictures of a real Russian standard's pages (GOST 2.105-95 from ../shared/data, its first
`--pages` pages rendered at 200 DPI, greyscale, no text layer: what a scanner makes), uploaded as one
PDF and ingested as one job by real `manage.py qcluster` processes in each of `--setups` ('1': one
worker, '2': one cluster of two, '1+1': two clusters of one, as on two machines), interleaved for
`--rounds` rounds. Its pages are read with Debian's Tesseract (the base's default `rus+eng`, at
`PORTAL_OCR_DPI`) page by page by every worker of the job (knowledge/share_pages.py). pages/s = the
job's `ocr_pages` over its run time (started → finished, from the job row); "readers" = the worker
processes seen holding its pages. "OCR alone" = `--ceiling-pages` pages of the same scan read with
`ocr.read_page` by as many bare processes at once, each in its own session, just before the job: what
the machine gives that many readers right now. The chunks are embedded with `--embedder` (the instant
`hash` by default: this measures OCR; bench/ingest.py measures the embedding shared by the workers).

Everything runs in its own database (`portal_bench_scan`); the knowledge bases are deleted afterwards.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DATA_DIR, setup_django, stop, timed_together  # noqa: E402
from ingest import cpu_seconds, delete, describe, format_load, print_table, start_cluster, wait_finished, warm_up  # noqa: E402

DATABASE = "portal_bench_scan"
SOURCE = DATA_DIR / "documents/pdf/ru/gost_2.105-95.pdf"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=24)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--setups", default="1,2", help="worker set-ups, interleaved (as in bench/ingest.py)")
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--threads", type=int, default=1, help="PORTAL_EMBED_THREADS of each worker process")
    parser.add_argument("--ceiling-pages", type=int, default=3,
                        help="pages each bare process reads to measure what the machine gives (0: skip)")
    args = parser.parse_args()
    os.environ.setdefault("PORTAL_LOG_LEVEL", "WARNING")
    setup_django(DATABASE)

    print(f"load average at start: {format_load()}\n")
    with tempfile.TemporaryDirectory(prefix="portal-bench-scan-") as folder:
        scan = picture_pdf(SOURCE, Path(folder) / "gost-scan.pdf", pages=args.pages)
        passes = []
        for round_ in range(1, args.rounds + 1):
            for setup in args.setups.split(","):
                clusters = [int(workers) for workers in setup.split("+")]
                result = run_pass(clusters, scan, args)
                passes.append({"round": round_, "setup": setup, **result})
                print(f"  round {round_}, {describe(setup)}: {result['pages']} pages in {result['seconds']:.1f} s, "
                      f"load {result['load']}", file=sys.stderr, flush=True)
    print_passes(passes, args)


def picture_pdf(source: Path, target: Path, *, pages: int) -> Path:
    """A PDF holding only pictures of `source`'s first `pages` pages."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(source))
    pictures = [document[index].render(scale=200 / 72, grayscale=True).to_pil()
                for index in range(min(pages, len(document)))]
    document.close()
    pictures[0].save(target, "PDF", resolution=200, save_all=True, append_images=pictures[1:])
    return target


def run_pass(clusters: list[int], scan: Path, args) -> dict:
    """Start the clusters, warm them up, ingest the scan as one job, stop them."""
    workers = sum(clusters)
    started = [start_cluster(count, workers, args) for count in clusters]
    try:
        if args.embedder != "hash":  # no model to load: nothing to warm up
            warm_up(workers, args)
        ceiling = ocr_ceiling(workers, scan, args.ceiling_pages) if args.ceiling_pages else 0.0
        load_before, cpu_before = os.getloadavg()[0], sum(map(cpu_seconds, started))
        kb, job = upload_scan(scan, args.embedder)
        readers: set[str] = set()
        job = wait_finished(job, observe=lambda: readers.update(page_readers(job)))
        load_after, cpu = os.getloadavg()[0], sum(map(cpu_seconds, started)) - cpu_before
        if job.status != job.Status.SUCCEEDED or job.failures:
            raise SystemExit(f"{job} ended {job.status}: {job.error_message or job.failures[:3]}")
        seconds = (job.finished_at - job.started_at).total_seconds()
        pages = job.counters.get("ocr_pages", 0)
        result = {"pages": pages, "seconds": seconds, "rate": pages / seconds, "cores": cpu / seconds,
                  "ceiling": ceiling,
                  "readers": len({token.split(":")[1] for token in readers if token}),
                  "load": f"{load_before:.1f} → {load_after:.1f}"}
        delete(kb)
        return result
    finally:
        for cluster in started:
            stop(cluster)


CEILING = """
import os, sys, time
from pathlib import Path
sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
import django
django.setup()
from knowledge.indexing.parsing import ocr
scan, pages = Path(sys.argv[1]), [int(number) for number in sys.argv[2:]]
sys.stdin.readline()
print("ready", flush=True)
sys.stdin.readline()
started = time.perf_counter()
for number in pages:
    ocr.read_page(scan, number, ocr.DEFAULT_LANGUAGES)
print(time.perf_counter() - started, flush=True)
"""


def ocr_ceiling(processes: int, scan: Path, pages: int) -> float:
    """`pages` pages read by each of `processes` bare processes at once: pages/s the machine gives now."""
    numbers = [str(number) for number in range(1, pages + 1)]
    seconds = timed_together(CEILING, [str(scan), *numbers], processes,
                             env={**os.environ, "PORTAL_LOG_LEVEL": "WARNING"})
    return processes * pages / seconds


def upload_scan(scan: Path, embedder: str):
    """A fresh base with the scan stored as a pending upload, and one ingestion job queued for it."""
    from django.core.files import File

    from knowledge import bases, jobs

    kb = bases.create_knowledge_base(name=f"bench-scan-{time.time_ns()}", embedder=embedder)
    with scan.open("rb") as handle:
        job, refused = jobs.add_uploads(kb, [File(handle, name=scan.name)])
    if job is None:
        raise SystemExit(f"the scan was refused: {refused}")
    return kb, job


def page_readers(job) -> list[str]:
    """The participants holding pages of the job's scan right now (the rows go when it ends)."""
    from knowledge.models import ScanPage

    return list(ScanPage.objects.filter(item__job=job).exclude(claimed_by="").values_list("claimed_by", flat=True))


def print_passes(passes: list[dict], args) -> None:
    print_table(["round", "set-up", "pages", "seconds", "pages/s", "readers", "worker CPU cores used",
                 "OCR alone, as many processes: pages/s", "load average"],
                [(p["round"], describe(p["setup"]), p["pages"], f"{p['seconds']:.1f}", f"{p['rate']:.3f}",
                  p["readers"] or "— (not shared)", f"{p['cores']:.2f}",
                  f"{p['ceiling']:.3f}" if p["ceiling"] else "—", p["load"]) for p in passes])
    setups = args.setups.split(",")

    def median(setup: str, key: str = "rate") -> float:
        return statistics.median(p[key] for p in passes if p["setup"] == setup)

    print(f"\nOne scan of {passes[0]['pages']} pages; medians over {args.rounds} interleaved rounds, "
          f"against {describe(setups[0])}:")
    for setup in setups:
        line = f"    {describe(setup)}: {median(setup):.3f} pages/s, **{median(setup) / median(setups[0]):.2f}×**"
        if args.ceiling_pages:
            alone = median(setup, "ceiling") / median(setups[0], "ceiling")
            line += f"; OCR alone in as many processes {alone:.2f}×"
        print(line)
    print(f"    load average at the end: {format_load()}")


if __name__ == "__main__":
    main()
