from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.filters_evaluate import FiltersEvaluate
from ...models.filters_evaluated import FiltersEvaluated
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    *,
    body: FiltersEvaluate,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/filters/evaluate",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> FiltersEvaluated | Problem | None:
    if response.status_code == 200:
        response_200 = FiltersEvaluated.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[FiltersEvaluated | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: FiltersEvaluate,

) -> Response[FiltersEvaluated | Problem]:
    """ Try a filters array on one event (a hookproof event or a CloudEvent): each expression's value or
    error kind, whether all held, the digest; nothing is stored

     Try a filters array on one event (a hookproof event or a CloudEvent): each expression's value or
    error kind, whether all held, the digest; nothing is stored

    Args:
        body (FiltersEvaluate): ``POST /v1/filters/evaluate``: a ``filters`` array (DESIGN.md
            section 16) and one
            event to try it on: a hookproof event (the ``POST /v1/events`` body) or a CloudEvent in
            JSON (it has ``specversion``).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FiltersEvaluated | Problem]
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
    body: FiltersEvaluate,

) -> FiltersEvaluated | Problem | None:
    """ Try a filters array on one event (a hookproof event or a CloudEvent): each expression's value or
    error kind, whether all held, the digest; nothing is stored

     Try a filters array on one event (a hookproof event or a CloudEvent): each expression's value or
    error kind, whether all held, the digest; nothing is stored

    Args:
        body (FiltersEvaluate): ``POST /v1/filters/evaluate``: a ``filters`` array (DESIGN.md
            section 16) and one
            event to try it on: a hookproof event (the ``POST /v1/events`` body) or a CloudEvent in
            JSON (it has ``specversion``).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FiltersEvaluated | Problem
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: FiltersEvaluate,

) -> Response[FiltersEvaluated | Problem]:
    """ Try a filters array on one event (a hookproof event or a CloudEvent): each expression's value or
    error kind, whether all held, the digest; nothing is stored

     Try a filters array on one event (a hookproof event or a CloudEvent): each expression's value or
    error kind, whether all held, the digest; nothing is stored

    Args:
        body (FiltersEvaluate): ``POST /v1/filters/evaluate``: a ``filters`` array (DESIGN.md
            section 16) and one
            event to try it on: a hookproof event (the ``POST /v1/events`` body) or a CloudEvent in
            JSON (it has ``specversion``).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FiltersEvaluated | Problem]
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
    body: FiltersEvaluate,

) -> FiltersEvaluated | Problem | None:
    """ Try a filters array on one event (a hookproof event or a CloudEvent): each expression's value or
    error kind, whether all held, the digest; nothing is stored

     Try a filters array on one event (a hookproof event or a CloudEvent): each expression's value or
    error kind, whether all held, the digest; nothing is stored

    Args:
        body (FiltersEvaluate): ``POST /v1/filters/evaluate``: a ``filters`` array (DESIGN.md
            section 16) and one
            event to try it on: a hookproof event (the ``POST /v1/events`` body) or a CloudEvent in
            JSON (it has ``specversion``).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FiltersEvaluated | Problem
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
