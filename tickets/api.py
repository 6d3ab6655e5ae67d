"""REST operations on tickets: submit one (triage runs in the worker), read it back, list them.

A key limited to some knowledge bases sees only the tickets it submitted; other keys with the
`tickets` scope see every ticket.
"""

from django.db import IntegrityError, transaction
from django.db.models import Prefetch, QuerySet
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from ninja import Query, Router, Status
from ninja.pagination import paginate

from portal.auth import TICKETS, ApiError
from portal.models import ApiKey
from portal.schemas import errors
from tickets import triage
from tickets.models import Message, Ticket
from tickets.schemas import TicketDetailOut, TicketFilter, TicketIn, TicketOut

router = Router(tags=["tickets"])


def visible_tickets(key: ApiKey) -> QuerySet[Ticket]:
    tickets = Ticket.objects.select_related("agent")
    if key.knowledge_base_ids is not None:
        tickets = tickets.filter(metadata__api_key_id=key.pk)
    return tickets


def ticket_detail(key: ApiKey, ticket_id: int) -> Ticket:
    shown = Message.objects.exclude(kind=Message.Kind.NOTE).order_by("created_at", "pk")
    ticket = get_object_or_404(
        visible_tickets(key).prefetch_related(Prefetch("messages", queryset=shown), "sources"), pk=ticket_id)
    ticket.draft = next((m for m in reversed(ticket.messages.all())
                         if m.kind == Message.Kind.DRAFT and m.is_current), None)
    return ticket


@router.post("/tickets", response={202: TicketDetailOut, **errors(409)}, auth=TICKETS)
def create_ticket(request: HttpRequest, payload: TicketIn):
    """Submit a customer message; risk, routing and a drafted answer follow in the worker."""
    owner = request.auth.owner
    # External ids are unique per key owner: the check only ever looks at the caller's own tickets.
    if payload.external_id and Ticket.objects.filter(channel=Ticket.Channel.API, submitted_by=owner,
                                                     external_id=payload.external_id).exists():
        raise duplicate_external_id()
    # The submitting key is recorded after the caller's metadata, so it cannot be forged.
    metadata = {**payload.metadata, "api_key_id": request.auth.pk}
    try:
        with transaction.atomic():
            ticket = triage.submit_ticket(subject=payload.subject, body=payload.body, customer=payload.customer,
                                          channel=Ticket.Channel.API, external_id=payload.external_id,
                                          metadata=metadata, submitted_by=owner)
    except IntegrityError:
        # A request with the same external_id (a client's retry) was stored since the check above.
        raise duplicate_external_id() from None
    return Status(202, ticket_detail(request.auth, ticket.pk))


def duplicate_external_id() -> ApiError:
    return ApiError(409, "duplicate_external_id",
                    _("A ticket with this external_id was already submitted with a key of your account"),
                    [{"field": "external_id", "location": "body", "message": _("already used"), "type": "duplicate"}])


@router.get("/tickets", response={200: list[TicketOut], **errors()}, auth=TICKETS)
@paginate
def list_tickets(request: HttpRequest, filters: Query[TicketFilter]):
    tickets = visible_tickets(request.auth).order_by("-created_at", "-pk")
    for field in ("status", "risk_level", "channel", "external_id"):
        if getattr(filters, field) is not None:
            tickets = tickets.filter(**{field: getattr(filters, field)})
    if filters.agent is not None:
        tickets = tickets.filter(agent_id=filters.agent)
    if filters.created_after:
        tickets = tickets.filter(created_at__gte=filters.created_after)
    if filters.created_before:
        tickets = tickets.filter(created_at__lt=filters.created_before)
    return tickets


@router.get("/tickets/{ticket_id}", response={200: TicketDetailOut, **errors(404)}, auth=TICKETS)
def get_ticket(request: HttpRequest, ticket_id: int):
    return ticket_detail(request.auth, ticket_id)
