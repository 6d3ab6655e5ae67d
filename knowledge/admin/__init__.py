"""The content manager's admin: knowledge bases, documents, chunks and jobs.

ModelAdmins stay declarative; the pages that are not a model form (uploads, crawls, re-index,
the search playground, job progress) live in `admin_views.py` and are wired here with `get_urls()`.
Every write goes through `knowledge.bases` / `knowledge.jobs`, never through ad-hoc ORM code.

One module per model admin; importing this package registers them all.
"""

from knowledge.admin import bases, chunks, documents, jobs  # noqa: F401 (registers the model admins)
from knowledge.admin.chunks import ChunkAdmin
from knowledge.admin.common import CappedCountPaginator, KnowledgeAdminMixin, pretty_json, status_badge

__all__ = ["CappedCountPaginator", "ChunkAdmin", "KnowledgeAdminMixin", "pretty_json", "status_badge"]
