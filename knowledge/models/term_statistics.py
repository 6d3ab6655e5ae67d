"""How common each word is in one knowledge base: the weights its keyword search gives a question's terms.

Keyword search weighs a question's terms by their rarity (an inverse document frequency) and lets
only the informative ones pick candidates (`knowledge/search/term_shares.py`). Those shares were
ANALYZE's statistics of the whole chunk table, so one base's weights moved when another base was
added to the same database. A row here holds one base's own: the lexemes in at least two of its
chunks (the most common first, at most `indexing.term_statistics.LEXEMES_KEPT`), each with the number of
sampled chunks holding it. The worker takes them again after enough of the base changed
(`changed`, counted as documents are swapped in or deleted), and sets the base's
`term_statistics_at`, which tells every process to read them anew.
"""

from django.db import models
from django.utils.translation import gettext_lazy as _

from knowledge.models.bases import KnowledgeBase


class TermStatistics(models.Model):
    knowledge_base = models.OneToOneField(KnowledgeBase, verbose_name=_("knowledge base"), on_delete=models.CASCADE,
                                          primary_key=True, related_name="term_statistics")
    # The configuration the chunks' full-text vectors were stemmed with when these were taken.
    text_search_config = models.CharField(_("text search config"), max_length=20)
    chunks = models.PositiveIntegerField(_("chunks"), help_text=_("The base's chunks when these were taken."))
    sampled = models.PositiveIntegerField(_("sampled chunks"))
    changed = models.PositiveIntegerField(_("chunks changed since"), default=0)
    lexemes = models.JSONField(_("lexemes"), default=dict, help_text=_("Sampled chunks holding each lexeme."))
    taken_at = models.DateTimeField(_("taken at"))

    class Meta:
        db_table = "knowledge_term_statistics"
        verbose_name = _("term statistics")
        verbose_name_plural = _("term statistics")

    def __str__(self) -> str:
        return f"{self.knowledge_base_id}: {len(self.lexemes)} lexemes of {self.sampled} chunks"
