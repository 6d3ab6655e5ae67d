"""Package manifests as entrypoints (C3): the commands a package installs and the scripts it runs.

`pyproject.toml` (`[project.scripts]`, `[project.gui-scripts]`, `[tool.poetry.scripts]`), `setup.cfg`
(`[options.entry_points]` `console_scripts` / `gui_scripts`) and `package.json` (`bin`, `scripts`).
A console script `uvicorn = "uvicorn.main:main"` is a `cli` entrypoint named `uvicorn` whose handler
is the function `uvicorn.main.main`; `setup(entry_points={"console_scripts": [...]})` in `setup.py`
goes through `script_entrypoints` too (read by `python_facts`). A manifest has no symbols: its rows
are its source as C0 text chunks and its entrypoints. The package's name it gives is the project's name for the
README beside it (`ProjectIndex.package_names`): "What is attrs?" names a README titled only "README"; what it says
the package is stands for the README's summary when the README says nothing of it (`ProjectIndex.package_descriptions`:
filelock's README is badges and a link to the documentation).
"""

import configparser
import json
import re
import tomllib
from pathlib import PurePosixPath

from knowledge.indexing.layers.code import CodeExtractor, CodeFile, Entrypoint, ProjectIndex, line_chunks

MANIFEST_NAMES = ("pyproject.toml", "setup.cfg", "package.json")
SCRIPT_GROUPS = {"console_scripts": "console_script", "gui_scripts": "gui_script"}
# `name = module.path:object.attr [extra]`, as setuptools writes entry points.
ENTRY_POINT = re.compile(r"^\s*(?P<name>[^=\s][^=]*?)\s*=\s*(?P<target>[\w.]+(?::[\w.]+)?)\s*(\[[^\]]*\])?\s*$")
# npm's shorthands for a repository: "acme/widget" (GitHub), "gitlab:acme/widget".
NPM_REPOSITORY = re.compile(r"^(?:(?P<host>github|gitlab|bitbucket):)?(?P<path>[\w.-]+/[\w.-]+)$")
NPM_HOSTS = {"github": "github.com", "gitlab": "gitlab.com", "bitbucket": "bitbucket.org"}
POETRY_URLS = ("homepage", "repository", "documentation")
NODE_FILE = re.compile(r"\b(?:node|ts-node|tsx|nodemon|bun)\s+(?:--?[\w-]+(?:=\S+)?\s+)*"
                       r"(?P<file>[\w./@-]+\.[cm]?[jt]sx?)\b")


class ManifestExtractor(CodeExtractor):
    language = "manifest"
    extensions = MANIFEST_NAMES  # whole file names, not suffixes

    def parse(self, path: str, text: str, module: str | None = None) -> CodeFile:
        file = CodeFile(path=path, module="", language=self.language, text=text, is_test=False,
                        chunks=line_chunks(text, 1, text.rstrip("\n").count("\n") + 1, "text"))
        name = PurePosixPath(path).name
        try:
            if name == "pyproject.toml":
                found = pyproject_entrypoints(path, text)
            elif name == "setup.cfg":
                found = setup_cfg_entrypoints(path, text)
            else:
                found = package_json_entrypoints(path, text)
        except (ValueError, configparser.Error) as exc:  # TOMLDecodeError and JSONDecodeError are ValueErrors
            file.warnings.append(f"{name} could not be read ({exc}); its scripts are not entrypoints")
            found = []
        file.extra["entrypoints"] = found
        try:
            file.extra["package_name"] = package_name(name, text)
            file.extra["package_description"] = package_description(name, text)
        except (ValueError, configparser.Error):
            pass  # said above, or a manifest that declares scripts only
        return file

    def entrypoints(self, file: CodeFile, index: ProjectIndex) -> list[Entrypoint]:
        return list(file.extra.get("entrypoints", []))


def package_name(name: str, text: str) -> str:
    """The name a manifest gives its package ("" when it gives none): `[project] name` (or poetry's), setup.cfg's
    `[metadata] name`, package.json's `name` without its scope (`@acme/widget` is `widget`)."""
    found = _package_field(name, text, "name")
    return found.rsplit("/", 1)[-1].strip() if isinstance(found, str) else ""


