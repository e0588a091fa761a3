from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.replay_dry_run import ReplayDryRun
from ...models.replay_in import ReplayIn
from ...models.replay_view import ReplayView
from typing import cast



def _get_kwargs(
    *,
    body: ReplayIn,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/replays",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | ReplayDryRun | ReplayView | None:
    if response.status_code == 200:
        response_200 = ReplayDryRun.from_dict(response.json())



        return response_200

    if response.status_code == 202:
        response_202 = ReplayView.from_dict(response.json())



        return response_202

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | ReplayDryRun | ReplayView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ReplayIn,

) -> Response[Problem | ReplayDryRun | ReplayView]:
    """ Replay every delivery a search finds, as a job at ratePerSecond (dryRun: 200 with the count and a
    sample)

     Replay every delivery a search finds, as a job at ratePerSecond (dryRun: 200 with the count and a
    sample)

    Args:
        body (ReplayIn): ``POST /v1/replays``: the deliveries a search finds (the same body;
            ``limit`` and
            ``cursor`` are ignored: every match), replayed as a job at ``ratePerSecond`` (default 10,
            at most 100). ``dryRun``: only the count and a sample (up to 10 delivery ids).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ReplayDryRun | ReplayView]
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
    body: ReplayIn,

) -> Problem | ReplayDryRun | ReplayView | None:
    """ Replay every delivery a search finds, as a job at ratePerSecond (dryRun: 200 with the count and a
    sample)

     Replay every delivery a search finds, as a job at ratePerSecond (dryRun: 200 with the count and a
    sample)

    Args:
        body (ReplayIn): ``POST /v1/replays``: the deliveries a search finds (the same body;
            ``limit`` and
            ``cursor`` are ignored: every match), replayed as a job at ``ratePerSecond`` (default 10,
            at most 100). ``dryRun``: only the count and a sample (up to 10 delivery ids).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ReplayDryRun | ReplayView
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ReplayIn,

) -> Response[Problem | ReplayDryRun | ReplayView]:
    """ Replay every delivery a search finds, as a job at ratePerSecond (dryRun: 200 with the count and a
    sample)

     Replay every delivery a search finds, as a job at ratePerSecond (dryRun: 200 with the count and a
    sample)

    Args:
        body (ReplayIn): ``POST /v1/replays``: the deliveries a search finds (the same body;
            ``limit`` and
            ``cursor`` are ignored: every match), replayed as a job at ``ratePerSecond`` (default 10,
            at most 100). ``dryRun``: only the count and a sample (up to 10 delivery ids).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ReplayDryRun | ReplayView]
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
    body: ReplayIn,

) -> Problem | ReplayDryRun | ReplayView | None:
    """ Replay every delivery a search finds, as a job at ratePerSecond (dryRun: 200 with the count and a
    sample)

     Replay every delivery a search finds, as a job at ratePerSecond (dryRun: 200 with the count and a
    sample)

    Args:
        body (ReplayIn): ``POST /v1/replays``: the deliveries a search finds (the same body;
            ``limit`` and
            ``cursor`` are ignored: every match), replayed as a job at ``ratePerSecond`` (default 10,
            at most 100). ``dryRun``: only the count and a sample (up to 10 delivery ids).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ReplayDryRun | ReplayView
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
