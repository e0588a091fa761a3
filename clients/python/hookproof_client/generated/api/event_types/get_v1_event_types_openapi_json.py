from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.get_v1_event_types_openapi_json_response_200 import GetV1EventTypesOpenapiJsonResponse200
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    
) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/event-types/openapi.json",
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> GetV1EventTypesOpenapiJsonResponse200 | Problem | None:
    if response.status_code == 200:
        response_200 = GetV1EventTypesOpenapiJsonResponse200.from_dict(response.json())



        return response_200

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[GetV1EventTypesOpenapiJsonResponse200 | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,

) -> Response[GetV1EventTypesOpenapiJsonResponse200 | Problem]:
    """ The catalogue as OpenAPI 3.1: one webhooks entry per (topic, major version)

     The catalogue as OpenAPI 3.1: one webhooks entry per (topic, major version)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetV1EventTypesOpenapiJsonResponse200 | Problem]
     """


    kwargs = _get_kwargs(
        
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,

) -> GetV1EventTypesOpenapiJsonResponse200 | Problem | None:
    """ The catalogue as OpenAPI 3.1: one webhooks entry per (topic, major version)

     The catalogue as OpenAPI 3.1: one webhooks entry per (topic, major version)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetV1EventTypesOpenapiJsonResponse200 | Problem
     """


    return sync_detailed(
        client=client,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,

) -> Response[GetV1EventTypesOpenapiJsonResponse200 | Problem]:
    """ The catalogue as OpenAPI 3.1: one webhooks entry per (topic, major version)

     The catalogue as OpenAPI 3.1: one webhooks entry per (topic, major version)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetV1EventTypesOpenapiJsonResponse200 | Problem]
     """


    kwargs = _get_kwargs(
        
    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,

) -> GetV1EventTypesOpenapiJsonResponse200 | Problem | None:
    """ The catalogue as OpenAPI 3.1: one webhooks entry per (topic, major version)

     The catalogue as OpenAPI 3.1: one webhooks entry per (topic, major version)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetV1EventTypesOpenapiJsonResponse200 | Problem
     """


    return (await asyncio_detailed(
        client=client,

    )).parsed