def package_description(name: str, text: str) -> str:
    """What a manifest says its package is, in one line ("" when it says nothing): the `description` of the same
    places as `package_name`."""
    found = _package_field(name, text, "description")
    return " ".join(found.split())[:500] if isinstance(found, str) else ""


def _package_field(name: str, text: str, key: str):
    """A field of the package a manifest declares (any type, as written; None or "" when absent)."""
    if name == "pyproject.toml":
        data = tomllib.loads(text)
        return data.get("project", {}).get(key) or data.get("tool", {}).get("poetry", {}).get(key)
    if name == "setup.cfg":
        parser = configparser.ConfigParser(interpolation=None)
        parser.read_string(text)
        return parser.get("metadata", key, fallback="")
    data = json.loads(text)
    return data.get(key) if isinstance(data, dict) else ""


# The licence a manifest declares, read off its text (a chunk of it, too): pyproject's and setup.cfg's
# `license = "MIT"` or `license = {text = "MIT"}`, package.json's `"license": "MIT"`, a trove classifier's last part.
_LICENSE_FIELDS = (
    re.compile(r"""^\s*license\s*=\s*(?:\{\s*text\s*=\s*)?["']?([^"'{}\n]+?)["']?\s*\}?\s*$""", re.MULTILINE),
    re.compile(r'"license"\s*:\s*"([^"]+)"'),
    re.compile(r"License :: (?:OSI Approved :: )?([^\"'\n]+?)\s*[\"',]*\s*$", re.MULTILINE),
)


# A package's name as a manifest writes it, at the margin: `name = "kit"` (TOML, INI), `  "name": "@acme/kit",` (JSON).
_NAME_FIELD = re.compile(r"""^\s{0,2}["']?name["']?\s*[=:]\s*["']?([@\w./-]+)["']?,?\s*$""", re.MULTILINE)


def license_of(path: str, text: str) -> tuple[str, str]:
    """(the package's name, the licence) a manifest at `path` — or a chunk of it, which may not parse, its name then
    "" — declares; ("", "") when it declares no licence."""
    licence = declared_license(text)
    return (name_of(path, text), licence) if licence else ("", "")


def name_of(path: str, text: str) -> str:
    """The package's name a manifest at `path` gives, or a chunk of it, which may not parse: its name as written
    ("" when it writes none)."""
    try:
        return package_name(PurePosixPath(path).name, text)
    except (ValueError, configparser.Error):  # a chunk of the file (TOML, JSON and INI errors): its name as written
        written = _NAME_FIELD.search(text)
        return written.group(1).rsplit("/", 1)[-1] if written else ""


# What a manifest says its package runs on and works with (`declared_requirements`): pyproject's `requires-python`,
# setup.cfg's and setup.py's `python_requires`, package.json's `engines`, and the versions its trove classifiers list
# ("Programming Language :: Python :: 3.12", "Framework :: Django :: 5.2").
_REQUIRES_PYTHON = re.compile(r"""^\s*(?:requires-python|python_requires)\s*=\s*["']?([^"'\n#]+?)["']?\s*,?\s*$""",
                              re.MULTILINE)
_ENGINES = re.compile(r'"engines"\s*:\s*\{([^{}]*)\}')
_ENGINE = re.compile(r'"([\w.@/-]+)"\s*:\s*"([^"]+)"')
_ENGINE_NAMES = {"node": "Node.js"}
_CLASSIFIER = re.compile(r"(Programming Language :: Python|Framework :: [\w.+ -]+?) :: (\d+(?:\.\d+)*)(?=[\"'\s,])")


