from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast
import datetime






T = TypeVar("T", bound="PostV1ChallengesChallengeIdResponseHookproofChallengeResponseV1")



@_attrs_define
class PostV1ChallengesChallengeIdResponseHookproofChallengeResponseV1:
    """ The body a subscriber returns (HTTP 200, Content-Type: application/json) to a hookproof.challenge.v1 request. The
    seven bound fields echo the challenge exactly (same values, same JSON types).

        Attributes:
            challenge_id (str):
            endpoint_digest (str):
            expires_at (datetime.datetime):
            generation (int):
            key_id (str):
            nonce (str): base64url, 32 random bytes, as sent.
            subscription_id (str):
            type_ (Literal['hookproof.challenge-response.v1']):
            proof (str | Unset): base64url without padding. hmac-sha256 subscriptions: HMAC-SHA256(secret bytes, exact
                challenge body bytes) (43 chars). Subscriptions with a receipt key: Ed25519 signature under the receipt key over
                the exact challenge body bytes (86 chars). Otherwise absent.
     """

    challenge_id: str
    endpoint_digest: str
    expires_at: datetime.datetime
    generation: int
    key_id: str
    nonce: str
    subscription_id: str
    type_: Literal['hookproof.challenge-response.v1']
    proof: str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        challenge_id = self.challenge_id

        endpoint_digest = self.endpoint_digest

        expires_at = self.expires_at.isoformat()

        generation = self.generation

        key_id = self.key_id

        nonce = self.nonce

        subscription_id = self.subscription_id

        type_ = self.type_

        proof = self.proof


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "challengeId": challenge_id,
            "endpointDigest": endpoint_digest,
            "expiresAt": expires_at,
            "generation": generation,
            "keyId": key_id,
            "nonce": nonce,
            "subscriptionId": subscription_id,
            "type": type_,
        })
        if proof is not UNSET:
            field_dict["proof"] = proof

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        challenge_id = d.pop("challengeId")

        endpoint_digest = d.pop("endpointDigest")

        expires_at = datetime.datetime.fromisoformat(d.pop("expiresAt"))




        generation = d.pop("generation")

        key_id = d.pop("keyId")

        nonce = d.pop("nonce")

        subscription_id = d.pop("subscriptionId")

        type_ = cast(Literal['hookproof.challenge-response.v1'] , d.pop("type"))
        if type_ != 'hookproof.challenge-response.v1':
            raise ValueError(f"type must match const 'hookproof.challenge-response.v1', got '{type_}'")

        proof = d.pop("proof", UNSET)

        post_v1_challenges_challenge_id_response_hookproof_challenge_response_v1 = cls(
            challenge_id=challenge_id,
            endpoint_digest=endpoint_digest,
            expires_at=expires_at,
            generation=generation,
            key_id=key_id,
            nonce=nonce,
            subscription_id=subscription_id,
            type_=type_,
            proof=proof,
        )

        return post_v1_challenges_challenge_id_response_hookproof_challenge_response_v1

