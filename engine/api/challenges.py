"""``POST /v1/challenges/{challengeId}/response``: a broker challenge's answer (DESIGN.md 13).

No bearer token: the answer authenticates itself (the nonce only a reader of the destination
saw, and the proof under the secret or the receipt key), as a receipt's signature does. The
body is bounded; a wrong, replayed or late answer is refused with its reason code and records
nothing; a valid one activates the subscription.
"""

from __future__ import annotations

from aiohttp import web

from hookproof.schemas.api_out import ChallengeAnswered

from ..challenge import Challenger
from ..challenge.broker import MAX_ANSWER_BYTES
from .body import read_body
from .problems import json_response

__all__ = ["routes"]


def routes(challenger: Challenger) -> list[web.RouteDef]:
    async def post_answer(request: web.Request) -> web.Response:
        body = await read_body(request, MAX_ANSWER_BYTES)
        outcome = await challenger.answer(
            request.match_info["challengeId"], body, actor="challenge-response"
        )
        answered = ChallengeAnswered(
            challenge_id=outcome["challengeId"], passed=outcome["passed"], reason=outcome["reason"]
        )
        return json_response(answered)

    return [web.post("/v1/challenges/{challengeId}/response", post_answer)]
