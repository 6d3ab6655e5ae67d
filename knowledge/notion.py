"""Notion workspace exports ("Markdown & CSV" zip) as documents.

Notion names every page `Title <32-hex id>.md`, puts its sub-pages in a folder `Title <id>/`, writes a
database as `Name <id>.csv` (newer exports add `Name <id>_all.csv`, the one with every row) with a
folder of one page per row, and links pages with relative, URL-encoded paths. Here each page becomes
a document identified by its Notion id (`notion:<id>`), titled without the id, whose text starts with
its ancestors' titles as headings (so chunks carry the hierarchy as their heading path), with links
to other pages replaced by the target's title; databases are ingested as tables by the CSV parser;
other supported attachments (PDF, DOCX…) become documents of their own. Uploading a newer export of
the same pages updates what changed (unchanged text is a no-op) and removes the pages that vanished.
"""

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

from django.core.files import File

from knowledge.archives import Member
from knowledge.indexing import parsing
from knowledge.indexing.parsing.images import IMAGE_EXTENSIONS
from knowledge.indexing.parsing.text import decode_text
from knowledge.models import Document, KnowledgeBase

NAME_WITH_ID = re.compile(r"^(?P<title>.*?)\s*(?P<id>[0-9a-f]{32})(?P<all>_all)?$")
LINK = re.compile(r"(?P<image>!?)\[(?P<text>[^\]\n]*)\]\((?P<target>[^)\s]+)\)")
NOTION_URL_ID = re.compile(r"([0-9a-f]{32})(?:[?#].*)?$")
HEADING = re.compile(r"^(#{1,6})(\s)", re.M)


@dataclass
class Page:
    uri: str  # notion:<id>, or notion-file:<page id>/<name> for an attachment
    title: str
    ancestors: list[str]
    root: str  # the id of the top-level page it sits under
    text: str = ""
    member: Member | None = None  # databases and attachments keep their file
    broken_links: list[str] = field(default_factory=list)

    @property
    def path(self) -> str:
        return "/".join([*self.ancestors, self.title])


def split_name(name: str) -> tuple[str, str]:
    """`("Title", "<id>")` for a Notion file or folder name (stem), `(name, "")` for others."""
    match = NAME_WITH_ID.match(name)
    if not match:
        return name, ""
    return match["title"].strip() or "Untitled", match["id"]


def is_export(members: list[Member]) -> bool:
    """Whether an archive's files look like a Notion export: most pages and tables named `Title <id>`."""
    pages = [m for m in members if PurePosixPath(m.path).suffix.lower() in (".md", ".csv")]
    named = [m for m in pages if split_name(PurePosixPath(m.path).stem)[1]]
    return bool(named) and len(named) * 2 >= len(pages)


def read_export(members: list[Member]) -> list[Page]:
    """The export's pages, databases and attachments, with hierarchy and resolved links."""
    titles = _titles(members)
    files = {member.path for member in members}
    pages, databases = [], {}
    for member in members:
        path = PurePosixPath(member.path)
        title, page_id = split_name(path.stem)
        ancestors, parent_ids = _ancestors(path)
        root = (parent_ids or [page_id])[0]
        ext = path.suffix.lower()
        if ext == ".md" and page_id:
            body = decode_text(member.upload.read())
            page = Page(f"notion:{page_id}", title, ancestors, root)
            page.text = _page_text(page, body, str(path.parent), titles, files)
            pages.append(page)
        elif ext == ".csv" and page_id:
            # Newer exports hold `Name <id>.csv` (the current view) and `Name <id>_all.csv` (every row).
            if page_id not in databases or path.stem.endswith("_all"):
                databases[page_id] = Page(f"notion:{page_id}", title, ancestors, root, member=member)
        elif parsing.is_supported(path.name) and ext not in IMAGE_EXTENSIONS and parent_ids:
            pages.append(Page(f"notion-file:{parent_ids[-1]}/{path.name}", path.stem, ancestors, root,
                              member=member))
    return pages + list(databases.values())


