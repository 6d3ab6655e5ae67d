"""Shapes shared by every app's API: the request bodies' bases, the error body, and the error responses
operations declare."""

from ninja import Schema
from pydantic import BaseModel, ConfigDict


class PlainSchema(BaseModel):
    """A shape validated from plain data — the search, plan and answer requests' JSON bodies, and
    the responses filled from dicts (search hits, answers, plans): pydantic's own model.

    ninja's `Schema` reads every field of every nested object through its Django-aware getter (for
    model instances); for a search response of six hits that cost 0.196 ms against 0.014 ms here,
    some 5 % of a keyword search request's CPU. Shapes filled from model instances stay `Schema`s.
    A view that returns its response as a `PlainSchema` instance skips ninja's validation of it
    altogether (ninja only dumps a model of the declared type).
    """


class BodyIn(Schema):
    """A JSON request body (POST, PATCH, PUT). A field it does not take is refused with 422 `invalid` ("This
    field is not accepted here.") rather than dropped: a typo such as `extrnal_id` would otherwise pass
    unseen (and a retry store a second ticket), and a field the operation cannot set (a webhook's `secret`,
    a base's `slug` on PATCH) would answer success while nothing took it. Every body of the API derives
    from this or `PlainBodyIn`."""

    model_config = ConfigDict(extra="forbid")


class PlainBodyIn(PlainSchema):
    """`BodyIn` for the bodies validated as plain pydantic models (search, plan, answer)."""

    model_config = ConfigDict(extra="forbid")


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