def declared_requirements(text: str) -> list[tuple[str, str]]:
    """What a manifest (or a chunk of it) says its package runs on, as (what, how) in the order written: ("Python",
    "requires Python >=3.9"), ("Node.js", "requires Node.js >=18"), ("Django", "is classified for Django 4.2, 5.0 and
    5.1"); a classifier's major version alone ("Python :: 3") says less than its minor ones, and is left out when they
    are listed."""
    said = [("Python", f"requires Python {match.group(1).strip()}") for match in _REQUIRES_PYTHON.finditer(text)]
    for engines in _ENGINES.finditer(text):
        said += [(_ENGINE_NAMES.get(name, name), f"requires {_ENGINE_NAMES.get(name, name)} {version.strip()}")
                 for name, version in _ENGINE.findall(engines.group(1))]
    listed: dict[str, list[str]] = {}
    for kind, version in _CLASSIFIER.findall(text):
        versions = listed.setdefault(kind.rsplit(" :: ", 1)[-1].strip(), [])
        versions.extend([version] if version not in versions else [])
    for what, versions in listed.items():
        minor = [version for version in versions if "." in version]
        written = minor or versions
        said.append((what, f"is classified for {what} {', '.join(written[:-1])}{' and ' if len(written) > 1 else ''}"
                           f"{written[-1]}"))
    return said


# What a manifest says its package depends on (`declared_dependencies`): pyproject's `[project]` `dependencies` (none
# when the table has no such key and none is `dynamic`) or `[tool.poetry.dependencies]`, setup.py's and setup.cfg's
# `install_requires`, package.json's `"dependencies"`.
_TABLE = re.compile(r"^\[([\w.\-\"']+)\]\s*$", re.MULTILINE)
# A list of strings as Python and TOML write it, with comments: its brackets are not a requirement's extras'.
_LIST = r"\[((?:\s|,|#[^\n]*|\"[^\"\n]*\"|'[^'\n]*')*)\]"
_DEPENDENCIES_KEY = re.compile(rf"^dependencies\s*=\s*{_LIST}", re.MULTILINE)
_DYNAMIC = re.compile(r"^dynamic\s*=\s*\[([^\]]*)\]", re.MULTILINE)
_POETRY_DEPENDENCY = re.compile(r"^([\w.-]+)\s*=\s*(.+)$", re.MULTILINE)
# (`install_requires=[…]`, or a name assigned such a list, as `INSTALL_REQUIRES = […]` above the call.)
_INSTALL_REQUIRES = re.compile(rf"\binstall_requires\s*=\s*(?:{_LIST}|([A-Za-z_]\w*))", re.IGNORECASE)
_SETUP_CFG_REQUIRES = re.compile(r"^install_requires\s*=[ \t]*(.*(?:\n[ \t]+\S.*)*)", re.MULTILINE)
_NPM_DEPENDENCIES = re.compile(r'"dependencies"\s*:\s*\{([^{}]*)\}')
_SETUP_CALL = re.compile(r"^\s*(?:setuptools\.)?setup\(", re.MULTILINE)
_STRING = re.compile(r""""([^"\n]*)"|'([^'\n]*)'""")
_COMMENT = re.compile(r"#[^\n]*")


# A manifest's own version, written as a value (not pyproject's `version = {attr = "pkg.__version__"}`): TOML's and
# setup.cfg's `version = "2.2.1"`, setup.py's `version='1.4.0'`, package.json's `"version": "1.0.0"`.
_VERSION_VALUES = {
    "pyproject.toml": re.compile(r"^version\s*=\s*[\"']([^\"'\s]+)[\"']\s*$", re.MULTILINE),
    "setup.cfg": re.compile(r"^version\s*=\s*(\d[^\s;#]*)\s*$", re.MULTILINE),
    "setup.py": re.compile(r"\bversion\s*=\s*[\"'](\d[^\"'\s]*)[\"']"),
    "package.json": re.compile(r"^\s{0,4}\"version\"\s*:\s*\"([^\"]+)\"", re.MULTILINE),
}


def declared_version(name: str, text: str) -> str:
    """The version a manifest named `name` (or a chunk of it) gives its package, as written; "" when it gives none
    (a version read from the code or from the repository's tags)."""
    pattern = _VERSION_VALUES.get(name)
    found = pattern.search(text) if pattern else None
    return found.group(1) if found else ""


