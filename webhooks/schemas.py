from ninja import Field, ModelSchema

from portal.schemas import BodyIn
from webhooks.models import Delivery, Endpoint, Event

EventName = Event  # TextChoices is a str Enum: the schema lists the allowed values


class EndpointIn(BodyIn):
    # Unknown fields are refused (BodyIn): `"secret": …` or `"is_active": false` would otherwise be ignored
    # while the answer says otherwise.
    name: str = Field(min_length=1, max_length=200)
    url: str = Field(min_length=1, max_length=2000)
    events: list[EventName] = Field(min_length=1, max_length=len(Event.values))


class EndpointPatch(BodyIn):
    # A field this cannot change (the secret, a typo) is an error (BodyIn), not a 200 that changed nothing.
    name: str | None = Field(None, min_length=1, max_length=200)
    url: str | None = Field(None, min_length=1, max_length=2000)
    events: list[EventName] | None = Field(None, min_length=1, max_length=len(Event.values))
    is_active: bool | None = Field(None, description="false: nothing is sent; true: sent again, and the count of "
                                                     "failures in a row starts from 0.")


class EndpointOut(ModelSchema):
    class Meta:
        model = Endpoint
        fields = ("id", "name", "url", "events", "is_active", "consecutive_failures", "disabled_at",
                  "disabled_reason", "created_at", "updated_at")


class EndpointCreated(EndpointOut):
    secret: str = Field(description="Shared secret for X-Portal-Signature; shown here once.")


class DeliveryOut(ModelSchema):
    class Meta:
        model = Delivery
        fields = ("id", "event", "event_id", "status", "attempts", "response_status", "error", "next_attempt_at",
                  "delivered_at", "created_at")
