"""The shared level of the query-vector cache: vectors every web process and machine can reuse.

`knowledge/search/query_vectors.py` looks a question's vector up here after a miss in its own
process, so a question asked through one web process (or machine) is not embedded again by
another. A row is the vector's float32 bytes under a key made of the embedder's name and a hash of
its version and the question (the question itself is not stored). The table is unlogged (a cache
needs no crash safety, and its writes then wait for no WAL flush) and kept near
`PORTAL_QUERY_CACHE_SHARED_SIZE` rows, the oldest dropped first.
"""

from django.db import models
from django.utils.translation import gettext_lazy as _


class QueryVector(models.Model):
    key = models.CharField(_("key"), max_length=200, primary_key=True)
    vector = models.BinaryField(_("vector"))
    stored_at = models.DateTimeField(_("stored at"), db_index=True)

    class Meta:
        db_table = "knowledge_query_vectors"
        verbose_name = _("cached query vector")
        verbose_name_plural = _("cached query vectors")

    def __str__(self) -> str:
        return self.key
