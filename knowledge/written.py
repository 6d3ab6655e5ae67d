"""Answers written in the admin: a question and its answer added to a base as an FAQ entry.

Each base keeps one "Written answers" document (`WRITTEN_URI`), a Markdown FAQ with one `##`
question heading per entry; writing an entry appends to it and queues its ingestion, which
re-embeds only the new entry (the others' vectors are reused). From then on the entry answers
its question verbatim, like an entry of an uploaded FAQ. Typical source: the knowledge-gap report.
"""

import re

from django.db import transaction
from django.utils.translation import gettext as _

from knowledge import jobs
from knowledge.exceptions import KnowledgeError
from knowledge.indexing.entries import asks_question
from knowledge.models import Document, Job, KnowledgeBase

WRITTEN_URI = "entries:written"
MAX_QUESTION_CHARS = 500
MAX_ANSWER_CHARS = 8000
_HEADING_START = re.compile(r"^( {0,3})#+", re.M)


def write_entry(kb: KnowledgeBase, *, question: str, answer: str, user=None) -> tuple[Document, Job]:
    """Add `question` with `answer` to the base's written answers and queue its indexing."""
    question, answer = " ".join(question.split()), answer.strip()
    if not question or not answer:
        raise KnowledgeError(_("Write both the question and its answer"))
    if len(question) > MAX_QUESTION_CHARS or len(answer) > MAX_ANSWER_CHARS:
        raise KnowledgeError(_("A question is at most %(question)d characters and an answer %(answer)d")
                             % {"question": MAX_QUESTION_CHARS, "answer": MAX_ANSWER_CHARS})
    if not asks_question(question):
        question += "?"  # a heading that asks is what makes an entry
    # Lines of the answer must not open headings of their own: they would cut the entry.
    answer = _HEADING_START.sub(lambda found: found.group(1), answer)
    with transaction.atomic():
        # Locked: two people writing at once both get their entry in.
        document = (Document.objects.select_for_update()
                    .filter(knowledge_base=kb, source_uri=WRITTEN_URI).first())
        title = document.title if document else _("Written answers")
        text = document.text if document and document.text else f"# {title}\n"
        text = f"{text.rstrip()}\n\n## {question}\n\n{answer}\n"
        return jobs.add_text(kb, title=title, text=text, source_uri=WRITTEN_URI, metadata={"faq": True}, user=user)
