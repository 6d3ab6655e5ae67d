"""Repository sources: a folder, a git checkout (or a folder inside one), or a zip archive.

`open_repository(path, since=...)` yields a `Snapshot`: the indexable files, the commit sha, and —
with `since` — only the files changed since that commit plus the ones deleted. In a git checkout
the file list comes from git itself (`ls-files`, so `.gitignore` is honoured) and the changes from
`git diff --name-only <since>` against the working tree, plus untracked files.
"""

import os
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from django.utils.formats import number_format
from django.utils.translation import gettext as _

from knowledge.exceptions import KnowledgeError

# Folders that hold tooling, dependencies or build output rather than the project's own sources.
SKIP_DIRS = {"node_modules", "__pycache__", ".venv", "venv", "env", "build", "dist", "site-packages",
             ".git", ".hg", ".tox", ".mypy_cache", ".pytest_cache", ".ruff_cache", "htmlcov"}
MAX_FILE_BYTES = 1_000_000
# Minified JavaScript or CSS: a build's output, not the project's own source (an npm package's `dayjs.min.js` and
# `plugin/*.js`). Hand-written code keeps its lines short; a minifier runs them into a few very long ones
# (`minified`: GitHub's linguist reads an average line over 110 characters so).
MINIFIABLE = (".js", ".mjs", ".cjs", ".css")
MINIFIED_LINE_CHARS = 110
MAX_ZIP_BYTES = 500_000_000
GIT_TIMEOUT = 60


def minified(rel: str, text: str) -> bool:
    """Whether the file is minified JavaScript or CSS: named so (`*.min.js`), or its lines over
    MINIFIED_LINE_CHARS on average."""
    name = PurePosixPath(rel).name.lower()
    if not name.endswith(MINIFIABLE):
        return False
    lines = text.strip().count("\n") + 1
    return ".min." in name or len(text.strip()) / lines > MINIFIED_LINE_CHARS


class RepositoryError(KnowledgeError):
    """The repository path, archive or commit cannot be read."""


@dataclass
class Snapshot:
    root: Path
    repo_id: str
    commit_sha: str
    files: list[str]  # every indexable file, relative POSIX paths
    changed: list[str] | None = None  # with `since`: the files to re-index; None means all
    deleted: tuple[str, ...] = ()
    is_git: bool = False
    # Indexable files left out, with the reason (too large, a symbolic link): warnings of the run.
    skipped: list[tuple[str, str]] = field(default_factory=list)
    # The packages `root` sits in ("knowledge/" when it is the `knowledge` package), so stored paths
    # and module names read as in the project: `knowledge/api.py`, `knowledge.api`.
    prefix: str = ""

    @property
    def targets(self) -> list[str]:
        return self.files if self.changed is None else self.changed


@contextmanager
def open_repository(path: str | Path, *, since: str = "", name: str = "",
                    indexable=lambda rel: True) -> Iterator[Snapshot]:
    """A snapshot of the repository at `path`; a zip is unpacked to a temporary folder meanwhile."""
    path = Path(path).expanduser().resolve()
    if not path.exists():
        raise RepositoryError(_("No such folder or archive: %(path)s") % {"path": path})
    if path.is_file():
        if not zipfile.is_zipfile(path):
            raise RepositoryError(_("%(name)s is neither a folder nor a zip archive") % {"name": path.name})
        if since:
            raise RepositoryError(_("--since needs a git checkout; a zip archive is always indexed in full"))
        with tempfile.TemporaryDirectory(prefix="repo-") as tmp:
            root = _unzip(path, Path(tmp))
            skipped = []
            # Named after its one top folder ("uvicorn-main/" of GitHub's "main.zip"), else after the archive.
            repo_id = name or (root.name if root != Path(tmp) else path.stem)
            yield Snapshot(root, repo_id, "", _walk(root, indexable, skipped), skipped=skipped)
        return
    yield _folder_snapshot(path, since=since, name=name or path.name, indexable=indexable)


def _folder_snapshot(root: Path, *, since: str, name: str, indexable) -> Snapshot:
    if not _is_git(root):
        if since:
            raise RepositoryError(_("%(root)s is not a git checkout, so there is nothing to compare with %(since)s")
                                  % {"root": root, "since": since})
        skipped = []
        return Snapshot(root, name, "", _walk(root, indexable, skipped), prefix=_package_prefix(root),
                        skipped=skipped)
    has_commits = _git_ok(root, "rev-parse", "--verify", "-q", "HEAD")
    head = _git(root, "rev-parse", "HEAD").strip() if has_commits else ""
    listed = _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    skipped = []
    files = sorted(rel for rel in listed if rel and _keep(root, rel, indexable, skipped))
    snapshot = Snapshot(root, name, head, files, is_git=True, prefix=_package_prefix(root), skipped=skipped)
    if since:
        # Resolved to a sha first, so a value such as "--output=…" can never reach git as an option.
        verify = ("rev-parse", "--verify", "-q", "--end-of-options", f"{since}^{{commit}}")
        if since.startswith("-") or not _git_ok(root, *verify):
            raise RepositoryError(_("Unknown commit %(commit)s in %(root)s") % {"commit": repr(since), "root": root})
        sha = _git(root, *verify).strip()
        diff = _git(root, "diff", "--name-only", "--relative", "--no-renames", "-z", sha, "--").split("\0")
        untracked = _git(root, "ls-files", "-z", "--others", "--exclude-standard").split("\0")
        touched, listed = sorted({rel for rel in diff + untracked if rel}), set(files)
        snapshot.changed = [rel for rel in touched if rel in listed]
        snapshot.deleted = tuple(rel for rel in touched if not (root / rel).exists() and indexable(rel))
        snapshot.skipped = [(rel, reason) for rel, reason in skipped if rel in set(touched)]
    return snapshot


