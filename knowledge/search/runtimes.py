"""What a repository says it runs on and works with, as an extract quotes it, for a question asking which versions of
something are supported or required (`intent_words.SUPPORT_ASKED`): a manifest's declared requirement of Python or
Node.js and the versions its classifiers list (`manifests.declared_requirements`) — "`tenacity` requires Python >=3.10
(pyproject.toml)." — of what the question names, else of the language it runs on. "Which Python versions are
supported?" was answered by tenacity's "Tenacity is an Apache 2.0 licensed general-purpose retrying library, written
in Python …": its documentation says none, its pyproject.toml does. So does a question asking the project's
dependencies (`DEPENDENCIES_ASKED`): the packages its manifest declares (`manifests.declared_dependencies`); and one
asking its own version (`VERSION_ASKED`): the version its manifest gives, else its code's `__version__`; and one asking
who wrote or maintains it (`AUTHORS_ASKED`): the people its manifest names; and where its documentation is or its bugs
are reported (`DOCS_WHERE_ASKED`, `BUGS_WHERE_ASKED`): the addresses its manifest labels so.
"""

import re
from pathlib import PurePosixPath

from knowledge.indexing.layers.manifests import (
    MANIFEST_NAMES,
    declared_dependencies,
    declared_people,
    declared_requirements,
    declared_version,
    labelled_urls,
    name_of,
)
from knowledge.models import Chunk
from knowledge.search import retrieval
from knowledge.search.hits import SearchHit
from knowledge.search.intent_words import (
    AUTHORS_ASKED,
    BUGS_WHERE_ASKED,
    DEPENDENCIES_ASKED,
    DOCS_WHERE_ASKED,
    SUPPORT_ASKED,
    VERSION_ASKED,
)
from knowledge.search.secondary import VENDORED_PATH
from knowledge.search.words import word_stems

# The manifests read: the package manifests and setup.py, whose `setup(python_requires=…, classifiers=[…])` says it.
_MANIFESTS = (*MANIFEST_NAMES, "setup.py")
_MANIFEST_PATH = rf"(^|/)({'|'.join(map(re.escape, _MANIFESTS))})$"
# What a manifest says the package runs on when the question names none of the things it lists ("Which versions are
# supported?"): the language.
_LANGUAGES = ("Python", "Node.js")
# A module, a file or a name written as code a question asks the dependencies of: its imports, not the project's.
_OF_CODE = re.compile(r"`|\b\w+\.\w+|\b(?:module|file|class|function)s?\b|модул|файл", re.IGNORECASE)
# The manifests' rows put first (`requirements_first`), of those read.
REQUIREMENT_ROWS, MOST_READ = 2, 20


def statement_of(hit: SearchHit, question: str) -> str:
    """What a manifest's row says the package runs on, of what the question asks (`asked_of`), as sentences:
    "`tenacity` requires Python >=3.10 (pyproject.toml). `tenacity` is classified for Python 3.10, 3.11 … (…)."; ""
    for any other source, or a question asking no versions."""
    meta = hit.metadata or {}
    path = meta.get("source_path", "")
    if not SUPPORT_ASKED(question) or hit.layer != "C0" or PurePosixPath(path).name not in _MANIFESTS:
        return ""
    name = _package_name(path, hit.content or "")
    said = asked_of(question, declared_requirements(hit.content or ""), name)
    return " ".join(f"{_subject(name)} {how} ({path})." for how in said)


def dependencies_of(hit: SearchHit, question: str) -> str:
    """What a manifest's row says the package depends on, to a question asking the project's dependencies (not the
    versions of something it supports): "`inflect` depends on jaraco.functools, more_itertools >= 8.5.0 and typeguard
    >= 4.0.1 (pyproject.toml)."; "`validators` declares no dependencies (pyproject.toml)."; "" for any other source or
    question, and for a row saying nothing of them."""
    meta = hit.metadata or {}
    path = meta.get("source_path", "")
    file_name = PurePosixPath(path).name
    if not asks_dependencies(question) or hit.layer != "C0" or file_name not in _MANIFESTS:
        return ""
    packages = declared_dependencies(file_name, hit.content or "")
    if packages is None:
        return ""
    subject = _subject(_package_name(path, hit.content or ""))
    if not packages:
        return f"{subject} declares no dependencies ({path})."
    return f"{subject} depends on {_listed(packages)} ({path})."


def _package_name(path: str, text: str) -> str:
    """The package's name a manifest's row gives ("" for setup.py's, which may compute it)."""
    return name_of(path, text) if PurePosixPath(path).name in MANIFEST_NAMES else ""


def _subject(name: str, opening: bool = True) -> str:
    """What a statement of a manifest says its package is: its name as code, else the project."""
    return f"`{name}`" if name else "The project" if opening else "the project"


def _listed(names: list[str]) -> str:
    return f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else names[0]


