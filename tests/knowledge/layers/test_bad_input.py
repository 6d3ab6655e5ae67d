"""Bad repositories: every odd file is a visible warning, bounded in time and memory, and the rest is indexed."""

import os
import time
import tracemalloc
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from knowledge.indexing.layers.python import MAX_SYMBOLS, PythonExtractor
from knowledge.models import Chunk, Document
from tests.factories import make_kb

NEWER_SYNTAX = '''"""Python 3.12 syntax the indexer's Python cannot parse."""

type Point = tuple[float, float]


def first[T](items: list[T]) -> T:
    return items[0]


class Box[T]:
    def get(self) -> T:
        return self.value


def plain():
    return first([1])
'''


def make_bad_repo(root: Path) -> Path:
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "good.py").write_text("def good():\n    return 1\n")
    (root / "app" / "modern.py").write_text(NEWER_SYNTAX)
    with open(root / "app" / "generated.py", "wb") as out:  # 50 MB, sparse: no disk written
        out.truncate(50 * 1024 * 1024)
    (root / "app" / "huge.py").write_text("".join(f"value_{n} = {n}\n" for n in range(200_000)))
    (root / "app" / "logo.py").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + os.urandom(2000))
    (root / "web").mkdir()
    (root / "web" / "bundle.ts").write_bytes(b"\x00\x01\x02binary" * 100)
    (root / "docs").mkdir()
    (root / "docs" / "mixed.md").write_bytes("# Приветствие\n\nUTF-8 text, then cp1251: ".encode()
                                             + "оплата заказа".encode("cp1251") + b"\n")
    (root / "docs" / "windows.md").write_bytes("# Notes\n\nSaved by Notepad as Unicode: оплата.\n".encode("utf-16"))
    (root / "loop").symlink_to(root, target_is_directory=True)  # a folder link back to the top
    (root / "app" / "a.py").symlink_to(root / "app" / "b.py")  # two links pointing at each other
    (root / "app" / "b.py").symlink_to(root / "app" / "a.py")
    (root / "broken").mkdir()
    for n in range(5):  # a syntax error in every file of a folder
        (root / "broken" / f"mod{n}.py").write_text(f"def ok_{n}():\n    return {n}\n\n\ndef bad_{n}(:\n    pass\n")
    return root


@pytest.mark.django_db
def test_a_bad_repository_is_indexed_with_a_visible_warning_for_each_odd_file(tmp_path):
    repo = make_bad_repo(tmp_path / "bad")
    kb = make_kb()
    out = StringIO()
    started = time.monotonic()
    tracemalloc.start()
    call_command("index_repo", kb.slug, str(repo), stdout=out)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    elapsed = time.monotonic() - started
    text = out.getvalue()
    job = kb.jobs.get()
    warnings = {item["item"]: item["reason"] for item in job.options["warnings"]}
    assert job.status == "succeeded" and job.counters.get("failed", 0) == 0
    assert "50 MB" not in text and "52,428,800 bytes, over the 1,000,000-byte limit" in warnings["app/generated.py"]
    assert "over the" in warnings["app/huge.py"]  # 200,000 lines, 2.5 MB
    assert warnings["app/logo.py"] == warnings["web/bundle.ts"] == "binary content (NUL bytes): not indexed"
    assert warnings["app/a.py"] == warnings["app/b.py"] == "a symbolic link: not followed"
    assert "not read by Python" in warnings["app/modern.py"]
    assert all(f"broken/mod{n}.py" in warnings for n in range(5))
    assert job.counters["warnings"] == len(job.options["warnings"]) == 6 + 3 + 5  # modern.py has three
    assert f"warnings {job.counters['warnings']}" in text and "warning app/modern.py: lines 3-3" in text
    # The rest is indexed: the good file, the mixed-encoding page, and what the broken files define.
    paths = set(Document.objects.filter(knowledge_base=kb).values_list("path", flat=True))
    assert paths == {"app/__init__.py", "app/good.py", "app/modern.py", "docs/mixed.md", "docs/windows.md",
                     *(f"broken/mod{n}.py" for n in range(5))}
    assert "оплата заказа" in Document.objects.get(knowledge_base=kb, path="docs/mixed.md").text
    assert "Unicode: оплата." in Document.objects.get(knowledge_base=kb, path="docs/windows.md").text  # UTF-16
    modern = Document.objects.get(knowledge_base=kb, path="app/modern.py")
    assert modern.status == Document.Status.READY and len(modern.metadata["warnings"]) == 3
    symbols = set(Chunk.objects.filter(layer="C1", document__knowledge_base=kb).values_list("metadata__qname",
                                                                                           flat=True))
    assert {"app.modern.first", "app.modern.Box", "app.modern.Box.get", "app.modern.plain"} <= symbols
    assert {f"broken.mod{n}.{name}_{n}" for n in range(5) for name in ("ok", "bad")} <= symbols
    assert not any(path.startswith("loop/") for path in paths)
    # Bounded: nothing read the 50 MB file or walked the link loop (generous limits for a shared machine).
    assert peak < 200 * 1024 * 1024 and elapsed < 120


