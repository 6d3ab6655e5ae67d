"""Request and response shapes of the tickets API. Internal staff notes are never shown."""

from datetime import UTC, datetime
from typing import Literal

from django.utils import timezone
from ninja import Field, ModelSchema, Schema
from pydantic import field_validator

from portal.schemas import BodyIn
from portal.stored_text import translated
from tickets.models import Message, Ticket, TicketSource


class TicketIn(BodyIn):
    body: str = Field(min_length=1, max_length=50_000, description="The customer's message.")
    subject: str = Field("", max_length=300, description="Default: the message's first line.")
    customer: str = Field("", max_length=300, description="Name or address of the customer.")
    external_id: str = Field("", max_length=200,
                             description="Id in your system; unique among the tickets your keys submit.")
    metadata: dict = Field(default_factory=dict)


class AgentRef(Schema):
    id: int
    name: str


class TicketOut(ModelSchema):
    agent: AgentRef | None

    class Meta:
        model = Ticket
        fields = ("id", "subject", "customer", "channel", "external_id", "status", "risk_level", "confidence",
                  "refused", "triaged_at", "closed_at", "created_at", "updated_at")


class MessageOut(ModelSchema):
    delivery: Literal[tuple(Message.Delivery.values)] = Field(  # type: ignore[valid-type]
        description="A reply's e-mail: pending, sent or failed (then `delivery_error` says why; pending with a "
                    "`delivery_error`: the SMTP server could not take it for now, it is sent again "
                    "automatically); empty when the reply is not e-mailed.")
    delivery_error: str

    class Meta:
        model = Message
        fields = ("id", "kind", "body", "auto_sent", "generator", "is_current", "sent_at", "created_at")

    @staticmethod
    def resolve_delivery_error(message: Message) -> str:
        return translated(message.delivery_error)  # written by the worker in the portal's language


class SourceOut(ModelSchema):
    message_id: int
    document_id: int | None
    chunk_id: int | None
    knowledge_base_id: int | None

    class Meta:
        model = TicketSource
        fields = ("position", "cited", "knowledge_base_name", "document_title", "source_uri", "section_path",
                  "page", "layer", "content_preview", "content_full", "chunk_position", "distance", "score",
                  "created_at")


class TicketDetailOut(TicketOut):
    risk_reasons: list
    routing_reason: str
    confidence_reasons: list
    trace: list = Field(description="Every triage step: {step, outcome, detail, data, ms}.")
    triage_count: int
    metadata: dict
    messages: list[MessageOut] = Field(description="Customer messages, drafts and replies, oldest first.")
    draft: MessageOut | None = Field(description="The current draft answer, if one waits for review.")
    sources: list[SourceOut] = Field(description="Snapshots of the sources the drafts cite as [n].")


class TicketFilter(Schema):
    status: Literal[tuple(Ticket.Status.values)] | None = None  # type: ignore[valid-type]
    risk_level: Literal["low", "medium", "high"] | None = None
    channel: Literal[tuple(Ticket.Channel.values)] | None = None  # type: ignore[valid-type]
    agent: int | None = None
    external_id: str | None = Field(None, max_length=200)
    created_after: datetime | None = None
    created_before: datetime | None = None

    @field_validator("created_after", "created_before")
    @classmethod
    def in_utc(cls, value: datetime | None) -> datetime | None:
        # PostgreSQL takes UTC offsets up to ±15:59 only; Python's go to ±23:59.
        if value is None:
            return value
        if timezone.is_naive(value):
            value = timezone.make_aware(value)
        try:
            return value.astimezone(UTC)
        except OverflowError:
            raise ValueError("date is out of range") from None
