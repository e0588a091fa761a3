from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.problem import Problem
from ...models.timeline import Timeline
from ...types import UNSET, Unset
from typing import cast
import datetime



def _get_kwargs(
    id: str,
    *,
    limit: int | Unset = 200,
    cursor: str | Unset = UNSET,
    as_of: datetime.datetime | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["cursor"] = cursor

    json_as_of: str | Unset = UNSET
    if not isinstance(as_of, Unset):
        json_as_of = as_of.isoformat()
    params["asOf"] = json_as_of


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/subscriptions/{id}/timeline".format(id=quote(str(id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | Timeline | None:
    if response.status_code == 200:
        response_200 = Timeline.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | Timeline]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 200,
    cursor: str | Unset = UNSET,
    as_of: datetime.datetime | Unset = UNSET,

) -> Response[Problem | Timeline]:
    """ A subscription's timeline from the log (optionally as of a time; paged)

     A subscription's timeline from the log (optionally as of a time; paged)

    Args:
        id (str):
        limit (int | Unset):  Default: 200.
        cursor (str | Unset):
        as_of (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Timeline]
     """


    kwargs = _get_kwargs(
        id=id,
limit=limit,
cursor=cursor,
as_of=as_of,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 200,
    cursor: str | Unset = UNSET,
    as_of: datetime.datetime | Unset = UNSET,

) -> Problem | Timeline | None:
    """ A subscription's timeline from the log (optionally as of a time; paged)

     A subscription's timeline from the log (optionally as of a time; paged)

    Args:
        id (str):
        limit (int | Unset):  Default: 200.
        cursor (str | Unset):
        as_of (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Timeline
     """


    return sync_detailed(
        id=id,
client=client,
limit=limit,
cursor=cursor,
as_of=as_of,

    ).parsed

async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 200,
    cursor: str | Unset = UNSET,
    as_of: datetime.datetime | Unset = UNSET,

) -> Response[Problem | Timeline]:
    """ A subscription's timeline from the log (optionally as of a time; paged)

     A subscription's timeline from the log (optionally as of a time; paged)

    Args:
        id (str):
        limit (int | Unset):  Default: 200.
        cursor (str | Unset):
        as_of (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Timeline]
     """


    kwargs = _get_kwargs(
        id=id,
limit=limit,
cursor=cursor,
as_of=as_of,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 200,
    cursor: str | Unset = UNSET,
    as_of: datetime.datetime | Unset = UNSET,

) -> Problem | Timeline | None:
    """ A subscription's timeline from the log (optionally as of a time; paged)

     A subscription's timeline from the log (optionally as of a time; paged)

    Args:
        id (str):
        limit (int | Unset):  Default: 200.
        cursor (str | Unset):
        as_of (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Timeline
     """


    return (await asyncio_detailed(
        id=id,
client=client,
limit=limit,
cursor=cursor,
as_of=as_of,

    )).parsed
