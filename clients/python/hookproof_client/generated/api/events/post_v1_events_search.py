from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.event_search_page import EventSearchPage
from ...models.problem import Problem
from ...models.search_in import SearchIn
from typing import cast



def _get_kwargs(
    *,
    body: SearchIn,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/events/search",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> EventSearchPage | Problem | None:
    if response.status_code == 200:
        response_200 = EventSearchPage.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[EventSearchPage | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SearchIn,

) -> Response[EventSearchPage | Problem]:
    """ Search events: filters over the event, and conditions on its deliveries (paged, newest first;
    search_too_broad past its scan budget)

     Search events: filters over the event, and conditions on its deliveries (paged, newest first;
    search_too_broad past its scan budget)

    Args:
        body (SearchIn): A search: ``filters`` in the subscriptions' dialects (DESIGN.md section
            16), evaluated
            over the event's CloudEvents attributes and match document, all must hold; ``since`` /
            ``until`` (RFC 3339, on when the delivery was planned or the event accepted; since
            inclusive, until exclusive); ``subscriptionId``, ``consumerId``, ``state`` (a ledger
            state), ``evidence`` (``NONE``, ``ENDPOINT_ACCEPTED``, ``APPLICATION_CONFIRMED``),
            ``statusCode`` (the last attempt's HTTP status), ``reasonCode`` (the last attempt's
            reason code or the dead letter's reason); ``limit`` 1..1000 (default 100) and ``cursor``
            (a ``nextCursor``). On ``/v1/events/search`` the delivery conditions select events with
            at least one such delivery. A search the indexes cannot narrow within its scan budget is
            a 422 ``search_too_broad``; a bad filter, a 400 with the filter compiler's code.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventSearchPage | Problem]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body: SearchIn,

) -> EventSearchPage | Problem | None:
    """ Search events: filters over the event, and conditions on its deliveries (paged, newest first;
    search_too_broad past its scan budget)

     Search events: filters over the event, and conditions on its deliveries (paged, newest first;
    search_too_broad past its scan budget)

    Args:
        body (SearchIn): A search: ``filters`` in the subscriptions' dialects (DESIGN.md section
            16), evaluated
            over the event's CloudEvents attributes and match document, all must hold; ``since`` /
            ``until`` (RFC 3339, on when the delivery was planned or the event accepted; since
            inclusive, until exclusive); ``subscriptionId``, ``consumerId``, ``state`` (a ledger
            state), ``evidence`` (``NONE``, ``ENDPOINT_ACCEPTED``, ``APPLICATION_CONFIRMED``),
            ``statusCode`` (the last attempt's HTTP status), ``reasonCode`` (the last attempt's
            reason code or the dead letter's reason); ``limit`` 1..1000 (default 100) and ``cursor``
            (a ``nextCursor``). On ``/v1/events/search`` the delivery conditions select events with
            at least one such delivery. A search the indexes cannot narrow within its scan budget is
            a 422 ``search_too_broad``; a bad filter, a 400 with the filter compiler's code.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventSearchPage | Problem
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: SearchIn,

) -> Response[EventSearchPage | Problem]:
    """ Search events: filters over the event, and conditions on its deliveries (paged, newest first;
    search_too_broad past its scan budget)

     Search events: filters over the event, and conditions on its deliveries (paged, newest first;
    search_too_broad past its scan budget)

    Args:
        body (SearchIn): A search: ``filters`` in the subscriptions' dialects (DESIGN.md section
            16), evaluated
            over the event's CloudEvents attributes and match document, all must hold; ``since`` /
            ``until`` (RFC 3339, on when the delivery was planned or the event accepted; since
            inclusive, until exclusive); ``subscriptionId``, ``consumerId``, ``state`` (a ledger
            state), ``evidence`` (``NONE``, ``ENDPOINT_ACCEPTED``, ``APPLICATION_CONFIRMED``),
            ``statusCode`` (the last attempt's HTTP status), ``reasonCode`` (the last attempt's
            reason code or the dead letter's reason); ``limit`` 1..1000 (default 100) and ``cursor``
            (a ``nextCursor``). On ``/v1/events/search`` the delivery conditions select events with
            at least one such delivery. A search the indexes cannot narrow within its scan budget is
            a 422 ``search_too_broad``; a bad filter, a 400 with the filter compiler's code.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventSearchPage | Problem]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body: SearchIn,

) -> EventSearchPage | Problem | None:
    """ Search events: filters over the event, and conditions on its deliveries (paged, newest first;
    search_too_broad past its scan budget)

     Search events: filters over the event, and conditions on its deliveries (paged, newest first;
    search_too_broad past its scan budget)

    Args:
        body (SearchIn): A search: ``filters`` in the subscriptions' dialects (DESIGN.md section
            16), evaluated
            over the event's CloudEvents attributes and match document, all must hold; ``since`` /
            ``until`` (RFC 3339, on when the delivery was planned or the event accepted; since
            inclusive, until exclusive); ``subscriptionId``, ``consumerId``, ``state`` (a ledger
            state), ``evidence`` (``NONE``, ``ENDPOINT_ACCEPTED``, ``APPLICATION_CONFIRMED``),
            ``statusCode`` (the last attempt's HTTP status), ``reasonCode`` (the last attempt's
            reason code or the dead letter's reason); ``limit`` 1..1000 (default 100) and ``cursor``
            (a ``nextCursor``). On ``/v1/events/search`` the delivery conditions select events with
            at least one such delivery. A search the indexes cannot narrow within its scan budget is
            a 422 ``search_too_broad``; a bad filter, a 400 with the filter compiler's code.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventSearchPage | Problem
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
