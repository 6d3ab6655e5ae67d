"""Shapes shared by every app's API: the error body, and the error responses operations declare."""

from ninja import Schema
from pydantic import BaseModel


class PlainOut(BaseModel):
    """A response shape filled from plain dicts (search hits, answers, plans): pydantic's own model.

    ninja's `Schema` reads every field of every nested object through its Django-aware getter (for
    model instances); for a search response of six hits that cost 0.196 ms against 0.014 ms here,
    some 5 % of a keyword search request's CPU. Shapes filled from model instances stay `Schema`s.
    """


class FieldError(Schema):
    field: str
    location: str
    message: str
    type: str


class ErrorBody(Schema):
    code: str
    message: str
    fields: list[FieldError] | None = None


class ErrorOut(Schema):
    error: ErrorBody


def errors(*statuses: int) -> dict[int, type[ErrorOut]]:
    """`response=` entries for the error statuses an operation can return, besides 400/401/403/422/429."""
    return dict.fromkeys((400, 401, 403, 422, 429, *statuses), ErrorOut)
