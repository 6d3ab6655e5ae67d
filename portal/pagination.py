"""Page-number pagination shared by every list endpoint: `page`, `page_size` in; `count`, `next` out."""

import math
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.http import HttpRequest
from ninja import Field, Schema
from ninja.pagination import PaginationBase


class PagePagination(PaginationBase):
    class Input(Schema):
        page: int = Field(1, ge=1, le=1_000_000)
        page_size: int | None = Field(None, ge=1, le=settings.API["MAX_PAGE_SIZE"],
                                      description=f"Default {settings.API['PAGE_SIZE']}.")

    class Output(Schema):
        count: int
        page: int
        page_size: int
        next: str | None = Field(description="URL of the next page, or null on the last one.")
        previous: str | None
        items: list[Any]

    def paginate_queryset(self, queryset: QuerySet, pagination: Input, request: HttpRequest, **params: Any) -> Any:
        size = pagination.page_size or settings.API["PAGE_SIZE"]
        offset = (pagination.page - 1) * size
        count = self._items_count(queryset)
        return {
            "count": count,
            "page": pagination.page,
            "page_size": size,
            "next": _page_url(request, pagination.page + 1) if offset + size < count else None,
            # Past the end, "previous" is the last page there is (or none when nothing is left).
            "previous": (_page_url(request, min(pagination.page - 1, math.ceil(count / size)))
                         if pagination.page > 1 and count else None),
            "items": list(queryset[offset:offset + size]),
        }


def _page_url(request: HttpRequest, page: int) -> str:
    query = request.GET.copy()
    query["page"] = str(page)
    return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")