def asks_dependencies(question: str) -> bool:
    """Whether the question asks the packages a project depends on (`DEPENDENCIES_ASKED`), not which versions of
    something are supported (`SUPPORT_ASKED`), nor what a module or a file of it imports ("What does dotenv.cli depend
    on?", "… the cli module …", "… `main.py` …": the index's import edges answer)."""
    return DEPENDENCIES_ASKED(question) and not SUPPORT_ASKED(question) and not _OF_CODE.search(question)


def asked_of(question: str, requirements: list[tuple[str, str]], name: str = "") -> list[str]:
    """Of a manifest's requirements, those of what the question names ("Django" in "What versions of Django are
    supported?", "Node" for Node.js); when it names nothing but versions (and the package `name`), those of the
    language the package runs on."""
    asked = word_stems(question.replace(".", " "))
    named = [how for what, how in requirements if word_stems(what.replace(".", " ")) & asked]
    # (The package named whole is no other thing named: "Django" of "Which Django versions are supported?" is not
    # django-debug-toolbar's name, whose package.json requires Node.js.)
    own = word_stems(re.sub(r"[-_.]", " ", name))
    if named or asked - _VERSION_WORDS - (own if own <= asked else set()):
        return named
    return [how for what, how in requirements if what in _LANGUAGES]


# The words of a question asking which versions are supported that name nothing ("Which versions are supported?").
_VERSION_WORDS = word_stems("which what version versions supported support supports required require requirement "
                            "requirements compatible compatibility work works run runs with on this library package "
                            "project какие какая какой версии версия поддерживаются поддерживает поддержка требуется "
                            "требуются совместим совместима")


def requirements_first(question: str, hits: list[SearchHit], kb_ids) -> list[SearchHit]:
    """The hits with the manifests' rows saying what the question asks of the versions supported first
    (`statement_of`), or of the packages the project depends on (`dependencies_of`), the repository's own before an
    example app's (the shallowest path first), for a question asking which versions are supported or required, or its
    dependencies."""
    rows = Chunk.objects.filter(knowledge_base_id__in=list(kb_ids), enabled=True, layer="C0",
                                metadata__source_path__iregex=_MANIFEST_PATH)
    said = r"python_requires|requires-python|\"engines\"|classifiers" if SUPPORT_ASKED(question) else \
        r"dependencies|install_requires|\[project\]|setup\("
    ids = rows.filter(content__iregex=said).order_by("document_id", "position").values_list("id", flat=True)
    statements = [(hit, statement_of(hit, question) or dependencies_of(hit, question))
                  for hit in retrieval.hits_of(list(ids[:MOST_READ]))]
    # A manifest naming dependencies says more than another's declaring none (arrow's setup.py shim beside its
    # pyproject.toml).
    candidates = [hit for hit, said in statements if " depends on " in said] or [
        hit for hit, said in statements if said]
    chosen = sorted(candidates, key=lambda hit: (hit.metadata or {}).get("source_path", "").count("/"))
    chosen = chosen[:REQUIREMENT_ROWS]
    kept = {hit.chunk_id for hit in chosen}
    return chosen + [hit for hit in hits if hit.chunk_id not in kept] if chosen else hits


# A package's version in its code: `__version__ = "1.22.4"` (or `VERSION`, `version`), a string written as it is.
_VERSION_NAMES = ("__version__", "VERSION", "version")
_VERSION_LITERAL = re.compile(r"""^\s*(?:__version__|VERSION|version)\s*(?::\s*str\s*)?=\s*['"]([^'"\s]+)['"]""",
                              re.MULTILINE)
# Where a version is the documentation's or another project's (Sphinx's `docs/conf.py`, a vendored copy).
_NOT_THE_PACKAGES = re.compile(r"(?:^|/)docs?/|(?:^|/)tests?/")


def version_of(hit: SearchHit, question: str) -> str:
    """The version a row says the package is at, to a question asking the project's version (`VERSION_ASKED`): a
    manifest's ("`backoff` is at version 2.2.1 (pyproject.toml).") or its code's `__version__` ("`parse` is at
    version 1.22.4 (parse/__init__.py)."); "" for any other row or question."""
    meta = hit.metadata or {}
    path = meta.get("source_path", "")
    if not VERSION_ASKED(question) or not path:
        return ""
    file_name = PurePosixPath(path).name
    if hit.layer == "C0" and file_name in _MANIFESTS:
        version = declared_version(file_name, hit.content or "")
        name = _package_name(path, hit.content or "")
    elif (hit.layer == "C1" and meta.get("kind") == "variable" and meta.get("name") in _VERSION_NAMES
          and not meta.get("is_test") and not _NOT_THE_PACKAGES.search(path) and not VENDORED_PATH.search(path)):
        version = (found.group(1) if (found := _VERSION_LITERAL.search(hit.content or "")) else "")
        name = str(meta.get("qname") or "").split(".")[0]
    else:
        return ""
    if not version:
        return ""
    return f"{_subject(name)} is at version {version} ({path})."


