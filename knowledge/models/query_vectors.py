"""The shared level of the query-vector cache: Django's database cache, in a table this app owns.

`knowledge/search/query_vectors.py` looks a question's vector up here after a miss in its own
process, so a question asked through one web process (or machine) is not embedded again by
another. The columns are those `django.core.cache.backends.db.DatabaseCache` reads and writes
(settings.CACHES["query_vectors"] points at this table); declaring them as a model lets the
migrations create the table (unlogged: a cache needs no crash safety, and its writes then cost no
WAL flush) and lets test runs empty it like any other table.
"""

from django.db import models
from django.utils.translation import gettext_lazy as _


class QueryVector(models.Model):
    cache_key = models.CharField(_("cache key"), max_length=255, primary_key=True)
    value = models.TextField(_("value"))
    expires = models.DateTimeField(_("expires"), db_index=True)

    class Meta:
        db_table = "knowledge_query_vectors"
        verbose_name = _("cached query vector")
        verbose_name_plural = _("cached query vectors")

    def __str__(self) -> str:
        return self.cache_key
