"""Reading a Markdown file for the documentation layers: frontmatter, heading sections, kind.

`parse_doc(path, text)` splits the YAML frontmatter off (the same parser as ingestion) and reads the
body into `Section`s — a heading and its lines up to the next heading of any level, outside code
fences, read by `knowledge.indexing.markdown` like the chunker reads them — with 1-based line
numbers in the original file, so every layer row can cite its lines.
"""

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from knowledge.indexing import rst
from knowledge.indexing.markdown import (
    Section,
    document_title,
    list_fences,
    read_sections,
    setext_headings,
    summary_headings,
)
from knowledge.indexing.parsing.text import split_frontmatter

__all__ = ["ParsedDoc", "Section", "classify_doc", "parse_doc", "read_sections"]

LIST_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
BOLD_LABEL = re.compile(r"^\s*(?:[-*+]\s+)?\*\*(?P<label>[^*]+?)\s*:?\s*\*\*\s*:?\s*(?P<rest>.*)$")
KEY_VALUE = re.compile(r"^\s*[-*+]\s+(?P<key>[^:*|]{1,40}?)\s*:\s+(?P<value>\S.*)$")
TABLE_ROW = re.compile(r"^\s*\|(.+)\|\s*$")
TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")

SUMMARY_TITLE = re.compile(r"^(summary|резюме|кратко|краткое описание|аннотация)$", re.IGNORECASE)
SCENARIO_TITLE = re.compile(r"^(сценари[йи]|scenario|workflow|use case)\b\s*[:—–-]?\s*(?P<name>.*)$",
                            re.IGNORECASE)
INTEGRATIONS_TITLE = re.compile(r"^(integrations?|интеграци[яи])$", re.IGNORECASE)

# A release history: CHANGES.rst, CHANGELOG.md, HISTORY.md, NEWS, RELEASE_NOTES.md, docs/releases.md.
CHANGELOG_NAMES = r"change-?log|changes|history|news|releases|release[-_ ]?notes"
CHANGELOG_PATH = re.compile(rf"(^|[:/])({CHANGELOG_NAMES})([-_.][^/]*)?$", re.IGNORECASE)
# A licence: LICENSE, LICENCE.md, COPYING, NOTICE, docs/license.rst.
LICENSE_PATH = re.compile(r"(^|[:/])(licen[cs]e|copying|notice)([-_.][^/]*)?$", re.IGNORECASE)
# The people of a project: AUTHORS.rst, CONTRIBUTORS.md, MAINTAINERS, CREDITS, THANKS.
AUTHORS_PATH = re.compile(r"(^|[:/])(authors|contributors|maintainers|credits|thanks)([-_.][^/]*)?$", re.IGNORECASE)
README_PATH = re.compile(r"(^|/)readme[^/]*$", re.IGNORECASE)
DOC_KIND_BY_PATH = (
    ("readme", README_PATH),
    ("changelog", CHANGELOG_PATH),
    ("license", LICENSE_PATH),
    ("adr", re.compile(r"(^|/)(adrs?|decisions)/", re.IGNORECASE)),
    ("runbook", re.compile(r"runbook|playbook", re.IGNORECASE)),
    ("spec", re.compile(r"(^|/)(specs?|rfcs?|requirements)(/|[-_.])", re.IGNORECASE)),
    ("guide", re.compile(r"guide|tutorial|how-?to|getting[-_]started", re.IGNORECASE)),
)
RELEASE_TITLE = re.compile(r"^\[?(?:v|version |release |версия |релиз )?\d", re.IGNORECASE)
# The files read as documentation (reStructuredText as Markdown, knowledge/indexing/rst.py; MDX as the Markdown it is
# written in, knowledge/indexing/mdx.py).
DOC_EXTENSIONS = (".md", ".markdown", ".mdx", ".rst")
# Documentation named as plain text, read as Markdown: a project's CHANGELOG, NEWS, AUTHORS or LICENSE without an
# extension (or ".txt"), unless a file of that name with one of DOC_EXTENSIONS lies beside it (tabulate's README
# beside its README.md: `shadowed_doc`).
PLAIN_DOC_NAME = re.compile(r"(?:readme|change-?log|changes|history|news|release[-_]?notes|authors|contributors"
                            r"|maintainers|licen[cs]e(?:-[a-z0-9.]+)?|copying|notice)(?:\.txt)?", re.IGNORECASE)


def is_doc_path(rel: str) -> bool:
    """Whether a repository's file is read as documentation (see DOC_EXTENSIONS and PLAIN_DOC_NAME; and a Sphinx
    source named ".txt", `rst.is_source`)."""
    path = PurePosixPath(rel)
    return path.suffix.lower() in DOC_EXTENSIONS or bool(PLAIN_DOC_NAME.fullmatch(path.name)) or rst.is_source(rel)