# Who a manifest says wrote and maintains its package: pyproject's `authors = [{name = "…"}]` (or `[[project.authors]]`
# tables, Poetry's `authors = ["Bob Green <…>"]`), setup.py's `author="…"`, setup.cfg's `author = …`, package.json's
# `"author": "… <…>"` or `{"name": "…"}`.
_PEOPLE_LIST = re.compile(r"^(authors|maintainers)\s*=\s*\[(.*?)\]\s*$", re.MULTILINE | re.DOTALL)
_PEOPLE_TABLE = re.compile(r"^\[\[(?:project|tool\.poetry)\.(authors|maintainers)\]\]\s*\n(?:[^\[\n]*\n)*?"
                           r"\s*name\s*=\s*[\"']([^\"']+)[\"']", re.MULTILINE)
_PERSON_NAMED = re.compile(r"\bname\s*=\s*[\"']([^\"']+)[\"']|[\"']([^\"'<>@]+?)\s*(?:<[^>]*>)?[\"']")
_PERSON_FIELD = {
    "setup.py": re.compile(r"\b(author|maintainer)\s*=\s*[\"']([^\"']+)[\"']"),
    "setup.cfg": re.compile(r"^(author|maintainer)\s*=\s*([^\n<]+?)\s*$", re.MULTILINE),
    "package.json": re.compile(r"\"(author)\"\s*:\s*(?:\"([^\"<(]+)|\{[^}]*?\"name\"\s*:\s*\"([^\"]+)\")"),
}


def declared_people(name: str, text: str) -> dict[str, list[str]]:
    """Who a manifest named `name` (or a chunk of it) says wrote and maintains its package, by role ("authors",
    "maintainers"), their names only (no addresses), in the order written; {} when it names nobody."""
    people: dict[str, list[str]] = {}
    if name == "pyproject.toml":
        for role, listed in _PEOPLE_LIST.findall(text):
            people.setdefault(role, []).extend(
                (named or written).strip() for named, written in _PERSON_NAMED.findall(listed) if named or written)
        for role, person in _PEOPLE_TABLE.findall(text):
            people.setdefault(role, []).append(person.strip())
    elif pattern := _PERSON_FIELD.get(name):
        for role, *names in pattern.findall(text):
            person = next((each for each in names if each), "").strip()
            people.setdefault(f"{role}s", []).extend([person] if person else [])
    return {role: list(dict.fromkeys(names)) for role, names in people.items() if names}


def declared_dependencies(name: str, text: str) -> list[str] | None:
    """The packages a manifest named `name` (or a chunk of it) says its package depends on, as written
    ("more_itertools >= 8.5.0", "express ^4.19.2"); [] when it says the package depends on none (an empty list,
    pyproject's `[project]` without `dependencies`); None when it says nothing of them."""
    if name == "pyproject.toml":
        return _pyproject_dependencies(text)
    if name == "package.json":
        found = _NPM_DEPENDENCIES.search(text)
        return [f"{package} {version}" for package, version in _ENGINE.findall(found.group(1))] if found else None
    if name == "setup.cfg":
        found = _SETUP_CFG_REQUIRES.search(text)
        return [line.strip() for line in _COMMENT.sub("", found.group(1)).splitlines() if line.strip()] \
            if found else None
    found = _INSTALL_REQUIRES.search(text)  # setup.py: a list, or the name of one; none in its setup() call
    if found and found.group(2):  # a name another chunk may assign: unknown unless this one does
        found = re.search(rf"^{re.escape(found.group(2))}\s*=\s*{_LIST}", text, re.MULTILINE)
        return _strings(found.group(1)) if found else None
    return _strings(found.group(1)) if found else [] if _SETUP_CALL.search(text) else None


def _pyproject_dependencies(text: str) -> list[str] | None:
    headers = list(_TABLE.finditer(text))  # each table's text: from its header to the next one
    tables = {header.group(1): (header.end(), following.start() if following else len(text))
              for header, following in zip(headers, [*headers[1:], None], strict=True)}
    if "tool.poetry.dependencies" in tables:
        start, end = tables["tool.poetry.dependencies"]
        return [f"{package} {_COMMENT.sub('', version).strip().strip(chr(34))}"
                for package, version in _POETRY_DEPENDENCY.findall(text[start:end]) if package.lower() != "python"]
    if "project" not in tables:
        return None
    start, end = tables["project"]
    project = text[start:end]
    found = _DEPENDENCIES_KEY.search(project)
    if found:
        return _strings(found.group(1))
    dynamic = _DYNAMIC.search(project)
    return None if dynamic and "dependencies" in dynamic.group(1) else []


