from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.event_type import EventType
from ...models.event_type_in import EventTypeIn
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    topic: str,
    *,
    body: EventTypeIn,
    if_match: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match



    

    

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/event-types/{topic}".format(topic=quote(str(topic), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> EventType | Problem | None:
    if response.status_code == 200:
        response_200 = EventType.from_dict(response.json())



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

    if response.status_code == 408:
        response_408 = Problem.from_dict(response.json())



        return response_408

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())



        return response_409

    if response.status_code == 412:
        response_412 = Problem.from_dict(response.json())



        return response_412

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())



        return response_413

    if response.status_code == 414:
        response_414 = Problem.from_dict(response.json())



        return response_414

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())



        return response_415

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())



        return response_422

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[EventType | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    topic: str,
    *,
    client: AuthenticatedClient,
    body: EventTypeIn,
    if_match: str | Unset = UNSET,

) -> Response[EventType | Problem]:
    """ Define an event type: JSON Schema 2020-12 and an example per major version (If-Match: version,
    optional)

     Define an event type: JSON Schema 2020-12 and an example per major version (If-Match: version,
    optional)

    Args:
        topic (str):
        if_match (str | Unset):
        body (EventTypeIn): ``PUT /v1/event-types/{topic}``: the whole definition (it replaces the
            one before).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventType | Problem]
     """


    kwargs = _get_kwargs(
        topic=topic,
body=body,
if_match=if_match,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    topic: str,
    *,
    client: AuthenticatedClient,
    body: EventTypeIn,
    if_match: str | Unset = UNSET,

) -> EventType | Problem | None:
    """ Define an event type: JSON Schema 2020-12 and an example per major version (If-Match: version,
    optional)

     Define an event type: JSON Schema 2020-12 and an example per major version (If-Match: version,
    optional)

    Args:
        topic (str):
        if_match (str | Unset):
        body (EventTypeIn): ``PUT /v1/event-types/{topic}``: the whole definition (it replaces the
            one before).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventType | Problem
     """


    return sync_detailed(
        topic=topic,
client=client,
body=body,
if_match=if_match,

    ).parsed

async def asyncio_detailed(
    topic: str,
    *,
    client: AuthenticatedClient,
    body: EventTypeIn,
    if_match: str | Unset = UNSET,

) -> Response[EventType | Problem]:
    """ Define an event type: JSON Schema 2020-12 and an example per major version (If-Match: version,
    optional)

     Define an event type: JSON Schema 2020-12 and an example per major version (If-Match: version,
    optional)

    Args:
        topic (str):
        if_match (str | Unset):
        body (EventTypeIn): ``PUT /v1/event-types/{topic}``: the whole definition (it replaces the
            one before).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventType | Problem]
     """


    kwargs = _get_kwargs(
        topic=topic,
body=body,
if_match=if_match,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    topic: str,
    *,
    client: AuthenticatedClient,
    body: EventTypeIn,
    if_match: str | Unset = UNSET,

) -> EventType | Problem | None:
    """ Define an event type: JSON Schema 2020-12 and an example per major version (If-Match: version,
    optional)

     Define an event type: JSON Schema 2020-12 and an example per major version (If-Match: version,
    optional)

    Args:
        topic (str):
        if_match (str | Unset):
        body (EventTypeIn): ``PUT /v1/event-types/{topic}``: the whole definition (it replaces the
            one before).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventType | Problem
     """


    return (await asyncio_detailed(
        topic=topic,
client=client,
body=body,
if_match=if_match,

    )).parsed