def unread_doc(rel: str, text: str) -> bool:
    """Whether a file `is_doc_path` names is no documentation after all: a `.txt` file of a documentation folder
    without a section title (docs/requirements.txt)."""
    return rst.is_source(rel) and not rel.lower().endswith(".rst") and not PLAIN_DOC_NAME.fullmatch(
        PurePosixPath(rel).name) and not rst.has_section_title(text)


def shadowed_doc(rel: str, paths) -> bool:
    """Whether a plain-text documentation file has a namesake in Markdown or reStructuredText beside it (`paths`:
    the repository's files), which says the same."""
    path = PurePosixPath(rel)
    if path.suffix.lower() in DOC_EXTENSIONS or not PLAIN_DOC_NAME.fullmatch(path.name):
        return False
    stem = path.name.lower().removesuffix(".txt")
    return any(str(path.parent / f"{name}{suffix}") in paths for name in {stem, stem.upper(), path.stem}
               for suffix in DOC_EXTENSIONS)
DOC_KINDS = {"readme", "changelog", "license", "adr", "runbook", "spec", "guide", "reference", "api"}


@dataclass
class ParsedDoc:
    path: str
    frontmatter: dict
    body: str
    body_line: int  # the file line the body starts on
    sections: list[Section]
    doc_id: str
    title: str
    doc_kind: str

    def meta(self) -> dict:
        """Attributes every documentation row carries (seed 004: D0)."""
        fm = self.frontmatter
        return {
            "document_id": self.doc_id,
            "type": as_text(fm.get("type")),
            "module": as_text(fm.get("module")),
            "domain": as_text(fm.get("domain")),
            "subdomain": as_text(fm.get("subdomain")),
            "tags": as_strings(fm.get("tags")),
            "doc_kind": self.doc_kind,
            "source_path": self.path,
            "artifact_type": "DOCS",
        }

    def descendants(self, section: Section) -> list[Section]:
        """The sections nested under `section` (deeper headings up to the next sibling)."""
        index = self.sections.index(section)
        nested = []
        for other in self.sections[index + 1:]:
            if other.level <= section.level:
                break
            nested.append(other)
        return nested


def parse_doc(path: str, text: str, *, untitled: str = "") -> ParsedDoc:
    """Split frontmatter off and read the body into heading sections. `untitled`: the title of a document that has
    none of its own (a README's, the package its manifest names), else its file's name."""
    body, frontmatter = split_frontmatter(text)
    body_line = text[:len(text) - len(body)].count("\n") + 1
    body = summary_headings(setext_headings(list_fences(body)))  # line for line: the sections' lines stay the file's
    sections = read_sections(body, body_line)
    doc_kind = classify_doc(path, frontmatter, sections)
    title = as_text(frontmatter.get("title")) or document_title(
        [s.title for s in sections if s.level == 1 and not SUMMARY_TITLE.match(s.title)])
    if doc_kind == "changelog" and RELEASE_TITLE.match(title):
        title = ""  # its latest release ("4.21.2 / 2024-11-06", "v2.0.0", "Version 2.2.0"), not the changelog's title
    return ParsedDoc(
        path=path, frontmatter=frontmatter, body=body, body_line=body_line, sections=sections,
        doc_id=as_text(frontmatter.get("id")) or path,
        title=title or untitled or path.rsplit("/", 1)[-1].rsplit(".", 1)[0],
        doc_kind=doc_kind,
    )


def classify_doc(path: str, frontmatter: dict, sections: list[Section]) -> str:
    """readme, changelog, adr, runbook, spec, guide… from the path, then the frontmatter, then content."""
    for kind, pattern in DOC_KIND_BY_PATH:
        if pattern.search(path):
            return kind
    declared = as_text(frontmatter.get("doc_kind") or frontmatter.get("type")).lower()
    if declared in DOC_KINDS:
        return declared
    titles = [s.title for s in sections]
    if any(SCENARIO_TITLE.match(t) or INTEGRATIONS_TITLE.match(t) for t in titles):
        return "spec"
    if {"context", "decision"} <= {t.lower() for t in titles}:
        return "adr"
    return "doc"


def as_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(as_text(v) for v in value)
    return str(value).strip()


def as_strings(value) -> list[str]:
    if value is None or value == "":
        return []
    items = value if isinstance(value, list) else [value]
    return [as_text(item) for item in items if as_text(item)]


def line_of(text: str, offset: int, first_line: int) -> int:
    return first_line + text.count("\n", 0, max(0, offset))


def leading_blank_lines(lines: list[str]) -> int:
    count = 0
    for line in lines:
        if line.strip():
            break
        count += 1
    return count
