from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="PendingChallenge")



@_attrs_define
class PendingChallenge:
    """ 
        Attributes:
            challenge_id (str):
            expires_at (str):
            generation (int):
     """

    challenge_id: str
    expires_at: str
    generation: int





    def to_dict(self) -> dict[str, Any]:
        challenge_id = self.challenge_id

        expires_at = self.expires_at

        generation = self.generation


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "challengeId": challenge_id,
            "expiresAt": expires_at,
            "generation": generation,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        challenge_id = d.pop("challengeId")

        expires_at = d.pop("expiresAt")

        generation = d.pop("generation")

        pending_challenge = cls(
            challenge_id=challenge_id,
            expires_at=expires_at,
            generation=generation,
        )

        return pending_challenge

