"""Acting on parse quality: what keeps a poorly parsed document out of ticket auto-replies, and
a person clearing it by accepting it as it is (or re-parsing it with OCR: the document admin's action).

The report itself is made while parsing (`knowledge/indexing/parsing/quality.py`).
"""

from django.utils.translation import gettext as _

from knowledge.indexing.parsing.quality import describe
from knowledge.models import Document


def auto_reply_blockers(answer) -> list[str]:
    """Why an answer may not be sent automatically: the poorly parsed documents it cites ([] when none)."""
    if answer is None or not getattr(answer, "citations", None):
        return []
    ids = {citation.hit.document_id for citation in answer.citations}
    flagged = Document.objects.needing_attention().filter(pk__in=ids).only("title", "source_uri", "quality")
    return [_("source %(document)s: %(flags)s (accept or re-parse the document)")
            % {"document": doc, "flags": describe(doc.quality.get("flags", []))} for doc in flagged.order_by("pk")]


def accept(documents) -> int:
    """Accept the documents as parsed despite their flags; returns how many were waiting for it."""
    waiting = list(documents.needing_attention())
    for document in waiting:
        document.accept_quality()
    return len(waiting)
