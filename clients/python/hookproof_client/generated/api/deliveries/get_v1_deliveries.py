from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.delivery_log_page import DeliveryLogPage
from ...models.get_v1_deliveries_evidence import GetV1DeliveriesEvidence
from ...models.get_v1_deliveries_state import GetV1DeliveriesState
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast
import datetime



def _get_kwargs(
    *,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
    subscription_id: str | Unset = UNSET,
    event_type: str | Unset = UNSET,
    state: GetV1DeliveriesState | Unset = UNSET,
    evidence: GetV1DeliveriesEvidence | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    event_id: str | Unset = UNSET,
    delivery_id: str | Unset = UNSET,
    id_prefix: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["cursor"] = cursor

    params["subscriptionId"] = subscription_id

    params["eventType"] = event_type

    json_state: str | Unset = UNSET
    if not isinstance(state, Unset):
        json_state = state.value

    params["state"] = json_state

    json_evidence: str | Unset = UNSET
    if not isinstance(evidence, Unset):
        json_evidence = evidence.value

    params["evidence"] = json_evidence

    json_since: str | Unset = UNSET
    if not isinstance(since, Unset):
        json_since = since.isoformat()
    params["since"] = json_since

    json_until: str | Unset = UNSET
    if not isinstance(until, Unset):
        json_until = until.isoformat()
    params["until"] = json_until

    params["eventId"] = event_id

    params["deliveryId"] = delivery_id

    params["idPrefix"] = id_prefix


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/deliveries",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> DeliveryLogPage | Problem | None:
    if response.status_code == 200:
        response_200 = DeliveryLogPage.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())



        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())



        return response_404

    if response.status_code == 405:
        response_405 = Problem.from_dict(response.json())



        return response_405

    if response.status_code == 414:
        response_414 = Problem.from_dict(response.json())



        return response_414

    if response.status_code == 431:
        response_431 = Problem.from_dict(response.json())



        return response_431

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())



        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[DeliveryLogPage | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
    subscription_id: str | Unset = UNSET,
    event_type: str | Unset = UNSET,
    state: GetV1DeliveriesState | Unset = UNSET,
    evidence: GetV1DeliveriesEvidence | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    event_id: str | Unset = UNSET,
    delivery_id: str | Unset = UNSET,
    id_prefix: str | Unset = UNSET,

) -> Response[DeliveryLogPage | Problem]:
    """ The delivery log, newest first: filtered, searched, paged

     The delivery log, newest first: filtered, searched, paged

    Args:
        limit (int | Unset):  Default: 100.
        cursor (str | Unset):
        subscription_id (str | Unset):
        event_type (str | Unset):
        state (GetV1DeliveriesState | Unset):
        evidence (GetV1DeliveriesEvidence | Unset):
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        event_id (str | Unset):
        delivery_id (str | Unset):
        id_prefix (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeliveryLogPage | Problem]
     """


    kwargs = _get_kwargs(
        limit=limit,
cursor=cursor,
subscription_id=subscription_id,
event_type=event_type,
state=state,
evidence=evidence,
since=since,
until=until,
event_id=event_id,
delivery_id=delivery_id,
id_prefix=id_prefix,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
    subscription_id: str | Unset = UNSET,
    event_type: str | Unset = UNSET,
    state: GetV1DeliveriesState | Unset = UNSET,
    evidence: GetV1DeliveriesEvidence | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    event_id: str | Unset = UNSET,
    delivery_id: str | Unset = UNSET,
    id_prefix: str | Unset = UNSET,

) -> DeliveryLogPage | Problem | None:
    """ The delivery log, newest first: filtered, searched, paged

     The delivery log, newest first: filtered, searched, paged

    Args:
        limit (int | Unset):  Default: 100.
        cursor (str | Unset):
        subscription_id (str | Unset):
        event_type (str | Unset):
        state (GetV1DeliveriesState | Unset):
        evidence (GetV1DeliveriesEvidence | Unset):
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        event_id (str | Unset):
        delivery_id (str | Unset):
        id_prefix (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeliveryLogPage | Problem
     """


    return sync_detailed(
        client=client,
limit=limit,
cursor=cursor,
subscription_id=subscription_id,
event_type=event_type,
state=state,
evidence=evidence,
since=since,
until=until,
event_id=event_id,
delivery_id=delivery_id,
id_prefix=id_prefix,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
    subscription_id: str | Unset = UNSET,
    event_type: str | Unset = UNSET,
    state: GetV1DeliveriesState | Unset = UNSET,
    evidence: GetV1DeliveriesEvidence | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    event_id: str | Unset = UNSET,
    delivery_id: str | Unset = UNSET,
    id_prefix: str | Unset = UNSET,

) -> Response[DeliveryLogPage | Problem]:
    """ The delivery log, newest first: filtered, searched, paged

     The delivery log, newest first: filtered, searched, paged

    Args:
        limit (int | Unset):  Default: 100.
        cursor (str | Unset):
        subscription_id (str | Unset):
        event_type (str | Unset):
        state (GetV1DeliveriesState | Unset):
        evidence (GetV1DeliveriesEvidence | Unset):
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        event_id (str | Unset):
        delivery_id (str | Unset):
        id_prefix (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeliveryLogPage | Problem]
     """


    kwargs = _get_kwargs(
        limit=limit,
cursor=cursor,
subscription_id=subscription_id,
event_type=event_type,
state=state,
evidence=evidence,
since=since,
until=until,
event_id=event_id,
delivery_id=delivery_id,
id_prefix=id_prefix,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
    subscription_id: str | Unset = UNSET,
    event_type: str | Unset = UNSET,
    state: GetV1DeliveriesState | Unset = UNSET,
    evidence: GetV1DeliveriesEvidence | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    event_id: str | Unset = UNSET,
    delivery_id: str | Unset = UNSET,
    id_prefix: str | Unset = UNSET,

) -> DeliveryLogPage | Problem | None:
    """ The delivery log, newest first: filtered, searched, paged

     The delivery log, newest first: filtered, searched, paged

    Args:
        limit (int | Unset):  Default: 100.
        cursor (str | Unset):
        subscription_id (str | Unset):
        event_type (str | Unset):
        state (GetV1DeliveriesState | Unset):
        evidence (GetV1DeliveriesEvidence | Unset):
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        event_id (str | Unset):
        delivery_id (str | Unset):
        id_prefix (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeliveryLogPage | Problem
     """


    return (await asyncio_detailed(
        client=client,
limit=limit,
cursor=cursor,
subscription_id=subscription_id,
event_type=event_type,
state=state,
evidence=evidence,
since=since,
until=until,
event_id=event_id,
delivery_id=delivery_id,
id_prefix=id_prefix,

    )).parsed
