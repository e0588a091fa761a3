from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.attempt_stats_batch import AttemptStatsBatch
from ...models.get_v1_attempt_stats_interval import GetV1AttemptStatsInterval
from ...models.get_v1_attempt_stats_window import GetV1AttemptStatsWindow
from ...models.problem import Problem
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    subscription_id: list[str],
    window: GetV1AttemptStatsWindow | Unset = UNSET,
    interval: GetV1AttemptStatsInterval | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_subscription_id = subscription_id


    params["subscriptionId"] = json_subscription_id

    json_window: str | Unset = UNSET
    if not isinstance(window, Unset):
        json_window = window.value

    params["window"] = json_window

    json_interval: str | Unset = UNSET
    if not isinstance(interval, Unset):
        json_interval = interval.value

    params["interval"] = json_interval


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/attempt-stats",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> AttemptStatsBatch | Problem | None:
    if response.status_code == 200:
        response_200 = AttemptStatsBatch.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[AttemptStatsBatch | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    subscription_id: list[str],
    window: GetV1AttemptStatsWindow | Unset = UNSET,
    interval: GetV1AttemptStatsInterval | Unset = UNSET,

) -> Response[AttemptStatsBatch | Problem]:
    """ attempt-stats of up to 100 of the caller's subscriptions in one call (subscriptionId repeated; any
    id not the caller's: 404 subscription_not_found; window 24h|7d, interval hour|day: buckets per hour
    or per UTC day, each with its latency percentiles)

     attempt-stats of up to 100 of the caller's subscriptions in one call (subscriptionId repeated; any
    id not the caller's: 404 subscription_not_found; window 24h|7d, interval hour|day: buckets per hour
    or per UTC day, each with its latency percentiles)

    Args:
        subscription_id (list[str]):
        window (GetV1AttemptStatsWindow | Unset):
        interval (GetV1AttemptStatsInterval | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AttemptStatsBatch | Problem]
     """


    kwargs = _get_kwargs(
        subscription_id=subscription_id,
window=window,
interval=interval,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    subscription_id: list[str],
    window: GetV1AttemptStatsWindow | Unset = UNSET,
    interval: GetV1AttemptStatsInterval | Unset = UNSET,

) -> AttemptStatsBatch | Problem | None:
    """ attempt-stats of up to 100 of the caller's subscriptions in one call (subscriptionId repeated; any
    id not the caller's: 404 subscription_not_found; window 24h|7d, interval hour|day: buckets per hour
    or per UTC day, each with its latency percentiles)

     attempt-stats of up to 100 of the caller's subscriptions in one call (subscriptionId repeated; any
    id not the caller's: 404 subscription_not_found; window 24h|7d, interval hour|day: buckets per hour
    or per UTC day, each with its latency percentiles)

    Args:
        subscription_id (list[str]):
        window (GetV1AttemptStatsWindow | Unset):
        interval (GetV1AttemptStatsInterval | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AttemptStatsBatch | Problem
     """


    return sync_detailed(
        client=client,
subscription_id=subscription_id,
window=window,
interval=interval,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    subscription_id: list[str],
    window: GetV1AttemptStatsWindow | Unset = UNSET,
    interval: GetV1AttemptStatsInterval | Unset = UNSET,

) -> Response[AttemptStatsBatch | Problem]:
    """ attempt-stats of up to 100 of the caller's subscriptions in one call (subscriptionId repeated; any
    id not the caller's: 404 subscription_not_found; window 24h|7d, interval hour|day: buckets per hour
    or per UTC day, each with its latency percentiles)

     attempt-stats of up to 100 of the caller's subscriptions in one call (subscriptionId repeated; any
    id not the caller's: 404 subscription_not_found; window 24h|7d, interval hour|day: buckets per hour
    or per UTC day, each with its latency percentiles)

    Args:
        subscription_id (list[str]):
        window (GetV1AttemptStatsWindow | Unset):
        interval (GetV1AttemptStatsInterval | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AttemptStatsBatch | Problem]
     """


    kwargs = _get_kwargs(
        subscription_id=subscription_id,
window=window,
interval=interval,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    subscription_id: list[str],
    window: GetV1AttemptStatsWindow | Unset = UNSET,
    interval: GetV1AttemptStatsInterval | Unset = UNSET,

) -> AttemptStatsBatch | Problem | None:
    """ attempt-stats of up to 100 of the caller's subscriptions in one call (subscriptionId repeated; any
    id not the caller's: 404 subscription_not_found; window 24h|7d, interval hour|day: buckets per hour
    or per UTC day, each with its latency percentiles)

     attempt-stats of up to 100 of the caller's subscriptions in one call (subscriptionId repeated; any
    id not the caller's: 404 subscription_not_found; window 24h|7d, interval hour|day: buckets per hour
    or per UTC day, each with its latency percentiles)

    Args:
        subscription_id (list[str]):
        window (GetV1AttemptStatsWindow | Unset):
        interval (GetV1AttemptStatsInterval | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AttemptStatsBatch | Problem
     """


    return (await asyncio_detailed(
        client=client,
subscription_id=subscription_id,
window=window,
interval=interval,

    )).parsed