def test_a_generated_module_of_many_assignments_is_capped_with_a_warning():
    # Under the size limit but 20,000 module-level names: the first MAX_SYMBOLS are symbols.
    text = "".join(f"v{n} = {n}\n" for n in range(20_000))
    started = time.monotonic()
    file = PythonExtractor().parse("generated.py", text)
    assert len(file.symbols) == MAX_SYMBOLS
    assert "15,001 symbols and references beyond the first 5,000" in file.warnings[0]
    assert time.monotonic() - started < 60  # linear: reading the source of a node does not re-split the file


@pytest.mark.django_db
def test_a_file_its_extractor_fails_on_fails_alone(tmp_path, monkeypatch):
    # semver's `require('../')` raised inside the JavaScript extractor, and the whole repository's job failed with
    # "PurePosixPath('.') has an empty name". An extractor's fault, whatever it is, fails its file alone.
    from knowledge.indexing.layers.typescript import ScriptExtractor

    parse = ScriptExtractor.parse

    def fault(self, path, text, module=None):
        if path == "lib/odd.js":
            raise ValueError("an extractor's fault")
        return parse(self, path, text, module=module)

    monkeypatch.setattr(ScriptExtractor, "parse", fault)
    repo = tmp_path / "repo"
    (repo / "lib").mkdir(parents=True)
    (repo / "lib" / "odd.js").write_text("module.exports = function odd () { return 1 }\n")
    (repo / "lib" / "fine.js").write_text("/** Add one. */\nfunction addOne (n) { return n + 1 }\n")
    (repo / "README.md").write_text("# repo\n\nA repository with one odd file.\n")
    kb = make_kb()
    call_command("index_repo", kb.slug, str(repo), stdout=StringIO())
    job = kb.jobs.get()
    assert job.status == "partial" and job.counters["failed"] == 1, (job.status, job.counters, job.failures)
    assert Document.objects.filter(knowledge_base=kb, path__in=["lib/fine.js", "README.md"]).count() == 2
    assert not Document.objects.filter(knowledge_base=kb, path="lib/odd.js").exists()
    failure = next(item for item in job.failures if item["item"] == "lib/odd.js")
    assert "an extractor's fault" in failure["reason"], failure


@pytest.mark.django_db
def test_minified_code_is_left_out_with_a_warning(tmp_path):
    # dayjs' npm package ships its plugins minified (`plugin/updateLocale.js` is one line of
    # `!function(e,n){"object"==typeof exports…`): their rows answered "How do I change the locale?".
    repo = tmp_path / "dates"
    (repo / "plugin").mkdir(parents=True)
    minified = ('!function(e,n){"object"==typeof exports&&"undefined"!=typeof module?module.exports=n():'
                '"function"==typeof define&&define.amd?define(n):(e="undefined"!=typeof globalThis?globalThis:e||self)'
                '.dates_plugin_utc=n()}(this,(function(){"use strict";return function(e,n,t){n.prototype.utc=1}}));')
    (repo / "plugin" / "utc.js").write_text(minified)
    (repo / "dates.min.js").write_text("var a=1;\nvar b=2;\n")
    (repo / "plugin" / "utc.d.ts").write_text("declare const plugin: (option: unknown) => void\nexport = plugin\n")
    (repo / "index.js").write_text("/** Today's date. */\nfunction today () {\n  return new Date()\n}\n"
                                   "module.exports = { today }\n")
    kb = make_kb()
    call_command("index_repo", kb.slug, str(repo), stdout=StringIO())
    job = kb.jobs.get()
    warnings = {item["item"]: item["reason"] for item in job.options["warnings"]}
    assert warnings == {"plugin/utc.js": "minified code (a build's output): not indexed",
                        "dates.min.js": "minified code (a build's output): not indexed"}, warnings
    paths = set(Document.objects.filter(knowledge_base=kb).values_list("path", flat=True))
    assert paths == {"index.js", "plugin/utc.d.ts"}, paths
