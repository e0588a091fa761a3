from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.portal_branding import PortalBranding
from ...models.portal_branding_in import PortalBrandingIn
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    *,
    body: PortalBrandingIn,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/portal/branding",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> PortalBranding | Problem | None:
    if response.status_code == 200:
        response_200 = PortalBranding.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[PortalBranding | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: PortalBrandingIn,

) -> Response[PortalBranding | Problem]:
    """ Set the portal's branding and frame-ancestors (replaced whole)

     Set the portal's branding and frame-ancestors (replaced whole)

    Args:
        body (PortalBrandingIn): ``PUT /v1/portal/branding`` (a tenant token): how the tenant's
            customers see the portal,
            replaced whole. ``displayName`` 1..80 printable characters; ``logoUrl`` an ``https://``
            URL
            (no credentials, at most 500 characters); ``accentColour`` ``#rrggbb``, dark enough for
            white text on it (contrast at least 4.5:1); ``frameAncestors``: at most 10 origins
            (``https://host[:port]``) allowed to embed ``/portal/{tenantId}`` in a frame (default
            none:
            the portal cannot be framed). Refusals: ``invalid_display_name``, ``invalid_logo_url``,
            ``invalid_accent_colour``, ``low_contrast_accent``, ``invalid_frame_ancestor``.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PortalBranding | Problem]
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
    body: PortalBrandingIn,

) -> PortalBranding | Problem | None:
    """ Set the portal's branding and frame-ancestors (replaced whole)

     Set the portal's branding and frame-ancestors (replaced whole)

    Args:
        body (PortalBrandingIn): ``PUT /v1/portal/branding`` (a tenant token): how the tenant's
            customers see the portal,
            replaced whole. ``displayName`` 1..80 printable characters; ``logoUrl`` an ``https://``
            URL
            (no credentials, at most 500 characters); ``accentColour`` ``#rrggbb``, dark enough for
            white text on it (contrast at least 4.5:1); ``frameAncestors``: at most 10 origins
            (``https://host[:port]``) allowed to embed ``/portal/{tenantId}`` in a frame (default
            none:
            the portal cannot be framed). Refusals: ``invalid_display_name``, ``invalid_logo_url``,
            ``invalid_accent_colour``, ``low_contrast_accent``, ``invalid_frame_ancestor``.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PortalBranding | Problem
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: PortalBrandingIn,

) -> Response[PortalBranding | Problem]:
    """ Set the portal's branding and frame-ancestors (replaced whole)

     Set the portal's branding and frame-ancestors (replaced whole)

    Args:
        body (PortalBrandingIn): ``PUT /v1/portal/branding`` (a tenant token): how the tenant's
            customers see the portal,
            replaced whole. ``displayName`` 1..80 printable characters; ``logoUrl`` an ``https://``
            URL
            (no credentials, at most 500 characters); ``accentColour`` ``#rrggbb``, dark enough for
            white text on it (contrast at least 4.5:1); ``frameAncestors``: at most 10 origins
            (``https://host[:port]``) allowed to embed ``/portal/{tenantId}`` in a frame (default
            none:
            the portal cannot be framed). Refusals: ``invalid_display_name``, ``invalid_logo_url``,
            ``invalid_accent_colour``, ``low_contrast_accent``, ``invalid_frame_ancestor``.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PortalBranding | Problem]
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
    body: PortalBrandingIn,

) -> PortalBranding | Problem | None:
    """ Set the portal's branding and frame-ancestors (replaced whole)

     Set the portal's branding and frame-ancestors (replaced whole)

    Args:
        body (PortalBrandingIn): ``PUT /v1/portal/branding`` (a tenant token): how the tenant's
            customers see the portal,
            replaced whole. ``displayName`` 1..80 printable characters; ``logoUrl`` an ``https://``
            URL
            (no credentials, at most 500 characters); ``accentColour`` ``#rrggbb``, dark enough for
            white text on it (contrast at least 4.5:1); ``frameAncestors``: at most 10 origins
            (``https://host[:port]``) allowed to embed ``/portal/{tenantId}`` in a frame (default
            none:
            the portal cannot be framed). Refusals: ``invalid_display_name``, ``invalid_logo_url``,
            ``invalid_accent_colour``, ``low_contrast_accent``, ``invalid_frame_ancestor``.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PortalBranding | Problem
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