def people_of(hit: SearchHit, question: str) -> str:
    """Who a manifest's row says wrote and maintains the package, to a question asking who (`AUTHORS_ASKED`):
    "`parse` is written by Richard Jones and maintained by Wim Jeantine-Glenn (pyproject.toml)."; "" for any other row
    or question, and a row naming nobody."""
    path = (hit.metadata or {}).get("source_path", "")
    file_name = PurePosixPath(path).name
    if not AUTHORS_ASKED(question) or hit.layer != "C0" or file_name not in _MANIFESTS:
        return ""
    people = declared_people(file_name, hit.content or "")
    said = [f"{verb} by {_listed(people[role])}" for role, verb in _ROLES if role in people]
    if not said:
        return ""
    return f"{_subject(_package_name(path, hit.content or ''))} is {' and '.join(said)} ({path})."


_ROLES = (("authors", "written"), ("maintainers", "maintained"))


# The labels a manifest gives the address of its documentation, and of its issue tracker.
_DOCS_LABELS = re.compile(r"\bdoc", re.IGNORECASE)
_BUGS_LABELS = re.compile(r"\b(?:bug|issue|tracker)", re.IGNORECASE)
_HOME_LABELS = re.compile(r"\b(?:home|repository|source|github|code)", re.IGNORECASE)


def site_of(hit: SearchHit, question: str) -> str:
    """Where a manifest's row says the project's documentation is, or its bugs are reported, to a question asking
    that: "The documentation of `sqlparse` is at https://sqlparse.readthedocs.io/ (pyproject.toml)."; "" for any other
    row or question, and a manifest labelling no such address."""
    path = (hit.metadata or {}).get("source_path", "")
    file_name = PurePosixPath(path).name
    asked = _DOCS_LABELS if DOCS_WHERE_ASKED(question) else _BUGS_LABELS if BUGS_WHERE_ASKED(question) else None
    if asked is None or hit.layer != "C0" or file_name not in MANIFEST_NAMES:
        return ""
    urls = labelled_urls(file_name, hit.content or "")
    url = next((url for label, url in urls if asked.search(label)), "")
    # (Without an address of its documentation, its home's: the README there is its documentation.)
    home = "" if url or asked is _BUGS_LABELS else next((url for label, url in urls if _HOME_LABELS.search(label)), "")
    if not url and not home:
        return ""
    project = _subject(name_of(path, hit.content or ""), opening=False)
    said = (f"The documentation of {project} is at {url}" if url and asked is _DOCS_LABELS else
            f"Bugs in {project} are reported at {url}" if url else f"The home of {project} is at {home}")
    return f"{said} ({path})."


def fact_said(hit: SearchHit, question: str) -> str:
    """The project's version, its people or the address asked, as a row says it (`version_of`, `people_of`,
    `site_of`): a whole answer, where the documentation may say more of the versions supported or the dependencies."""
    return version_of(hit, question) or people_of(hit, question) or site_of(hit, question)


def project_said(hit: SearchHit, question: str) -> str:
    """What a row says of the project the question asks about it: the versions it supports, its dependencies
    (`statement_of`, `dependencies_of`), its version (`version_of`), its people (`people_of`), where its documentation
    is or its bugs are reported (`site_of`); "" for none."""
    return statement_of(hit, question) or dependencies_of(hit, question) or fact_said(hit, question)


def facts_first(question: str, hits: list[SearchHit], kb_ids) -> list[SearchHit]:
    """The hits with the row saying the project's version (`version_of`: its manifest's, else its code's `__version__`
    nearest the repository's root), its people (`people_of`) or the address asked (`site_of`) first, for a question
    asking one."""
    said_of = (r"version" if VERSION_ASKED(question) else r"author|maintainer" if AUTHORS_ASKED(question)
               else r"https?:" if DOCS_WHERE_ASKED(question) or BUGS_WHERE_ASKED(question) else "")
    if not said_of:
        return hits
    rows = Chunk.objects.filter(knowledge_base_id__in=list(kb_ids), enabled=True)
    manifests = rows.filter(layer="C0", metadata__source_path__iregex=_MANIFEST_PATH, content__iregex=said_of)
    variables = rows.filter(layer="C1", metadata__kind="variable", metadata__name__in=_VERSION_NAMES) if \
        VERSION_ASKED(question) else rows.none()
    ids = [*manifests.order_by("document_id", "position").values_list("id", flat=True)[:MOST_READ],
           *variables.order_by("document_id").values_list("id", flat=True)[:MOST_READ]]
    said = [hit for hit in retrieval.hits_of(ids) if fact_said(hit, question)]
    if not said:
        return hits
    chosen = min(said, key=lambda hit: (hit.layer != "C0", (hit.metadata or {}).get("source_path", "").count("/")))
    return [chosen, *[hit for hit in hits if hit.chunk_id != chosen.chunk_id]]