def _package_prefix(root: Path) -> str:
    """`knowledge/` for a folder that is itself a Python package inside a plain folder."""
    parts = []
    while (root / "__init__.py").is_file() and root.parent != root:
        parts.insert(0, root.name)
        root = root.parent
    return "".join(f"{part}/" for part in parts)


def _walk(root: Path, indexable, skipped: list) -> list[str]:
    files = []
    # Symbolic links to folders are not followed (os.walk's default), so a link loop ends here.
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for file_name in names:
            rel = (Path(folder) / file_name).relative_to(root).as_posix()
            if not file_name.startswith(".") and _keep(root, rel, indexable, skipped):
                files.append(rel)
    return sorted(files)


def _keep(root: Path, rel: str, indexable, skipped: list) -> bool:
    """Whether a listed file is indexed: not hidden, not in a skipped folder, indexable, a small regular file.

    Hidden folders and files (`.github/`, `.claude/`, `.env.py`) are skipped in every source kind:
    a git checkout lists them when they are committed.
    """
    parts = PurePosixPath(rel).parts
    if any(part in SKIP_DIRS or part.startswith(".") for part in parts) or not indexable(rel):
        return False
    full = root / rel
    if full.is_symlink():
        skipped.append((rel, "a symbolic link: not followed"))
        return False
    if not full.is_file():
        return False
    size = full.stat().st_size
    if size > MAX_FILE_BYTES:
        skipped.append((rel, f"{size:,} bytes, over the {MAX_FILE_BYTES:,}-byte limit for one file"))
        return False
    return True


def _unzip(archive: Path, target: Path) -> Path:
    """Extract safely: no absolute paths, no `..`, no more than MAX_ZIP_BYTES in total."""
    with zipfile.ZipFile(archive) as zf:
        members = zf.infolist()
        if sum(m.file_size for m in members) > MAX_ZIP_BYTES:
            raise RepositoryError(_("%(name)s expands to more than %(limit)s bytes")
                                  % {"name": archive.name, "limit": number_format(MAX_ZIP_BYTES, force_grouping=True)})
        for member in members:
            parts = PurePosixPath(member.filename).parts
            if member.filename.startswith("/") or ".." in parts:
                raise RepositoryError(_("%(name)s holds an unsafe path: %(path)s")
                                      % {"name": archive.name, "path": member.filename})
            if member.is_dir():
                continue
            destination = target.joinpath(*parts)
            destination.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(member) as source, destination.open("wb") as out:
                shutil.copyfileobj(source, out)
    entries = [p for p in target.iterdir() if not p.name.startswith((".", "__MACOSX"))]
    # An archive of one top folder (`project-main/…`, as GitHub makes them) is rooted inside it.
    return entries[0] if len(entries) == 1 and entries[0].is_dir() else target


def _is_git(root: Path) -> bool:
    """Whether `root` is in a git checkout; a checkout git refuses to read is an error, never a plain
    folder: indexed as one, its ignored files (secrets, build output) would be read too."""
    if shutil.which("git") is None:
        return False
    result = _run_git(root, "rev-parse", "--is-inside-work-tree")
    if result.returncode == 0:
        return True
    if "not a git repository" in result.stderr:
        return False
    if "dubious ownership" in result.stderr:
        raise RepositoryError(
            _("git refuses to read %(root)s: the checkout belongs to another user. Index it as its owner, or, "
              "if you trust it, allow it with: git config --global --add safe.directory %(root)s") % {"root": root})
    raise RepositoryError(_("git cannot read %(root)s: %(error)s") % {"root": root, "error": result.stderr.strip()})


def _run_git(root: Path, *args: str) -> subprocess.CompletedProcess:
    # English messages whatever the machine's locale: `_is_git` reads them.
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=GIT_TIMEOUT,
                          check=False, env={**os.environ, "LC_ALL": "C", "LANGUAGE": ""})


def _git_ok(root: Path, *args: str) -> bool:
    return _run_git(root, *args).returncode == 0


def _git(root: Path, *args: str) -> str:
    result = _run_git(root, *args)
    if result.returncode != 0:
        raise RepositoryError(_("git %(command)s failed: %(error)s")
                              % {"command": " ".join(args), "error": result.stderr.strip()})
    return result.stdout