def _strings(listed: str) -> list[str]:
    """The strings a Python or TOML list's text holds, comments left out."""
    return [" ".join((double or single).split()) for double, single in _STRING.findall(_COMMENT.sub("", listed))]


def declared_license(text: str) -> str:
    """The licence a manifest (or a chunk of it) declares ("MIT", "BSD License"), "" when it declares none — a
    `license = {file = "LICENSE.txt"}` names a file, not a licence."""
    for field in _LICENSE_FIELDS:
        for match in field.finditer(text):
            value = match.group(1).strip()
            if value:
                return value
    return ""


def script_entrypoint(name: str, target: str, kind: str, framework: str, declaring: str, line: int,
                      text: str) -> Entrypoint:
    """`uvicorn` → `uvicorn.main:main`: a command whose handler is the object the target names."""
    handler = target.strip().split("[", 1)[0].strip().replace(":", ".")
    return Entrypoint("cli", framework, kind, name.strip(), handler, declaring, text.strip()[:200], line,
                      lang_payload={"target": target.strip()})


def script_entrypoints(groups: dict, framework: str, declaring: str, text: str, first_line: int = 1
                       ) -> list[Entrypoint]:
    """Entry points given as setuptools does: `{"console_scripts": ["name = mod:func", …]}` (or a string
    of such lines, one per line)."""
    found = []
    for group, kind in SCRIPT_GROUPS.items():
        specs = groups.get(group) or []
        for spec in specs.splitlines() if isinstance(specs, str) else specs:
            match = ENTRY_POINT.match(spec) if isinstance(spec, str) else None
            if match:
                line = line_of(text, match.group("name"), first_line)
                found.append(script_entrypoint(match.group("name"), match.group("target"), kind, framework,
                                               declaring, line, spec))
    return found


def pyproject_entrypoints(path: str, text: str) -> list[Entrypoint]:
    data = tomllib.loads(text)
    project, poetry = data.get("project", {}), data.get("tool", {}).get("poetry", {})
    tables = [("project.scripts", project.get("scripts", {}), "console_script", "pyproject"),
              ("project.gui-scripts", project.get("gui-scripts", {}), "gui_script", "pyproject"),
              ("tool.poetry.scripts", poetry.get("scripts", {}), "console_script", "poetry")]
    found = []
    for table, scripts, kind, framework in tables:
        start = line_of(text, f"[{table}]")
        for name, target in scripts.items() if isinstance(scripts, dict) else []:
            target = target.get("reference", "") if isinstance(target, dict) else target  # poetry's long form
            if isinstance(target, str) and target:
                line = line_of(text, name, start)
                found.append(script_entrypoint(name, target, kind, framework, path, line, f'{name} = "{target}"'))
    return found


def setup_cfg_entrypoints(path: str, text: str) -> list[Entrypoint]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    if not parser.has_section("options.entry_points"):
        return []
    groups = dict(parser.items("options.entry_points"))
    return script_entrypoints(groups, "setuptools", path, text, line_of(text, "[options.entry_points]"))


