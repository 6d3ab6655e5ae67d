"""Module roots: the folders Python would put on `sys.path` for a repository's code.

A repository is not always importable from its top folder: the code may live in `src/`, in a
`backend/` folder whose modules import `app.*`, or in folders a `pyproject.toml` or `setup.cfg`
names. `find_roots(texts, configs)` finds them the way Python would:

1. folders a packaging file declares (`[tool.setuptools] package-dir`, `packages.find.where`,
   Poetry's `packages = [{from = …}]`, Hatch's wheel `packages`, setup.cfg's `package_dir` and
   `packages.find where`), relative to the packaging file;
2. a `src/` folder holding a package;
3. every folder whose top-level packages or modules the code imports: each candidate is scored
   by how many import statements of the repository resolve in it.

Each Python file then takes, of the roots above it, a declared one if any, else the one that
resolves most imports (the repository's top folder, "", is always a candidate). The roots and
each file's root are recorded on the index (document metadata, job options) and shown.
"""

import configparser
import re
import sys
import tomllib
from collections import Counter
from pathlib import PurePosixPath

IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]+import\b|import[ \t]+([A-Za-z_]\w*))",
                    re.MULTILINE)


def find_roots(texts: dict[str, str], configs: dict[str, str] | None = None) -> dict[str, str]:
    """Python file path → its module root ("" or a folder path ending in "/")."""
    python = [path for path in texts if path.endswith(".py")]
    if not python:
        return {}
    declared = declared_roots(configs or {})
    packages = _importable(python)
    imported = Counter()
    for path in python:
        imported.update({m.group(1) or m.group(2) for m in IMPORT.finditer(texts[path])})
    for name in sys.stdlib_module_names:  # `import html` says nothing about a folder holding html.py
        imported.pop(name, None)
    scores = Counter()
    for folder, names in packages.items():
        scores[folder] = sum(imported[name] for name in names)
    if any(path.startswith("src/") for path in python) and packages.get("src/"):
        declared.add("src/")
    roots = {}
    for path in python:
        above = _folders(path)
        chosen = [folder for folder in above if folder in declared]
        if chosen:
            roots[path] = max(chosen, key=len)
            continue
        # The folder that resolves most imports; on a tie the higher one (shorter module names
        # are what a project's own imports use when both resolve).
        roots[path] = max(above, key=lambda folder: (scores.get(folder, 0), -len(folder)))
    return roots


def module_name(path: str, root: str = "") -> str:
    """`backend/app/core/db.py` under root `backend/` → `app.core.db`; `shop/__init__.py` → `shop`."""
    if root and path.startswith(root):
        path = path[len(root):]
    parts = list(PurePosixPath(path).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def declared_roots(configs: dict[str, str]) -> set[str]:
    """Root folders named by `pyproject.toml` and `setup.cfg` files, relative to the repository."""
    roots = set()
    for path, text in configs.items():
        base = str(PurePosixPath(path).parent)
        base = "" if base == "." else base + "/"
        try:
            folders = _pyproject(text) if path.endswith(".toml") else _setup_cfg(text)
        except (tomllib.TOMLDecodeError, configparser.Error, AttributeError, TypeError):
            continue  # an unreadable packaging file names no roots
        for folder in folders:
            folder = folder.strip().strip("/")
            if folder in ("", "."):
                continue
            roots.add(f"{base}{folder}/")
    return roots


def _pyproject(text: str) -> list[str]:
    data = tomllib.loads(text)
    tool = data.get("tool", {})
    setuptools = tool.get("setuptools", {})
    folders = []
    package_dir = setuptools.get("package-dir", {})
    if isinstance(package_dir, dict) and package_dir.get(""):
        folders.append(package_dir[""])
    find = setuptools.get("packages", {})
    if isinstance(find, dict):
        folders.extend(find.get("find", {}).get("where", []))
    for package in tool.get("poetry", {}).get("packages", []):
        if isinstance(package, dict) and package.get("from"):
            folders.append(package["from"])
    wheel = tool.get("hatch", {}).get("build", {}).get("targets", {}).get("wheel", {})
    for package in wheel.get("packages", []):
        parent = str(PurePosixPath(package).parent)
        if parent != ".":
            folders.append(parent)
    return [folder for folder in folders if isinstance(folder, str)]


def _setup_cfg(text: str) -> list[str]:
    parser = configparser.ConfigParser()
    parser.read_string(text)
    folders = []
    if parser.has_option("options", "package_dir"):
        for line in parser.get("options", "package_dir").splitlines():
            key, _, value = line.partition("=")
            if not key.strip() and value.strip():
                folders.append(value.strip())
    if parser.has_option("options.packages.find", "where"):
        folders.append(parser.get("options.packages.find", "where"))
    return folders


def _folders(path: str) -> list[str]:
    """The folders above a file, from the top: "", "a/", "a/b/"."""
    parts = PurePosixPath(path).parts[:-1]
    return ["".join(f"{part}/" for part in parts[:depth]) for depth in range(len(parts) + 1)]


def _importable(python: list[str]) -> dict[str, set[str]]:
    """Folder → the top-level names importable from it (packages and modules of the repository)."""
    found: dict[str, set[str]] = {}
    for path in python:
        parts = PurePosixPath(path).parts
        # Every folder above the file can import the file's first part below it.
        for depth in range(len(parts)):
            name = parts[depth].removesuffix(".py") if depth == len(parts) - 1 else parts[depth]
            if name.isidentifier() and name != "__init__":
                found.setdefault("".join(f"{part}/" for part in parts[:depth]), set()).add(name)
    return found
