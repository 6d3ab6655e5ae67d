"""Pictures of pages: image files as documents, and PDF pages rendered for OCR, in bounded memory.

Both end as one greyscale picture per page of at most `MAX_OCR_PIXELS`, which is what Tesseract
reads. A PDF page is rendered by pdfium at the scale that fits (never the full size of a hostile
page box); an image file is refused above `MAX_IMAGE_PIXELS` before it is decoded, except a JPEG,
which libjpeg can decode straight to a fraction of its size.
"""

import math
from pathlib import Path

from django.utils.formats import number_format
from django.utils.translation import gettext as _

from knowledge.documents import ParsedDocument
from knowledge.exceptions import FileTooLargeError, ParseError

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".tif", ".tiff")
IMAGE_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".tif": "TIFF", ".tiff": "TIFF"}
# A 300 DPI A3 page is 17.5 megapixels; more than this adds no legible detail, only memory.
MAX_OCR_PIXELS = 25_000_000
# Decoding a PNG or TIFF needs its full size in memory (1 byte per pixel in greyscale, 3 in colour).
MAX_IMAGE_PIXELS = 150_000_000
# A multi-page TIFF is a document of pages; past this many it is refused rather than read for hours.
MAX_IMAGE_FRAMES = 500


def parse_image(path: Path) -> ParsedDocument:
    """An image file as a document whose pages all wait for OCR (no text yet)."""
    from PIL import Image, UnidentifiedImageError

    Image.MAX_IMAGE_PIXELS = None  # we check the size ourselves, with a message that says what to do
    ext = path.suffix.lower()
    try:
        with Image.open(path) as image:
            kind, (width, height) = image.format, image.size
            frames = getattr(image, "n_frames", 1)
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise ParseError(_("%(name)s is damaged or not an image (%(error)s)")
                         % {"name": path.name, "error": exc}) from exc
    if kind != IMAGE_FORMATS[ext]:
        raise ParseError(_("%(name)s is named %(ext)s but is a %(kind)s image; rename it to match")
                         % {"name": path.name, "ext": ext, "kind": kind})
    _check_size(path.name, kind, width, height)
    if frames > MAX_IMAGE_FRAMES:
        raise FileTooLargeError(_("%(name)s has %(count)s pages; the limit is %(limit)s") % {
            "name": path.name, "count": _number(frames), "limit": _number(MAX_IMAGE_FRAMES)})
    metadata = {"page_count": frames, "image_size": [width, height], "ocr_wanted": list(range(1, frames + 1))}
    return ParsedDocument(text="", title=path.stem, mime="", metadata=metadata)


def _check_size(name: str, kind: str, width: int, height: int) -> None:
    if width * height > MAX_IMAGE_PIXELS and kind != "JPEG":
        raise FileTooLargeError(
            _("%(name)s is %(width)s × %(height)s pixels (%(megapixels)s megapixels); images over %(limit)s "
              "megapixels are not read: scale it down (300 DPI is enough) and upload it again")
            % {"name": name, "width": _number(width), "height": _number(height),
               "megapixels": _number(round(width * height / 1e6)), "limit": _number(round(MAX_IMAGE_PIXELS / 1e6))}
        )


def image_page(path: Path, number: int, *, max_pixels: int = MAX_OCR_PIXELS):
    """Page `number` (1-based) of an image file as a greyscale PIL image of at most `max_pixels`, turned
    the way its EXIF orientation says (a phone photo taken in portrait is stored sideways)."""
    from PIL import Image, ImageOps

    Image.MAX_IMAGE_PIXELS = None
    with Image.open(path) as image:
        _check_size(path.name, image.format, *image.size)
        image.seek(number - 1)
        if image.format == "JPEG":
            # libjpeg scales by 1/2, 1/4 or 1/8 while decoding: a huge JPEG never exists at full size.
            image.draft("L", _fit(image.size, max_pixels))
        page = ImageOps.exif_transpose(image).convert("L")
    if page.width * page.height > max_pixels:
        page.thumbnail(_fit(page.size, max_pixels))
    return page


def pdf_page(path: Path, number: int, *, dpi: int, max_pixels: int = MAX_OCR_PIXELS):
    """Page `number` (1-based) of a PDF rendered greyscale at `dpi`, or smaller to fit `max_pixels`."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(path))
    try:
        page = document[number - 1]
        width, height = page.get_size()  # in points, 1/72 inch
        scale = min(dpi / 72, math.sqrt(max_pixels / max(width * height, 1)))
        return page.render(scale=scale, grayscale=True).to_pil().convert("L")
    except pdfium.PdfiumError as exc:
        raise ParseError(_("%(name)s: page %(number)d cannot be rendered (%(error)s)")
                         % {"name": path.name, "number": number, "error": exc}) from exc
    finally:
        document.close()


def _number(value: int) -> str:
    """`value` with thousands grouped the active language's way ("1,000"; "1 000" in Russian)."""
    return number_format(value, force_grouping=True)


def _fit(size: tuple[int, int], max_pixels: int) -> tuple[int, int]:
    width, height = size
    ratio = min(1.0, math.sqrt(max_pixels / max(width * height, 1)))
    return max(1, int(width * ratio)), max(1, int(height * ratio))