def package_json_entrypoints(path: str, text: str) -> list[Entrypoint]:
    """`bin` commands (handler: the script's module) and `scripts` (`npm run NAME`)."""
    data = json.loads(text)
    if not isinstance(data, dict):
        return []
    folder = PurePosixPath(path).parent
    package = str(data.get("name") or folder.name).rsplit("/", 1)[-1]
    commands = data.get("bin") or {}
    commands = {package: commands} if isinstance(commands, str) else commands
    found = []
    for name, target in commands.items() if isinstance(commands, dict) else []:
        if isinstance(target, str):
            line = line_of(text, f'"{name}"', line_of(text, '"bin"'))
            found.append(Entrypoint("cli", "npm", "bin", name, script_module(folder, target), path,
                                    f'"{name}": "{target}"', line, lang_payload={"target": target}))
    scripts = data.get("scripts") or {}
    for name, command in scripts.items() if isinstance(scripts, dict) else []:
        if isinstance(command, str):
            match = NODE_FILE.search(command)
            line = line_of(text, f'"{name}"', line_of(text, '"scripts"'))
            found.append(Entrypoint("script", "npm", "npm_script", f"npm run {name}",
                                    script_module(folder, match.group("file")) if match else "", path,
                                    f'"{name}": "{command}"'[:200], line, lang_payload={"command": command}))
    return found


def project_urls(name: str, text: str) -> list[str]:
    """The addresses a manifest gives its project — homepage, repository, documentation, issues — as
    `https://…` links, in the manifest's order; [] when it gives none or cannot be read."""
    return list(dict.fromkeys(url for _, url in labelled_urls(name, text)))


def labelled_urls(name: str, text: str) -> list[tuple[str, str]]:
    """The addresses a manifest gives its project with the label it gives each, in lower case ("documentation",
    "tracker", "homepage"; package.json's homepage, repository and bugs by those names), as `https://…` links."""
    try:
        if name == "pyproject.toml":
            data = tomllib.loads(text)
            poetry = data.get("tool", {}).get("poetry", {})
            found = [*_items(data.get("project", {}).get("urls")), *((key, poetry.get(key)) for key in POETRY_URLS),
                     *_items(poetry.get("urls"))]
        elif name == "setup.cfg":
            parser = configparser.ConfigParser(interpolation=None)
            parser.read_string(text)
            found = [("homepage", parser.get("metadata", key, fallback="")) for key in ("url", "home_page")]
            labelled = parser.get("metadata", "project_urls", fallback="")  # "Tracker = https://…" lines
            found += [(label, url) for label, _, url in (line.partition("=") for line in labelled.splitlines())]
        else:
            data = json.loads(text)
            data = data if isinstance(data, dict) else {}
            found = [(key, _npm_url(data.get(key))) for key in ("homepage", "repository", "bugs")]
    except (ValueError, AttributeError, configparser.Error):
        return []
    urls = [(str(label).strip().strip("\"'").lower(), _web_url(value.strip())) for label, value in found
            if isinstance(value, str)]
    return [(label, url) for label, url in urls if url]


def _items(table) -> list:
    return list(table.items()) if isinstance(table, dict) else []


def _npm_url(value) -> str:
    value = value.get("url", "") if isinstance(value, dict) else value
    if not isinstance(value, str):
        return ""
    if match := NPM_REPOSITORY.match(value.strip()):
        return f"https://{NPM_HOSTS[match.group('host') or 'github']}/{match.group('path')}"
    return value


def _web_url(value: str) -> str:
    """`git+https://github.com/acme/widget.git`, `git@github.com:acme/widget.git` → `https://github.com/acme/widget`."""
    value = value.removeprefix("git+")
    if match := re.match(r"^(?:ssh://)?git@([\w.-]+)[:/](.+)$", value):
        value = f"https://{match.group(1)}/{match.group(2)}"
    elif value.startswith("git://"):
        value = "https://" + value.removeprefix("git://")
    if not value.startswith(("https://", "http://")):
        return ""
    return value.removesuffix(".git")


def script_module(folder: PurePosixPath, target: str) -> str:
    """`./bin/cli.js` next to `web/package.json` → the module `web.bin.cli` (as `typescript` names it)."""
    parts = [*(p for p in folder.parts if p != "."), *(p for p in PurePosixPath(target).parts if p != ".")]
    return ".".join(str(PurePosixPath(*parts).with_suffix("")).split("/")) if parts else ""


def line_of(text: str, needle: str, start: int = 1) -> int:
    """The first line at or after `start` that holds `needle` (else `start`), 1-based."""
    for number, line in enumerate(text.split("\n")[start - 1:], start=start):
        if needle in line:
            return number
    return start
