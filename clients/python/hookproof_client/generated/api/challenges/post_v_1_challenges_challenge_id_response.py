from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.challenge_answered import ChallengeAnswered
from ...models.post_v1_challenges_challenge_id_response_hookproof_challenge_response_v1 import PostV1ChallengesChallengeIdResponseHookproofChallengeResponseV1
from ...models.problem import Problem
from typing import cast



def _get_kwargs(
    challenge_id: str,
    *,
    body: PostV1ChallengesChallengeIdResponseHookproofChallengeResponseV1,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/challenges/{challenge_id}/response".format(challenge_id=quote(str(challenge_id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ChallengeAnswered | Problem | None:
    if response.status_code == 200:
        response_200 = ChallengeAnswered.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())



        return response_400

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

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())



        return response_413

    if response.status_code == 414:
        response_414 = Problem.from_dict(response.json())



        return response_414

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())



        return response_415

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ChallengeAnswered | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    challenge_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: PostV1ChallengesChallengeIdResponseHookproofChallengeResponseV1,

) -> Response[ChallengeAnswered | Problem]:
    """ Answer a broker destination's challenge (hookproof.challenge-response.v1; no token: the nonce and
    proof authenticate it; at most 8 KiB)

     Answer a broker destination's challenge (hookproof.challenge-response.v1; no token: the nonce and
    proof authenticate it; at most 8 KiB)

    Args:
        challenge_id (str):
        body (PostV1ChallengesChallengeIdResponseHookproofChallengeResponseV1): The body a
            subscriber returns (HTTP 200, Content-Type: application/json) to a hookproof.challenge.v1
            request. The seven bound fields echo the challenge exactly (same values, same JSON types).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ChallengeAnswered | Problem]
     """


    kwargs = _get_kwargs(
        challenge_id=challenge_id,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    challenge_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: PostV1ChallengesChallengeIdResponseHookproofChallengeResponseV1,

) -> ChallengeAnswered | Problem | None:
    """ Answer a broker destination's challenge (hookproof.challenge-response.v1; no token: the nonce and
    proof authenticate it; at most 8 KiB)

     Answer a broker destination's challenge (hookproof.challenge-response.v1; no token: the nonce and
    proof authenticate it; at most 8 KiB)

    Args:
        challenge_id (str):
        body (PostV1ChallengesChallengeIdResponseHookproofChallengeResponseV1): The body a
            subscriber returns (HTTP 200, Content-Type: application/json) to a hookproof.challenge.v1
            request. The seven bound fields echo the challenge exactly (same values, same JSON types).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ChallengeAnswered | Problem
     """


    return sync_detailed(
        challenge_id=challenge_id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    challenge_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: PostV1ChallengesChallengeIdResponseHookproofChallengeResponseV1,

) -> Response[ChallengeAnswered | Problem]:
    """ Answer a broker destination's challenge (hookproof.challenge-response.v1; no token: the nonce and
    proof authenticate it; at most 8 KiB)

     Answer a broker destination's challenge (hookproof.challenge-response.v1; no token: the nonce and
    proof authenticate it; at most 8 KiB)

    Args:
        challenge_id (str):
        body (PostV1ChallengesChallengeIdResponseHookproofChallengeResponseV1): The body a
            subscriber returns (HTTP 200, Content-Type: application/json) to a hookproof.challenge.v1
            request. The seven bound fields echo the challenge exactly (same values, same JSON types).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ChallengeAnswered | Problem]
     """


    kwargs = _get_kwargs(
        challenge_id=challenge_id,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    challenge_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: PostV1ChallengesChallengeIdResponseHookproofChallengeResponseV1,

) -> ChallengeAnswered | Problem | None:
    """ Answer a broker destination's challenge (hookproof.challenge-response.v1; no token: the nonce and
    proof authenticate it; at most 8 KiB)

     Answer a broker destination's challenge (hookproof.challenge-response.v1; no token: the nonce and
    proof authenticate it; at most 8 KiB)

    Args:
        challenge_id (str):
        body (PostV1ChallengesChallengeIdResponseHookproofChallengeResponseV1): The body a
            subscriber returns (HTTP 200, Content-Type: application/json) to a hookproof.challenge.v1
            request. The seven bound fields echo the challenge exactly (same values, same JSON types).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ChallengeAnswered | Problem
     """


    return (await asyncio_detailed(
        challenge_id=challenge_id,
client=client,
body=body,

    )).parsed