def store_export(kb: KnowledgeBase, members: list[Member]) -> tuple[list[int], list[int]]:
    """Pending documents for the export's pages, and the ids of documents whose pages vanished."""
    pages = read_export(members)
    document_ids = [_store(kb, page).pk for page in pages]
    roots = {page.root for page in pages}
    vanished = (Document.objects.filter(knowledge_base=kb, metadata__notion_root__in=sorted(roots))
                .exclude(pk__in=document_ids).values_list("pk", flat=True))
    return document_ids, list(vanished)


def _store(kb: KnowledgeBase, page: Page) -> Document:
    document, _ = Document.objects.get_or_create(
        knowledge_base=kb, source_uri=page.uri, defaults={"source_kind": Document.SourceKind.UPLOAD})
    document.path, document.title = page.path[:1000], page.title[:500]
    document.metadata = {**document.metadata, "notion_root": page.root, "folder": "/".join(page.ancestors),
                         "broken_links": page.broken_links}
    if page.member is not None:
        if document.original_file:
            document.original_file.delete(save=False)
        name = f"{page.title}.csv" if page.uri.startswith("notion:") else PurePosixPath(page.member.path).name
        page.member.upload.seek(0)
        document.original_file.save(name, File(page.member.upload), save=False)
        document.file_size = page.member.upload.size
    else:
        document.text, document.mime, document.file_size = page.text, "text/markdown", len(page.text.encode())
    if document.status != Document.Status.READY:
        document.status = Document.Status.PENDING
    document.save()
    return document


def _titles(members: list[Member]) -> dict[str, str]:
    """Every Notion id named anywhere in the archive (files and folders) with its title."""
    titles = {}
    for member in members:
        path = PurePosixPath(member.path)
        for part in [*path.parts[:-1], path.stem]:
            title, page_id = split_name(part)
            if page_id:
                titles.setdefault(page_id, title)
    return titles


def _ancestors(path: PurePosixPath) -> tuple[list[str], list[str]]:
    """Titles and ids of the page folders above a file (folders without an id, like Export-…, left out)."""
    titles, ids = [], []
    for part in path.parts[:-1]:
        title, page_id = split_name(part)
        if page_id:
            titles.append(title)
            ids.append(page_id)
    return titles, ids


def _page_text(page: Page, body: str, folder: str, titles: dict[str, str], files: set[str]) -> str:
    """The page as Markdown under its ancestors' headings, its own headings moved below them."""
    lines = body.lstrip("\ufeff").split("\n")
    if lines and lines[0].lstrip("# ").strip() == page.title:
        lines = lines[1:]  # Notion repeats the title as the first heading
    depth = len(page.ancestors) + 1
    body = HEADING.sub(lambda m: "#" * min(6, len(m[1]) + depth) + m[2], "\n".join(lines))
    body = LINK.sub(lambda m: _link(m, page, folder, titles, files), body)
    headings = [f"{'#' * min(6, level)} {title}" for level, title in enumerate([*page.ancestors, page.title], 1)]
    return "\n\n".join([*headings, body.strip()]).strip() + "\n"


def _link(match: re.Match, page: Page, folder: str, titles: dict[str, str], files: set[str]) -> str:
    text, target = match["text"], match["target"]
    parts = urlsplit(target)
    if parts.scheme in ("http", "https") and "notion." not in parts.netloc or parts.scheme == "mailto":
        return match[0]  # an outside link stays as written
    if parts.scheme:
        found = NOTION_URL_ID.search(parts.path)
        page_id = found[1] if found else ""
    else:
        resolved = posixpath.normpath(posixpath.join(folder, unquote(parts.path)))
        name = PurePosixPath(resolved)
        page_id = split_name(name.stem)[1] if name.suffix.lower() in (".md", ".csv") else ""
        if not page_id:
            if resolved in files:
                return f"[{'image' if match['image'] else 'file'}: {name.name}]"
            page.broken_links.append(unquote(target))
            return f"[missing {'image' if match['image'] else 'file'}: {name.name}]"
    if page_id not in titles:
        page.broken_links.append(unquote(target))
        return text
    title = titles[page_id]
    return text if text.strip() == title else f"{text} (“{title}”)" if text.strip() else f"“{title}”"
