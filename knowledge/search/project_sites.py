"""The addresses a quoted repository gives its project: the links an answer from its sources may pass on.

A repository's sources have `repo:` URIs, no site of their own, so a README's `git clone
https://github.com/acme/widget.git` would be a foreign link to the outgoing check
(`knowledge.outgoing`). The manifests at the repository's root (`package.json`'s homepage,
repository and bugs; `pyproject.toml`'s `[project.urls]`; `setup.cfg`'s url and project_urls) say
where the project lives, as much the project's word as the README is.
"""

from pathlib import PurePosixPath

from knowledge.indexing.layers import manifests, store
from knowledge.models import Document


def project_urls(sources: list) -> list[str]:
    """The addresses the root manifests of the sources' repositories give; [] for sources of no repository."""
    wanted: dict[int, set[str]] = {}
    for source in sources:
        uri = getattr(source, "source_uri", "") or ""
        if uri.startswith("repo:"):
            repo_id = (getattr(source, "metadata", None) or {}).get("repo_id") or uri.split(":")[1]
            wanted.setdefault(source.knowledge_base_id, set()).update(
                store.source_uri(repo_id, name) for name in manifests.MANIFEST_NAMES)
    urls = []
    for kb_id, uris in wanted.items():
        for path, text in Document.objects.filter(knowledge_base_id=kb_id, source_uri__in=uris).values_list(
                "path", "text"):
            urls += manifests.project_urls(PurePosixPath(path).name, text)
    return list(dict.fromkeys(urls))
