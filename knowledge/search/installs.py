"""What a sentence or a command installs, against the project a question asks to install (`composer`).

"How do I install humanfriendly?" was answered by "If this doesn't work then you can install the colorama package …"
(its README's note on Windows), toolz's by versioneer's own set-up after `pip install toolz`: each installs something,
neither the project asked about. A question asking to install a repository's project by its name is answered by what
installs that project (from its registry, its folder, its wheel or its repository's address), or by nothing; a unit
that installs only other packages, by a package manager's command or by a sentence naming "the … package", is left
out, and so is a row of its code (`layer_text.quotable`: a docstring tells nobody how to install its package). Units
installing nothing named ("npm install" in a project's folder, "Install it with:") are left to the other rules.
"""

import re

from knowledge.search.code_blocks import COMMAND, PACKAGE_MANAGERS, code_lines
from knowledge.search.intent_words import INSTALL_ASKED_RU

# The name a question asks to install: "How do I install humanfriendly?", "… install the p-retry package?".
_ASKED = re.compile(rf"\binstall(?:ing)?\s+(?:the\s+)?([\w@][\w.@/-]*)|{INSTALL_ASKED_RU.pattern}", re.IGNORECASE)
# A package manager's command installing packages, and its arguments.
_COMMAND = re.compile(rf"(?:^|[\s$;&|(]){PACKAGE_MANAGERS}\s+(?:install|i|add|get|require)\b([^\n;&|#]*)")
# A sentence naming the package it installs: "… you can install the colorama package" (not "the latest package").
_PROSE = re.compile(r"\binstall(?:ed|ing)?\s+(?:the\s+|an?\s+)?(?!(?:an?|the|latest|stable|required|necessary|same"
                    r"|following|optional|new|this|that|your|our|its)\b)[`'\"]?([\w.-]+)[`'\"]?\s+(?:package|module|library"
                    r"|extension|plugin)\b", re.IGNORECASE)
# A sentence saying something of installing: the word, a package manager, a registry.
_INSTALLING = re.compile(r"\binstall|\b(?:pip3?|pipx|conda|npm|pnpm|yarn|poetry|cargo|brew|nuget|apt(?:-get)?)\b"
                         r"|\bpypi\b|\bустанов", re.IGNORECASE)
# A sentence saying it installs something (a package manager's name alone says no such thing: "npm run test").
_SAYS_INSTALL = re.compile(r"\binstall|\bустанов", re.IGNORECASE)
# What a question asks when installing the project answers it: to install, set up, get, add or start with it, or
# what it needs ("How do I get it?", "What does it depend on?").
_GETTING = re.compile(r"\binstall|\bset(?:ting)?[ -]?up\b|\bget(?:ting)?\b|\bstart|\badd(?:ing)?\b|\bdownload"
                      r"|\brequir|\bdepend|\bupgrad|\bupdat|\bустанов|\bподключ|\bскача|\bначал", re.IGNORECASE)
# What a folder or a file a command installs from stands for: the project in it, whatever it is named.
_FOLDER = "."
# A version at the end of a repository's name ("humanfriendly-10.0", "p-retry-6.2.0", "lib-v2").
_VERSION = re.compile(r"[-_.]?v?\d+(?:\.\d+)*(?:[-.]?\w+)?$")
# An argument standing for a version, an extra or a registry's tag ("toolz==1.0", "yargs@next", "pkg[dev]").
_ASIDE = re.compile(r"\[.*$|[=<>!~;].*$|(?<=.)@.*$")


def installs_another(question: str, unit: dict, sources: list, chosen: dict | None = None) -> bool:
    """Whether `unit` ({key: sentence or command}) installs packages, none of them the repository's project `question`
    asks to install by its name (a name of the quoted repositories, `sources`). A folder installs the project too
    (`pip install -e .`), unless what the extract quotes already (`chosen`) installs it by its name: then it is how
    its developers install it (python-dotenv's CONTRIBUTING after its README's `pip install python-dotenv`)."""
    asked = _asked_project(question, sources)
    if not asked:
        return False
    installed, by_name = _installed(unit), _installs_by_name(asked, chosen or {})
    return bool(installed) and not any(name == _FOLDER and not by_name or asked in name for name in installed)


def _installed(unit: dict) -> set[str]:
    """The packages `unit`'s commands and sentences install, as `_canonical` writes their names."""
    installed = set()
    for sentence in unit.values():
        if sentence.startswith(COMMAND):
            installed |= {name for line in code_lines(sentence) for match in _COMMAND.finditer(line)
                          for name in _arguments(match.group(1))}
        else:
            installed |= {_canonical(match.group(1)) for match in _PROSE.finditer(sentence)}
    return installed


