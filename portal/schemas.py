"""Shapes shared by every app's API: the error body, and the error responses operations declare."""

from ninja import Schema


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
