"""Knowledge bases: the embedder, chunking and search settings their documents are built with."""

from django.core.validators import MinValueValidator, RegexValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class TextSearchConfig(models.TextChoices):
    # PostgreSQL's `russian` configuration stems Cyrillic words with the Russian Snowball stemmer
    # and ASCII words with the English one, so it suits mixed Russian/English bases.
    RUSSIAN = "russian", _("Russian (and English)")
    ENGLISH = "english", _("English")
    GERMAN = "german", _("German")
    FRENCH = "french", _("French")
    SPANISH = "spanish", _("Spanish")
    SIMPLE = "simple", _("No stemming")


# The bases that serve: pickers (agents, API keys) offer only these (`limit_choices_to`), never a shadow.
SERVED = {"shadow_of__isnull": True}


class KnowledgeBase(models.Model):
    name = models.CharField(_("name"), max_length=200)
    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    description = models.TextField(_("description"), blank=True)
    embedder = models.CharField(_("embedder"), max_length=100, help_text=_("Embedder name from the registry."))
    embedding_dim = models.PositiveIntegerField(_("embedding dim"), validators=[MinValueValidator(1)])
    text_search_config = models.CharField(
        _("text search config"),
        max_length=20, choices=TextSearchConfig.choices, default=TextSearchConfig.RUSSIAN
    )
    chunk_size = models.PositiveIntegerField(_("chunk size"), default=2000, validators=[MinValueValidator(200)])
    chunk_overlap = models.PositiveIntegerField(_("chunk overlap"), default=200)
    chunk_min_size = models.PositiveIntegerField(_("chunk min size"), default=200)
    # Measured when the base is created with an embedder that states no floor (knowledge.indexing.calibration):
    # the similarity of unrelated texts, below which nothing counts as relevant.
    similarity_floor = models.FloatField(
        _("similarity floor"), null=True, blank=True,
        help_text=_("Similarity of unrelated texts under this base's embedder, as measured."),
    )
    # A shadow is a hidden copy built with another embedder or chunking beside the base it belongs to
    # (which keeps serving); listings leave shadows out. See evaluation/shadow.py.
    shadow_of = models.ForeignKey("self", verbose_name=_("shadow of"), on_delete=models.CASCADE, null=True,
                                  blank=True, related_name="shadows",
                                  editable=False)
    ocr_languages = models.CharField(
        _("OCR languages"),
        max_length=100, default="rus+eng",
        validators=[RegexValidator(r"^[a-z_]{3,20}(\+[a-z_]{3,20}){0,5}$", _("Tesseract language codes joined by +, "
                                                                             "e.g. rus+eng"))],
        help_text=_("Languages Tesseract reads scanned pages and images in (Tesseract codes joined by +)."),
    )
    # When the base's own term statistics were last taken (models/term_statistics.py): a search process
    # reads them again when this differs from what it remembers (its rows are read on every search).
    term_statistics_at = models.DateTimeField(_("term statistics taken at"), null=True, blank=True, editable=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("knowledge base")
        verbose_name_plural = _("knowledge bases")
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(chunk_overlap__lt=models.F("chunk_size") / 2),
                name="knowledge_kb_overlap_below_half_chunk",
                violation_error_message=_("The chunk overlap must be less than half the chunk size."),
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def chunking(self) -> dict:
        return {"chunk_size": self.chunk_size, "overlap": self.chunk_overlap, "min_size": self.chunk_min_size}