def installed_already(question: str, unit: dict, sources: list, chosen: dict) -> bool:
    """Whether the extract (`chosen`) answering how to install the project `question` names installs it by its name
    already, and `unit`, of another source, installs nothing: loguru's "How do I install loguru?" quoted `pip install
    loguru` and then its notifier's "Loguru can easily be combined with the great apprise library …" and its code."""
    asked = _asked_project(question, sources)
    return (bool(asked) and _installs_by_name(asked, chosen)
            and not {number for number, _ in unit} & {number for number, _ in chosen} and not _installed(unit))


def _installs_by_name(asked: str, unit: dict) -> bool:
    """Whether `unit` installs the project `asked` (as `_canonical` writes it) by its name."""
    return any(asked in name for name in _installed(unit))


def install_lines_asked(question: str, lines: list[str], sources: list) -> bool:
    """Whether the lines of commands `lines` install the project `question` asks to install by its name: the command
    under "From PyPI:" answers "Как установить humanize?", whose words no English heading shares."""
    asked = _asked_project(question, sources)
    return bool(asked) and any(asked in name for line in lines for match in _COMMAND.finditer(line)
                               for name in _arguments(match.group(1)))


def says_how_to_install(chosen: dict) -> bool:
    """Whether an extract (`chosen`: {key: sentence or command}) says anything of installing: a command or a sentence
    naming installation, a package manager or a registry. filesize's README never says how to install it, and "How do
    I install filesize?" was answered by its option "bits — (boolean) Enables bit sizes, default is false"; backoff's
    neither, and "Как установить backoff?" by an example of its decorators (code, but no command installing)."""
    read = ["\n".join(code_lines(sentence)) if sentence.startswith(COMMAND) else sentence
            for sentence in chosen.values()]
    return any(_INSTALLING.search(text) or _COMMAND.search(text) for text in read)


def asks_to_install(question: str, sources: list) -> bool:
    """Whether `question` asks to install the project of a repository `sources` quote, by its name."""
    return bool(_asked_project(question, sources))


def _asked_project(question: str, sources: list) -> str:
    """The repository's project the question asks to install, as `_canonical` writes it; "" when it asks for none."""
    match = _ASKED.search(question)
    if not match:
        return ""
    projects = {_canonical(_VERSION.sub("", hit.metadata["repo_id"])) for hit in sources
                if (hit.metadata or {}).get("repo_id")}
    asked = _canonical((match.group(1) or match.group(2)).rstrip(".?!"))
    return asked if asked and asked in projects else ""


def _arguments(arguments: str) -> set[str]:
    """The packages a command's arguments name, options and versions left out; a folder or a file installs the
    project in it (`pip install -e .`, `pip install dist/pathspec-0.12.1-py3-none-any.whl`), a requirements file
    what it lists (`pip install -r docs/requirements.txt`: read as its name)."""
    names, words = set(), arguments.split()
    for at, word in enumerate(words):
        word = word.strip("'\"`")
        if not word or word.startswith("-"):
            continue
        if at and words[at - 1] in ("-r", "-c", "--requirement", "--constraint"):
            names.add(_canonical(word))
        elif word.startswith((".", "/", "~")) or "/" in word and not word.startswith("@") and ":" not in word:
            names.add(_FOLDER)
        elif name := _canonical(_ASIDE.sub("", word)):
            names.add(name)
    return names


def _canonical(name: str) -> str:
    """A package's name as registries compare them: lower case, without "-", "_" or "."."""
    return re.sub(r"[-_.]+", "", name.lower())


def installs_only(question: str, chosen: dict) -> bool:
    """Whether an extract (`chosen`: {key: sentence or command}) only installs — every sentence says it installs (not
    only a package manager's name: "npm run test is handled by …"), every command installs packages — while
    `question` asks for something else than installing, setting up or getting the project (`_GETTING`) and names no
    package manager nor registry ("Is it available from PyPI?"): "How do I use
    xmltodict from the command line?" was answered by its README's "For installing xmltodict using Anaconda/Miniconda
    … all you need to do is: `conda install -c conda-forge xmltodict`"."""
    return bool(chosen) and not _GETTING.search(question) and not _INSTALLING.search(question) and all(
        any(_COMMAND.search(line) for line in code_lines(sentence)) if sentence.startswith(COMMAND)
        else _SAYS_INSTALL.search(sentence) for sentence in chosen.values())
