"""REST operations on webhook endpoints: register, list, read, change, read deliveries, delete.

An endpoint belongs to its owner (the user of the key that registered it, or whoever staff set in the
admin); registering needs the `write` scope.
"""

from django.db.models import Q, QuerySet
from django.shortcuts import get_object_or_404
from ninja import Router, Status
from ninja.pagination import paginate

from portal.auth import READ, WRITE, ApiError
from portal.models import ApiKey
from portal.schemas import errors
from webhooks import delivery
from webhooks.exceptions import WebhookError
from webhooks.models import Endpoint
from webhooks.schemas import DeliveryOut, EndpointCreated, EndpointIn, EndpointOut, EndpointPatch

router = Router(tags=["webhooks"])


def own_endpoints(key: ApiKey) -> QuerySet[Endpoint]:
    """The endpoints this key registered and, for a key that reaches every base, all its owner's (made
    in the admin or with the owner's other keys). A key limited to some bases sees only its own: the
    owner's other endpoints may hear of bases it may not see."""
    mine = Q(api_key=key)
    if key.knowledge_base_ids is None:
        mine |= Q(owner_id=key.owner_id)
    return Endpoint.objects.filter(mine)


@router.post("/webhooks", response={201: EndpointCreated, **errors()}, auth=WRITE)
def create_endpoint(request, payload: EndpointIn):
    """Register an endpoint; the answer holds its signing secret, shown only here."""
    try:
        endpoint = delivery.create_endpoint(name=payload.name, url=payload.url,
                                            events=[event.value for event in payload.events],
                                            owner=request.auth.owner, api_key=request.auth)
    except WebhookError as exc:
        raise url_refused(exc) from None
    return Status(201, endpoint)


def url_refused(exc: WebhookError) -> ApiError:
    return ApiError(422, "url_refused", str(exc), [{"field": "url", "location": "body", "message": str(exc),
                                                    "type": "refused"}])


@router.get("/webhooks", response={200: list[EndpointOut], **errors()}, auth=READ)
@paginate
def list_endpoints(request):
    return own_endpoints(request.auth).order_by("name", "pk")


@router.get("/webhooks/{endpoint_id}", response={200: EndpointOut, **errors(404)}, auth=READ)
def get_endpoint(request, endpoint_id: int):
    return get_object_or_404(own_endpoints(request.auth), pk=endpoint_id)


@router.patch("/webhooks/{endpoint_id}", response={200: EndpointOut, **errors(404)}, auth=WRITE)
def update_endpoint(request, endpoint_id: int, payload: EndpointPatch):
    """Change the name, URL, events or active flag; the secret stays."""
    endpoint = get_object_or_404(own_endpoints(request.auth), pk=endpoint_id)
    try:
        return delivery.update_endpoint(endpoint, **payload.model_dump(exclude_unset=True, exclude_none=True,
                                                                       mode="json"))
    except WebhookError as exc:
        raise url_refused(exc) from None


@router.get("/webhooks/{endpoint_id}/deliveries", response={200: list[DeliveryOut], **errors(404)}, auth=READ)
@paginate
def list_deliveries(request, endpoint_id: int):
    endpoint = get_object_or_404(own_endpoints(request.auth), pk=endpoint_id)
    return endpoint.deliveries.order_by("-created_at", "-pk")


@router.delete("/webhooks/{endpoint_id}", response={204: None, **errors(404)}, auth=WRITE)
def delete_endpoint(request, endpoint_id: int):
    get_object_or_404(own_endpoints(request.auth), pk=endpoint_id).delete()
    return Status(204, None)
