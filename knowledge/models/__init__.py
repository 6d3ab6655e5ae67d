"""Knowledge bases, their documents, the chunks those become, and the background jobs."""

from knowledge.models.bases import SERVED, KnowledgeBase, TextSearchConfig
from knowledge.models.chunks import Chunk
from knowledge.models.documents import Document, DocumentQuerySet
from knowledge.models.job_items import EmbeddingBatch, JobItem, ScanPage
from knowledge.models.jobs import Job
from knowledge.models.query_vectors import QueryVector
from knowledge.models.term_statistics import TermStatistics

__all__ = ["SERVED", "Chunk", "Document", "DocumentQuerySet", "EmbeddingBatch", "Job", "JobItem", "KnowledgeBase",
           "QueryVector", "ScanPage", "TermStatistics", "TextSearchConfig"]
